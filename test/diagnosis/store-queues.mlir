// A 4096x128x4096 matmul with its f32 result: one multiply per output tile,
// so the kernel stores 32x what it loads (cast to bf16 it stores 16x, and
// since each row tile's Aᵀ is made just before its first multiplies the
// stores no longer bind: 'short transfers'). The lowering gives the stores their share
// of the queues (12 of 16) in 16 KiB pieces, four output tiles in flight;
// those queues are then the bound, while the 4 carrying loads idle. The
// relu of one row after it keeps the matmul from being the program's last
// kernel (whose last stores take every queue: tail-stores.mlir).
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: mc/k0 matmul: DMA-bound (stores on 12 of 16 queues)
// CHECK-NEXT: evidence: the 12 queues carrying its stores are {{[6-9][0-9]\.[0-9]}} % busy, and VectorE waited {{[0-9.]+}} % on them

func.func @mc(%a: tensor<4096x128xbf16>, %b: tensor<128x4096xbf16>) -> (tensor<4096x4096xf32>, tensor<1x4096xf32>) {
  %0 = neuron.matmul %a, %b : tensor<4096x128xbf16>, tensor<128x4096xbf16> -> tensor<4096x4096xf32>
  %1 = neuron.slice %0 offsets = [0, 0] sizes = [1, 4096] strides = [1, 1] : tensor<4096x4096xf32> -> tensor<1x4096xf32>
  %2 = neuron.relu %1 : tensor<1x4096xf32>
  return %0, %2 : tensor<4096x4096xf32>, tensor<1x4096xf32>
}
