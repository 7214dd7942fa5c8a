// The hardware rules the nisa verifiers enforce, one violation each.
// RUN: neuron-opt %s -split-input-file -verify-diagnostics

nisa.program @p target "trn9" {
// expected-error@-1 {{unknown target 'trn9'; known targets: trn1, trn2}}
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{needs bytes 0..262144 of each partition but sbuf on trn1 has 196608}}
    nisa.alloc @t sbuf 128x65536xf32
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{has 129 partitions; trn1 has 128}}
    nisa.alloc @t sbuf 129x4xf32
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{needs bytes 14336..18432 of each partition but psum on trn1 has 16384}}
    nisa.alloc @t psum 128x1024xf32 offset = 14336
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{source starts at partition 16; engine accesses start at partition 0, 32, 64 or 96}}
    nisa.tensor_copy vector @a[0:16, 0, [1,64]] = @a[16:32, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{destination spans partitions 32:96; from partition 32 an access spans at most 32}}
    nisa.tensor_copy vector @a[32:96, 0, [1,64]] = @a[0:64, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{cannot run on the scalar engine (it runs on vector, gpsimd)}}
    nisa.tensor_tensor scalar add @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]], @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @acc psum 128x64xf32
    // expected-error@+1 {{writes PSUM tile @acc; only TensorE writes PSUM (evacuate it to SBUF instead)}}
    nisa.tensor_copy vector @acc[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @acc psum 128x64xf32
    // expected-error@+1 {{accesses PSUM tile @acc; GpSimdE cannot access PSUM}}
    nisa.tensor_copy gpsimd @a[0:128, 0, [1,64]] = @acc[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{lhs must be an SBUF/PSUM tile access, not an HBM one (only DMA reaches HBM)}}
    nisa.tensor_tensor vector add @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]], @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @s sbuf 128x128xbf16
    // expected-error@+1 {{stationary matrix has M = 256 columns; TensorE takes at most 128}}
    nisa.load_stationary @s[0:128, 0, [1,256]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m sbuf 128x1024xbf16
    nisa.alloc @acc psum 128x1024xf32
    // expected-error@+1 {{moving matrix has N = 1024 columns; TensorE takes at most 512 (one PSUM bank)}}
    nisa.multiply_moving @acc[0:128, 0, [1,1024]] = @m[0:128, 0, [1,1024]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m sbuf 128x512xbf16
    nisa.alloc @acc psum 128x1024xf32 offset = 0
    // expected-error@+1 {{accumulator must lie in one 2048-byte PSUM bank, got bytes 1024..3072}}
    nisa.multiply_moving @acc[0:128, 256, [1,512]] = @m[0:128, 0, [1,512]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m psum 128x512xf32
    nisa.alloc @acc psum 128x512xf32 offset = 2048
    // expected-error@+1 {{reads @m from psum; TensorE reads SBUF}}
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @m[0:128, 0, [1,512]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m sbuf 128x512xbf16
    nisa.alloc @acc sbuf 128x512xf32
    // expected-error@+1 {{writes @acc in sbuf; TensorE writes PSUM}}
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @m[0:128, 0, [1,512]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xbf16
    // expected-error@+1 {{copies 'f32' into 'bf16'; DMA does not convert (use tensor_copy)}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{copies 8192 source elements into 4096 destination elements}}
    nisa.dma_copy q0 @a[0:64, 0, [1,64]] = @x[0, [64,128], [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{accesses elements 64..8256 of @x, which has 8192}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[64, [64,128], [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<2x2x2x2x2xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 2x16xf32
    // expected-error@+1 {{source pattern has 5 dims (partitions included); DMA patterns have at most 4}}
    nisa.dma_copy q0 @a[0:2, 0, [1,16]] = @x[0, [16,2], [8,2], [4,2], [2,2], [1,2]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{names @nope, which is neither a tile of this kernel nor an HBM tensor of the program}}
    nisa.tensor_copy vector @a[0:128, 0, [1,64]] = @nope[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{destination must hold the source without its innermost dim (128 x 1 elements), got 128 x 2}}
    nisa.tensor_reduce vector add @a[0:128, 0, [1,2]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{bias must be one element on each of 128 partitions, got 128 x 64}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] bias @a[0:128, 0, [1,64]]
  }
}

// -----

// expected-error@+1 {{has 2 inputs but none with index 1}}
nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<4xf32>
  nisa.hbm @y input 2 : tensor<4xf32>
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{transposes a 128x64 block; the vector engine takes at most 32x32}}
    nisa.transpose vector @a[0:64, 0, [1,128]] = @a[0:128, 0, [1,64]]
  }
}
