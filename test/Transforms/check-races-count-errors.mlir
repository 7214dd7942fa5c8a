// More than 20 races: the first 20 are reported one by one, then the count.
// RUN: not neuron-opt %s --nisa-check-races 2>&1 | FileCheck %s
// CHECK-COUNT-20: error: 'nisa.activation' op races with an earlier instruction on stream q0
// CHECK-NOT: op races with
// CHECK: check-races-count-errors.mlir:[[# @LINE + 1]]:1: error: 21 races in all
nisa.program @many target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @b sbuf 128x64xf32 offset = 256
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}
