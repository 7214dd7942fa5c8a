// An HBM-to-HBM copy of 64 MiB in 4 KiB runs (a transpose of the outer
// dims). Alone on a trn1 core it is bound by the DMA queues at their rate
// (the HBM 62 % busy); on both cores at once the two copies want more than
// the chip's HBM gives, and the profile says the cores shared it.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s --check-prefixes=CHECK,ALONE
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --cores 0,1 --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s --check-prefixes=CHECK,SHARED
// CHECK: t/k0 transpose: memory-bound (HBM)
// ALONE-NEXT: evidence: MBU {{[0-9.]+}} % (>= 60 % is good; HBM 6{{[0-9]\.[0-9]}} %, DMA 9{{[0-9]\.[0-9]}} %)
// SHARED-NEXT: evidence: MBU {{[0-9.]+}} % (>= 60 % is good; HBM 9{{[0-9]\.[0-9]}} %, DMA {{[0-9.]+}} %){{.*}}; 2 cores shared the chip's HBM

func.func @t(%a: tensor<32x512x1024xf32>) -> tensor<512x32x1024xf32> {
  %0 = neuron.transpose %a perm = [1, 0, 2] : tensor<32x512x1024xf32> -> tensor<512x32x1024xf32>
  return %0 : tensor<512x32x1024xf32>
}
