// A maximum over the partition dim (rows) of a 4096x4096 matrix: TensorE
// cannot add it up as a sum, so GpSimdE reduces across partitions.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: cm/k0 reduction: engine-bound (GpSimdE)
// CHECK-NEXT: evidence: GpSimdE active {{(9[0-9])\.[0-9]}} %

func.func @cm(%a: tensor<4096x4096xf32>) -> tensor<1x4096xf32> {
  %0 = neuron.reduce_max %a axes = [0] keepdims : tensor<4096x4096xf32> -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}
