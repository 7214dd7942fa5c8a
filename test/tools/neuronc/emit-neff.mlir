// neuronc lowers to engine instructions (--emit=nisa) and writes executables
// (-o x.neff); -O0 keeps every op a kernel of its own.
// RUN: neuronc %s --emit=nisa | FileCheck %s --check-prefix=FUSED
// RUN: neuronc %s --emit=nisa -O0 | FileCheck %s --check-prefix=NAIVE
// RUN: neuronc %s --emit=nisa --target=trn2 | FileCheck %s --check-prefix=TRN2
// RUN: neuronc %s -o %t.neff && neuron-inspect %t.neff | FileCheck %s --check-prefix=NEFF
// RUN: neuronc %s -O0 -o %t0.neff && neuron-inspect %t0.neff | FileCheck %s --check-prefix=NEFF0
// RUN: neuronc %s --emit=neff -o %t.bin && cmp %t.neff %t.bin

// RMSNorm written as naive ops: at -O2 one fused kernel; at -O0 one kernel
// per op, each reading its inputs from HBM and writing its result back.
// FUSED-LABEL: nisa.program @rmsnorm_naive target "trn1"
// FUSED-COUNT-1: nisa.kernel
// FUSED-SAME: "rmsnorm" from "neuron.rmsnorm"
// FUSED-NOT: nisa.kernel
// FUSED-NOT: internal

// NAIVE-LABEL: nisa.program @rmsnorm_naive
// NAIVE: nisa.hbm @tmp0 internal : tensor<1x128x2048xf32> offset = 0
// NAIVE: nisa.kernel @k0 "mul" from "neuron.mul"
// NAIVE: nisa.kernel @k1 "reduce_sum" from "neuron.reduce_sum"
// NAIVE: nisa.kernel @k2 "mul" from "neuron.mul"
// NAIVE: nisa.kernel @k3 "add" from "neuron.add"
// NAIVE: nisa.kernel @k4 "rsqrt" from "neuron.rsqrt"
// NAIVE: nisa.kernel @k5 "mul" from "neuron.mul"
// NAIVE: nisa.kernel @k6 "mul" from "neuron.mul"
// NAIVE-NOT: nisa.kernel

// TRN2: nisa.program @rmsnorm_naive target "trn2"

// NEFF: program @rmsnorm_naive on trn1: 2 input(s), 1 output(s)
// NEFF: k0 rmsnorm neuron.rmsnorm
// NEFF-NOT: k1
// NEFF0: k6 mul neuron.mul
func.func @rmsnorm_naive(%x: tensor<1x128x2048xf32>, %w: tensor<2048xf32>) -> tensor<1x128x2048xf32> {
  %sq = neuron.mul %x, %x : tensor<1x128x2048xf32>, tensor<1x128x2048xf32> -> tensor<1x128x2048xf32>
  %sum = neuron.reduce_sum %sq axes = [2] keepdims : tensor<1x128x2048xf32> -> tensor<1x128x1xf32>
  %n = neuron.constant dense<4.8828125e-04> : tensor<1xf32>
  %mean = neuron.mul %sum, %n : tensor<1x128x1xf32>, tensor<1xf32> -> tensor<1x128x1xf32>
  %eps = neuron.constant dense<1.0e-06> : tensor<1xf32>
  %var = neuron.add %mean, %eps : tensor<1x128x1xf32>, tensor<1xf32> -> tensor<1x128x1xf32>
  %r = neuron.rsqrt %var : tensor<1x128x1xf32>
  %xn = neuron.mul %x, %r : tensor<1x128x2048xf32>, tensor<1x128x1xf32> -> tensor<1x128x2048xf32>
  %y = neuron.mul %xn, %w : tensor<1x128x2048xf32>, tensor<2048xf32> -> tensor<1x128x2048xf32>
  return %y : tensor<1x128x2048xf32>
}
