// RUN: neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq:128,256" | FileCheck %s

// RMSNorm over hidden with the sequence dynamic: rows are independent, so
// the buckets need no mask; the dispatcher names the symbol.
// CHECK-LABEL: func.func @rmsnorm(
// CHECK-SAME: tensor<?x64xf32>
// CHECK: neuron.dispatch(%arg0, %arg1) {bucket_sizes = [array<i64: 128>, array<i64: 256>], callees = [@rmsnorm.seq_128, @rmsnorm.seq_256], input_dims = [array<i64: -1, 64>, array<i64: 64>], masks = array<i64>, output_dims = [array<i64: -1, 64>], symbols = ["seq"]
// CHECK-LABEL: func.func @rmsnorm.seq_128(
// CHECK-SAME: %arg0: tensor<128x64xf32>
// CHECK-SAME: -> tensor<128x64xf32>
// CHECK-NOT: neuron.select
// CHECK: neuron.reduce_sum {{.*}} : tensor<128x64xf32> -> tensor<128x1xf32>
// CHECK-LABEL: func.func @rmsnorm.seq_256(
// CHECK-SAME: tensor<256x64xf32>
func.func @rmsnorm(%x: tensor<?x64xf32> {neuron.dim_names = ["seq", ""]}, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %sq = neuron.mul %x, %x : tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  %s = neuron.reduce_sum %sq axes = [1] keepdims : tensor<?x64xf32> -> tensor<?x1xf32>
  %c = neuron.constant dense<0.015625> : tensor<1x1xf32>
  %m = neuron.mul %s, %c : tensor<?x1xf32>, tensor<1x1xf32> -> tensor<?x1xf32>
  %r = neuron.rsqrt %m : tensor<?x1xf32>
  %y = neuron.mul %x, %r : tensor<?x64xf32>, tensor<?x1xf32> -> tensor<?x64xf32>
  %o = neuron.mul %y, %w : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}

// -----

// Softmax over padded keys: the scores are masked to -inf once; exp(-inf)
// is 0, so the sum needs no mask of its own.
// CHECK-LABEL: func.func @softmax(
// CHECK: masks = array<i64: 0>
// CHECK-LABEL: func.func @softmax.seq_128(
// CHECK-SAME: %arg0: tensor<4x128xf32>{{.*}}, %arg1: tensor<128xi1>) -> tensor<4x128xf32>
// CHECK: %[[M:.*]] = neuron.reshape %arg1 : tensor<128xi1> -> tensor<1x128xi1>
// CHECK: %[[NEG:.*]] = neuron.constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: %[[X:.*]] = neuron.select %[[M]], %arg0, %[[NEG]]
// CHECK: neuron.reduce_max %[[X]]
// CHECK: neuron.sub %[[X]]
// CHECK-NOT: neuron.select
// CHECK: neuron.reduce_sum
// CHECK: return
func.func @softmax(%x: tensor<4x?xf32> {neuron.dim_names = ["", "seq"]}) -> tensor<4x?xf32> {
  %m = neuron.reduce_max %x axes = [1] keepdims : tensor<4x?xf32> -> tensor<4x1xf32>
  %d = neuron.sub %x, %m : tensor<4x?xf32>, tensor<4x1xf32> -> tensor<4x?xf32>
  %e = neuron.exp %d : tensor<4x?xf32>
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x?xf32> -> tensor<4x1xf32>
  %p = neuron.div %e, %s : tensor<4x?xf32>, tensor<4x1xf32> -> tensor<4x?xf32>
  return %p : tensor<4x?xf32>
}

// -----

// A mean over the padded dim divides by the true count: the sum of the mask.
// CHECK-LABEL: func.func @mean.seq_256(
// CHECK-SAME: %arg1: tensor<256xi1>
// CHECK: %[[S:.*]] = neuron.select
// CHECK: %[[SUM:.*]] = neuron.reduce_sum %[[S]] axes = [0] : tensor<256x8xf32> -> tensor<8xf32>
// CHECK: %[[F:.*]] = neuron.cast %arg1 : tensor<256xi1> -> tensor<256xf32>
// CHECK: %[[N:.*]] = neuron.reduce_sum %[[F]] axes = [0] keepdims : tensor<256xf32> -> tensor<1xf32>
// CHECK: neuron.div %[[SUM]], %[[N]] : tensor<8xf32>, tensor<1xf32> -> tensor<8xf32>
// CHECK-NOT: neuron.reduce_mean
func.func @mean(%x: tensor<?x8xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<8xf32> {
  %e = neuron.exp %x : tensor<?x8xf32>
  %m = neuron.reduce_mean %e axes = [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Dims tied through the ops: k's length is q's because they are added
// elementwise; both arguments' dims are one symbol. A matmul contracting
// over it: the zero padding of both operands makes every padded product 0,
// so no mask.
// CHECK-LABEL: func.func @tied(
// CHECK: input_dims = [array<i64: -1, 16>, array<i64: -1, 16>, array<i64: -1, 16>], masks = array<i64>, output_dims = [array<i64: 16, 16>]
// CHECK-LABEL: func.func @tied.seq_128(
// CHECK-NOT: neuron.select
// CHECK: neuron.matmul {{.*}} transpose_lhs : tensor<128x16xf32>, tensor<128x16xf32> -> tensor<16x16xf32>
func.func @tied(%q: tensor<?x16xf32> {neuron.dim_names = ["seq", ""]}, %k: tensor<?x16xf32>, %v: tensor<?x16xf32>) -> tensor<16x16xf32> {
  %a = neuron.add %q, %k : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %b = neuron.mul %a, %v : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %c = neuron.matmul %b, %v transpose_lhs : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// -----

// Contraction over a padded dim: exp(0) * v's zero padding is 0, no mask;
// exp(0) * exp(0) is not: one operand is masked to 0 first.
// CHECK-LABEL: func.func @contract.seq_128(
// CHECK: %[[E:.*]] = neuron.exp %arg0
// CHECK: %[[S:.*]] = neuron.select %{{.*}}, %[[E]], %{{.*}} : tensor<1x128xi1>, tensor<4x128xf32>, tensor<1x1xf32> -> tensor<4x128xf32>
// CHECK: neuron.matmul %[[E]], %arg1 : tensor<4x128xf32>, tensor<128x8xf32> -> tensor<4x8xf32>
// CHECK: %[[F:.*]] = neuron.exp %arg1
// CHECK: neuron.matmul %[[S]], %[[F]] : tensor<4x128xf32>, tensor<128x8xf32> -> tensor<4x8xf32>
func.func @contract(%p: tensor<4x?xf32> {neuron.dim_names = ["", "seq"]}, %v: tensor<?x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = neuron.exp %p : tensor<4x?xf32>
  %o = neuron.matmul %e, %v : tensor<4x?xf32>, tensor<?x8xf32> -> tensor<4x8xf32>
  %f = neuron.exp %v : tensor<?x8xf32>
  %o2 = neuron.matmul %e, %f : tensor<4x?xf32>, tensor<?x8xf32> -> tensor<4x8xf32>
  return %o, %o2 : tensor<4x8xf32>, tensor<4x8xf32>
}

