// Loads --nisa-prefetch-loads started in an earlier kernel hold their tiles
// across it. Where that leaves no room for a later tile, allocation moves
// them back to the start of their own kernels (and their tiles into them)
// and places the program again: a program that fits without the prefetch
// still compiles.
// RUN: neuron-opt %s --nisa-prefetch-loads | FileCheck %s --check-prefix=MOVED
// RUN: neuron-opt %s --nisa-prefetch-loads --nisa-allocate-memory --nisa-insert-semaphores --nisa-check-races | FileCheck %s
// MOVED: nisa.kernel @k0
// MOVED: nisa.dma_copy q0 @k1.w[0:128, 0, [1,250]] = @c[0, [250,128], [1,250]] {nisa.prefetch_for = @k1}
// MOVED-NEXT: nisa.dma_copy q0 @tmp

// k1's weight (1000 bytes per partition) moves into k0, before its first
// store, and is placed beside k0's 100000-byte tile, which k0 reads after
// that store; k1's 150000-byte tile then finds no room on trn1 (192 KiB)
// and the load goes back.
// CHECK-LABEL: nisa.program @returned
// CHECK-NOT:  prefetch_for
// CHECK:      nisa.kernel @k0
// CHECK-NOT:  @k1.w
// CHECK:      nisa.kernel @k1
// CHECK-NEXT: nisa.alloc @k1.w sbuf 128x250xf32 offset = 0
// CHECK-NEXT: nisa.alloc @b sbuf 128x37500xf32 offset =
// CHECK:      nisa.dma_copy q0 @k1.w[0:128, 0, [1,250]] = @c[0, [250,128], [1,250]]
// CHECK-NEXT: nisa.dma_copy q1 @s[0:128, 0, [1,1]] = @tmp[0, [1,128], [1,1]]
nisa.program @returned target "trn1" {
  nisa.hbm @x input 0 : tensor<128x1xf32>
  nisa.hbm @c const : tensor<128x250xf32> = dense<2.0> : tensor<128x250xf32>
  nisa.hbm @y output 0 : tensor<128x1xf32>
  nisa.hbm @z output 1 : tensor<128x1xf32>
  nisa.hbm @tmp internal : tensor<128x1xf32>
  nisa.kernel @k0 "big" from "test" {
    nisa.alloc @a sbuf 128x25000xf32
    nisa.alloc @r sbuf 128x1xf32
    nisa.dma_copy q0 @r[0:128, 0, [1,1]] = @x[0, [1,128], [1,1]]
    nisa.memset vector @a[0:128, 0, [1,25000]] = 1.0
    nisa.tensor_reduce vector add @a[0:128, 0, [1,1]] = @a[0:128, 0, [1,25000]]
    nisa.tensor_tensor vector add @r[0:128, 0, [1,1]] = @r[0:128, 0, [1,1]], @a[0:128, 0, [1,1]]
    nisa.dma_copy q0 @tmp[0, [1,128], [1,1]] = @r[0:128, 0, [1,1]]
    nisa.tensor_reduce vector add @a[0:128, 0, [1,1]] = @a[0:128, 1, [1,24999]]
    nisa.dma_copy q2 @z[0, [1,128], [1,1]] = @a[0:128, 0, [1,1]]
  }
  nisa.kernel @k1 "big" from "test" {
    nisa.alloc @b sbuf 128x37500xf32
    nisa.alloc @w sbuf 128x250xf32
    nisa.alloc @s sbuf 128x1xf32
    nisa.alloc @u sbuf 128x1xf32
    nisa.dma_copy q1 @s[0:128, 0, [1,1]] = @tmp[0, [1,128], [1,1]]
    nisa.dma_copy q0 @w[0:128, 0, [1,250]] = @c[0, [250,128], [1,250]]
    nisa.memset vector @b[0:128, 0, [1,37500]] = 1.0
    nisa.tensor_reduce vector add @b[0:128, 0, [1,1]] = @b[0:128, 0, [1,37500]]
    nisa.tensor_reduce vector add @u[0:128, 0, [1,1]] = @w[0:128, 0, [1,250]]
    nisa.tensor_tensor vector add @s[0:128, 0, [1,1]] = @s[0:128, 0, [1,1]], @u[0:128, 0, [1,1]]
    nisa.tensor_tensor vector add @s[0:128, 0, [1,1]] = @s[0:128, 0, [1,1]], @b[0:128, 0, [1,1]]
    nisa.dma_copy q1 @y[0, [1,128], [1,1]] = @s[0:128, 0, [1,1]]
  }
}
