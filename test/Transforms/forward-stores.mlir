// Loads of what an earlier kernel stored from a tile that still holds it
// become engine copies from that tile; stores nothing loads any more go.
// RUN: neuron-opt %s --nisa-forward-stores=remarks -split-input-file -verify-diagnostics | FileCheck %s
// RUN: neuron-opt %s --nisa-forward-stores="keep-stores" -split-input-file | FileCheck %s --check-prefix=KEEP
// The rewritten programs allocate, synchronize and pass the race check.
// RUN: neuron-opt %s --nisa-forward-stores --nisa-allocate-memory --nisa-insert-semaphores --nisa-check-races -split-input-file | FileCheck %s --check-prefix=RACES

// CHECK-LABEL: nisa.program @chain
// The storing tile moves to the program's body under its kernel's name.
// CHECK:      nisa.alloc @k0.b sbuf 64x32xf32
// CHECK-NEXT: nisa.kernel @k0
// CHECK-NOT:  nisa.alloc @b
// CHECK:      nisa.activation exp @k0.b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
// CHECK-NOT:  @tmp[
// CHECK:      nisa.kernel @k1
// The load's only reader reads the carried tile in place: no copy at all.
// CHECK-NOT:  tensor_copy
// CHECK:      nisa.activation exp @b[0:64, 0, [1,32]] = @k0.b[0:64, 0, [1,32]]
// KEEP-LABEL: nisa.program @chain
// KEEP:       nisa.dma_copy q1 @tmp[0, [32,64], [1,32]] = @k0.b[0:64, 0, [1,32]]
// KEEP:       nisa.activation exp @b[0:64, 0, [1,32]] = @k0.b[0:64, 0, [1,32]]
// RACES-LABEL: nisa.program @chain
// RACES:      nisa.alloc @k0.b sbuf 64x32xf32 offset =
// RACES:      nisa.activation exp @b[0:64, 0, [1,32]] = @k0.b[0:64, 0, [1,32]] signal
// expected-remark @below {{1 store(s) to HBM dropped: nothing loads them any more}}
// expected-remark @below {{1 forwarded load(s) copy nothing: their readers read the earlier kernels' tiles in place}}
nisa.program @chain target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @y output 0 : tensor<64x32xf32>
  nisa.hbm @tmp internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q1 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  // expected-remark @below {{reads 1 load(s), 8192 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k1 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q2 @a[0:64, 0, [1,32]] = @tmp[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q3 @y[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
}

// -----

// A load into a padded tile and a load of some columns become copies with
// the matching offsets; a transposing load (element k of partition p was
// stored from another partition) stays a DMA, so the store stays too.
// CHECK-LABEL: nisa.program @patterns
// CHECK:      nisa.alloc @k0.b sbuf 64x32xf32
// CHECK:      nisa.dma_copy q1 @tmp[0, [32,64], [1,32]] = @k0.b[0:64, 0, [1,32]]
// CHECK:      nisa.kernel @k1
// CHECK:      nisa.tensor_copy {{[a-z]+}} @p[0:64, 1, [1,32]] = @k0.b[0:64, 0, [1,32]]
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @c[0:64, 0, [1,16]] = @k0.b[0:64, 16, [1,16]]
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @e[0:32, 0, [2,16]] = @k0.b[0:32, 0, [2,16]]
// CHECK-NEXT: nisa.dma_copy q2 @t[0:32, 0, [1,64]] = @tmp[0, [1,32], [32,64]]
nisa.program @patterns target "trn1" {
  nisa.hbm @x input 0 : tensor<64x32xf32>
  nisa.hbm @y output 0 : tensor<32x64xf32>
  nisa.hbm @yp output 1 : tensor<64x32xf32>
  nisa.hbm @yc output 2 : tensor<64x16xf32>
  nisa.hbm @ye output 3 : tensor<32x16xf32>
  nisa.hbm @tmp internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[0:64, 0, [1,32]] = @x[0, [32,64], [1,32]]
    nisa.activation exp @b[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q1 @tmp[0, [32,64], [1,32]] = @b[0:64, 0, [1,32]]
  }
  // expected-remark @below {{reads 3 load(s), 14336 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k1 "demo" from "test" {
    nisa.alloc @p sbuf 64x34xf32
    nisa.alloc @c sbuf 64x16xf32
    nisa.alloc @e sbuf 32x32xf32
    nisa.alloc @t sbuf 32x64xf32
    nisa.dma_copy q0 @p[0:64, 1, [1,32]] = @tmp[0, [32,64], [1,32]]
    nisa.dma_copy q1 @c[0:64, 0, [1,16]] = @tmp[16, [32,64], [1,16]]
    nisa.dma_copy q3 @e[0:32, 0, [2,16]] = @tmp[0, [32,32], [2,16]]
    nisa.dma_copy q2 @t[0:32, 0, [1,64]] = @tmp[0, [1,32], [32,64]]
    nisa.dma_copy q3 @y[0, [64,32], [1,64]] = @t[0:32, 0, [1,64]]
    nisa.dma_copy q4 @yp[0, [32,64], [1,32]] = @p[0:64, 1, [1,32]]
    nisa.dma_copy q5 @yc[0, [16,64], [1,16]] = @c[0:64, 0, [1,16]]
    nisa.dma_copy q6 @ye[0, [16,32], [1,16]] = @e[0:32, 0, [2,16]]
  }
}

// -----

// The tile was overwritten after the store (the next row tile reused it):
// only the rows it still holds are forwarded (read in place by the add);
// the others are loaded.
// CHECK-LABEL: nisa.program @overwritten
// CHECK:      nisa.kernel @k1
// CHECK:      nisa.dma_copy q2 @a[0:128, 0, [1,16]] = @tmp[0, [16,128], [1,16]]
// CHECK-NEXT: nisa.tensor_tensor vector add @a[0:128, 0, [1,16]] = @a[0:128, 0, [1,16]], @k0.b[0:128, 0, [1,16]]
// expected-remark @below {{1 forwarded load(s) copy nothing: their readers read the earlier kernels' tiles in place}}
nisa.program @overwritten target "trn1" {
  nisa.hbm @x input 0 : tensor<256x16xf32>
  nisa.hbm @y output 0 : tensor<128x16xf32>
  nisa.hbm @tmp internal : tensor<256x16xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x16xf32
    nisa.alloc @b sbuf 128x16xf32
    nisa.dma_copy q0 @a[0:128, 0, [1,16]] = @x[0, [16,128], [1,16]]
    nisa.activation exp @b[0:128, 0, [1,16]] = @a[0:128, 0, [1,16]]
    nisa.dma_copy q1 @tmp[0, [16,128], [1,16]] = @b[0:128, 0, [1,16]]
    nisa.dma_copy q0 @a[0:128, 0, [1,16]] = @x[2048, [16,128], [1,16]]
    nisa.activation exp @b[0:128, 0, [1,16]] = @a[0:128, 0, [1,16]]
    nisa.dma_copy q1 @tmp[2048, [16,128], [1,16]] = @b[0:128, 0, [1,16]]
  }
  // expected-remark @below {{reads 1 load(s), 8192 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k1 "add" from "neuron.add" {
    nisa.alloc @a sbuf 128x16xf32
    nisa.alloc @c sbuf 128x16xf32
    nisa.dma_copy q2 @a[0:128, 0, [1,16]] = @tmp[0, [16,128], [1,16]]
    nisa.dma_copy q3 @c[0:128, 0, [1,16]] = @tmp[2048, [16,128], [1,16]]
    nisa.tensor_tensor vector add @a[0:128, 0, [1,16]] = @a[0:128, 0, [1,16]], @c[0:128, 0, [1,16]]
    nisa.dma_copy q3 @y[0, [16,128], [1,16]] = @a[0:128, 0, [1,16]]
  }
}

// -----

// Reading in place: a load in two partition pieces (a transfer split over
// queues) of some columns is elided whole, and each engine read inside it
// moves to the carried tile at the columns' offset, until the tile is
// written again (the read after the memset reads the memset's values). A
// load one of whose readers reads beyond it (the engine read covers columns
// a memset wrote) stays a copy.
// CHECK-LABEL: nisa.program @in_place
// CHECK:      nisa.kernel @k1
// CHECK-NOT:  nisa.dma_copy {{.*}} = @tmp
// CHECK:      nisa.activation exp @o[0:128, 0, [1,16]] = @k0.b[0:128, 24, [1,16]]
// CHECK-NEXT: nisa.activation exp @o[0:128, 16, [1,32]] = @k0.b[0:128, 16, [1,32]]
// CHECK-NEXT: nisa.memset vector @s[0:128, 0, [1,32]]
// CHECK-NEXT: nisa.activation exp @o[0:128, 48, [1,32]] = @s[0:128, 0, [1,32]]
// CHECK:      nisa.memset vector @w[0:128, 16, [1,16]]
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @w[0:128, 0, [1,16]] = @k0.b[0:128, 0, [1,16]]
// CHECK-NEXT: nisa.activation exp @o[0:128, 80, [1,32]] = @w[0:128, 0, [1,32]]
// RACES-LABEL: nisa.program @in_place
// RACES:      nisa.activation exp @o[0:128, 0, [1,16]] = @k0.b[0:128, 24, [1,16]]
// expected-remark @below {{1 store(s) to HBM dropped: nothing loads them any more}}
// expected-remark @below {{2 forwarded load(s) copy nothing: their readers read the earlier kernels' tiles in place}}
nisa.program @in_place target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x112xf32>
  nisa.hbm @tmp internal : tensor<128x64xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @b sbuf 128x64xf32
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.dma_copy q1 @tmp[0, [64,128], [1,64]] = @b[0:128, 0, [1,64]]
  }
  // expected-remark @below {{reads 3 load(s), 24576 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k1 "demo" from "test" {
    nisa.alloc @s sbuf 128x32xf32
    nisa.alloc @w sbuf 128x32xf32
    nisa.alloc @o sbuf 128x112xf32
    nisa.dma_copy q2 @s[0:64, 0, [1,32]] = @tmp[16, [64,64], [1,32]]
    nisa.dma_copy q3 @s[64:128, 0, [1,32]] = @tmp[4112, [64,64], [1,32]]
    nisa.activation exp @o[0:128, 0, [1,16]] = @s[0:128, 8, [1,16]]
    nisa.activation exp @o[0:128, 16, [1,32]] = @s[0:128, 0, [1,32]]
    nisa.memset vector @s[0:128, 0, [1,32]] = 0.0
    nisa.activation exp @o[0:128, 48, [1,32]] = @s[0:128, 0, [1,32]]
    nisa.memset vector @w[0:128, 16, [1,16]] = 0.0
    nisa.dma_copy q4 @w[0:128, 0, [1,16]] = @tmp[0, [64,128], [1,16]]
    nisa.activation exp @o[0:128, 80, [1,32]] = @w[0:128, 0, [1,32]]
    nisa.dma_copy q5 @y[0, [112,128], [1,112]] = @o[0:128, 0, [1,112]]
  }
}

// -----

// Left alone: integer tiles (engines copy through f32), and a tile that
// would not fit beside a kernel that fills SBUF.
// CHECK-LABEL: nisa.program @refused
// CHECK-NOT:  tensor_copy
// CHECK:      nisa.dma_copy q2 @i[0:128, 0, [1,4]] = @ti[0, [4,128], [1,4]]
// CHECK-NOT:  tensor_copy
// CHECK:      nisa.dma_copy q2 @f[0:128, 0, [1,4]] = @tf[0, [4,128], [1,4]]
nisa.program @refused target "trn1" {
  nisa.hbm @xi input 0 : tensor<128x4xi32>
  nisa.hbm @xf input 1 : tensor<128x4xf32>
  nisa.hbm @yi output 0 : tensor<128x4xi32>
  nisa.hbm @yf output 1 : tensor<128x38400xf32>
  nisa.hbm @ti internal : tensor<128x4xi32>
  nisa.hbm @tf internal : tensor<128x4xf32>
  nisa.kernel @k0 "copy" from "test" {
    nisa.alloc @i sbuf 128x4xi32
    nisa.alloc @f sbuf 128x4xf32
    nisa.dma_copy q0 @i[0:128, 0, [1,4]] = @xi[0, [4,128], [1,4]]
    nisa.dma_copy q0 @f[0:128, 0, [1,4]] = @xf[0, [4,128], [1,4]]
    nisa.dma_copy q1 @ti[0, [4,128], [1,4]] = @i[0:128, 0, [1,4]]
    nisa.dma_copy q1 @tf[0, [4,128], [1,4]] = @f[0:128, 0, [1,4]]
  }
  nisa.kernel @k1 "copy" from "test" {
    nisa.alloc @i sbuf 128x4xi32
    nisa.dma_copy q2 @i[0:128, 0, [1,4]] = @ti[0, [4,128], [1,4]]
    nisa.dma_copy q3 @yi[0, [4,128], [1,4]] = @i[0:128, 0, [1,4]]
  }
  nisa.kernel @k2 "big" from "test" {
    nisa.alloc @f sbuf 128x4xf32
    nisa.alloc @big sbuf 128x38400xf32
    nisa.dma_copy q2 @f[0:128, 0, [1,4]] = @tf[0, [4,128], [1,4]]
    nisa.tensor_copy vector @big[0:128, 0, [1,4]] = @f[0:128, 0, [1,4]]
    nisa.memset gpsimd @big[0:128, 4, [1,38396]] = 0.0
    nisa.dma_copy q3 @yf[0, [38400,128], [1,38400]] = @big[0:128, 0, [1,38400]]
  }
}

// -----

// A kernel whose engines are busy for more than ten DMA latencies keeps its
// load: on a DMA queue it overlaps the kernel's work, as a copy it would add
// to the engine that bounds it. The small kernel after it copies.
// CHECK-LABEL: nisa.program @busy
// CHECK:      nisa.kernel @k1
// CHECK:      nisa.dma_copy q2 @f[0:128, 0, [1,4]] = @t[0, [4,128], [1,4]]
// CHECK:      nisa.kernel @k2
// CHECK:      nisa.tensor_copy {{[a-z]+}} @f[0:128, 0, [1,4]] = @k0.f[0:128, 0, [1,4]]
nisa.program @busy target "trn1" {
  nisa.hbm @x input 0 : tensor<128x4xf32>
  nisa.hbm @y output 0 : tensor<128x20000xf32>
  nisa.hbm @z output 1 : tensor<128x4xf32>
  nisa.hbm @t internal : tensor<128x4xf32>
  nisa.kernel @k0 "copy" from "test" {
    nisa.alloc @f sbuf 128x4xf32
    nisa.dma_copy q0 @f[0:128, 0, [1,4]] = @x[0, [4,128], [1,4]]
    nisa.dma_copy q1 @t[0, [4,128], [1,4]] = @f[0:128, 0, [1,4]]
  }
  nisa.kernel @k1 "busy" from "test" {
    nisa.alloc @f sbuf 128x4xf32
    nisa.alloc @big sbuf 128x20000xf32
    nisa.dma_copy q2 @f[0:128, 0, [1,4]] = @t[0, [4,128], [1,4]]
    nisa.memset vector @big[0:128, 0, [1,19996]] = 0.0
    nisa.tensor_copy vector @big[0:128, 19996, [1,4]] = @f[0:128, 0, [1,4]]
    nisa.dma_copy q3 @y[0, [20000,128], [1,20000]] = @big[0:128, 0, [1,20000]]
  }
  // expected-remark @below {{reads 1 load(s), 2048 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k2 "copy" from "test" {
    nisa.alloc @f sbuf 128x4xf32
    nisa.dma_copy q2 @f[0:128, 0, [1,4]] = @t[0, [4,128], [1,4]]
    nisa.dma_copy q3 @z[0, [4,128], [1,4]] = @f[0:128, 0, [1,4]]
  }
}

// -----

// A load in pieces of 16 partitions (a bf16 transfer split eight ways): a
// piece starting at partition 16, 48, 80 or 112 cannot be an engine access
// on its own, so it joins the copy of the piece before it. Both pieces of a
// pair go, one copy of 32 partitions takes their place. In @k2 an engine
// instruction sits between the two pieces: the second stays a load (the
// copy would write its partitions before that instruction runs), and so
// does the store it reads; in @k3 a store of the tile sits between them.
// CHECK-LABEL: nisa.program @pieces
// CHECK:      nisa.kernel @k1
// CHECK-NEXT: nisa.alloc @a sbuf 128x64xbf16
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @a[0:32, 0, [1,64]] = @k0.b[0:32, 0, [1,64]]
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @a[32:64, 0, [1,64]] = @k0.b[32:64, 0, [1,64]]
// CHECK-NEXT: nisa.activation exp
// CHECK:      nisa.kernel @k2
// CHECK-NEXT: nisa.alloc @a sbuf 128x64xbf16
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @a[0:16, 0, [1,64]] = @k0.c[0:16, 0, [1,64]]
// CHECK-NEXT: nisa.memset
// CHECK-NEXT: nisa.dma_copy q5 @a[16:32, 0, [1,64]] = @tmp2[1024, [64,16], [1,64]]
// CHECK:      nisa.kernel @k3
// CHECK-NEXT: nisa.alloc @a sbuf 128x64xbf16
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @a[0:16, 0, [1,64]] = @k0.c[0:16, 0, [1,64]]
// CHECK-NEXT: nisa.dma_copy q6 @w[0, [64,16], [1,64]] = @a[16:32, 0, [1,64]]
// CHECK-NEXT: nisa.dma_copy q5 @a[16:32, 0, [1,64]] = @tmp2[1024, [64,16], [1,64]]
// expected-remark @below {{4 store(s) to HBM dropped: nothing loads them any more}}
nisa.program @pieces target "trn1" {
  nisa.hbm @x input 0 : tensor<64x64xbf16>
  nisa.hbm @y output 0 : tensor<64x64xbf16>
  nisa.hbm @z output 1 : tensor<32x64xbf16>
  nisa.hbm @w output 2 : tensor<16x64xbf16>
  nisa.hbm @v output 3 : tensor<32x64xbf16>
  nisa.hbm @tmp internal : tensor<64x64xbf16>
  nisa.hbm @tmp2 internal : tensor<32x64xbf16>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x64xbf16
    nisa.alloc @b sbuf 128x64xbf16
    nisa.alloc @c sbuf 128x64xbf16
    nisa.dma_copy q0 @a[0:64, 0, [1,64]] = @x[0, [64,64], [1,64]]
    nisa.activation exp @b[0:64, 0, [1,64]] = @a[0:64, 0, [1,64]]
    nisa.activation exp @c[0:32, 0, [1,64]] = @a[0:32, 0, [1,64]]
    nisa.dma_copy q1 @tmp[0, [64,16], [1,64]] = @b[0:16, 0, [1,64]]
    nisa.dma_copy q2 @tmp[1024, [64,16], [1,64]] = @b[16:32, 0, [1,64]]
    nisa.dma_copy q1 @tmp[2048, [64,16], [1,64]] = @b[32:48, 0, [1,64]]
    nisa.dma_copy q2 @tmp[3072, [64,16], [1,64]] = @b[48:64, 0, [1,64]]
    nisa.dma_copy q1 @tmp2[0, [64,16], [1,64]] = @c[0:16, 0, [1,64]]
    nisa.dma_copy q2 @tmp2[1024, [64,16], [1,64]] = @c[16:32, 0, [1,64]]
  }
  // expected-remark @below {{reads 4 load(s), 8192 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k1 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x64xbf16
    nisa.dma_copy q3 @a[0:16, 0, [1,64]] = @tmp[0, [64,16], [1,64]]
    nisa.dma_copy q4 @a[16:32, 0, [1,64]] = @tmp[1024, [64,16], [1,64]]
    nisa.dma_copy q3 @a[32:48, 0, [1,64]] = @tmp[2048, [64,16], [1,64]]
    nisa.dma_copy q4 @a[48:64, 0, [1,64]] = @tmp[3072, [64,16], [1,64]]
    nisa.activation exp @a[0:64, 0, [1,64]] = @a[0:64, 0, [1,64]]
    nisa.dma_copy q5 @y[0, [64,64], [1,64]] = @a[0:64, 0, [1,64]]
  }
  // expected-remark @below {{reads 1 load(s), 2048 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k2 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x64xbf16
    nisa.dma_copy q3 @a[0:16, 0, [1,64]] = @tmp2[0, [64,16], [1,64]]
    nisa.memset gpsimd @a[64:128, 0, [1,64]] = 0.0
    nisa.dma_copy q5 @a[16:32, 0, [1,64]] = @tmp2[1024, [64,16], [1,64]]
    nisa.activation exp @a[0:32, 0, [1,64]] = @a[0:32, 0, [1,64]]
    nisa.dma_copy q6 @z[0, [64,32], [1,64]] = @a[0:32, 0, [1,64]]
  }
  // expected-remark @below {{reads 1 load(s), 2048 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @k3 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x64xbf16
    nisa.dma_copy q3 @a[0:16, 0, [1,64]] = @tmp2[0, [64,16], [1,64]]
    nisa.dma_copy q6 @w[0, [64,16], [1,64]] = @a[16:32, 0, [1,64]]
    nisa.dma_copy q5 @a[16:32, 0, [1,64]] = @tmp2[1024, [64,16], [1,64]]
    nisa.activation exp @a[0:32, 0, [1,64]] = @a[0:32, 0, [1,64]]
    nisa.dma_copy q6 @v[0, [64,32], [1,64]] = @a[0:32, 0, [1,64]]
  }
}

// -----

// A concat that stayed a kernel of HBM-to-HBM copies: the elements it
// copies keep their origins, so the next kernel's loads of the concatenated
// tensor become copies from the tiles its producers stored from (each
// part on the partitions it was stored from), and the concat's copies go
// with the stores nothing loads any more, then their sources' stores.
// CHECK-LABEL: nisa.program @concat
// CHECK:      nisa.kernel @cat
// CHECK-NOT:  nisa.dma_copy
// CHECK:      nisa.kernel @use
// CHECK-NEXT: nisa.alloc @a sbuf 64x32xf32
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @a[0:32, 0, [1,32]] = @k0.b[0:32, 0, [1,32]]
// CHECK-NEXT: nisa.tensor_copy {{[a-z]+}} @a[32:64, 0, [1,32]] = @k1.b[32:64, 0, [1,32]]
// expected-remark @below {{4 store(s) to HBM dropped: nothing loads them any more}}
nisa.program @concat target "trn1" {
  nisa.hbm @x input 0 : tensor<32x32xf32>
  nisa.hbm @y output 0 : tensor<64x32xf32>
  nisa.hbm @t0 internal : tensor<32x32xf32>
  nisa.hbm @t1 internal : tensor<32x32xf32>
  nisa.hbm @cc internal : tensor<64x32xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 32x32xf32
    nisa.alloc @b sbuf 32x32xf32
    nisa.dma_copy q0 @a[0:32, 0, [1,32]] = @x[0, [32,32], [1,32]]
    nisa.activation exp @b[0:32, 0, [1,32]] = @a[0:32, 0, [1,32]]
    nisa.dma_copy q1 @t0[0, [32,32], [1,32]] = @b[0:32, 0, [1,32]]
  }
  nisa.kernel @k1 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.alloc @b sbuf 64x32xf32
    nisa.dma_copy q0 @a[32:64, 0, [1,32]] = @x[0, [32,32], [1,32]]
    nisa.activation relu @b[32:64, 0, [1,32]] = @a[32:64, 0, [1,32]]
    nisa.dma_copy q1 @t1[0, [32,32], [1,32]] = @b[32:64, 0, [1,32]]
  }
  nisa.kernel @cat "concat" from "neuron.concat" {
    nisa.dma_copy q2 @cc[0, [1,1024]] = @t0[0, [1,1024]]
    nisa.dma_copy q3 @cc[1024, [1,1024]] = @t1[0, [1,1024]]
  }
  // expected-remark @below {{reads 2 load(s), 8192 bytes, from SBUF tiles of earlier kernels instead of HBM}}
  nisa.kernel @use "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 64x32xf32
    nisa.dma_copy q4 @a[0:32, 0, [1,32]] = @cc[0, [32,32], [1,32]]
    nisa.dma_copy q5 @a[32:64, 0, [1,32]] = @cc[1024, [32,32], [1,32]]
    nisa.activation exp @a[0:64, 0, [1,32]] = @a[0:64, 0, [1,32]]
    nisa.dma_copy q6 @y[0, [32,64], [1,32]] = @a[0:64, 0, [1,32]]
  }
}
