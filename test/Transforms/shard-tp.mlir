// RUN: neuron-opt %s --split-input-file --neuron-shard-tp=parts=4 | FileCheck %s

// A SwiGLU-less MLP: x·W1ᵀ column-parallel, silu on the split columns,
// ·W2ᵀ row-parallel, its partial sums all-reduced before the residual add.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W1:.*]]: tensor<32x64xf32> {neuron.shard = array<i64: 0, 4>}, %[[W2:.*]]: tensor<64x32xf32> {neuron.shard = array<i64: 1, 4>}) -> tensor<4x64xf32>
// CHECK-SAME: attributes {neuron.tp = 4 : i64}
// CHECK-NEXT: %[[H:.*]] = neuron.matmul %[[X]], %[[W1]] transpose_rhs : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
// CHECK-NEXT: %[[A:.*]] = neuron.silu %[[H]] : tensor<4x32xf32>
// CHECK-NEXT: %[[P:.*]] = neuron.matmul %[[A]], %[[W2]] transpose_rhs : tensor<4x32xf32>, tensor<64x32xf32> -> tensor<4x64xf32>
// CHECK-NEXT: %[[Y:.*]] = neuron.all_reduce %[[P]] group = 4 : tensor<4x64xf32>
// CHECK-NEXT: %[[R:.*]] = neuron.add %[[X]], %[[Y]]
// CHECK-NEXT: return %[[R]] : tensor<4x64xf32>
func.func @mlp(%x: tensor<4x64xf32>, %w1: tensor<128x64xf32>, %w2: tensor<64x128xf32>) -> tensor<4x64xf32> {
  %h = neuron.matmul %x, %w1 transpose_rhs : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
  %a = neuron.silu %h : tensor<4x128xf32>
  %y = neuron.matmul %a, %w2 transpose_rhs : tensor<4x128xf32>, tensor<64x128xf32> -> tensor<4x64xf32>
  %r = neuron.add %x, %y : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// Multi-head attention, 8 heads of 16 over 4 cores: Q/K/V column-parallel
// (as exported: transpose then a reshape adding a unit batch dim), the
// heads split through reshape and transpose, the scores, scale, replicated
// mask (broadcast over heads) and softmax per local head, the output
// projection row-parallel.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: %{{.*}}: tensor<32x128xf32> {neuron.shard = array<i64: 0, 4>}, %{{.*}}: tensor<32x128xf32> {neuron.shard = array<i64: 0, 4>}, %{{.*}}: tensor<32x128xf32> {neuron.shard = array<i64: 0, 4>}, %{{.*}}: tensor<128x32xf32> {neuron.shard = array<i64: 1, 4>}, %[[MASK:[^:]*]]: tensor<16x16xf32>)
// CHECK: neuron.transpose %{{.*}} perm = [1, 0] : tensor<32x128xf32> -> tensor<128x32xf32>
// CHECK-NEXT: neuron.reshape %{{.*}} : tensor<128x32xf32> -> tensor<1x128x32xf32>
// CHECK-NEXT: neuron.matmul {{.*}} -> tensor<1x16x32xf32>
// CHECK-NEXT: neuron.reshape %{{.*}} : tensor<1x16x32xf32> -> tensor<1x16x2x16xf32>
// CHECK-NEXT: neuron.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<1x16x2x16xf32> -> tensor<1x2x16x16xf32>
// CHECK: %[[S:.*]] = neuron.matmul %{{.*}}, %{{.*}} transpose_rhs : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
// CHECK-NEXT: %[[SC:.*]] = neuron.mul %[[S]], %{{.*}} : tensor<1x2x16x16xf32>, tensor<1x1x1x1xf32> -> tensor<1x2x16x16xf32>
// CHECK-NEXT: %[[M:.*]] = neuron.add %[[SC]], %[[MASK]] : tensor<1x2x16x16xf32>, tensor<16x16xf32> -> tensor<1x2x16x16xf32>
// CHECK-NEXT: neuron.softmax %[[M]] axis = 3 : tensor<1x2x16x16xf32>
// CHECK-NEXT: neuron.matmul {{.*}} : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
// CHECK-NEXT: neuron.transpose {{.*}} -> tensor<1x16x2x16xf32>
// CHECK-NEXT: neuron.reshape {{.*}} : tensor<1x16x2x16xf32> -> tensor<1x16x32xf32>
// CHECK: %[[O:.*]] = neuron.matmul {{.*}} -> tensor<1x16x128xf32>
// CHECK-NEXT: %[[OR:.*]] = neuron.all_reduce %[[O]] group = 4 : tensor<1x16x128xf32>
// CHECK-NEXT: neuron.add %{{.*}}, %[[OR]]
func.func @attention(%x: tensor<1x16x128xf32>, %wq: tensor<128x128xf32>, %wk: tensor<128x128xf32>, %wv: tensor<128x128xf32>, %wo: tensor<128x128xf32>, %mask: tensor<16x16xf32>) -> tensor<1x16x128xf32> {
  %scale = neuron.constant dense<0.25> : tensor<1x1x1x1xf32>
  %tq = neuron.transpose %wq perm = [1, 0] : tensor<128x128xf32> -> tensor<128x128xf32>
  %rq = neuron.reshape %tq : tensor<128x128xf32> -> tensor<1x128x128xf32>
  %q0 = neuron.matmul %x, %rq : tensor<1x16x128xf32>, tensor<1x128x128xf32> -> tensor<1x16x128xf32>
  %q1 = neuron.reshape %q0 : tensor<1x16x128xf32> -> tensor<1x16x8x16xf32>
  %q = neuron.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x16x8x16xf32> -> tensor<1x8x16x16xf32>
  %k0 = neuron.matmul %x, %wk transpose_rhs : tensor<1x16x128xf32>, tensor<128x128xf32> -> tensor<1x16x128xf32>
  %k1 = neuron.reshape %k0 : tensor<1x16x128xf32> -> tensor<1x16x8x16xf32>
  %k = neuron.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x16x8x16xf32> -> tensor<1x8x16x16xf32>
  %v0 = neuron.matmul %x, %wv transpose_rhs : tensor<1x16x128xf32>, tensor<128x128xf32> -> tensor<1x16x128xf32>
  %v1 = neuron.reshape %v0 : tensor<1x16x128xf32> -> tensor<1x16x8x16xf32>
  %v = neuron.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x16x8x16xf32> -> tensor<1x8x16x16xf32>
  %s = neuron.matmul %q, %k transpose_rhs : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  %sc = neuron.mul %s, %scale : tensor<1x8x16x16xf32>, tensor<1x1x1x1xf32> -> tensor<1x8x16x16xf32>
  %m = neuron.add %sc, %mask : tensor<1x8x16x16xf32>, tensor<16x16xf32> -> tensor<1x8x16x16xf32>
  %p = neuron.softmax %m axis = 3 : tensor<1x8x16x16xf32>
  %o = neuron.matmul %p, %v : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  %o1 = neuron.transpose %o perm = [0, 2, 1, 3] : tensor<1x8x16x16xf32> -> tensor<1x16x8x16xf32>
  %o2 = neuron.reshape %o1 : tensor<1x16x8x16xf32> -> tensor<1x16x128xf32>
  %y = neuron.matmul %o2, %wo transpose_rhs : tensor<1x16x128xf32>, tensor<128x128xf32> -> tensor<1x16x128xf32>
  %r = neuron.add %x, %y : tensor<1x16x128xf32>, tensor<1x16x128xf32> -> tensor<1x16x128xf32>
  return %r : tensor<1x16x128xf32>
}

// -----

// Grouped-query attention with more cores (4) than KV heads (2): the K/V
// projections are split 2 ways (each part, one KV head, held by 2 cores)
// and repeat_kv (broadcast_to over the group dim) repeats the local KV head
// 8 / 4 = 2 times, the query heads on each core: [1,1,2,16,16] -> [1,2,16,16].
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: %{{.*}}: tensor<32x128xf32> {neuron.shard = array<i64: 0, 4>}, %{{.*}}: tensor<16x128xf32> {neuron.shard = array<i64: 0, 2>}, %{{.*}}: tensor<16x128xf32> {neuron.shard = array<i64: 0, 2>}, %{{.*}}: tensor<128x32xf32> {neuron.shard = array<i64: 1, 4>})
// CHECK: neuron.reshape %{{.*}} : tensor<1x16x16xf32> -> tensor<1x16x1x16xf32>
// CHECK-NEXT: %[[KT:.*]] = neuron.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<1x16x1x16xf32> -> tensor<1x1x16x16xf32>
// CHECK-NEXT: %[[K5:.*]] = neuron.reshape %[[KT]] : tensor<1x1x16x16xf32> -> tensor<1x1x1x16x16xf32>
// CHECK-NEXT: %[[KB:.*]] = neuron.broadcast_to %[[K5]] : tensor<1x1x1x16x16xf32> -> tensor<1x1x2x16x16xf32>
// CHECK-NEXT: %[[KR:.*]] = neuron.reshape %[[KB]] : tensor<1x1x2x16x16xf32> -> tensor<1x2x16x16xf32>
// CHECK: %[[VZ:.*]] = neuron.constant dense<0.000000e+00> : tensor<1x1x2x16x16xf32>
// CHECK-NEXT: neuron.add %{{.*}}, %[[VZ]] : tensor<1x1x1x16x16xf32>, tensor<1x1x2x16x16xf32> -> tensor<1x1x2x16x16xf32>
// CHECK: neuron.matmul %{{.*}}, %[[KR]] transpose_rhs : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
// CHECK: neuron.all_reduce %{{.*}} group = 4 : tensor<1x16x128xf32>
func.func @gqa(%x: tensor<1x16x128xf32>, %wq: tensor<128x128xf32>, %wk: tensor<32x128xf32>, %wv: tensor<32x128xf32>, %wo: tensor<128x128xf32>) -> tensor<1x16x128xf32> {
  %zero = neuron.constant dense<0.0> : tensor<1x2x4x16x16xf32>
  %q0 = neuron.matmul %x, %wq transpose_rhs : tensor<1x16x128xf32>, tensor<128x128xf32> -> tensor<1x16x128xf32>
  %q1 = neuron.reshape %q0 : tensor<1x16x128xf32> -> tensor<1x16x8x16xf32>
  %q = neuron.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x16x8x16xf32> -> tensor<1x8x16x16xf32>
  %k0 = neuron.matmul %x, %wk transpose_rhs : tensor<1x16x128xf32>, tensor<32x128xf32> -> tensor<1x16x32xf32>
  %k1 = neuron.reshape %k0 : tensor<1x16x32xf32> -> tensor<1x16x2x16xf32>
  %k2 = neuron.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x16x2x16xf32> -> tensor<1x2x16x16xf32>
  %k3 = neuron.reshape %k2 : tensor<1x2x16x16xf32> -> tensor<1x2x1x16x16xf32>
  %k4 = neuron.broadcast_to %k3 : tensor<1x2x1x16x16xf32> -> tensor<1x2x4x16x16xf32>
  %k = neuron.reshape %k4 : tensor<1x2x4x16x16xf32> -> tensor<1x8x16x16xf32>
  %v0 = neuron.matmul %x, %wv transpose_rhs : tensor<1x16x128xf32>, tensor<32x128xf32> -> tensor<1x16x32xf32>
  %v1 = neuron.reshape %v0 : tensor<1x16x32xf32> -> tensor<1x16x2x16xf32>
  %v2 = neuron.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x16x2x16xf32> -> tensor<1x2x16x16xf32>
  %v3 = neuron.reshape %v2 : tensor<1x2x16x16xf32> -> tensor<1x2x1x16x16xf32>
  %v4 = neuron.add %v3, %zero : tensor<1x2x1x16x16xf32>, tensor<1x2x4x16x16xf32> -> tensor<1x2x4x16x16xf32>
  %v = neuron.reshape %v4 : tensor<1x2x4x16x16xf32> -> tensor<1x8x16x16xf32>
  %s = neuron.matmul %q, %k transpose_rhs : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  %p = neuron.softmax %s axis = 3 : tensor<1x8x16x16xf32>
  %o = neuron.matmul %p, %v : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  %o1 = neuron.transpose %o perm = [0, 2, 1, 3] : tensor<1x8x16x16xf32> -> tensor<1x16x8x16xf32>
  %o2 = neuron.reshape %o1 : tensor<1x16x8x16xf32> -> tensor<1x16x128xf32>
  %y = neuron.matmul %o2, %wo transpose_rhs : tensor<1x16x128xf32>, tensor<128x128xf32> -> tensor<1x16x128xf32>
  %r = neuron.add %x, %y : tensor<1x16x128xf32>, tensor<1x16x128xf32> -> tensor<1x16x128xf32>
  return %r : tensor<1x16x128xf32>
}

// -----

// A column-parallel projection returned as it is (an LM head): each core
// computes its columns and the result is gathered along them.
// CHECK-LABEL: func.func @lm_head
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<32x64xf32> {neuron.shard = array<i64: 0, 4>}) -> tensor<4x128xf32>
// CHECK-NEXT: %[[H:.*]] = neuron.matmul %[[X]], %[[W]] transpose_rhs : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
// CHECK-NEXT: %[[G:.*]] = neuron.all_gather %[[H]] dim = 1 group = 4 : tensor<4x32xf32> -> tensor<4x128xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x128xf32>
func.func @lm_head(%x: tensor<4x64xf32>, %w: tensor<128x64xf32>) -> tensor<4x128xf32> {
  %h = neuron.matmul %x, %w transpose_rhs : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
  return %h : tensor<4x128xf32>
}
