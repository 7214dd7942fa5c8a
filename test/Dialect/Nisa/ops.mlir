// Every nisa op prints and parses back to itself.
// RUN: neuron-opt %s | FileCheck %s
// RUN: neuron-opt %s | neuron-opt | FileCheck %s

// CHECK-LABEL: nisa.program @rmsnorm target "trn1"
nisa.program @rmsnorm target "trn1" {
  // CHECK: nisa.hbm @x input 0 : tensor<256x64xf32>
  nisa.hbm @x input 0 : tensor<256x64xf32>
  // CHECK: nisa.hbm @w const : tensor<64xf32> = dense<1.000000e+00> : tensor<64xf32>
  nisa.hbm @w const : tensor<64xf32> = dense<1.0> : tensor<64xf32>
  // CHECK: nisa.hbm @tmp internal : tensor<256x64xf32> offset = 0
  nisa.hbm @tmp internal : tensor<256x64xf32> offset = 0
  nisa.hbm @y output 0 : tensor<256x64xf32>
  // CHECK: nisa.kernel @k0 "rmsnorm" from "neuron.rmsnorm" {
  nisa.kernel @k0 "rmsnorm" from "neuron.rmsnorm" {
    // CHECK: nisa.alloc @x0 sbuf 128x64xf32 offset = 0
    nisa.alloc @x0 sbuf 128x64xf32 offset = 0
    nisa.alloc @w0 sbuf 128x64xf32
    nisa.alloc @sq sbuf 128x64xf32
    nisa.alloc @ss sbuf 128x1xf32
    nisa.alloc @r sbuf 128x1xf32
    nisa.alloc @y0 sbuf 128x64xf32
    // CHECK: nisa.dma_copy q0 @x0[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    nisa.dma_copy q0 @x0[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    // CHECK: nisa.dma_copy q1 @w0[0:128, 0, [1,64]] = @w[0, [0,128], [1,64]] signal
    nisa.dma_copy q1 @w0[0:128, 0, [1,64]] = @w[0, [0,128], [1,64]] signal
    // CHECK: nisa.activation square @sq[0:128, 0, [1,64]] = @x0[0:128, 0, [1,64]] accumulate @ss[0:128, 0, [1,1]] wait(q0 >= 1)
    nisa.activation square @sq[0:128, 0, [1,64]] = @x0[0:128, 0, [1,64]] accumulate @ss[0:128, 0, [1,1]] wait(q0 >= 1)
    // CHECK: nisa.activation rsqrt @r[0:128, 0, [1,1]] = @ss[0:128, 0, [1,1]] scale 1.562500e-02 bias 9.99999997E-7 signal
    nisa.activation rsqrt @r[0:128, 0, [1,1]] = @ss[0:128, 0, [1,1]] scale 0.015625 bias 1.0e-6 signal
    // CHECK: nisa.scalar_tensor_tensor vector @y0[0:128, 0, [1,64]] = (@x0[0:128, 0, [1,64]] multiply @r[0:128, 0, [1,1]]) multiply @w0[0:128, 0, [1,64]] wait(scalar >= 1, q1 >= 1) signal
    nisa.scalar_tensor_tensor vector @y0[0:128, 0, [1,64]] = (@x0[0:128, 0, [1,64]] multiply @r[0:128, 0, [1,1]]) multiply @w0[0:128, 0, [1,64]] wait(scalar >= 1, q1 >= 1) signal
    // CHECK: nisa.dma_copy q2 @y[0, [64,128], [1,64]] = @y0[0:128, 0, [1,64]] wait(vector >= 1)
    nisa.dma_copy q2 @y[0, [64,128], [1,64]] = @y0[0:128, 0, [1,64]] wait(vector >= 1)
  }
  // CHECK-LABEL: nisa.kernel @k1 "matmul" from "neuron.matmul"
  nisa.kernel @k1 "matmul" from "neuron.matmul" {
    nisa.alloc @a sbuf 128x128xbf16
    nisa.alloc @b sbuf 128x512xbf16
    nisa.alloc @acc psum 128x512xf32
    nisa.alloc @t psum 128x128xbf16
    nisa.alloc @o sbuf 128x512xf32
    // CHECK: nisa.transpose tensor @t[0:128, 0, [1,128]] = @a[0:128, 0, [1,128]]
    nisa.transpose tensor @t[0:128, 0, [1,128]] = @a[0:128, 0, [1,128]]
    // CHECK: nisa.load_stationary @a[0:128, 0, [1,128]]
    nisa.load_stationary @a[0:128, 0, [1,128]]
    // CHECK: nisa.multiply_moving @acc[0:128, 0, [1,512]] = @b[0:128, 0, [1,512]] start
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @b[0:128, 0, [1,512]] start
    // CHECK: nisa.multiply_moving @acc[0:128, 0, [1,512]] = @b[0:128, 0, [1,512]] signal
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @b[0:128, 0, [1,512]] signal
    // CHECK: nisa.tensor_copy scalar @o[0:128, 0, [1,512]] = @acc[0:128, 0, [1,512]] wait(tensor >= 1)
    nisa.tensor_copy scalar @o[0:128, 0, [1,512]] = @acc[0:128, 0, [1,512]] wait(tensor >= 1)
    // CHECK: nisa.tensor_tensor vector add @o[0:128, 0, [1,512]] = @o[0:128, 0, [1,512]], @acc[0:128, 0, [1,512]]
    nisa.tensor_tensor vector add @o[0:128, 0, [1,512]] = @o[0:128, 0, [1,512]], @acc[0:128, 0, [1,512]]
    // CHECK: nisa.tensor_scalar gpsimd @o[0:128, 0, [1,512]] = @o[0:128, 0, [1,512]] subtract reverse 1.000000e+00 then multiply @o[0:128, 0, [1,1]]
    nisa.tensor_scalar gpsimd @o[0:128, 0, [1,512]] = @o[0:128, 0, [1,512]] subtract reverse 1.0 then multiply @o[0:128, 0, [1,1]]
    // CHECK: nisa.tensor_scalar scalar @o[0:128, 0, [1,512]] = @o[0:128, 0, [1,512]] max 0.000000e+00{{$}}
    nisa.tensor_scalar scalar @o[0:128, 0, [1,512]] = @o[0:128, 0, [1,512]] max 0.0
  }
  // CHECK-LABEL: nisa.kernel @k2 "misc" from "neuron.gather"
  nisa.kernel @k2 "misc" from "neuron.gather" {
    nisa.alloc @idx sbuf 128x1xi32
    nisa.alloc @rows sbuf 128x64xf32
    nisa.alloc @m sbuf 128x64xi1
    nisa.alloc @st sbuf 128x6xf32
    nisa.alloc @mv sbuf 128x2xf32
    nisa.alloc @red sbuf 1x64xf32
    // CHECK: nisa.dma_copy q3 @rows[0:128, 0, [1,64]] = @x[0, [0,128], [1,64]] indirect @idx[0:128, 0, [1,1]] stride 64 bound 256
    nisa.dma_copy q3 @rows[0:128, 0, [1,64]] = @x[0, [0,128], [1,64]] indirect @idx[0:128, 0, [1,1]] stride 64 bound 256
    // CHECK: nisa.iota @idx[0:128, 0, [1,1]] = 0 + 1 * p + [0]
    nisa.iota @idx[0:128, 0, [1,1]] = 0 + 1 * p + [0]
    // CHECK: nisa.affine_select @rows[0:128, 0, [1,64]] = @rows[0:128, 0, [1,64]] if 0 + 1 * p + [-1] ge else -3.40282347E+38
    nisa.affine_select @rows[0:128, 0, [1,64]] = @rows[0:128, 0, [1,64]] if 0 + 1 * p + [-1] ge else -3.40282347E+38
    // CHECK: nisa.select vector @rows[0:128, 0, [1,64]] = @m[0:128, 0, [1,64]] ? @rows[0:128, 0, [1,64]] : @rows[0:128, 0, [1,64]]
    nisa.select vector @rows[0:128, 0, [1,64]] = @m[0:128, 0, [1,64]] ? @rows[0:128, 0, [1,64]] : @rows[0:128, 0, [1,64]]
    // CHECK: nisa.bn_stats @st[0:128, 0, [1,3]] = @rows[0:128, 0, [1,64]]
    nisa.bn_stats @st[0:128, 0, [1,3]] = @rows[0:128, 0, [1,64]]
    // CHECK: nisa.bn_aggr @mv[0:128, 0, [1,2]] = @st[0:128, 0, [1,6]]
    nisa.bn_aggr @mv[0:128, 0, [1,2]] = @st[0:128, 0, [1,6]]
    // CHECK: nisa.tensor_reduce vector max @mv[0:128, 0, [1,1]] = @rows[0:128, 0, [1,64]]
    nisa.tensor_reduce vector max @mv[0:128, 0, [1,1]] = @rows[0:128, 0, [1,64]]
    // CHECK: nisa.partition_reduce max @red[0:1, 0, [1,64]] = @rows[0:128, 0, [1,64]]
    nisa.partition_reduce max @red[0:1, 0, [1,64]] = @rows[0:128, 0, [1,64]]
    // CHECK: nisa.reciprocal @rows[0:128, 0, [1,64]] = @rows[0:128, 0, [1,64]]
    nisa.reciprocal @rows[0:128, 0, [1,64]] = @rows[0:128, 0, [1,64]]
    // CHECK: nisa.memset gpsimd @rows[0:128, 0, [1,64]] = 0.000000e+00
    nisa.memset gpsimd @rows[0:128, 0, [1,64]] = 0.0
  }
}

// The collectives of a 4-core group, with sharded inputs and outputs.
// CHECK-LABEL: nisa.program @group target "trn1"
nisa.program @group target "trn1" {
  // CHECK: nisa.hbm @x input 0 shard [0, 4] : tensor<2x64xf32>
  nisa.hbm @x input 0 shard [0, 4] : tensor<2x64xf32>
  // CHECK: nisa.hbm @y output 0 shard [1, 4] : tensor<8x16xf32>
  nisa.hbm @y output 0 shard [1, 4] : tensor<8x16xf32>
  nisa.hbm @s internal : tensor<128xf32> offset = 0
  nisa.hbm @g internal : tensor<512xf32> offset = 512
  nisa.hbm @r internal : tensor<32xf32> offset = 2560
  nisa.hbm @a internal : tensor<128xf32> offset = 2688
  nisa.kernel @k "collectives" from "neuron.all_reduce" {
    // CHECK: nisa.all_reduce q0 @s[0, [1,128]] = @x[0, [1,128]] group 4
    nisa.all_reduce q0 @s[0, [1,128]] = @x[0, [1,128]] group 4
    // CHECK: nisa.all_gather q1 @g[0, [1,512]] = @x[0, [1,128]] group 4 outer 2
    nisa.all_gather q1 @g[0, [1,512]] = @x[0, [1,128]] group 4 outer 2
    // CHECK: nisa.reduce_scatter q2 @r[0, [1,32]] = @x[0, [1,128]] group 4 outer 1
    nisa.reduce_scatter q2 @r[0, [1,32]] = @x[0, [1,128]] group 4 outer 1
    // CHECK: nisa.all_to_all q3 @a[0, [1,128]] = @x[0, [1,128]] group 4 split 32 concat 16
    nisa.all_to_all q3 @a[0, [1,128]] = @x[0, [1,128]] group 4 split 32 concat 16
    // CHECK: nisa.send_recv q4 @y[0, [1,128]] = @x[0, [1,128]] group 4 shift -1 cyclic 1
    nisa.send_recv q4 @y[0, [1,128]] = @x[0, [1,128]] group 4 shift -1 cyclic 1
  }
}
