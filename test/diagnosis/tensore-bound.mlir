// A 2048x4096x2048 bf16 matmul, 512 FLOP per HBM byte (the ridge point is
// 338): TensorE is the busiest resource, and it mostly multiplies.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: mm/k0 matmul: compute-bound (TensorE)
// CHECK-NEXT: evidence: TensorE active {{[0-9.]+}} %, MFU {{[0-9.]+}} %; its busy time: multiplies {{[89][0-9]\.[0-9]}} %

func.func @mm(%a: tensor<2048x4096xbf16>, %b: tensor<4096x2048xbf16>) -> tensor<2048x2048xf32> {
  %0 = neuron.matmul %a, %b : tensor<2048x4096xbf16>, tensor<4096x2048xbf16> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
