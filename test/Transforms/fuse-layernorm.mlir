// RUN: neuron-opt %s --split-input-file --neuron-fuse-rmsnorm --neuron-fuse-layernorm --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// (x - mean) * rsqrt(mean((x - mean)^2) + eps) * w + b, all spelled out.
// CHECK-LABEL: func.func @layernorm
// CHECK-NEXT: %[[L:.*]] = neuron.layernorm %arg0 weight %arg1 bias %arg2 axes = [1] epsilon = 9.99999974E-6 : (tensor<8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: return %[[L]]
func.func @layernorm(%x: tensor<8x32xf32>, %w: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %m = neuron.reduce_mean %x axes = [1] keepdims : tensor<8x32xf32> -> tensor<8x1xf32>
  %d = neuron.sub %x, %m : tensor<8x32xf32>, tensor<8x1xf32> -> tensor<8x32xf32>
  %sq = neuron.mul %d, %d : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  %s = neuron.reduce_sum %sq axes = [1] keepdims : tensor<8x32xf32> -> tensor<8x1xf32>
  %n = neuron.constant dense<3.125000e-02> : tensor<f32>
  %var = neuron.mul %s, %n : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xf32>
  %eps = neuron.constant dense<1.0e-05> : tensor<f32>
  %v = neuron.add %var, %eps : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xf32>
  %r = neuron.rsqrt %v : tensor<8x1xf32>
  %y = neuron.mul %d, %r : tensor<8x32xf32>, tensor<8x1xf32> -> tensor<8x32xf32>
  // expected-remark @+1 {{fused rmsnorm (absorbed 7 ops}}
  %z = neuron.mul %y, %w : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  // expected-remark @+1 {{fused layernorm (absorbed 10 ops, saves 5184 bytes)}}
  %o = neuron.add %z, %b : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}

// -----

// Centred by something that is not the mean over the normalized axis: stays
// an rmsnorm of the difference, with the reason.
// CHECK-LABEL: func.func @not_the_mean
// CHECK: neuron.sub
// CHECK: neuron.rmsnorm
func.func @not_the_mean(%x: tensor<8x32xf32>, %c: tensor<8x1xf32>) -> tensor<8x32xf32> {
  %d = neuron.sub %x, %c : tensor<8x32xf32>, tensor<8x1xf32> -> tensor<8x32xf32>
  %sq = neuron.square %d : tensor<8x32xf32>
  %var = neuron.reduce_mean %sq axes = [1] keepdims : tensor<8x32xf32> -> tensor<8x1xf32>
  // expected-remark @+1 {{not fused layernorm: the normalized input is a difference, but not x - mean(x) over the normalized axes}}
  %r = neuron.rsqrt %var : tensor<8x1xf32>
  // expected-remark @+1 {{fused rmsnorm (absorbed 4 ops}}
  %y = neuron.mul %d, %r : tensor<8x32xf32>, tensor<8x1xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
