// Ops that only move elements are DMA between HBM tensors; the gather fetches
// rows with an indirect DMA.
// RUN: neuron-opt %s --neuron-lower -split-input-file | FileCheck %s

// An integer transpose walks the source with the permuted strides (a float
// one that moves the innermost dim goes through SBUF when that is cheaper:
// transpose-sbuf.test). Its 192 runs of one element cost as 49 KB on the
// queues: two pieces.
// CHECK-LABEL: nisa.program @transpose
// CHECK: nisa.kernel @k0 "transpose" from "neuron.transpose"
// CHECK-NEXT: nisa.dma_copy q0 @out0[0, [24,4], [1,24]] = @in0[0, [1,4], [8,24]]
// CHECK-NEXT: nisa.dma_copy q1 @out0[96, [24,4], [1,24]] = @in0[4, [1,4], [8,24]]
func.func @transpose(%x: tensor<24x8xi32>) -> tensor<8x24xi32> {
  %0 = neuron.transpose %x perm = [1, 0] : tensor<24x8xi32> -> tensor<8x24xi32>
  return %0 : tensor<8x24xi32>
}

// -----

// A strided slice: offset 1*32 + 8, every second row.
// CHECK-LABEL: nisa.program @slice
// CHECK: nisa.dma_copy q0 @out0[0, [16,3], [1,16]] = @in0[40, [64,3], [1,16]]
func.func @slice(%x: tensor<8x32xf32>) -> tensor<3x16xf32> {
  %0 = neuron.slice %x offsets = [1, 8] sizes = [3, 16] strides = [2, 1] : tensor<8x32xf32> -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}

// -----

// The key slice of an attention in-projection's output (128 KiB, 128 rows
// of 1 KiB): a copy under 4 MiB goes in the largest power of two of pieces
// that each move at least 17 KB counting 256 B per run (160 KB: eight), one
// per queue. On one queue it took 9.7 us on trn1, for 1.3 us of latency.
// CHECK-LABEL: nisa.program @slice_q
// CHECK: nisa.dma_copy q0 @out0[0, [256,16], [1,256]] = @in0[256, [768,16], [1,256]]
// CHECK-NEXT: nisa.dma_copy q1 @out0[4096, [256,16], [1,256]] = @in0[12544, [768,16], [1,256]]
// CHECK-COUNT-5: nisa.dma_copy q{{[2-6]}} @out0
// CHECK-NEXT: nisa.dma_copy q7 @out0[28672, [256,16], [1,256]] = @in0[86272, [768,16], [1,256]]
// CHECK-NEXT: }
func.func @slice_q(%x: tensor<64x2x768xf32>) -> tensor<64x2x256xf32> {
  %0 = neuron.slice %x offsets = [0, 0, 256] sizes = [64, 2, 256] strides = [1, 1, 1] : tensor<64x2x768xf32> -> tensor<64x2x256xf32>
  return %0 : tensor<64x2x256xf32>
}

// -----

// Concat: each input into its place along the axis.
// CHECK-LABEL: nisa.program @concat
// CHECK: nisa.kernel @k0 "concat" from "neuron.concat"
// CHECK-NEXT: nisa.dma_copy q0 @out0[0, [10,4], [1,6]] = @in0[0, [6,4], [1,6]]
// CHECK-NEXT: nisa.dma_copy q1 @out0[6, [10,4], [1,4]] = @in1[0, [4,4], [1,4]]
func.func @concat(%a: tensor<4x6xf32>, %b: tensor<4x4xf32>) -> tensor<4x10xf32> {
  %0 = neuron.concat %a, %b axis = 1 : tensor<4x6xf32>, tensor<4x4xf32> -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// The embedding lookup: the indices into SBUF (one per partition), then each
// partition fetches table row index * 16 with an indirect DMA, bounded by
// the 100 rows of the table.
// CHECK-LABEL: nisa.program @gather
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[IDX:idx[0-9]+]][0:7, 0, [1,1]] = @in1[0, [1,7]]
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @[[ROWS:rows[0-9]+]][0:7, 0, [1,16]] = @in0[0, [0,7], [1,16]] indirect @[[IDX]][0:7, 0, [1,1]] stride 16 bound 100
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out0[0, [16,7], [1,16]] = @[[ROWS]][0:7, 0, [1,16]]
func.func @gather(%t: tensor<100x16xf32>, %i: tensor<7xi32>) -> tensor<7x16xf32> {
  %0 = neuron.gather %t[%i] axis = 0 : tensor<100x16xf32>, tensor<7xi32> -> tensor<7x16xf32>
  return %0 : tensor<7x16xf32>
}

// -----

// A reshape is a relabelling: the op producing the returned value writes the
// output directly, and an argument returned as it is is copied.
// CHECK-LABEL: nisa.program @views
// CHECK: nisa.kernel @k0 "exp"
// CHECK: nisa.dma_copy q{{[0-9]+}} @out0[
// CHECK: nisa.kernel @k1 "copy" from "func.return"
// CHECK-NEXT: nisa.dma_copy q{{[0-9]+}} @out1[0, [1,32]] = @in0[0, [1,32]]
func.func @views(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<4x8xf32>) {
  %0 = neuron.exp %x : tensor<4x8xf32>
  %1 = neuron.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  return %1, %x : tensor<32xf32>, tensor<4x8xf32>
}
