// A softmax over rows of 131072 f32 (512 KiB per partition, more than SBUF
// holds): the rows are streamed three times (maximum, sum, normalize), so
// the kernel reads its 64 MiB input three times.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: sm/k0 softmax: capacity-bound (SBUF: operands re-read)
// CHECK-NEXT: evidence: HBM reads 192.0 MiB of 64.0 MiB distinct (3.0x)

func.func @sm(%a: tensor<128x131072xf32>) -> tensor<128x131072xf32> {
  %0 = neuron.softmax %a axis = 1 : tensor<128x131072xf32>
  return %0 : tensor<128x131072xf32>
}
