// A 4x4 exp: a few instructions, a few DMA latencies long.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: tiny/k0 exp: latency-bound (too small to fill the machine)
// CHECK-NEXT: evidence: no resource busy more than {{[0-9.]+}} % of the kernel's time in {{[0-9.]+}} us ({{[0-9.]+}} DMA latencies)

func.func @tiny(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = neuron.exp %a : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
