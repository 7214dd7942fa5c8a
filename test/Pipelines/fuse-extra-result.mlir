// RUN: neuron-opt %s --neuron-fuse --neuron-fusion-remarks --verify-diagnostics | FileCheck %s
// An RMSNorm whose mean is also returned is not collapsed into neuron.rmsnorm
// (that would lose the mean); the general rule then fuses the chain into one
// kernel that returns the mean as an extra result, because that pays.

// CHECK-LABEL: func.func @rmsnorm_with_mean
// CHECK: %[[K:.*]]:2 = neuron.kernel "reduction"(%arg0)
// CHECK: neuron.reduce_mean
// CHECK: neuron.rsqrt
// CHECK: neuron.yield
// CHECK: return %[[K]]#{{[01]}}, %[[K]]#{{[01]}}
func.func @rmsnorm_with_mean(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x1xf32>) {
  %sq = neuron.mul %x, %x : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x256xf32>
  %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<64x256xf32> -> tensor<64x1xf32>
  // expected-remark-re @+1 {{not fused rmsnorm: the mean (neuron.reduce_mean at {{.*}}) has 1 user(s) outside the chain; fusing would have to recompute or also return it}}
  %r = neuron.rsqrt %m : tensor<64x1xf32>
  // expected-remark @+1 {{fused kernel (reduction) (absorbed 4 ops}}
  %y = neuron.mul %x, %r : tensor<64x256xf32>, tensor<64x1xf32> -> tensor<64x256xf32>
  return %y, %m : tensor<64x256xf32>, tensor<64x1xf32>
}
