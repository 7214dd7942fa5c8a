// A 128-token linear layer whose weight is stored [out, in]: the weight is
// staged and transposed on TensorE block by block, and TensorE waits on
// those loads: the matmul is under-fed, not compute-bound. The relu of one
// row after it keeps the matmul from being the program's last kernel (whose
// last stores take every queue: tail-stores.mlir).
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: lin/k0 matmul: dependency-bound (TensorE waits on DMA loads)
// CHECK-NEXT: evidence: TensorE waited {{[0-9.]+}} % of the kernel's time on DMA loads (dma_copy of neuron.matmul at {{.*}}underfed-matmul.mlir:{{[0-9]+}}:8), held in transpose of neuron.matmul

func.func @lin(%a: tensor<128x4096xbf16>, %w: tensor<4096x4096xbf16>) -> (tensor<128x4096xf32>, tensor<1x4096xf32>) {
  %t = neuron.transpose %w perm = [1, 0] : tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  %0 = neuron.matmul %a, %t : tensor<128x4096xbf16>, tensor<4096x4096xbf16> -> tensor<128x4096xf32>
  %1 = neuron.slice %0 offsets = [0, 0] sizes = [1, 4096] strides = [1, 1] : tensor<128x4096xf32> -> tensor<1x4096xf32>
  %2 = neuron.relu %1 : tensor<1x4096xf32>
  return %0, %2 : tensor<128x4096xf32>, tensor<1x4096xf32>
}
