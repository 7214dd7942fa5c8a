// RUN: neuron-opt %s | neuron-opt | FileCheck %s
// RUN: neuron-opt %s --mlir-print-op-generic | neuron-opt | FileCheck %s
// Every op of the dialect in its custom syntax survives a round trip.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>) -> tensor<4x8xf32> {
  // CHECK: neuron.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %0 = neuron.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: neuron.sub {{.*}} : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %1 = neuron.sub %0, %c : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  // CHECK: neuron.mul
  %2 = neuron.mul %1, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: neuron.div
  %3 = neuron.div %2, %c : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  // CHECK: neuron.max
  %4 = neuron.max %3, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: neuron.min
  %5 = neuron.min %4, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: neuron.pow
  %6 = neuron.pow %5, %c : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  // CHECK: neuron.compare lt, {{.*}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %m = neuron.compare lt, %6, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  // CHECK: neuron.select {{.*}} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %7 = neuron.select %m, %6, %c : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<16xf32>, %i: tensor<16xi32>) -> (tensor<16xf32>, tensor<16xi32>) {
  // CHECK: neuron.neg %{{.*}} : tensor<16xf32>
  %0 = neuron.neg %x : tensor<16xf32>
  // CHECK-NEXT: neuron.abs
  %1 = neuron.abs %0 : tensor<16xf32>
  // CHECK-NEXT: neuron.exp
  %2 = neuron.exp %1 : tensor<16xf32>
  // CHECK-NEXT: neuron.log
  %3 = neuron.log %2 : tensor<16xf32>
  // CHECK-NEXT: neuron.sqrt
  %4 = neuron.sqrt %3 : tensor<16xf32>
  // CHECK-NEXT: neuron.rsqrt
  %5 = neuron.rsqrt %4 : tensor<16xf32>
  // CHECK-NEXT: neuron.reciprocal
  %6 = neuron.reciprocal %5 : tensor<16xf32>
  // CHECK-NEXT: neuron.square
  %7 = neuron.square %6 : tensor<16xf32>
  // CHECK-NEXT: neuron.tanh
  %8 = neuron.tanh %7 : tensor<16xf32>
  // CHECK-NEXT: neuron.sigmoid
  %9 = neuron.sigmoid %8 : tensor<16xf32>
  // CHECK-NEXT: neuron.erf
  %10 = neuron.erf %9 : tensor<16xf32>
  // CHECK-NEXT: neuron.gelu %{{.*}} approximate = tanh : tensor<16xf32>
  %11 = neuron.gelu %10 approximate = tanh : tensor<16xf32>
  // CHECK-NEXT: neuron.gelu %{{.*}} approximate = erf : tensor<16xf32>
  %12 = neuron.gelu %11 approximate = erf : tensor<16xf32>
  // CHECK-NEXT: neuron.silu
  %13 = neuron.silu %12 : tensor<16xf32>
  // CHECK-NEXT: neuron.relu
  %14 = neuron.relu %13 : tensor<16xf32>
  // CHECK-NEXT: neuron.abs %{{.*}} : tensor<16xi32>
  %15 = neuron.abs %i : tensor<16xi32>
  // CHECK-NEXT: neuron.sin %{{.*}} : tensor<16xf32>
  %16 = neuron.sin %14 : tensor<16xf32>
  // CHECK-NEXT: neuron.cos %{{.*}} : tensor<16xf32>
  %17 = neuron.cos %16 : tensor<16xf32>
  return %17, %15 : tensor<16xf32>, tensor<16xi32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<2x3x1xf32>, tensor<2xf32>, tensor<1x3x4xf32>) {
  // CHECK: neuron.reduce_sum %{{.*}} axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %0 = neuron.reduce_sum %x axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  // CHECK: neuron.reduce_mean %{{.*}} axes = [2] keepdims : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %1 = neuron.reduce_mean %x axes = [2] keepdims : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // CHECK: neuron.reduce_max %{{.*}} axes = [1, 2]
  %2 = neuron.reduce_max %x axes = [1, 2] : tensor<2x3x4xf32> -> tensor<2xf32>
  // CHECK: neuron.reduce_min %{{.*}} axes = [0] keepdims
  %3 = neuron.reduce_min %x axes = [0] keepdims : tensor<2x3x4xf32> -> tensor<1x3x4xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<2x3x1xf32>, tensor<2xf32>, tensor<1x3x4xf32>
}

// CHECK-LABEL: func.func @movement
func.func @movement(%a: tensor<2x4x8xbf16>, %w: tensor<16x8xbf16>, %t: tensor<100x16xf32>, %ids: tensor<1x7xi32>) -> (tensor<2x4x16xbf16>, tensor<1x7x16xf32>, tensor<8x2x4xbf16>, tensor<64xbf16>, tensor<2x2x8xbf16>, tensor<2x8x8xbf16>, tensor<3x2x4x8xbf16>, tensor<2x4x8xf32>) {
  // CHECK: neuron.matmul %{{.*}}, %{{.*}} transpose_rhs : tensor<2x4x8xbf16>, tensor<16x8xbf16> -> tensor<2x4x16xbf16>
  %0 = neuron.matmul %a, %w transpose_rhs : tensor<2x4x8xbf16>, tensor<16x8xbf16> -> tensor<2x4x16xbf16>
  // CHECK: neuron.gather %{{.*}}[%{{.*}}] axis = 0 : tensor<100x16xf32>, tensor<1x7xi32> -> tensor<1x7x16xf32>
  %1 = neuron.gather %t[%ids] axis = 0 : tensor<100x16xf32>, tensor<1x7xi32> -> tensor<1x7x16xf32>
  // CHECK: neuron.transpose %{{.*}} perm = [2, 0, 1] : tensor<2x4x8xbf16> -> tensor<8x2x4xbf16>
  %2 = neuron.transpose %a perm = [2, 0, 1] : tensor<2x4x8xbf16> -> tensor<8x2x4xbf16>
  // CHECK: neuron.reshape %{{.*}} : tensor<2x4x8xbf16> -> tensor<64xbf16>
  %3 = neuron.reshape %a : tensor<2x4x8xbf16> -> tensor<64xbf16>
  // CHECK: neuron.slice %{{.*}} offsets = [0, 1, 0] sizes = [2, 2, 8] strides = [1, 2, 1]
  %4 = neuron.slice %a offsets = [0, 1, 0] sizes = [2, 2, 8] strides = [1, 2, 1] : tensor<2x4x8xbf16> -> tensor<2x2x8xbf16>
  // CHECK: neuron.concat %{{.*}}, %{{.*}} axis = 1 : tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x8x8xbf16>
  %5 = neuron.concat %a, %a axis = 1 : tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x8x8xbf16>
  // CHECK: neuron.broadcast_to %{{.*}} : tensor<2x4x8xbf16> -> tensor<3x2x4x8xbf16>
  %6 = neuron.broadcast_to %a : tensor<2x4x8xbf16> -> tensor<3x2x4x8xbf16>
  // CHECK: neuron.cast %{{.*}} : tensor<2x4x8xbf16> -> tensor<2x4x8xf32>
  %7 = neuron.cast %a : tensor<2x4x8xbf16> -> tensor<2x4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x4x16xbf16>, tensor<1x7x16xf32>, tensor<8x2x4xbf16>, tensor<64xbf16>, tensor<2x2x8xbf16>, tensor<2x8x8xbf16>, tensor<3x2x4x8xbf16>, tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @kernels
func.func @kernels(%x: tensor<1x4x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<1x4x64xf32>, tensor<1x4x64xf32>, tensor<1x4x64xf32>, tensor<1x4x64xf32>, tensor<1x4x64xf32>) {
  // CHECK: neuron.rmsnorm %{{.*}} weight %{{.*}} axes = [2] epsilon = 9.99999997E-7 : (tensor<1x4x64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
  %0 = neuron.rmsnorm %x weight %w axes = [2] epsilon = 1.0e-06 : (tensor<1x4x64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
  // CHECK: neuron.rmsnorm %{{.*}} axes = [2] epsilon = {{.*}} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %1 = neuron.rmsnorm %x axes = [2] epsilon = 1.0e-05 : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  // CHECK: neuron.layernorm %{{.*}} weight %{{.*}} bias %{{.*}} axes = [2] epsilon = {{.*}} : (tensor<1x4x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
  %2 = neuron.layernorm %x weight %w bias %b axes = [2] epsilon = 1.0e-05 : (tensor<1x4x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
  // CHECK: neuron.layernorm %{{.*}} bias %{{.*}} axes = [2]
  %3 = neuron.layernorm %x bias %b axes = [2] epsilon = 1.0e-05 : (tensor<1x4x64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
  // CHECK: neuron.softmax %{{.*}} axis = 2 log : tensor<1x4x64xf32>
  %4 = neuron.softmax %x axis = 2 log : tensor<1x4x64xf32>
  return %0, %1, %2, %3, %4 : tensor<1x4x64xf32>, tensor<1x4x64xf32>, tensor<1x4x64xf32>, tensor<1x4x64xf32>, tensor<1x4x64xf32>
}

// CHECK-LABEL: func.func @constants_and_dynamic
func.func @constants_and_dynamic(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<2xi32>) {
  // CHECK: neuron.constant dense<[1, 2]> : tensor<2xi32>
  %c = neuron.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK: neuron.add {{.*}} : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  %one = neuron.constant dense<1.0> : tensor<64xf32>
  %0 = neuron.add %x, %one : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  return %0, %c : tensor<?x64xf32>, tensor<2xi32>
}

// CHECK-LABEL: func.func @kernel
// CHECK: %[[K:.*]]:2 = neuron.kernel "elementwise"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>):
// CHECK: neuron.yield %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
func.func @kernel(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = neuron.kernel "elementwise" (%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
    %0 = neuron.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    %1 = neuron.tanh %0 : tensor<4x8xf32>
    neuron.yield %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x64xf32>, tensor<2x16xf32>, tensor<2x64xf32>, tensor<8x16xf32>) {
  // CHECK: neuron.all_reduce %{{.*}} group = 4 : tensor<8x16xf32>
  %a = neuron.all_reduce %x group = 4 : tensor<8x16xf32>
  // CHECK: neuron.all_gather %{{.*}} dim = 1 group = 4 : tensor<8x16xf32> -> tensor<8x64xf32>
  %g = neuron.all_gather %x dim = 1 group = 4 : tensor<8x16xf32> -> tensor<8x64xf32>
  // CHECK: neuron.reduce_scatter %{{.*}} dim = 0 group = 4 : tensor<8x16xf32> -> tensor<2x16xf32>
  %r = neuron.reduce_scatter %x dim = 0 group = 4 : tensor<8x16xf32> -> tensor<2x16xf32>
  // CHECK: neuron.all_to_all %{{.*}} split = 0 concat = 1 group = 4 : tensor<8x16xf32> -> tensor<2x64xf32>
  %t = neuron.all_to_all %x split = 0 concat = 1 group = 4 : tensor<8x16xf32> -> tensor<2x64xf32>
  // CHECK: neuron.send_recv %{{.*}} shift = -1 group = 4 cyclic : tensor<8x16xf32>
  %s = neuron.send_recv %x shift = -1 group = 4 cyclic : tensor<8x16xf32>
  return %a, %g, %r, %t, %s : tensor<8x16xf32>, tensor<8x64xf32>, tensor<2x16xf32>, tensor<2x64xf32>, tensor<8x16xf32>
}
