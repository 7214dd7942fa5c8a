// 512 independent 128x128x8 matmuls: each multiply is followed by its
// eviction on ScalarE, which waits for it; no resource is a fifth busy.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: bmm/k0 matmul: dependency-bound (ScalarE waits on TensorE)
// CHECK-NEXT: evidence: ScalarE waited {{[0-9.]+}} % of the kernel's time on TensorE (multiply_moving of neuron.matmul at {{.*}}engine-lockstep.mlir:{{[0-9]+}}:8), held in tensor_copy of neuron.matmul

func.func @bmm(%a: tensor<512x128x128xbf16>, %b: tensor<512x128x8xbf16>) -> tensor<512x128x8xf32> {
  %0 = neuron.matmul %a, %b : tensor<512x128x128xbf16>, tensor<512x128x8xbf16> -> tensor<512x128x8xf32>
  return %0 : tensor<512x128x8xf32>
}
