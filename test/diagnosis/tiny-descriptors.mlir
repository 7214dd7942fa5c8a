// Every other column of a 4096x4096 matrix: the slice's transfers are
// descriptors of one element each (a 4-byte run, then a gap).
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: s/k0 slice: DMA-bound (short transfers)
// CHECK-NEXT: evidence: DMA queues {{(9[0-9]|100)\.[0-9]}} % busy, moving bytes at {{[0-9]\.[0-9]}} % of their rate (4 B per contiguous run)

func.func @s(%a: tensor<4096x4096xf32>) -> tensor<4096x2048xf32> {
  %0 = neuron.slice %a offsets = [0, 0] sizes = [4096, 2048] strides = [1, 2] : tensor<4096x4096xf32> -> tensor<4096x2048xf32>
  return %0 : tensor<4096x2048xf32>
}
