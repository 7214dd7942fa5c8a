// The assembler: programs for two targets cannot share one executable;
// nothing is written.
// RUN: rm -f %t.neff
// RUN: not neuronc %s --no-cache -o %t.neff 2>&1 | FileCheck %s
// RUN: not test -e %t.neff

nisa.program @a target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @t sbuf 128x64xf32 offset = 0
    nisa.dma_copy q0 @t[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
  }
}
// CHECK: assemble-errors.mlir:[[# @LINE + 1]]:1: error: 'nisa.program' op targets trn2 but the executable is for trn1
nisa.program @b target "trn2" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @t sbuf 128x64xf32 offset = 0
    nisa.dma_copy q0 @t[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
  }
}
