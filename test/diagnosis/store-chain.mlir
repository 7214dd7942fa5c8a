// A 4096x128x4096 matmul cast to bf16: one multiply per output tile, so
// the epilogue's stores are the work, and VectorE holds each output buffer
// until its store has left: the engines and queues run in lockstep with
// every resource under a fifth busy.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: mc/k0 matmul-epilogue: dependency-bound (VectorE waits on DMA stores)
// CHECK-NEXT: evidence: VectorE waited {{[0-9.]+}} % of the kernel's time on DMA stores (neuron.cast at {{.*}}store-chain.mlir:{{[0-9]+}}:8); no resource busy more than {{[12][0-9]\.[0-9]}} %

func.func @mc(%a: tensor<4096x128xbf16>, %b: tensor<128x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = neuron.matmul %a, %b : tensor<4096x128xbf16>, tensor<128x4096xbf16> -> tensor<4096x4096xf32>
  %1 = neuron.cast %0 : tensor<4096x4096xf32> -> tensor<4096x4096xbf16>
  return %1 : tensor<4096x4096xbf16>
}
