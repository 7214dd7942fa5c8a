// What the race checker rejects, from the semaphore fields alone.
// RUN: neuron-opt %s --nisa-check-races -split-input-file -verify-diagnostics

nisa.program @race target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @b sbuf 128x64xf32 offset = 256
    // expected-note@+1 {{the earlier instruction}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    // expected-error@+1 {{races with an earlier instruction on stream q0: sbuf partitions 0:128 bytes 0..256 overlaps sbuf partitions 0:128 bytes 0..256, and nothing makes this instruction wait for it}}
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @deadlock target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @b sbuf 128x64xf32 offset = 256
    // expected-error@+1 {{deadlock: stream scalar waits forever here; stream vector gives only 0 of the 1 signals needed}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(vector >= 1) signal
    // expected-error@+1 {{deadlock: stream vector waits forever here; stream scalar gives only 0 of the 1 signals needed}}
    nisa.tensor_copy vector @b[0:128, 0, [1,64]] = @b[0:128, 0, [1,64]] wait(scalar >= 1) signal
  }
}

// -----

nisa.program @forever target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.memset vector @a[0:128, 0, [1,64]] = 0.0 signal
    // expected-error@+1 {{waits for signal 2 of stream vector, which gives 1: it would wait forever}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(vector >= 2)
  }
}

// -----

nisa.program @redundant target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.memset vector @a[0:128, 0, [1,64]] = 0.0 signal
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(vector >= 1)
    // expected-error@+1 {{waits for signal 1 of stream vector, which it already knows finished}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(vector >= 1)
  }
}

// -----

nisa.program @unused_signal target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    // expected-error@+1 {{signals, but no instruction waits for it}}
    nisa.memset vector @a[0:128, 0, [1,64]] = 0.0 signal
  }
}

// -----

nisa.program @no_stationary target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @m sbuf 128x64xbf16 offset = 0
    nisa.alloc @acc psum 128x64xf32 offset = 0
    // expected-error@+1 {{multiplies before any load_stationary on TensorE}}
    nisa.multiply_moving @acc[0:128, 0, [1,64]] = @m[0:128, 0, [1,64]] start
  }
}

// -----

nisa.program @unallocated target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    // expected-error@+1 {{has no offset: run --nisa-allocate-memory first}}
    nisa.alloc @a sbuf 128x64xf32
    nisa.memset vector @a[0:128, 0, [1,64]] = 0.0
  }
}

// -----

// TensorE: the moving matrix's K must be the stationary matrix's.
nisa.program @k_mismatch target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @s sbuf 128x128xbf16 offset = 0
    nisa.alloc @m sbuf 128x64xbf16 offset = 256
    nisa.alloc @acc psum 128x64xf32 offset = 0
    nisa.load_stationary @s[0:128, 0, [1,128]]
    // expected-error@+1 {{moving matrix has K = 64 partitions but the stationary one has 128}}
    nisa.multiply_moving @acc[0:128, 0, [1,64]] = @m[0:64, 0, [1,64]] start
  }
}

// -----

// TensorE: the accumulator has one row per column of the stationary matrix.
nisa.program @m_mismatch target "trn1" {
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @s sbuf 128x128xbf16 offset = 0
    nisa.alloc @m sbuf 128x64xbf16 offset = 256
    nisa.alloc @acc psum 128x64xf32 offset = 0
    nisa.load_stationary @s[0:128, 0, [1,64]]
    // expected-error@+1 {{accumulator has 128 rows but the stationary matrix has M = 64}}
    nisa.multiply_moving @acc[0:128, 0, [1,64]] = @m[0:128, 0, [1,64]] start
  }
}

// -----

// An internal HBM tensor without its scratch offset.
nisa.program @unallocated_hbm target "trn1" {
  // expected-error@+1 {{has no offset: run --nisa-allocate-memory first}}
  nisa.hbm @t internal : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @t[0, [64,128], [1,64]]
  }
}

// -----

// A lost write across streams: ScalarE overwrites what q0 loaded before
// VectorE read it. The semaphores order every access, so it is no race.
nisa.program @lost target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @b sbuf 128x64xf32 offset = 256
    // expected-note@+1 {{the earlier write}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    // expected-error@+1 {{overwrites data nothing has read yet: sbuf partitions 0:64 bytes 0..128 overlaps sbuf partitions 0:128 bytes 0..256, written by an earlier instruction on stream q0; the reader that data was for would see this write instead}}
    nisa.activation exp @a[0:64, 0, [1,32]] = @b[0:64, 0, [1,32]] wait(q0 >= 1) signal
    nisa.tensor_copy vector @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(scalar >= 1) signal
    nisa.dma_copy q1 @y[0, [64,128], [1,64]] = @b[0:128, 0, [1,64]] wait(vector >= 1)
  }
}

// -----

// Not lost: a read of part of a write consumes it, an instruction may read
// and rewrite its own operand, and a discard tile's results are for nobody.
nisa.program @kept target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x1xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @junk sbuf 128x64xf32 discard offset = 256
    nisa.alloc @s sbuf 128x1xf32 offset = 512
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    nisa.activation exp @junk[0:128, 0, [1,32]] = @a[0:128, 0, [1,32]] accumulate @s[0:128, 0, [1,1]] wait(q0 >= 1) signal
    nisa.activation exp @junk[0:128, 0, [1,32]] = @junk[0:128, 0, [1,32]]
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    nisa.dma_copy q1 @y[0, [1,128], [1,1]] = @s[0:128, 0, [1,1]] wait(scalar >= 1)
  }
}
