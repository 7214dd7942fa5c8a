// The interpreter runs fused kernels: with --fuse the numbers are the same.
// RUN: neuron-run %s --random-inputs --seed 3 | FileCheck %s
// RUN: neuron-run %s --random-inputs --seed 3 --fuse | FileCheck %s
// RUN: neuron-opt %s --neuron-fuse | FileCheck %s --check-prefix=IR
// Both runs must print exactly these values.
// CHECK: output #0: tensor<16x64xf32>  min=-0.98179 max=0.995568 mean=0.0249049
// CHECK-NEXT: first: [0.045677, 0.0763744, 0.13224, -0.116293, -0.0481195, 0.30489, ...]
// IR: neuron.kernel "matmul-epilogue"
// IR: neuron.kernel "rmsnorm-epilogue"
func.func @layer(%a: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>, %g: tensor<64xf32>) -> tensor<16x64xf32> {
  %0 = neuron.matmul %a, %w : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = neuron.add %0, %b : tensor<16x64xf32>, tensor<64xf32> -> tensor<16x64xf32>
  %s = neuron.sigmoid %1 : tensor<16x64xf32>
  %2 = neuron.mul %1, %s : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %sq = neuron.mul %2, %2 : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<16x64xf32> -> tensor<16x1xf32>
  %eps = neuron.constant dense<1.0e-05> : tensor<f32>
  %v = neuron.add %m, %eps : tensor<16x1xf32>, tensor<f32> -> tensor<16x1xf32>
  %r = neuron.rsqrt %v : tensor<16x1xf32>
  %y = neuron.mul %2, %r : tensor<16x64xf32>, tensor<16x1xf32> -> tensor<16x64xf32>
  %z = neuron.mul %y, %g : tensor<16x64xf32>, tensor<64xf32> -> tensor<16x64xf32>
  %t = neuron.tanh %z : tensor<16x64xf32>
  return %t : tensor<16x64xf32>
}
