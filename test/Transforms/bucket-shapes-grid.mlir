// RUN: neuron-opt %s --neuron-bucket-shapes="buckets=seq:128,256;batch:auto:1:2" | FileCheck %s

// Two independent dims: a 2 x 2 grid, named batch-major in argument order.
// CHECK-LABEL: func.func @grid(
// CHECK: bucket_sizes = [array<i64: 1, 128>, array<i64: 1, 256>, array<i64: 2, 128>, array<i64: 2, 256>], callees = [@grid.batch_1.seq_128, @grid.batch_1.seq_256, @grid.batch_2.seq_128, @grid.batch_2.seq_256]
// CHECK-SAME: symbols = ["batch", "seq"]
// CHECK-LABEL: func.func @grid.batch_2.seq_256(
// CHECK-SAME: tensor<2x256x8xf32>
func.func @grid(%x: tensor<?x?x8xf32> {neuron.dim_names = ["batch", "seq", ""]}) -> tensor<?x?x8xf32> {
  %t = neuron.tanh %x : tensor<?x?x8xf32>
  return %t : tensor<?x?x8xf32>
}
