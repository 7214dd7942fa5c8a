// Row kernels: rows on partitions, reduced dims on the free axis, what the
// engines do in one instruction folded into one.
// RUN: neuron-opt %s --neuron-lower="remarks=true" -split-input-file 2>/dev/null | FileCheck %s
// RUN: neuron-opt %s --neuron-lower="remarks=true" -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// RMSNorm over 256 rows of 64: two row tiles, each loaded once, three
// instructions per tile: the squares summed by ScalarE as it squares
// (accumulate), rsqrt(ss/64 + eps) in one activation, and both products in
// one scalar_tensor_tensor. The weight is loaded once, broadcast over the
// partitions by a stride-0 pattern.
// REMARK: remark: lowered as one rmsnorm kernel: 256 rows x 64 columns, resident
// CHECK-LABEL: nisa.program @rmsnorm target "trn1"
// CHECK: nisa.hbm @in0 input 0 : tensor<256x64xf32>
// CHECK: nisa.kernel @k0 "rmsnorm" from "neuron.rmsnorm"
// A 32 KiB tile moves 64 KB counting the overhead of its 128 row runs: two
// pieces.
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[W:w[0-9]+]][0:64, 0, [1,64]] = @in1[0, [0,64], [1,64]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[W]][64:128, 0, [1,64]] = @in1[0, [0,64], [1,64]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[X0:t[0-9]+]][0:64, 0, [1,64]] = @in0[0, [64,64], [1,64]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[X0]][64:128, 0, [1,64]] = @in0[4096, [64,64], [1,64]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[X1:t[0-9]+]][0:64, 0, [1,64]] = @in0[8192, [64,64], [1,64]]
// CHECK: nisa.activation square @{{.*}} = @[[X0]][0:128, 0, [1,64]] accumulate @[[SS:r[0-9]+]][0:128, 0, [1,1]]
// CHECK-NEXT: nisa.activation rsqrt @[[R:r[0-9]+]][0:128, 0, [1,1]] = @[[SS]][0:128, 0, [1,1]] scale 1.562500e-02 bias 9.99999997E-7
// CHECK-NEXT: nisa.scalar_tensor_tensor {{vector|gpsimd}} @[[Y:t[0-9]+]][0:128, 0, [1,64]] = (@[[X0]][0:128, 0, [1,64]] multiply @[[R]][0:128, 0, [1,1]]) multiply @[[W]][0:128, 0, [1,64]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[0, [64,64], [1,64]] = @[[Y]][0:64, 0, [1,64]]
// CHECK: nisa.activation square @{{.*}} = @[[X1]]
// CHECK: nisa.dma_copy q{{[0-9]+}} @out0[8192, [64,64], [1,64]]
func.func @rmsnorm(%x: tensor<256x64xf32>, %w: tensor<64xf32>) -> tensor<256x64xf32> {
  %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06 : (tensor<256x64xf32>, tensor<64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}

// -----

// Softmax: the row max on VectorE, then exp(x - max) with the row sum in one
// activation (bias = -max), the reciprocal of the sum, and the product.
// REMARK: remark: lowered as one softmax kernel: 40 rows x 300 columns, resident
// CHECK-LABEL: nisa.program @softmax
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} max @[[M:r[0-9]+]][0:40, 0, [1,1]] = @[[X:t[0-9]+]][0:40, 0, [1,300]]
// CHECK-NEXT: nisa.tensor_scalar {{vector|gpsimd}} @[[NM:n[0-9]+]][0:40, 0, [1,1]] = @[[M]][0:40, 0, [1,1]] multiply -1.000000e+00
// CHECK-NEXT: nisa.activation exp @[[E:t[0-9]+]][0:40, 0, [1,300]] = @[[X]][0:40, 0, [1,300]] bias @[[NM]][0:40, 0, [1,1]] accumulate @[[S:r[0-9]+]][0:40, 0, [1,1]]
// CHECK: @[[S]][0:40, 0, [1,1]]
// CHECK: multiply
func.func @softmax(%x: tensor<40x300xf32>) -> tensor<40x300xf32> {
  %0 = neuron.softmax %x axis = 1 : tensor<40x300xf32>
  return %0 : tensor<40x300xf32>
}

// -----

// A row too long for SBUF is streamed in chunks: one pass for the max, one
// for the sum, one computing the output.
// REMARK: remark: lowered as one softmax kernel: 40 rows x 151936 columns, streamed in {{[0-9]+}} chunks of {{[0-9]+}} over 3 passes
// CHECK-LABEL: nisa.program @log_softmax_vocab
// CHECK: nisa.activation log
func.func @log_softmax_vocab(%x: tensor<1x40x151936xf32>) -> tensor<1x40x151936xf32> {
  %0 = neuron.softmax %x axis = 2 log : tensor<1x40x151936xf32>
  return %0 : tensor<1x40x151936xf32>
}

// -----

// A reduction whose kept dim is innermost puts the reduced rows on the
// partitions: TensorE sums them with a ones vector as the stationary matrix,
// accumulating in PSUM over the row tiles (start on the first).
// REMARK: remark: lowered as one reduction kernel across partitions: 300 reduced rows x 64 columns, summed on TensorE
// CHECK-LABEL: nisa.program @sum_rows
// CHECK: nisa.memset {{vector|gpsimd}} @[[ONES:ones[0-9]+]][0:128, 0, [1,1]] = 1.000000e+00
// CHECK: nisa.load_stationary @[[ONES]][0:128, 0, [1,1]]
// CHECK-NEXT: nisa.multiply_moving @[[ACC:acc[0-9]+]][0:1, 0, [1,64]] = @{{x[0-9]+}}[0:128, 0, [1,64]] start
// CHECK: nisa.load_stationary @[[ONES]][0:128, 0, [1,1]]
// CHECK-NEXT: nisa.multiply_moving @[[ACC]][0:1, 0, [1,64]] = @{{x[0-9]+}}[0:128, 0, [1,64]]{{$}}
// CHECK: nisa.load_stationary @[[ONES]][0:44, 0, [1,1]]
// CHECK-NEXT: nisa.multiply_moving @[[ACC]][0:1, 0, [1,64]] = @{{x[0-9]+}}[0:44, 0, [1,64]]{{$}}
// CHECK: nisa.tensor_scalar {{vector|scalar}} @{{res[0-9]+}}[0:1, 0, [1,64]] = @[[ACC]][0:1, 0, [1,64]] multiply
func.func @sum_rows(%x: tensor<300x64xf32>) -> tensor<64xf32> {
  %0 = neuron.reduce_mean %x axes = [0] : tensor<300x64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// nn.MultiheadAttention's averaged weights: the sum over 8 heads of
// [2, 8, 64, 64] keeps the innermost dim, so the 8 heads go on partitions and
// each 512-column pass is one multiply. Passes pipeline: four load buffers,
// the accumulator and result alternate between two, and the results are
// stored on a queue of their own (q15), so no load waits behind a store.
// REMARK: remark: lowered as one reduction kernel across partitions: 8 reduced rows x 8192 columns, summed on TensorE
// CHECK-LABEL: nisa.program @sum_heads
// CHECK-COUNT-4: nisa.alloc @x{{[0-9]+}} sbuf 8x512xf32
// CHECK: nisa.alloc @[[A0:acc[0-9]+]] psum 1x512xf32
// CHECK-NEXT: nisa.alloc @[[A1:acc[0-9]+]] psum 1x512xf32
// CHECK-NEXT: nisa.alloc @[[R0:res[0-9]+]] sbuf 1x512xf32
// CHECK-NEXT: nisa.alloc @[[R1:res[0-9]+]] sbuf 1x512xf32
// CHECK-NOT: nisa.dma_copy q15 @x
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[X0:x[0-9]+]][0:8, 0, [1,512]] = @in0[0, [4096,8], [1,512]]
// CHECK-NEXT: nisa.load_stationary @{{ones[0-9]+}}[0:8, 0, [1,1]]
// CHECK-NEXT: nisa.multiply_moving @[[A0]][0:1, 0, [1,512]] = @[[X0]][0:8, 0, [1,512]] start
// CHECK-NEXT: nisa.tensor_copy {{vector|scalar}} @[[R0]][0:1, 0, [1,512]] = @[[A0]]
// CHECK-NEXT: nisa.dma_copy q15 @out0[0, [1,512]] = @[[R0]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[X1:x[0-9]+]][0:8, 0, [1,512]] = @in0[512, [4096,8], [1,512]]
// CHECK-NEXT: nisa.load_stationary @{{ones[0-9]+}}[0:8, 0, [1,1]]
// CHECK-NEXT: nisa.multiply_moving @[[A1]][0:1, 0, [1,512]] = @[[X1]][0:8, 0, [1,512]] start
// CHECK-NEXT: nisa.tensor_copy {{vector|scalar}} @[[R1]][0:1, 0, [1,512]] = @[[A1]]
// CHECK-NEXT: nisa.dma_copy q15 @out0[512, [1,512]] = @[[R1]]
// CHECK-NOT: nisa.dma_copy q15 @x
// CHECK: nisa.dma_copy q15 @out0[7680, [1,512]]
func.func @sum_heads(%x: tensor<2x8x64x64xf32>) -> tensor<2x64x64xf32> {
  %0 = neuron.reduce_sum %x axes = [1] : tensor<2x8x64x64xf32> -> tensor<2x64x64xf32>
  return %0 : tensor<2x64x64xf32>
}

// -----

// The max across partitions is GpSimdE's, combined over row tiles on VectorE.
// REMARK: remark: lowered as one reduction kernel across partitions: 300 reduced rows x 64 columns, combined on GpSimdE
// CHECK-LABEL: nisa.program @max_rows
// CHECK: nisa.partition_reduce max @[[ACC:acc[0-9]+]][0:1, 0, [1,64]] = @{{x[0-9]+}}[0:128, 0, [1,64]]
// CHECK: nisa.partition_reduce max @[[ACR:across[0-9]+]][0:1, 0, [1,64]]
// CHECK-NEXT: nisa.tensor_tensor {{vector|gpsimd}} max @[[ACC]][0:1, 0, [1,64]] = @[[ACC]][0:1, 0, [1,64]], @[[ACR]][0:1, 0, [1,64]]
func.func @max_rows(%x: tensor<300x64xf32>) -> tensor<1x64xf32> {
  %0 = neuron.reduce_max %x axes = [0] keepdims : tensor<300x64xf32> -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// A fused elementwise kernel with a broadcast operand: one kernel. 64 rows
// would leave half the partitions idle, so each row is split in two; the
// broadcast vector is loaded with a stride-0 row pattern that follows the
// split.
// REMARK: remark: lowered as one elementwise kernel: 128 rows x 500 columns, resident
// CHECK-LABEL: nisa.program @fused
// CHECK-COUNT-1: nisa.kernel
// CHECK: nisa.dma_copy q{{[0-9]+}} @{{t[0-9]+}}[0:8, 0, [1,500]] = @in0[0, [500,8], [1,500]]
// CHECK: nisa.dma_copy q{{[0-9]+}} @{{t[0-9]+}}[0:8, 0, [1,500]] = @in1[0, [0,4], [500,2], [1,500]]
// CHECK: nisa.tensor_tensor {{vector|gpsimd}} add
// CHECK-NEXT: nisa.activation tanh
// CHECK-NOT: nisa.kernel
func.func @fused(%x: tensor<64x1000xf32>, %b: tensor<1000xf32>) -> tensor<64x1000xf32> {
  %0 = neuron.kernel "elementwise"(%x, %b) : (tensor<64x1000xf32>, tensor<1000xf32>) -> tensor<64x1000xf32> {
  ^bb0(%a: tensor<64x1000xf32>, %c: tensor<1000xf32>):
    %1 = neuron.add %a, %c : tensor<64x1000xf32>, tensor<1000xf32> -> tensor<64x1000xf32>
    %2 = neuron.tanh %1 : tensor<64x1000xf32>
    neuron.yield %2 : tensor<64x1000xf32>
  }
  return %0 : tensor<64x1000xf32>
}

// -----

// Layernorm takes each row's mean and variance in one pass with bn_stats (a
// triple per 512 columns) and bn_aggr, then centres and scales.
// REMARK: remark: lowered as one layernorm kernel: 100 rows x 1000 columns, resident
// CHECK-LABEL: nisa.program @layernorm
// CHECK: nisa.bn_stats @[[ST:stats[0-9]+]][0:100, 0, [1,3]] = @[[X:t[0-9]+]][0:100, 0, [1,512]]
// CHECK-NEXT: nisa.bn_stats @[[ST]][0:100, 3, [1,3]] = @[[X]][0:100, 512, [1,488]]
// CHECK-NEXT: nisa.bn_aggr @[[MV:meanvar[0-9]+]][0:100, 0, [1,2]] = @[[ST]][0:100, 0, [1,6]]
// CHECK: nisa.activation rsqrt @{{r[0-9]+}}[0:100, 0, [1,1]] = @[[MV]][0:100, 1, [1,1]] bias 9.99999974E-6
// CHECK: subtract @[[MV]][0:100, 0, [1,1]]
func.func @layernorm(%x: tensor<100x1000xf32>) -> tensor<100x1000xf32> {
  %0 = neuron.layernorm %x axes = [1] epsilon = 1.0e-05 : (tensor<100x1000xf32>) -> tensor<100x1000xf32>
  return %0 : tensor<100x1000xf32>
}

// -----

// A float computed only to be rounded (an epilogue's cast before the next
// bf16 matmul): its instruction writes the bf16 tile itself, no tensor_copy.
// The 16 KiB bf16 store is split like a DMA of what it moves (16 KiB + 128
// row runs of overhead = 48 KB): two pieces, as the 32 KiB f32 loads (its
// bytes alone, under the 17 KB minimum piece, would have made one).
// CHECK-LABEL: nisa.program @cast_folds_into_producer
// CHECK: nisa.kernel @k0 "elementwise"
// CHECK: nisa.alloc @[[X:t[0-9]+]] sbuf 128x64xf32
// CHECK-NEXT: nisa.alloc @[[Y:t[0-9]+]] sbuf 128x64xbf16
// CHECK-NOT: nisa.tensor_copy
// CHECK: nisa.activation exp @[[Y]][0:128, 0, [1,64]] = @[[X]][0:128, 0, [1,64]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[0, [64,64], [1,64]] = @[[Y]]
// CHECK: nisa.kernel @k1 "elementwise"
// CHECK-NOT: nisa.tensor_copy
// CHECK: nisa.tensor_tensor {{vector|gpsimd}} multiply @[[Z:t[0-9]+]][0:128, 0, [1,64]] =
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out1[0, [64,64], [1,64]] = @[[Z]]
func.func @cast_folds_into_producer(%x: tensor<128x64xf32>, %s: tensor<128x64xf32>) -> (tensor<128x64xbf16>, tensor<128x64xbf16>) {
  %0 = neuron.kernel "elementwise"(%x) : (tensor<128x64xf32>) -> tensor<128x64xbf16> {
  ^bb0(%a: tensor<128x64xf32>):
    %e = neuron.exp %a : tensor<128x64xf32>
    %c = neuron.cast %e : tensor<128x64xf32> -> tensor<128x64xbf16>
    neuron.yield %c : tensor<128x64xbf16>
  }
  %1 = neuron.kernel "elementwise"(%x, %s) : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xbf16> {
  ^bb0(%a: tensor<128x64xf32>, %b: tensor<128x64xf32>):
    %m = neuron.mul %a, %b : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x64xf32>
    %d = neuron.cast %m : tensor<128x64xf32> -> tensor<128x64xbf16>
    neuron.yield %d : tensor<128x64xbf16>
  }
  return %0, %1 : tensor<128x64xbf16>, tensor<128x64xbf16>
}
