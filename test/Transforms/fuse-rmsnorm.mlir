// RUN: neuron-opt %s --split-input-file --neuron-fuse-rmsnorm --neuron-fusion-remarks --verify-diagnostics | FileCheck %s
// Every RMSNorm form the pass must collapse, and every one it must leave.

// The seed's naive chain: mul, reduce_sum, * 1/N, + eps, rsqrt, mul, * w.
// CHECK-LABEL: func.func @naive
// CHECK-NEXT: %[[R:.*]] = neuron.rmsnorm %arg0 weight %arg1 axes = [2] epsilon = 9.99999997E-7 : (tensor<1x4x64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @naive(%x: tensor<1x4x64xf32>, %w: tensor<64xf32>) -> tensor<1x4x64xf32> {
  %sq = neuron.mul %x, %x : tensor<1x4x64xf32>, tensor<1x4x64xf32> -> tensor<1x4x64xf32>
  %s = neuron.reduce_sum %sq axes = [2] keepdims : tensor<1x4x64xf32> -> tensor<1x4x1xf32>
  %n = neuron.constant dense<1.562500e-02> : tensor<1xf32>
  %m = neuron.mul %s, %n : tensor<1x4x1xf32>, tensor<1xf32> -> tensor<1x4x1xf32>
  %eps = neuron.constant dense<1.0e-06> : tensor<1xf32>
  %v = neuron.add %m, %eps : tensor<1x4x1xf32>, tensor<1xf32> -> tensor<1x4x1xf32>
  %r = neuron.rsqrt %v : tensor<1x4x1xf32>
  %y = neuron.mul %x, %r : tensor<1x4x64xf32>, tensor<1x4x1xf32> -> tensor<1x4x64xf32>
  // expected-remark @+1 {{fused rmsnorm (absorbed 7 ops, saves 6280 bytes)}}
  %z = neuron.mul %w, %y : tensor<64xf32>, tensor<1x4x64xf32> -> tensor<1x4x64xf32>
  return %z : tensor<1x4x64xf32>
}

// -----

// reduce_mean of square(x), eps on the left, no weight.
// CHECK-LABEL: func.func @mean_square
// CHECK-NEXT: neuron.rmsnorm %arg0 axes = [1] epsilon = 9.99999974E-6 : (tensor<8x32xf32>) -> tensor<8x32xf32>
func.func @mean_square(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %sq = neuron.square %x : tensor<8x32xf32>
  %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<8x32xf32> -> tensor<8x1xf32>
  %eps = neuron.constant dense<1.0e-05> : tensor<f32>
  %v = neuron.add %eps, %m : tensor<f32>, tensor<8x1xf32> -> tensor<8x1xf32>
  %r = neuron.rsqrt %v : tensor<8x1xf32>
  // expected-remark @+1 {{fused rmsnorm}}
  %y = neuron.mul %r, %x : tensor<8x1xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// pow(x, 2), reduce_sum without keepdims + reshape, / N, sqrt + reciprocal,
// weight applied before the normalization product.
// CHECK-LABEL: func.func @pow_div_sqrt
// CHECK-NEXT: neuron.rmsnorm %arg0 weight %arg1 axes = [1] epsilon = 9.99999997E-7
func.func @pow_div_sqrt(%x: tensor<8x32xf32>, %w: tensor<32xf32>) -> tensor<8x32xf32> {
  %two = neuron.constant dense<2.0> : tensor<f32>
  %sq = neuron.pow %x, %two : tensor<8x32xf32>, tensor<f32> -> tensor<8x32xf32>
  %s = neuron.reduce_sum %sq axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %s2 = neuron.reshape %s : tensor<8xf32> -> tensor<8x1xf32>
  %n = neuron.constant dense<32.0> : tensor<f32>
  %m = neuron.div %s2, %n : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xf32>
  %eps = neuron.constant dense<1.0e-06> : tensor<f32>
  %v = neuron.add %m, %eps : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xf32>
  %q = neuron.sqrt %v : tensor<8x1xf32>
  %r = neuron.reciprocal %q : tensor<8x1xf32>
  %xw = neuron.mul %x, %w : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  // expected-remark @+1 {{fused rmsnorm}}
  %y = neuron.mul %xw, %r : tensor<8x32xf32>, tensor<8x1xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// x / sqrt(mean + eps), and a chain of two trailing-axis reductions.
// CHECK-LABEL: func.func @divide_two_axes
// CHECK-NEXT: neuron.rmsnorm %arg0 axes = [1, 2]
func.func @divide_two_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %sq = neuron.mul %x, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %s1 = neuron.reduce_sum %sq axes = [2] keepdims : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %s2 = neuron.reduce_sum %s1 axes = [1] keepdims : tensor<2x4x1xf32> -> tensor<2x1x1xf32>
  %k = neuron.constant dense<3.125000e-02> : tensor<f32>
  %m = neuron.mul %k, %s2 : tensor<f32>, tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %q = neuron.sqrt %m : tensor<2x1x1xf32>
  // expected-remark @+1 {{fused rmsnorm}}
  %y = neuron.div %x, %q : tensor<2x4x8xf32>, tensor<2x1x1xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Not fused: the sum is divided by 100 but the reduced dim holds 64.
// CHECK-LABEL: func.func @wrong_count
// CHECK: neuron.rsqrt
func.func @wrong_count(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %sq = neuron.mul %x, %x : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  %s = neuron.reduce_sum %sq axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
  %n = neuron.constant dense<100.0> : tensor<f32>
  %m = neuron.div %s, %n : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  // expected-remark @+1 {{not fused rmsnorm: the sum is divided by 100 but the reduced dims hold 64 elements}}
  %r = neuron.rsqrt %m : tensor<4x1xf32>
  %y = neuron.mul %x, %r : tensor<4x64xf32>, tensor<4x1xf32> -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// Not fused: epsilon is a function argument, not a constant.
// CHECK-LABEL: func.func @eps_not_constant
// CHECK: neuron.rsqrt
func.func @eps_not_constant(%x: tensor<4x64xf32>, %eps: tensor<f32>) -> tensor<4x64xf32> {
  %sq = neuron.mul %x, %x : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
  %v = neuron.add %m, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  // expected-remark @+1 {{not fused rmsnorm: epsilon is not a scalar constant}}
  %r = neuron.rsqrt %v : tensor<4x1xf32>
  %y = neuron.mul %x, %r : tensor<4x64xf32>, tensor<4x1xf32> -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// Not fused: reduced over axis 0 but the product broadcasts along axis 1.
// CHECK-LABEL: func.func @wrong_axes
// CHECK: neuron.rsqrt
func.func @wrong_axes(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %sq = neuron.mul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %m = neuron.reduce_mean %sq axes = [0] : tensor<4x4xf32> -> tensor<4xf32>
  %m2 = neuron.reshape %m : tensor<4xf32> -> tensor<4x1xf32>
  // expected-remark @+1 {{not fused rmsnorm: the reduced axes are not the axes the product normalizes}}
  %r = neuron.rsqrt %m2 : tensor<4x1xf32>
  %y = neuron.mul %x, %r : tensor<4x4xf32>, tensor<4x1xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Not fused: the mean is also returned.
// CHECK-LABEL: func.func @extra_user
// CHECK: neuron.rsqrt
func.func @extra_user(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
  %sq = neuron.mul %x, %x : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
  // expected-remark-re @+1 {{not fused rmsnorm: the mean (neuron.reduce_mean at {{.*}}fuse-rmsnorm.mlir:{{[0-9]+}}:8) has 1 user(s) outside the chain; fusing would have to recompute or also return it}}
  %r = neuron.rsqrt %m : tensor<4x1xf32>
  %y = neuron.mul %x, %r : tensor<4x64xf32>, tensor<4x1xf32> -> tensor<4x64xf32>
  return %y, %m : tensor<4x64xf32>, tensor<4x1xf32>
}

// -----

// Not fused: the reduced axes 0 and 2 are not contiguous.
// CHECK-LABEL: func.func @non_contiguous
// CHECK: neuron.rsqrt
func.func @non_contiguous(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %sq = neuron.mul %x, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %m = neuron.reduce_mean %sq axes = [0, 2] keepdims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  // expected-remark @+1 {{not fused rmsnorm: the reduced axes are not contiguous}}
  %r = neuron.rsqrt %m : tensor<1x4x1xf32>
  %y = neuron.mul %x, %r : tensor<2x4x8xf32>, tensor<1x4x1xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Gemma: the weight is (1 + w), and the compute runs in f32 between casts
// from and back to bf16; the casts stay around the fused op.
// CHECK-LABEL: func.func @gemma_bf16
// CHECK: %[[X:.*]] = neuron.cast %arg0 : tensor<2x16xbf16> -> tensor<2x16xf32>
// CHECK: %[[W:.*]] = neuron.add %arg1, %{{.*}} : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
// CHECK: %[[R:.*]] = neuron.rmsnorm %[[X]] weight %[[W]] axes = [1]
// CHECK: neuron.cast %[[R]] : tensor<2x16xf32> -> tensor<2x16xbf16>
func.func @gemma_bf16(%xb: tensor<2x16xbf16>, %w: tensor<16xf32>) -> tensor<2x16xbf16> {
  %x = neuron.cast %xb : tensor<2x16xbf16> -> tensor<2x16xf32>
  %sq = neuron.square %x : tensor<2x16xf32>
  %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<2x16xf32> -> tensor<2x1xf32>
  %eps = neuron.constant dense<1.0e-06> : tensor<f32>
  %v = neuron.add %m, %eps : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
  %r = neuron.rsqrt %v : tensor<2x1xf32>
  %y = neuron.mul %x, %r : tensor<2x16xf32>, tensor<2x1xf32> -> tensor<2x16xf32>
  %one = neuron.constant dense<1.0> : tensor<f32>
  %w1 = neuron.add %w, %one : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  // expected-remark @+1 {{fused rmsnorm}}
  %z = neuron.mul %y, %w1 : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %zb = neuron.cast %z : tensor<2x16xf32> -> tensor<2x16xbf16>
  return %zb : tensor<2x16xbf16>
}
