// A kernel's loads of constants and inputs start during the kernel before
// it, ahead of that kernel's stores on the same queue.
// RUN: neuron-opt %s --nisa-prefetch-loads=remarks -split-input-file -verify-diagnostics | FileCheck %s
// The rewritten programs allocate, synchronize and pass the race check.
// RUN: neuron-opt %s --nisa-prefetch-loads --nisa-allocate-memory --nisa-insert-semaphores --nisa-check-races -split-input-file | FileCheck %s --check-prefix=RACES

// The weight load of k1 moves into k0 before k0's store on q0 (after k0's
// own load there); the activation load stays, since k0 writes @tmp.
// CHECK-LABEL: nisa.program @weights
// CHECK:      nisa.alloc @k1.w sbuf 64x32xf32
// CHECK-NEXT: nisa.kernel @k0
// CHECK:      nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
// CHECK-NEXT: nisa.activation exp
// CHECK-NEXT: nisa.dma_copy q0 @k1.w[0:64, 0, [1,32]] = @c[0, [32,64], [1,32]] {nisa.prefetch_for = @k1}
// CHECK-NEXT: nisa.dma_copy q0 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
// CHECK:      nisa.kernel @k1
// CHECK-NOT:  nisa.alloc @w
// CHECK-NOT:  @c[
// CHECK:      nisa.dma_copy q1 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
// CHECK-NEXT: nisa.tensor_tensor vector multiply @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]], @k1.w[0:64, 0, [1,32]]
// The carried tile gets bytes of its own; the consumer's wait for the
// activation (q1, after k0's store on q0) implies the prefetched load.
// RACES-LABEL: nisa.program @weights
// RACES:      nisa.alloc @k1.w sbuf 64x32xf32 offset = 256
// RACES:      nisa.dma_copy q0 @k1.w[0:64, 0, [1,32]] = @c[0, [32,64], [1,32]] {nisa.prefetch_for = @k1}
// RACES:      nisa.dma_copy q1 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]] wait(q0 >= 2) signal
// RACES-NEXT: nisa.tensor_tensor vector multiply @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]], @k1.w[0:64, 0, [1,32]] wait(q1 >= 1)
nisa.program @weights target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @c const : tensor<64x32xf32> = dense<2.0> : tensor<64x32xf32>
  nisa.hbm @y output 0 : tensor<64x32xf32>
  nisa.hbm @tmp internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q0 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  // expected-remark @below {{starts 1 load(s) of constants or inputs during @k0}}
  nisa.kernel @k1 "mul" from "neuron.mul" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @w sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q1 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 0, [1,32]] = @c[0, [32,64], [1,32]]
    nisa.tensor_tensor vector multiply @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]], @w[0:64, 0, [1,32]]
    nisa.dma_copy q1 @y[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
}

// -----

// What stays: a load on a queue k0 stores nothing on (it starts as early
// there already); a load into a tile k1 set first; a load of a tensor the
// program writes. Of @w2 the half on q6 stays and the half on q0 moves.
// CHECK-LABEL: nisa.program @stays
// CHECK:      nisa.alloc @k1.w2 sbuf 64x32xf32
// CHECK-NEXT: nisa.kernel @k0
// CHECK:      nisa.dma_copy q0 @k1.w2[0:64, 16, [1,16]] = @c[16, [32,64], [1,16]] {nisa.prefetch_for = @k1}
// CHECK-NEXT: nisa.dma_copy q0 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
// CHECK:      nisa.kernel @k1
// CHECK:      nisa.dma_copy q5 @w[0:64, 0, [1,32]] = @c[0, [32,64], [1,32]]
// CHECK-NEXT: nisa.memset vector @m[0:64, 0, [1,16]] = 0.0
// CHECK-NEXT: nisa.dma_copy q0 @m[0:64, 16, [1,16]] = @c[16, [32,64], [1,16]]
// CHECK-NEXT: nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
// CHECK-NEXT: nisa.dma_copy q6 @k1.w2[0:64, 0, [1,16]] = @c[0, [32,64], [1,16]]
// CHECK-NOT:  prefetch_for
nisa.program @stays target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @c const : tensor<64x32xf32> = dense<2.0> : tensor<64x32xf32>
  nisa.hbm @y output 0 : tensor<64x32xf32>
  nisa.hbm @tmp internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q0 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  // expected-remark @below {{starts 1 load(s) of constants or inputs during @k0}}
  nisa.kernel @k1 "mul" from "neuron.mul" {
    nisa.alloc @w sbuf 64x32xf32
    nisa.alloc @m sbuf 64x32xf32
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @w2 sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q5 @w[0:64, 0, [1,32]] = @c[0, [32,64], [1,32]]
    nisa.memset vector @m[0:64, 0, [1,16]] = 0.0
    nisa.dma_copy q0 @m[0:64, 16, [1,16]] = @c[16, [32,64], [1,16]]
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
    nisa.dma_copy q6 @w2[0:64, 0, [1,16]] = @c[0, [32,64], [1,16]]
    nisa.dma_copy q0 @w2[0:64, 16, [1,16]] = @c[16, [32,64], [1,16]]
    nisa.tensor_tensor vector multiply @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]], @w[0:64, 0, [1,32]]
    nisa.tensor_tensor vector multiply @b[0:64, 0, [1,32]] = @b[0:64, 0, [1,32]], @m[0:64, 0, [1,32]]
    nisa.tensor_tensor vector multiply @b[0:64, 0, [1,32]] = @b[0:64, 0, [1,32]], @w2[0:64, 0, [1,32]]
    nisa.dma_copy q1 @y[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
}

// -----

// Refused: 2 MiB of weights would take k0's queues about 7.7 us, more than
// twice what k0 has to do (two DMA latencies, its work being one exp).
// CHECK-LABEL: nisa.program @too_big
// CHECK-NOT:  prefetch_for
// CHECK:      nisa.kernel @k1
// CHECK:      nisa.dma_copy q0 @w[0:128, 0, [1,4096]] = @c[0, [4096,128], [1,4096]]
nisa.program @too_big target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @c input 1 : tensor<128x4096xf32>
  nisa.hbm @y output 0 : tensor<128x4096xf32>
  nisa.hbm @tmp internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q0 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  nisa.kernel @k1 "mul" from "neuron.mul" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @w sbuf 128x4096xf32
    nisa.dma_copy q1 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
    nisa.dma_copy q0 @w[0:128, 0, [1,4096]] = @c[0, [4096,128], [1,4096]]
    nisa.tensor_tensor vector multiply @w[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]], @w[0:64, 0, [1,32]]
    nisa.dma_copy q1 @y[0, [4096,128], [1,4096]] = @w[0:128, 0, [1,4096]]
  }
}

// -----

// Refused: k0's tiles and the weight tile would take more than three
// quarters of a partition (192 KiB on trn1).
// CHECK-LABEL: nisa.program @no_room
// CHECK-NOT:  prefetch_for
nisa.program @no_room target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @c const : tensor<64x32xf32> = dense<2.0> : tensor<64x32xf32>
  nisa.hbm @y output 0 : tensor<64x32xf32>
  nisa.hbm @tmp internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.alloc @big sbuf 64x36800xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.memset vector @big[0:64, 0, [1,36800]] = 0.0
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q0 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  nisa.kernel @k1 "mul" from "neuron.mul" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @w sbuf 64x32xf32
    nisa.dma_copy q1 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 0, [1,32]] = @c[0, [32,64], [1,32]]
    nisa.tensor_tensor vector multiply @a[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]], @w[0:64, 0, [1,32]]
    nisa.dma_copy q1 @y[0, [32,64], [1,32]] = @a[0:64, 0, [1,32]]
  }
}
