// Tiles and internal tensors get offsets; dead space is reused.
// RUN: neuron-opt %s --nisa-allocate-memory -split-input-file | FileCheck %s

// CHECK-LABEL: nisa.program @places
nisa.program @places target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  // Internal tensors get scratch offsets (64-byte aligned).
  // CHECK: nisa.hbm @t internal : tensor<3x5xbf16> offset = 0
  nisa.hbm @t internal : tensor<3x5xbf16>
  // CHECK: nisa.hbm @u internal : tensor<4xf32> offset = 64
  nisa.hbm @u internal : tensor<4xf32>
  nisa.kernel @k0 "demo" from "test" {
    // CHECK: nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @a sbuf 128x64xf32
    // 10 bytes per partition, rounded up to the next 64-byte boundary.
    // CHECK-NEXT: nisa.alloc @b sbuf 128x5xbf16 offset = 256
    nisa.alloc @b sbuf 128x5xbf16
    // A tile nobody touches is dropped.
    // CHECK-NOT: @unused
    nisa.alloc @unused sbuf 128x4xf32
    // PSUM tiles of at most one 2 KiB bank never straddle one: 1200 + 1200
    // would, so the second starts the next bank.
    // CHECK-NEXT: nisa.alloc @p psum 128x300xf32 offset = 0
    nisa.alloc @p psum 128x300xf32
    // CHECK-NEXT: nisa.alloc @q psum 128x300xf32 offset = 2048
    nisa.alloc @q psum 128x300xf32
    nisa.alloc @s sbuf 128x128xf32
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.tensor_copy vector @b[0:128, 0, [1,5]] = @a[0:128, 0, [1,5]]
    nisa.dma_copy q0 @t[0, [5,3], [1,5]] = @b[0:3, 0, [1,5]]
    nisa.dma_copy q0 @u[0, [1,4]] = @a[0:1, 0, [1,4]]
    nisa.memset vector @s[0:128, 0, [1,128]] = 0.0
    nisa.transpose tensor @p[0:128, 0, [1,128]] = @s[0:128, 0, [1,128]]
    nisa.transpose tensor @q[0:128, 0, [1,128]] = @s[0:128, 0, [1,128]]
  }
}

// -----

// Two 100 KiB tiles cannot both be fresh in 192 KiB: the second kernel's
// reuses the first's bytes, which are dead by then.
// CHECK-LABEL: nisa.program @reuse
nisa.program @reuse target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    // CHECK: nisa.alloc @big0 sbuf 128x25600xf32 offset = 0
    nisa.alloc @big0 sbuf 128x25600xf32
    nisa.memset vector @big0[0:128, 0, [1,25600]] = 0.0
  }
  nisa.kernel @k1 "demo" from "test" {
    // CHECK: nisa.alloc @big1 sbuf 128x25600xf32 offset = 0
    nisa.alloc @big1 sbuf 128x25600xf32
    nisa.memset vector @big1[0:128, 0, [1,25600]] = 0.0
  }
}
