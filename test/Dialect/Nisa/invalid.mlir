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

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<4xf32>
  // expected-error@+1 {{'nisa.hbm' op is input 0 like x}}
  nisa.hbm @y input 0 : tensor<4xf32>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op needs a static shape, got 'tensor<?x4xf32>'}}
  nisa.hbm @x input 0 : tensor<?x4xf32>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op element type 'i8' is not a device type (f32, bf16, f16, i32, i1)}}
  nisa.hbm @x input 0 : tensor<4xi8>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op has an index but is not an input or output}}
  nisa.hbm @x internal 0 : tensor<4xf32>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op has a value but is not a const}}
  nisa.hbm @x internal : tensor<4xf32> = dense<1.0> : tensor<4xf32>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op const needs a value}}
  nisa.hbm @x const : tensor<4xf32>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op value of type 'tensor<8xf32>' does not match 'tensor<4xf32>'}}
  nisa.hbm @x const : tensor<4xf32> = dense<1.0> : tensor<8xf32>
}

// -----

nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op only internal tensors have a scratch offset}}
  nisa.hbm @x input 0 : tensor<4xf32> offset = 0
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{'nisa.alloc' op allocates tiles in sbuf or psum; HBM tensors are nisa.hbm}}
    nisa.alloc @t hbm 128x64xf32
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{'nisa.alloc' op element type 'i8' is not a device type}}
    nisa.alloc @t sbuf 128x64xi8
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{'nisa.alloc' op needs at least one partition and one element, got 0x64}}
    nisa.alloc @t sbuf 0x64xf32
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_copy' op destination has 4 free dims; engine accesses have at most 3}}
    nisa.tensor_copy vector @a[0:128, 0, [1,2], [1,2], [1,2], [1,8]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_copy' op destination covers 128 partitions x 64 elements but source covers 128 x 32}}
    nisa.tensor_copy vector @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,32]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.activation' op scale is given both as an immediate and as an access}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] scale @a[0:128, 0, [1,1]] {scale_imm = 2.0 : f32}
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_scalar' op first scalar is missing}}
    "nisa.tensor_scalar"() <{dst = @a, dst_ap = #nisa.ap<0:128, 0, [1,64]>, engine = 2 : i32, op0 = 1 : i32, src = @a, src_ap = #nisa.ap<0:128, 0, [1,64]>}> : () -> ()
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_scalar' op second scalar is missing}}
    "nisa.tensor_scalar"() <{dst = @a, dst_ap = #nisa.ap<0:128, 0, [1,64]>, engine = 2 : i32, imm0 = 1.0 : f32, op0 = 1 : i32, op1 = 3 : i32, src = @a, src_ap = #nisa.ap<0:128, 0, [1,64]>}> : () -> ()
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.activation' op bias needs both a memory and an access pattern}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] {bias = @a}
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.dma_copy' op accesses tile @a without a partition range (write [start:end, offset, ...])}}
    nisa.dma_copy q0 @a[0, [1,64]] = @x[0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 64x64xf32
    nisa.alloc @b sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_copy' op accesses partitions 0:128 of @a, which has 64}}
    nisa.tensor_copy vector @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_copy' op accesses elements 32..96 of @a, which has 64 per partition}}
    nisa.tensor_copy vector @a[0:128, 32, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.dma_copy' op gives HBM tensor @x a partition range}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.dma_copy' op queue 16 is not in 0..15}}
    "nisa.dma_copy"() <{dst = @a, dst_ap = #nisa.ap<0:128, 0, [1,64]>, queue = 16 : i64, src = @x, src_ap = #nisa.ap<0, [64,128], [1,64]>}> : () -> ()
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @idx sbuf 128x1xi32
    // expected-error@+1 {{'nisa.dma_copy' op indirect needs a stride and a bound}}
    "nisa.dma_copy"() <{dst = @a, dst_ap = #nisa.ap<0:128, 0, [1,64]>, indirect = @idx, indirect_ap = #nisa.ap<0:128, 0, [1,1]>, queue = 0 : i64, src = @x, src_ap = #nisa.ap<0, [0,128], [1,64]>}> : () -> ()
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @b sbuf 128x64xf32
    nisa.alloc @idx sbuf 128x1xi32
    // expected-error@+1 {{'nisa.dma_copy' op indirect copies between HBM and a tile}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @b[0:128, 0, [1,64]] indirect @idx[0:128, 0, [1,1]] stride 64 bound 128
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @idx sbuf 128x2xi32
    // expected-error@+1 {{'nisa.dma_copy' op indirect index access must be one element on each of the 128 partitions}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [0,128], [1,64]] indirect @idx[0:128, 0, [1,2]] stride 64 bound 128
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @acc psum 128x64xf32
    // expected-error@+1 {{'nisa.dma_copy' op cannot copy psum to hbm (DMA copies HBM<->SBUF, SBUF->SBUF, PSUM->SBUF and HBM->HBM)}}
    nisa.dma_copy q0 @y[0, [64,128], [1,64]] = @acc[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @idx sbuf 128x1xf32
    // expected-error@+1 {{'nisa.dma_copy' op indirect indices must be an i32 SBUF tile}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [0,128], [1,64]] indirect @idx[0:128, 0, [1,1]] stride 64 bound 128
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m sbuf 128x512xbf16
    nisa.alloc @acc psum 128x512xf32
    // expected-error@+1 {{'nisa.multiply_moving' op accumulator has 256 columns but the moving matrix has 512}}
    nisa.multiply_moving @acc[0:128, 0, [1,256]] = @m[0:128, 0, [1,512]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m sbuf 128x512xbf16
    nisa.alloc @acc psum 128x512xbf16
    // expected-error@+1 {{'nisa.multiply_moving' op accumulates into an f32 PSUM tile}}
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @m[0:128, 0, [1,512]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @m sbuf 128x512xi32
    nisa.alloc @acc psum 128x512xf32
    // expected-error@+1 {{'nisa.multiply_moving' op moving matrix must be f32, bf16 or f16}}
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @m[0:128, 0, [1,512]] start
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @s sbuf 128x128xi32
    // expected-error@+1 {{'nisa.load_stationary' op stationary matrix must be f32, bf16 or f16}}
    nisa.load_stationary @s[0:128, 0, [1,128]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xbf16
    nisa.alloc @t psum 128x128xbf16
    // expected-error@+1 {{'nisa.transpose' op destination must be 64x128 (the source transposed), got 128x64}}
    nisa.transpose tensor @t[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 32x32xf32
    nisa.alloc @t psum 32x32xf32
    // expected-error@+1 {{'nisa.transpose' op on VectorE transposes SBUF to SBUF}}
    nisa.transpose vector @a[0:32, 0, [1,32]] = @t[0:32, 0, [1,32]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x128xbf16
    nisa.alloc @t psum 128x128xf16
    // expected-error@+1 {{'nisa.transpose' op on TensorE writes f32 or the source's type into PSUM}}
    nisa.transpose tensor @t[0:128, 0, [1,128]] = @a[0:128, 0, [1,128]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_tensor' op needs an operation, not bypass}}
    nisa.tensor_tensor vector bypass @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]], @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.tensor_scalar' op has a second scalar but no second operation}}
    nisa.tensor_scalar vector @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] add 1.0 {imm1 = 2.0 : f32}
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.scalar_tensor_tensor' op needs a second operation, not bypass}}
    nisa.scalar_tensor_tensor vector @a[0:128, 0, [1,64]] = (@a[0:128, 0, [1,64]] multiply 2.0) bypass @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @r sbuf 128x1xf32
    // expected-error@+1 {{'nisa.tensor_reduce' op reduces with add, max, min or multiply, not subtract}}
    nisa.tensor_reduce vector subtract @r[0:128, 0, [1,1]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @r sbuf 1x64xf32
    // expected-error@+1 {{'nisa.partition_reduce' op reduces with add, max, min or multiply, not divide}}
    nisa.partition_reduce divide @r[0:1, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x1024xf32
    nisa.alloc @st sbuf 128x3xf32
    // expected-error@+1 {{'nisa.bn_stats' op takes at most 512 elements per partition, got 1024}}
    nisa.bn_stats @st[0:128, 0, [1,3]] = @a[0:128, 0, [1,1024]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @st sbuf 128x4xf32
    // expected-error@+1 {{'nisa.bn_stats' op writes 3 values (count, mean, M2) on each source partition}}
    nisa.bn_stats @st[0:128, 0, [1,4]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @st sbuf 128x6xf32
    nisa.alloc @mv sbuf 128x2xf32
    // expected-error@+1 {{'nisa.bn_aggr' op reads bn_stats triples, got 4 elements per partition}}
    nisa.bn_aggr @mv[0:128, 0, [1,2]] = @st[0:128, 0, [1,4]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @st sbuf 128x6xf32
    nisa.alloc @mv sbuf 128x3xf32
    // expected-error@+1 {{'nisa.bn_aggr' op writes 2 values (mean, variance) on each source partition}}
    nisa.bn_aggr @mv[0:128, 0, [1,3]] = @st[0:128, 0, [1,6]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @idx sbuf 128x4xi32
    // expected-error@+1 {{'nisa.iota' op has 2 steps for 1 free dims}}
    nisa.iota @idx[0:128, 0, [1,4]] = 0 + 1 * p + [0, 1]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.affine_select' op has 2 coefficients for 1 free dims}}
    nisa.affine_select @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] if 0 + 1 * p + [-1, 1] ge else 0.0
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.alloc @r sbuf 2x64xf32
    // expected-error@+1 {{'nisa.partition_reduce' op destination must be one partition of 64 elements}}
    nisa.partition_reduce max @r[0:2, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xi32
    // expected-error@+1 {{'nisa.activation' op computes on float tiles}}
    nisa.activation exp @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
  }
}

// -----

// Offsets are read signed: -8 is not 2^64 - 8.
nisa.program @p target "trn1" {
  // expected-error@+1 {{'nisa.hbm' op offset -8 is negative}}
  nisa.hbm @x internal : tensor<4xf32> offset = -8
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{'nisa.alloc' op offset -8 is negative}}
    nisa.alloc @a sbuf 128x64xf32 offset = -8
  }
}

// -----

// The program's index check leaves a missing index to the tensor's verifier.
nisa.program @p target "trn1" {
  nisa.hbm @y input 0 : tensor<4xf32>
  // expected-error@+1 {{'nisa.hbm' op of kind input/output needs an index}}
  nisa.hbm @x input : tensor<4xf32>
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error@+1 {{'nisa.dma_copy' op queue -1 is not in 0..15}}
    "nisa.dma_copy"() <{dst = @a, dst_ap = #nisa.ap<0:128, 0, [1,64]>, queue = -1 : i64, src = @x, src_ap = #nisa.ap<0, [64,128], [1,64]>}> : () -> ()
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    // expected-error@+1 {{'nisa.alloc' op element type 'i8' is not a device type (f32, bf16, f16, i32, i1)}}
    nisa.alloc @a sbuf 128x64xi8
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<256xf32> offset = 0
  nisa.hbm @b internal : tensor<256xf32> offset = 1024
  nisa.kernel @k "all_reduce" from "neuron.all_reduce" {
    // expected-error@+1 {{group must be at least 2 cores, got 1}}
    nisa.all_reduce q0 @b[0, [1,256]] = @a[0, [1,256]] group 1
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<256xf32> offset = 0
  nisa.hbm @b internal : tensor<256xf32> offset = 1024
  nisa.kernel @k "all_reduce" from "neuron.all_reduce" {
    // expected-error@+1 {{source must be one contiguous run of an HBM tensor}}
    nisa.all_reduce q0 @b[0, [1,128]] = @a[0, [2,128]] group 2
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<256xf16> offset = 0
  nisa.hbm @b internal : tensor<256xf16> offset = 1024
  nisa.kernel @k "all_reduce" from "neuron.all_reduce" {
    // expected-error@+1 {{reduces f32 or bf16 into the same type, got 'f16' into 'f16'}}
    nisa.all_reduce q0 @b[0, [1,256]] = @a[0, [1,256]] group 2
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<256xf16> offset = 0
  nisa.hbm @b internal : tensor<64xf16> offset = 1024
  nisa.kernel @k "reduce_scatter" from "neuron.reduce_scatter" {
    // expected-error@+1 {{reduces f32 or bf16 into the same type, got 'f16' into 'f16'}}
    nisa.reduce_scatter q0 @b[0, [1,64]] = @a[0, [1,256]] group 4 outer 1
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<256xf32> offset = 0
  nisa.hbm @b internal : tensor<128xf32> offset = 1024
  nisa.kernel @k "reduce_scatter" from "neuron.reduce_scatter" {
    // expected-error@+1 {{scatters 256 elements over 4 cores into 128 each}}
    nisa.reduce_scatter q0 @b[0, [1,128]] = @a[0, [1,256]] group 4 outer 1
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<64xf32> offset = 0
  nisa.hbm @b internal : tensor<256xf32> offset = 1024
  nisa.kernel @k "all_gather" from "neuron.all_gather" {
    // expected-error@+1 {{outer 3 does not divide the part's 64 elements}}
    nisa.all_gather q0 @b[0, [1,256]] = @a[0, [1,64]] group 4 outer 3
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<64xf32> offset = 0
  nisa.kernel @k "all_gather" from "neuron.all_gather" {
    nisa.alloc @t sbuf 1x256xf32
    // expected-error@+1 {{accesses tile @t without a partition range}}
    nisa.all_gather q0 @t[0, [1,256]] = @a[0, [1,64]] group 4 outer 1
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<48xf32> offset = 0
  nisa.hbm @b internal : tensor<48xf32> offset = 1024
  nisa.kernel @k "all_to_all" from "neuron.all_to_all" {
    // expected-error@+1 {{concat 5 does not divide the part's 12 elements}}
    nisa.all_to_all q0 @b[0, [1,48]] = @a[0, [1,48]] group 4 split 12 concat 5
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<48xf32> offset = 0
  nisa.hbm @b internal : tensor<48xf32> offset = 1024
  nisa.kernel @k "all_to_all" from "neuron.all_to_all" {
    // expected-error@+1 {{cannot split 48 elements into 5 parts}}
    nisa.all_to_all q0 @b[0, [1,48]] = @a[0, [1,48]] group 5 split 1 concat 1
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<48xf32> offset = 0
  nisa.hbm @b internal : tensor<48xf32> offset = 1024
  nisa.kernel @k "send_recv" from "neuron.send_recv" {
    // expected-error@+1 {{shift 0 is not in -3..3 without 0}}
    nisa.send_recv q0 @b[0, [1,48]] = @a[0, [1,48]] group 4 shift 0 cyclic 0
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<48xf32> offset = 0
  nisa.hbm @b internal : tensor<48xbf16> offset = 1024
  nisa.kernel @k "send_recv" from "neuron.send_recv" {
    // expected-error@+1 {{moves 'f32' into 'bf16'}}
    nisa.send_recv q0 @b[0, [1,48]] = @a[0, [1,48]] group 4 shift 1 cyclic 0
  }
}

// -----

nisa.program @p target "trn1" {
  nisa.hbm @a internal : tensor<48xf32> offset = 0
  nisa.hbm @b internal : tensor<48xf32> offset = 1024
  nisa.kernel @k "send_recv" from "neuron.send_recv" {
    // expected-error@+1 {{cyclic must be 0 or 1, got 2}}
    nisa.send_recv q0 @b[0, [1,48]] = @a[0, [1,48]] group 4 shift 1 cyclic 2
  }
}

// -----

// A carried tile (in the program's body) obeys the same capacity rule.
nisa.program @p target "trn1" {
  // expected-error@+1 {{needs bytes 0..262144 of each partition but sbuf on trn1 has 196608}}
  nisa.alloc @carried sbuf 128x65536xf32
}

// -----

// A tile belongs to a kernel or, carried, to a program.
// expected-error@+1 {{expects parent op to be one of 'nisa.kernel, nisa.program'}}
nisa.alloc @loose sbuf 128x4xf32
