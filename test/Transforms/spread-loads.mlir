// A kernel that stores nothing spreads its loads over every DMA queue but
// those the kernel before it stores on.
// RUN: neuron-opt %s --nisa-spread-loads=remarks -split-input-file -verify-diagnostics | FileCheck %s
// A program for a target the hardware table does not have is refused
// before the pass looks at its queues.
// RUN: not neuron-opt %S/Inputs/spread-loads-bad-target.mlir --nisa-spread-loads 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: 'nisa.program' op unknown target 'trn9'; known targets: trn1, trn2
// The rewritten programs allocate, synchronize and pass the race check.
// RUN: neuron-opt %s --nisa-spread-loads --nisa-allocate-memory --nisa-insert-semaphores --nisa-check-races -split-input-file | FileCheck %s --check-prefix=RACES

// k1's eight loads sat two to a queue on q0-q3 (the lowering kept the
// others for stores that are gone). In program order each takes the least
// loaded queue, its own on a tie: the first four keep theirs, the next four
// go to q4-q7. k0 stores (on q14 and q15), so its queues stay.
// CHECK-LABEL: nisa.program @spread
// CHECK:      nisa.kernel @k0
// CHECK:      nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
// CHECK:      nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[2048, [32,64], [1,32]]
// CHECK:      nisa.dma_copy q14 @t0[0, [32,64], [1,32]]
// CHECK:      nisa.dma_copy q15 @t1[0, [32,64], [1,32]]
// CHECK:      nisa.kernel @k1
// CHECK-NEXT: nisa.alloc @w sbuf 64x256xf32
// CHECK-NEXT: nisa.dma_copy q0 @w[0:64, 0, [1,32]] = @c[0, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q1 @w[0:64, 32, [1,32]] = @c[32, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q2 @w[0:64, 64, [1,32]] = @c[64, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q3 @w[0:64, 96, [1,32]] = @c[96, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q4 @w[0:64, 128, [1,32]] = @c[128, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q5 @w[0:64, 160, [1,32]] = @c[160, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q6 @w[0:64, 192, [1,32]] = @c[192, [256,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q7 @w[0:64, 224, [1,32]] = @c[224, [256,64], [1,32]]
// RACES-LABEL: nisa.program @spread
// RACES:      nisa.dma_copy q7 @w[0:64, 224, [1,32]] = @c[224, [256,64], [1,32]]
// RACES:      nisa.activation exp @w[0:64, 0, [1,256]] = @w[0:64, 0, [1,256]] wait(q0 >= {{[0-9]+}}, q1 >= {{[0-9]+}}, q2 >= {{[0-9]+}}, q3 >= {{[0-9]+}}, q4 >= {{[0-9]+}}, q5 >= {{[0-9]+}}, q6 >= {{[0-9]+}}, q7 >= {{[0-9]+}})
nisa.program @spread target "trn1" {
  nisa.hbm @x input 0 : tensor<128x32xf32>
  nisa.hbm @c const : tensor<64x256xf32> = dense<2.0> : tensor<64x256xf32>
  nisa.hbm @t0 output 0 : tensor<64x32xf32>
  nisa.hbm @t1 output 1 : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[2048, [32,64], [1,32]]
    nisa.dma_copy q14 @t0[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q15 @t1[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  // expected-remark @below {{stores nothing: its 8 loads spread from 4 to 8 DMA queues (busiest 3.1 -> 1.5 us)}}
  nisa.kernel @k1 "exp" from "neuron.exp" {
    nisa.alloc @w sbuf 64x256xf32
    nisa.dma_copy q0 @w[0:64, 0, [1,32]] = @c[0, [256,64], [1,32]]
    nisa.dma_copy q1 @w[0:64, 32, [1,32]] = @c[32, [256,64], [1,32]]
    nisa.dma_copy q2 @w[0:64, 64, [1,32]] = @c[64, [256,64], [1,32]]
    nisa.dma_copy q3 @w[0:64, 96, [1,32]] = @c[96, [256,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 128, [1,32]] = @c[128, [256,64], [1,32]]
    nisa.dma_copy q1 @w[0:64, 160, [1,32]] = @c[160, [256,64], [1,32]]
    nisa.dma_copy q2 @w[0:64, 192, [1,32]] = @c[192, [256,64], [1,32]]
    nisa.dma_copy q3 @w[0:64, 224, [1,32]] = @c[224, [256,64], [1,32]]
    nisa.activation exp @w[0:64, 0, [1,256]] = @w[0:64, 0, [1,256]]
  }
}

// -----

// Nothing moves: k0 stores (its queues were chosen around its stores), and
// k1 has no more loads than queues.
// CHECK-LABEL: nisa.program @stays
// CHECK:      nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q0 @a[0:64, 32, [1,32]] = @x[2048, [32,64], [1,32]]
// CHECK:      nisa.kernel @k1
// CHECK-NEXT: nisa.alloc @w sbuf 64x64xf32
// CHECK-NEXT: nisa.dma_copy q3 @w[0:64, 0, [1,32]] = @c[0, [64,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q4 @w[0:64, 32, [1,32]] = @c[32, [64,64], [1,32]]
// CHECK-NOT:  remark
nisa.program @stays target "trn1" {
  nisa.hbm @x input 0 : tensor<128x32xf32>
  nisa.hbm @c const : tensor<64x64xf32> = dense<2.0> : tensor<64x64xf32>
  nisa.hbm @t0 output 0 : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x64xf32
    nisa.alloc @b sbuf 64x64xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.dma_copy q0 @a[0:64, 32, [1,32]] = @x[2048, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,64]] = @a[0:64, 0, [1,64]]
    nisa.dma_copy q1 @t0[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  nisa.kernel @k1 "exp" from "neuron.exp" {
    nisa.alloc @w sbuf 64x64xf32
    nisa.dma_copy q3 @w[0:64, 0, [1,32]] = @c[0, [64,64], [1,32]]
    nisa.dma_copy q4 @w[0:64, 32, [1,32]] = @c[32, [64,64], [1,32]]
    nisa.activation exp @w[0:64, 0, [1,64]] = @w[0:64, 0, [1,64]]
  }
}

// -----

// The kernel before stores on q2-q15: k1's loads may only add q0-q1 to
// their own queue q0, so the four go to q0, q1, q0, q1.
// CHECK-LABEL: nisa.program @fenced
// CHECK:      nisa.kernel @k1
// CHECK-NEXT: nisa.alloc @w sbuf 64x128xf32
// CHECK-NEXT: nisa.dma_copy q0 @w[0:64, 0, [1,32]]
// CHECK-NEXT: nisa.dma_copy q1 @w[0:64, 32, [1,32]]
// CHECK-NEXT: nisa.dma_copy q0 @w[0:64, 64, [1,32]]
// CHECK-NEXT: nisa.dma_copy q1 @w[0:64, 96, [1,32]]
nisa.program @fenced target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @c const : tensor<64x128xf32> = dense<2.0> : tensor<64x128xf32>
  nisa.hbm @t output 0 : tensor<64x448xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @a[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q2 @t[0, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q3 @t[32, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q4 @t[64, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q5 @t[96, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q6 @t[128, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q7 @t[160, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q8 @t[192, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q9 @t[224, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q10 @t[256, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q11 @t[288, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q12 @t[320, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q13 @t[352, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q14 @t[384, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q15 @t[416, [448,64], [1,32]] = @a[0:64, 0, [1,32]]
  }
  // expected-remark @below {{stores nothing: its 4 loads spread from 1 to 2 DMA queues}}
  nisa.kernel @k1 "exp" from "neuron.exp" {
    nisa.alloc @w sbuf 64x128xf32
    nisa.dma_copy q0 @w[0:64, 0, [1,32]] = @c[0, [128,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 32, [1,32]] = @c[32, [128,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 64, [1,32]] = @c[64, [128,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 96, [1,32]] = @c[96, [128,64], [1,32]]
    nisa.activation exp @w[0:64, 0, [1,128]] = @w[0:64, 0, [1,128]]
  }
}
