// An i32 transpose (TensorE transposes floats only) is one HBM-to-HBM copy
// per queue whose every contiguous run is one 4-byte element: the queues
// are busy all the time and move bytes at a few percent of their rate.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: t/k0 transpose: DMA-bound (short transfers)
// CHECK-NEXT: evidence: DMA queues {{(9[0-9]|100)\.[0-9]}} % busy, moving bytes at {{[0-9]\.[0-9]}} % of their rate (4 B per contiguous run)

func.func @t(%a: tensor<2048x2048xi32>) -> tensor<2048x2048xi32> {
  %0 = neuron.transpose %a perm = [1, 0] : tensor<2048x2048xi32> -> tensor<2048x2048xi32>
  return %0 : tensor<2048x2048xi32>
}
