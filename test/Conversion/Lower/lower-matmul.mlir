// Matmuls on TensorE: Aᵀ as the stationary matrix (K on partitions, M <= 128
// columns), B as the moving one (K on partitions, N <= 512 per multiply),
// accumulated over the K tiles in one PSUM bank; the epilogue runs on each
// PSUM tile.
// RUN: neuron-opt %s --neuron-lower="remarks=true" -split-input-file 2>/dev/null | FileCheck %s
// RUN: neuron-opt %s --neuron-lower="remarks=true" -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: neuron-opt %s --neuron-lower="remarks=true target=trn2" -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=TRN2

// A is [M, K] with K innermost: its rows are loaded and transposed on
// TensorE through PSUM into Aᵀ (three K tiles: 128, 128, 44), each row tile
// just before its first multiplies (the second row tile's rows load while
// the first multiplies).
// REMARK: remark: lowered as one matmul-epilogue kernel: 130x300x96 in blocks of 130 rows, column tiles of 96, lhs transposed on TensorE
// CHECK-LABEL: nisa.program @bias_relu
// Transfers under 256 KiB go in pieces that each move at least 17 KB counting
// 256 bytes of overhead per row run, a power of two of them: B's 48 KiB K
// tiles (80 KB moved) in four, A's 150 KiB row tile (182 KB) in eight.
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[MOV:mov[0-9]+]][0:32, 0, [1,96]] = @in1[0, [96,32], [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[MOV]][32:64, 0, [1,96]] = @in1[3072, [96,32], [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[MOV]][64:96, 0, [1,96]] = @in1[6144, [96,32], [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[MOV]][96:128, 0, [1,96]] = @in1[9216, [96,32], [1,96]]
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[ST:stA[0-9]+]][0:16, 0, [1,300]] = @in0[0, [300,16], [1,300]]
// CHECK: nisa.transpose tensor @[[TP:tp[0-9]+]][0:128, 0, [1,128]] = @[[ST]][0:128, 0, [1,128]]
// CHECK-NEXT: nisa.tensor_copy {{vector|scalar}} @[[AT:aT[0-9]+]][0:128, 0, [1,128]] = @[[TP]][0:128, 0, [1,128]]
// CHECK: nisa.load_stationary @[[AT]][0:128, 0, [1,128]]
// CHECK-NEXT: nisa.multiply_moving @[[ACC:acc[0-9]+]][0:128, 0, [1,96]] = @[[MOV]][0:128, 0, [1,96]] start
// CHECK-NEXT: nisa.load_stationary @[[AT]][0:128, 130, [1,128]]
// CHECK-NEXT: nisa.multiply_moving @[[ACC]][0:128, 0, [1,96]] = @[[MOV]][0:128, 96, [1,96]]{{$}}
// CHECK-NEXT: nisa.load_stationary @[[AT]][0:44, 260, [1,128]]
// CHECK-NEXT: nisa.multiply_moving @[[ACC]][0:128, 0, [1,96]] = @[[MOV]][0:44, 192, [1,96]]{{$}}
// The bias add reads the accumulator straight from PSUM.
// CHECK: nisa.tensor_tensor vector add @[[S:t[0-9]+]][0:128, 0, [1,96]] = @[[ACC]][0:128, 0, [1,96]], @{{t[0-9]+}}[0:128, 0, [1,96]]
// CHECK-NEXT: nisa.activation relu @[[Y:t[0-9]+]][0:128, 0, [1,96]] = @[[S]][0:128, 0, [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[0, [96,32], [1,96]] = @[[Y]][0:32, 0, [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[3072, [96,32], [1,96]] = @[[Y]][32:64, 0, [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[6144, [96,32], [1,96]] = @[[Y]][64:96, 0, [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[9216, [96,32], [1,96]] = @[[Y]][96:128, 0, [1,96]]
// The last two rows of the 130: their Aᵀ, then their multiplies.
// CHECK: nisa.dma_copy q{{[0-9]+}} @{{stA[0-9]+}}[0:2, 0, [1,300]] = @in0[38400, [300,2], [1,300]]
// CHECK: nisa.load_stationary @[[AT]][0:128, 128, [1,2]]
// CHECK: nisa.multiply_moving @{{acc[0-9]+}}[0:2, 0, [1,96]] = @[[MOV]][0:128, 0, [1,96]] start
// The program's last stores, one row per queue.
// CHECK: nisa.dma_copy q{{[0-9]+}} @out0[12288, [1,96]] = @{{t[0-9]+}}[0:1, 0, [1,96]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[12384, [1,96]] = @{{t[0-9]+}}[1:2, 0, [1,96]]
func.func @bias_relu(%a: tensor<130x300xf32>, %b: tensor<300x96xf32>, %c: tensor<96xf32>) -> tensor<130x96xf32> {
  %0 = neuron.kernel "matmul-epilogue"(%a, %b, %c) : (tensor<130x300xf32>, tensor<300x96xf32>, tensor<96xf32>) -> tensor<130x96xf32> {
  ^bb0(%x: tensor<130x300xf32>, %y: tensor<300x96xf32>, %z: tensor<96xf32>):
    %1 = neuron.matmul %x, %y : tensor<130x300xf32>, tensor<300x96xf32> -> tensor<130x96xf32>
    %2 = neuron.add %1, %z : tensor<130x96xf32>, tensor<96xf32> -> tensor<130x96xf32>
    %3 = neuron.relu %2 : tensor<130x96xf32>
    neuron.yield %3 : tensor<130x96xf32>
  }
  return %0 : tensor<130x96xf32>
}

// -----

// transpose_lhs gives Aᵀ directly ([K, M] rows): no transposes. The result
// leaves PSUM through a copy (bf16 operands, f32 result). One row tile
// streams B in column tiles of several PSUM banks (2 KiB rows per DMA
// run), each multiply filling one bank of the accumulator.
// REMARK: remark: lowered as one matmul kernel: 64x128x1024 in blocks of 64 rows, column tiles of 1024; 4 epilogue buffers{{$}}
// CHECK-LABEL: nisa.program @transposed_lhs
// CHECK-NOT: nisa.transpose
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[AT:aT[0-9]+]][0:{{[0-9]+}}, 0, [1,64]] = @in0[0, [64,{{[0-9]+}}], [1,64]]
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[MOV:mov[0-9]+]][0:{{[0-9]+}}, 0, [1,1024]] = @in1[0, [1024,{{[0-9]+}}], [1,1024]]
// CHECK: nisa.multiply_moving @[[ACC:acc[0-9]+]][0:64, 0, [1,512]] = @[[MOV]][0:128, 0, [1,512]] start
// CHECK-NEXT: nisa.multiply_moving @[[ACC]][0:64, 512, [1,512]] = @[[MOV]][0:128, 512, [1,512]] start
// CHECK-NEXT: nisa.tensor_copy {{vector|scalar}} @{{t[0-9]+}}[0:64, 0, [1,1024]] = @[[ACC]][0:64, 0, [1,1024]]
func.func @transposed_lhs(%a: tensor<128x64xbf16>, %b: tensor<128x1024xbf16>) -> tensor<64x1024xf32> {
  %0 = neuron.matmul %a, %b transpose_lhs : tensor<128x64xbf16>, tensor<128x1024xbf16> -> tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}

// -----

// A K too long for the column's moving tiles to stay in SBUF streams them one
// K tile at a time (the decode-time down projection of an FFN).
// Column tiles of 1024 f32 (4 KiB runs), the last one 512 wide.
// REMARK: remark: lowered as one matmul kernel: 1x8960x1536 in blocks of 1 rows, column tiles of 1024, lhs transposed on TensorE
// CHECK-LABEL: nisa.program @long_k
// CHECK-COUNT-70: nisa.multiply_moving @{{acc[0-9]+}}[0:1, 512, [1,512]]
// CHECK-COUNT-70: nisa.multiply_moving @{{acc[0-9]+}}[0:1, 0, [1,512]]
// CHECK-NOT: nisa.multiply_moving @{{acc[0-9]+}}[0:1, 512, [1,512]]
func.func @long_k(%a: tensor<1x8960xf32>, %b: tensor<8960x1536xf32>) -> tensor<1x1536xf32> {
  %0 = neuron.matmul %a, %b : tensor<1x8960xf32>, tensor<8960x1536xf32> -> tensor<1x1536xf32>
  return %0 : tensor<1x1536xf32>
}

// -----

// Llama-7B's down projection, prefill 2048 with the weight prepacked:
// streaming K, each of the block's row tiles needs an accumulator; all but
// two PSUM slots (four of 512 columns beside the transpose banks) give
// blocks of 512 rows, B read 4 times in 1 KiB rows (at half the slots,
// blocks of 384 rows read it 6 times, and halving the column tile for
// 640-row blocks made 512 B rows: 5.05 ms; now 3.44 ms).
// REMARK: remark: lowered as one matmul kernel: 2048x14336x4096 in blocks of 512 rows, column tiles of 512, lhs transposed on TensorE
func.func @down_projection(%a: tensor<2048x14336xbf16>, %b: tensor<14336x4096xbf16>) -> tensor<2048x4096xf32> {
  %0 = neuron.matmul %a, %b : tensor<2048x14336xbf16>, tensor<14336x4096xbf16> -> tensor<2048x4096xf32>
  return %0 : tensor<2048x4096xf32>
}

// -----

// When streaming K gives a larger block than keeping it resident, it wins:
// B is read once per block. On trn2 (224 KiB partitions) 71 bf16 K tiles
// of 512 columns fit resident with one row tile (B read 8 times); streamed,
// the block is all 1000 rows.
// TRN2: remark: lowered as one matmul kernel: 1000x9000x600 in blocks of 1000 rows, column tiles of 256, lhs transposed on TensorE
func.func @stream_wins(%a: tensor<1000x9000xbf16>, %b: tensor<9000x600xbf16>) -> tensor<1000x600xf32> {
  %0 = neuron.matmul %a, %b : tensor<1000x9000xbf16>, tensor<9000x600xbf16> -> tensor<1000x600xf32>
  return %0 : tensor<1000x600xf32>
}

// -----

// One multiply per output tile (K = 128): the kernel stores 32x what it
// loads. Its stores get their share of the queues (12 of 16, at most three
// quarters), in pieces of 16 KiB, and the epilogue cycles through 4 tiles,
// so 4 output tiles' stores are in flight (fused with a cast to bf16, as
// test/diagnosis/store-queues.mlir: 954 us on trn1 with a quarter of the
// queues, two 64 KiB pieces and 2 tiles; now 318 us).
// REMARK: remark: lowered as one matmul kernel: 4096x128x4096 in blocks of 4096 rows, column tiles of 512, lhs transposed on TensorE; 4 epilogue buffers, stores on 12 queues in pieces of 16384 bytes
// CHECK-LABEL: nisa.program @store_heavy
// CHECK: nisa.alloc @t0 sbuf 128x512xf32
// CHECK-NEXT: nisa.alloc @t1 sbuf 128x512xf32
// CHECK-NEXT: nisa.alloc @t2 sbuf 128x512xf32
// CHECK-NEXT: nisa.alloc @t3 sbuf 128x512xf32
// Each 256 KiB output tile in 16 pieces of 8 rows, over queues 4-15.
// CHECK: nisa.dma_copy q4 @out0[0, [4096,8], [1,512]] = @t0[0:8, 0, [1,512]]
// CHECK-NEXT: nisa.dma_copy q5 @out0[32768, [4096,8], [1,512]] = @t0[8:16, 0, [1,512]]
func.func @store_heavy(%a: tensor<4096x128xbf16>, %b: tensor<128x4096xbf16>) -> tensor<4096x4096xf32> {
  %0 = neuron.matmul %a, %b : tensor<4096x128xbf16>, tensor<128x4096xbf16> -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

// -----

// A constant inside the kernel that only the matmul reads (a fill of the
// LHS, as buddy's linalg matmul writes it) is the matmul's operand, not part
// of the epilogue's domain: the epilogue stays on the PSUM tiles (it used to
// be split off: "no value spans the kernel's whole iteration space").
// REMARK-NOT: separate kernel
// REMARK: remark: lowered as one matmul-epilogue kernel: 1x640x48 in blocks of 1 rows
// CHECK-LABEL: nisa.program @constant_lhs
func.func @constant_lhs(%b: tensor<640x48xf32>) -> tensor<1x48xf32> {
  %0 = neuron.kernel "matmul-epilogue"(%b) : (tensor<640x48xf32>) -> tensor<1x48xf32> {
  ^bb0(%y: tensor<640x48xf32>):
    %a = neuron.constant dense<2.000000e+00> : tensor<1x640xf32>
    %c = neuron.constant dense<4.000000e+00> : tensor<1x48xf32>
    %1 = neuron.matmul %a, %y : tensor<1x640xf32>, tensor<640x48xf32> -> tensor<1x48xf32>
    %2 = neuron.add %1, %c : tensor<1x48xf32>, tensor<1x48xf32> -> tensor<1x48xf32>
    neuron.yield %2 : tensor<1x48xf32>
  }
  return %0 : tensor<1x48xf32>
}

// -----

// Batches that share the rhs are rows of one product when that saves reads
// of the rhs worth more than two DMA latencies: a sequence-first
// MultiheadAttention's in-projection (128 batches of 2 rows) reads its
// 3 MiB weight once, not 128 times, and its bias runs on the 256-row tiles.
// REMARK: remark: lowered as one matmul-epilogue kernel: 256x512x1536 (128 batches as rows: the rhs is shared) in blocks of 256 rows
// CHECK-LABEL: nisa.program @seq_first_in_projection
// Each of the three column tiles has a buffer of its own: the third loads
// without waiting for the first one's multiplies.
// CHECK:      nisa.alloc @mov0 sbuf 128x2048xf32
// CHECK-NEXT: nisa.alloc @mov1 sbuf 128x2048xf32
// CHECK-NEXT: nisa.alloc @mov2 sbuf 128x2048xf32
// The weight (an input here, not a constant: its 256 KiB K tiles count as
// small and go in 16 pieces) in 192 loads, 3 column tiles x 4 K tiles x
// 16, then no more; A's 256 KiB row tiles, which the first multiplies wait
// on, in 16 pieces of 8 rows too, the first after the first column tile.
// CHECK: nisa.dma_copy q{{[0-9]+}} @mov0[0:8, 0, [1,512]] = @in1[0, [1536,8], [1,512]]
// CHECK-COUNT-63: = @in1[
// CHECK: nisa.dma_copy q{{[0-9]+}} @stA0[0:8, 0, [1,512]] = @in0[0, [512,8], [1,512]]
// CHECK-COUNT-15: @stA0[{{[0-9]+}}:{{[0-9]+}}, 0, [1,512]] = @in0[
// CHECK-COUNT-128: = @in1[
// CHECK-NOT: = @in1[
func.func @seq_first_in_projection(%x: tensor<128x2x512xf32>, %w: tensor<512x1536xf32>, %bias: tensor<1536xf32>) -> tensor<128x2x1536xf32> {
  %0 = neuron.kernel "matmul-epilogue"(%x, %w, %bias) : (tensor<128x2x512xf32>, tensor<512x1536xf32>, tensor<1536xf32>) -> tensor<128x2x1536xf32> {
  ^bb0(%a: tensor<128x2x512xf32>, %b: tensor<512x1536xf32>, %c: tensor<1536xf32>):
    %1 = neuron.matmul %a, %b : tensor<128x2x512xf32>, tensor<512x1536xf32> -> tensor<128x2x1536xf32>
    %2 = neuron.add %1, %c : tensor<128x2x1536xf32>, tensor<1536xf32> -> tensor<128x2x1536xf32>
    neuron.yield %2 : tensor<128x2x1536xf32>
  }
  return %0 : tensor<128x2x1536xf32>
}

// -----

// The choice is the shape's, not the dtype's: 8 windows of 8 tokens by a
// 96 x 512 weight fold in bf16 as in f32 (counted at bf16's width, the saved
// reads stayed under two latencies: Swin-T's windows by its 96 x 384 MLP
// weight on trn2 stayed 8 batches and ran slower than the f32 compile).
// REMARK: remark: lowered as one matmul kernel: 64x96x512 (8 batches as rows: the rhs is shared) in blocks of 64 rows
// REMARK: remark: lowered as one matmul kernel: 64x96x512 (8 batches as rows: the rhs is shared) in blocks of 64 rows
// CHECK-LABEL: nisa.program @windows_f32
// CHECK-LABEL: nisa.program @windows_bf16
func.func @windows_f32(%x: tensor<8x8x96xf32>, %w: tensor<96x512xf32>) -> tensor<8x8x512xf32> {
  %0 = neuron.matmul %x, %w : tensor<8x8x96xf32>, tensor<96x512xf32> -> tensor<8x8x512xf32>
  return %0 : tensor<8x8x512xf32>
}
func.func @windows_bf16(%x: tensor<8x8x96xbf16>, %w: tensor<96x512xbf16>) -> tensor<8x8x512xf32> {
  %0 = neuron.matmul %x, %w : tensor<8x8x96xbf16>, tensor<96x512xbf16> -> tensor<8x8x512xf32>
  return %0 : tensor<8x8x512xf32>
}

// -----

// Two batches of 64 rows by a 32 KiB weight fold too, into one block of
// 128 rows: one weight read, one transpose chain instead of two.
// REMARK: remark: lowered as one matmul kernel: 128x128x128 (2 batches as rows: the rhs is shared) in blocks of 128 rows
// CHECK-LABEL: nisa.program @small_shared_rhs
func.func @small_shared_rhs(%x: tensor<2x64x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<2x64x128xf32> {
  %0 = neuron.matmul %x, %w : tensor<2x64x128xbf16>, tensor<128x128xbf16> -> tensor<2x64x128xf32>
  return %0 : tensor<2x64x128xf32>
}

// -----

// A per-batch rhs keeps the batch loop.
// REMARK: remark: lowered as one matmul kernel: 2x256x768 in blocks of 2 rows
// CHECK-LABEL: nisa.program @per_batch_rhs
func.func @per_batch_rhs(%x: tensor<128x2x256xf32>, %w: tensor<128x256x768xf32>) -> tensor<128x2x768xf32> {
  %0 = neuron.matmul %x, %w : tensor<128x2x256xf32>, tensor<128x256x768xf32> -> tensor<128x2x768xf32>
  return %0 : tensor<128x2x768xf32>
}

// -----

// A constant of exactly 256 KiB per K tile stays in four 64 KiB pieces (the
// kernel before starts them, nisa-prefetch-loads); the activation rows of
// the same size go in sixteen.
// CHECK-LABEL: nisa.program @constant_rhs_pieces
// CHECK:      nisa.hbm @const0 const : tensor<512x512xf32>
// CHECK:      nisa.dma_copy q{{[0-9]+}} @mov0[0:32, 0, [1,512]] = @const0[0, [512,32], [1,512]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @mov0[32:64, 0, [1,512]] = @const0[16384, [512,32], [1,512]]
// CHECK:      nisa.dma_copy q{{[0-9]+}} @stA0[0:8, 0, [1,512]] = @in0[0, [512,8], [1,512]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @stA0[8:16, 0, [1,512]] = @in0[4096, [512,8], [1,512]]
func.func @constant_rhs_pieces(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %w = neuron.constant dense<5.000000e-01> : tensor<512x512xf32>
  %0 = neuron.matmul %x, %w : tensor<256x512xf32>, tensor<512x512xf32> -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}
