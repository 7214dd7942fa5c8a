// RUN: neuron-opt %s --split-input-file --neuron-shard-tp=parts=4 --neuron-sequence-parallel -verify-diagnostics | FileCheck %s

// A residual MLP block over 8 rows: the input arrives split along the rows,
// the scaling and the residual add work on each core's 2 rows, the partial
// sums are reduce-scattered, an all-gather restores the whole activation
// before the column-parallel projection, and the block's output stays split
// along the rows as its input arrived (the runtime joins the parts).
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x64xf32> {neuron.shard = array<i64: 1, 4>}, %[[G:.*]]: tensor<64xf32>, %[[W1:.*]]: tensor<32x64xf32> {neuron.shard = array<i64: 0, 4>}, %[[W2:.*]]: tensor<64x32xf32> {neuron.shard = array<i64: 1, 4>}) -> (tensor<1x2x64xf32> {neuron.shard = array<i64: 1, 4>})
// CHECK-NEXT: %[[N:.*]] = neuron.mul %[[X]], %[[G]] : tensor<1x2x64xf32>, tensor<64xf32> -> tensor<1x2x64xf32>
// CHECK-NEXT: %[[NG:.*]] = neuron.all_gather %[[N]] dim = 1 group = 4 : tensor<1x2x64xf32> -> tensor<1x8x64xf32>
// CHECK-NEXT: %[[H:.*]] = neuron.matmul %[[NG]], %[[W1]] transpose_rhs : tensor<1x8x64xf32>, tensor<32x64xf32> -> tensor<1x8x32xf32>
// CHECK-NEXT: %[[A:.*]] = neuron.silu %[[H]] : tensor<1x8x32xf32>
// CHECK-NEXT: %[[P:.*]] = neuron.matmul %[[A]], %[[W2]] transpose_rhs : tensor<1x8x32xf32>, tensor<64x32xf32> -> tensor<1x8x64xf32>
// CHECK-NEXT: %[[S:.*]] = neuron.reduce_scatter %[[P]] dim = 1 group = 4 : tensor<1x8x64xf32> -> tensor<1x2x64xf32>
// CHECK-NEXT: %[[R:.*]] = neuron.add %[[X]], %[[S]] : tensor<1x2x64xf32>, tensor<1x2x64xf32> -> tensor<1x2x64xf32>
// CHECK-NEXT: return %[[R]] : tensor<1x2x64xf32>
func.func @block(%x: tensor<1x8x64xf32>, %g: tensor<64xf32>, %w1: tensor<128x64xf32>, %w2: tensor<64x128xf32>) -> tensor<1x8x64xf32> {
  %n = neuron.mul %x, %g : tensor<1x8x64xf32>, tensor<64xf32> -> tensor<1x8x64xf32>
  %h = neuron.matmul %n, %w1 transpose_rhs : tensor<1x8x64xf32>, tensor<128x64xf32> -> tensor<1x8x128xf32>
  %a = neuron.silu %h : tensor<1x8x128xf32>
  %y = neuron.matmul %a, %w2 transpose_rhs : tensor<1x8x128xf32>, tensor<64x128xf32> -> tensor<1x8x64xf32>
  %r = neuron.add %x, %y : tensor<1x8x64xf32>, tensor<1x8x64xf32> -> tensor<1x8x64xf32>
  return %r : tensor<1x8x64xf32>
}

// -----

// One row (a decode step) cannot be split over 4 cores.
// expected-error @+1 {{cannot apply sequence parallelism to '@decode' over 4 cores: the sequence dim (1) of the all-reduced 3-d tensor (1 rows) is not a multiple of 4}}
func.func @decode(%x: tensor<1x1x64xf32>, %w1: tensor<128x64xf32>, %w2: tensor<64x128xf32>) -> tensor<1x1x64xf32> {
  %h = neuron.matmul %x, %w1 transpose_rhs : tensor<1x1x64xf32>, tensor<128x64xf32> -> tensor<1x1x128xf32>
  %y = neuron.matmul %h, %w2 transpose_rhs : tensor<1x1x128xf32>, tensor<64x128xf32> -> tensor<1x1x64xf32>
  %r = neuron.add %x, %y : tensor<1x1x64xf32>, tensor<1x1x64xf32> -> tensor<1x1x64xf32>
  return %r : tensor<1x1x64xf32>
}
