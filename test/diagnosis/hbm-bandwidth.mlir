// A 4096x4096 f32 add reads 128 MiB and writes 64 MiB for 16 M additions:
// the DMA queues move them at their full rate, so the memory path bounds it.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: add/k0 add: memory-bound (HBM)
// CHECK-NEXT: evidence: MBU {{[0-9.]+}} % (>= 60 % is good; HBM {{[0-9.]+}} %, DMA {{(9[0-9]|100)\.[0-9]}} %)

func.func @add(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = neuron.add %a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
