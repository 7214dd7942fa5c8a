// RUN: neuron-opt %s --split-input-file --neuron-fuse-attention --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// Llama-style: scores scaled by a multiply, an additive [M, N] mask, GQA's
// repeat_kv (reshape, broadcast_to, reshape) on K and V: the attention reads
// the 2 unrepeated KV heads.
// CHECK-LABEL: func.func @gqa_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x16x32xf32>, %[[K:.*]]: tensor<1x2x24x32xf32>, %[[V:.*]]: tensor<1x2x24x32xf32>, %[[M:.*]]: tensor<16x24xf32>)
// CHECK-NEXT: %[[O:.*]] = neuron.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 1.250000e-01 : (tensor<1x8x16x32xf32>, tensor<1x2x24x32xf32>, tensor<1x2x24x32xf32>, tensor<16x24xf32>) -> tensor<1x8x16x32xf32>
// CHECK-NEXT: return %[[O]]
func.func @gqa_mask(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x24x32xf32>, %v: tensor<1x2x24x32xf32>, %m: tensor<16x24xf32>) -> tensor<1x8x16x32xf32> {
  %k5 = neuron.reshape %k : tensor<1x2x24x32xf32> -> tensor<1x2x1x24x32xf32>
  %kb = neuron.broadcast_to %k5 : tensor<1x2x1x24x32xf32> -> tensor<1x2x4x24x32xf32>
  %kr = neuron.reshape %kb : tensor<1x2x4x24x32xf32> -> tensor<1x8x24x32xf32>
  %v5 = neuron.reshape %v : tensor<1x2x24x32xf32> -> tensor<1x2x1x24x32xf32>
  %vb = neuron.broadcast_to %v5 : tensor<1x2x1x24x32xf32> -> tensor<1x2x4x24x32xf32>
  %vr = neuron.reshape %vb : tensor<1x2x4x24x32xf32> -> tensor<1x8x24x32xf32>
  %s = neuron.matmul %q, %kr transpose_rhs : tensor<1x8x16x32xf32>, tensor<1x8x24x32xf32> -> tensor<1x8x16x24xf32>
  %c = neuron.constant dense<0.125> : tensor<1x1x1x1xf32>
  %ss = neuron.mul %s, %c : tensor<1x8x16x24xf32>, tensor<1x1x1x1xf32> -> tensor<1x8x16x24xf32>
  %sm = neuron.add %ss, %m : tensor<1x8x16x24xf32>, tensor<16x24xf32> -> tensor<1x8x16x24xf32>
  %p = neuron.softmax %sm axis = 3 : tensor<1x8x16x24xf32>
  // expected-remark @+1 {{fused attention (absorbed 11 ops}}
  %o = neuron.matmul %p, %vr : tensor<1x8x16x24xf32>, tensor<1x8x24x32xf32> -> tensor<1x8x16x32xf32>
  return %o : tensor<1x8x16x32xf32>
}

// -----

// TOSA's rank-3 matmuls: batch and heads merged, the repeat (an add of
// zeros) reshaped straight to [8, N, D]; K and V are read as [2, N, D].
// The scale divides the scores.
// CHECK-LABEL: func.func @merged_heads
// CHECK: %[[K2:.*]] = neuron.reshape %arg1 : tensor<1x2x24x32xf32> -> tensor<2x24x32xf32>
// CHECK: %[[V2:.*]] = neuron.reshape %arg2 : tensor<1x2x24x32xf32> -> tensor<2x24x32xf32>
// CHECK: neuron.attention %arg0, %[[K2]], %[[V2]] scale = 2.500000e-01 : (tensor<8x16x32xf32>, tensor<2x24x32xf32>, tensor<2x24x32xf32>) -> tensor<8x16x32xf32>
// CHECK-NOT: neuron.softmax
func.func @merged_heads(%q: tensor<8x16x32xf32>, %k: tensor<1x2x24x32xf32>, %v: tensor<1x2x24x32xf32>) -> tensor<8x16x32xf32> {
  %z = neuron.constant dense<0.0> : tensor<1x2x4x24x32xf32>
  %k5 = neuron.reshape %k : tensor<1x2x24x32xf32> -> tensor<1x2x1x24x32xf32>
  %kb = neuron.add %k5, %z : tensor<1x2x1x24x32xf32>, tensor<1x2x4x24x32xf32> -> tensor<1x2x4x24x32xf32>
  %kr = neuron.reshape %kb : tensor<1x2x4x24x32xf32> -> tensor<8x24x32xf32>
  %v5 = neuron.reshape %v : tensor<1x2x24x32xf32> -> tensor<1x2x1x24x32xf32>
  %vb = neuron.add %v5, %z : tensor<1x2x1x24x32xf32>, tensor<1x2x4x24x32xf32> -> tensor<1x2x4x24x32xf32>
  %vr = neuron.reshape %vb : tensor<1x2x4x24x32xf32> -> tensor<8x24x32xf32>
  %s = neuron.matmul %q, %kr transpose_rhs : tensor<8x16x32xf32>, tensor<8x24x32xf32> -> tensor<8x16x24xf32>
  %c = neuron.constant dense<4.0> : tensor<1x1x1xf32>
  %ss = neuron.div %s, %c : tensor<8x16x24xf32>, tensor<1x1x1xf32> -> tensor<8x16x24xf32>
  %p = neuron.softmax %ss axis = 2 : tensor<8x16x24xf32>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %p, %vr : tensor<8x16x24xf32>, tensor<8x24x32xf32> -> tensor<8x16x32xf32>
  return %o : tensor<8x16x32xf32>
}

// -----

// The scale on q before the first matmul, and a constant causal mask (0 on
// and below the diagonal, -1e9 above): the op gets causal_offset = 0 and
// reads no mask.
// CHECK-LABEL: func.func @causal_const
// CHECK-NEXT: %[[O:.*]] = neuron.attention %arg0, %arg1, %arg2 scale = 5.000000e-01 causal_offset = 0 : (tensor<2x3x32xf32>, tensor<2x3x32xf32>, tensor<2x3x32xf32>) -> tensor<2x3x32xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal_const(%q: tensor<2x3x32xf32>, %k: tensor<2x3x32xf32>, %v: tensor<2x3x32xf32>) -> tensor<2x3x32xf32> {
  %c = neuron.constant dense<0.5> : tensor<1x1x1xf32>
  %qs = neuron.mul %q, %c : tensor<2x3x32xf32>, tensor<1x1x1xf32> -> tensor<2x3x32xf32>
  %s = neuron.matmul %qs, %k transpose_rhs : tensor<2x3x32xf32>, tensor<2x3x32xf32> -> tensor<2x3x3xf32>
  %m = neuron.constant dense<[[0.0, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %sm = neuron.add %s, %m : tensor<2x3x3xf32>, tensor<3x3xf32> -> tensor<2x3x3xf32>
  %p = neuron.softmax %sm axis = 2 : tensor<2x3x3xf32>
  // expected-remark @+1 {{fused attention (causal)}}
  %o = neuron.matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x32xf32> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// A constant mask that is not causal stays an operand.
// CHECK-LABEL: func.func @const_not_causal
// CHECK: neuron.attention %arg0, %arg1, %arg2 mask %{{.*}} scale = 1.000000e+00 :
func.func @const_not_causal(%q: tensor<2x3x32xf32>, %k: tensor<2x3x32xf32>, %v: tensor<2x3x32xf32>) -> tensor<2x3x32xf32> {
  %s = neuron.matmul %q, %k transpose_rhs : tensor<2x3x32xf32>, tensor<2x3x32xf32> -> tensor<2x3x3xf32>
  %m = neuron.constant dense<[[0.0, -1.0e9, 0.0], [0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %sm = neuron.add %s, %m : tensor<2x3x3xf32>, tensor<3x3xf32> -> tensor<2x3x3xf32>
  %p = neuron.softmax %sm axis = 2 : tensor<2x3x3xf32>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x32xf32> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// --auto-cast's bf16 casts: the probabilities cast before the second matmul,
// K and V cast after the repeat; the casts move to the unrepeated heads.
// CHECK-LABEL: func.func @bf16_casts
// CHECK-DAG: %[[K:.*]] = neuron.cast %arg1 : tensor<1x2x24x32xf32> -> tensor<1x2x24x32xbf16>
// CHECK-DAG: %[[V:.*]] = neuron.cast %arg2 : tensor<1x2x24x32xf32> -> tensor<1x2x24x32xbf16>
// CHECK: neuron.attention %arg0, %[[K]], %[[V]] scale = 1.250000e-01 : (tensor<1x4x16x32xbf16>, tensor<1x2x24x32xbf16>, tensor<1x2x24x32xbf16>) -> tensor<1x4x16x32xf32>
func.func @bf16_casts(%q: tensor<1x4x16x32xbf16>, %k: tensor<1x2x24x32xf32>, %v: tensor<1x2x24x32xf32>) -> tensor<1x4x16x32xf32> {
  %k5 = neuron.reshape %k : tensor<1x2x24x32xf32> -> tensor<1x2x1x24x32xf32>
  %kb = neuron.broadcast_to %k5 : tensor<1x2x1x24x32xf32> -> tensor<1x2x2x24x32xf32>
  %kr = neuron.reshape %kb : tensor<1x2x2x24x32xf32> -> tensor<1x4x24x32xf32>
  %kc = neuron.cast %kr : tensor<1x4x24x32xf32> -> tensor<1x4x24x32xbf16>
  %v5 = neuron.reshape %v : tensor<1x2x24x32xf32> -> tensor<1x2x1x24x32xf32>
  %vb = neuron.broadcast_to %v5 : tensor<1x2x1x24x32xf32> -> tensor<1x2x2x24x32xf32>
  %vr = neuron.reshape %vb : tensor<1x2x2x24x32xf32> -> tensor<1x4x24x32xf32>
  %vc = neuron.cast %vr : tensor<1x4x24x32xf32> -> tensor<1x4x24x32xbf16>
  %s = neuron.matmul %q, %kc transpose_rhs : tensor<1x4x16x32xbf16>, tensor<1x4x24x32xbf16> -> tensor<1x4x16x24xf32>
  %c = neuron.constant dense<0.125> : tensor<f32>
  %ss = neuron.mul %s, %c : tensor<1x4x16x24xf32>, tensor<f32> -> tensor<1x4x16x24xf32>
  %p = neuron.softmax %ss axis = 3 : tensor<1x4x16x24xf32>
  %pc = neuron.cast %p : tensor<1x4x16x24xf32> -> tensor<1x4x16x24xbf16>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %pc, %vc : tensor<1x4x16x24xbf16>, tensor<1x4x24x32xbf16> -> tensor<1x4x16x32xf32>
  return %o : tensor<1x4x16x32xf32>
}

// -----

// Why not: the scores are also returned (they would have to reach HBM).
// CHECK-LABEL: func.func @scores_escape
// CHECK: neuron.softmax
// CHECK-NOT: neuron.attention
func.func @scores_escape(%q: tensor<2x3x32xf32>, %k: tensor<2x3x32xf32>, %v: tensor<2x3x32xf32>) -> (tensor<2x3x32xf32>, tensor<2x3x3xf32>) {
  %s = neuron.matmul %q, %k transpose_rhs : tensor<2x3x32xf32>, tensor<2x3x32xf32> -> tensor<2x3x3xf32>
  // expected-remark @+1 {{not fused attention: the scores matmul has other users}}
  %p = neuron.softmax %s axis = 2 : tensor<2x3x3xf32>
  %o = neuron.matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x32xf32> -> tensor<2x3x32xf32>
  return %o, %s : tensor<2x3x32xf32>, tensor<2x3x3xf32>
}

// -----

// k given as kᵀ ([D, N], buddy-mlir's attention export): read as it is.
// The scale is a full-shape splat that also adds a leading unit dim, and
// a batch reshape and a no-op add of zeros sit on the way to the second
// matmul.
// CHECK-LABEL: func.func @keys_given_transposed
// CHECK-NEXT: %[[O:.*]] = neuron.attention %arg0, %arg1, %arg2 scale = 2.500000e-01 key_transposed : (tensor<2x3x32xf32>, tensor<2x32x5xf32>, tensor<2x5x32xf32>) -> tensor<2x3x32xf32>
// CHECK-NEXT: return %[[O]]
func.func @keys_given_transposed(%q: tensor<2x3x32xf32>, %kt: tensor<2x32x5xf32>, %v: tensor<2x5x32xf32>) -> tensor<2x3x32xf32> {
  %s = neuron.matmul %q, %kt : tensor<2x3x32xf32>, tensor<2x32x5xf32> -> tensor<2x3x5xf32>
  %c = neuron.constant dense<0.25> : tensor<1x2x3x5xf32>
  %ss = neuron.mul %s, %c : tensor<2x3x5xf32>, tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %p = neuron.softmax %ss axis = 3 : tensor<1x2x3x5xf32>
  %z = neuron.constant dense<0.0> : tensor<1x2x3x5xf32>
  %pz = neuron.add %p, %z : tensor<1x2x3x5xf32>, tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %p3 = neuron.reshape %pz : tensor<1x2x3x5xf32> -> tensor<2x3x5xf32>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %p3, %v : tensor<2x3x5xf32>, tensor<2x5x32xf32> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// kᵀ made by a transpose that moves k's contiguous dim (a sequence-first
// MultiheadAttention's [S, B·H, D] keys read as [B·H, D, S]): the attention
// takes the keys as rows instead, through a transpose that keeps D
// innermost (whole rows, absorbed by the attention's loads), and transposes
// them on TensorE itself; --auto-cast's cast stays on the rows.
// CHECK-LABEL: func.func @keys_transposed_by_a_permute
// CHECK-NEXT: %[[K:.*]] = neuron.transpose %arg1 perm = [1, 0, 2] : tensor<5x2x32xf32> -> tensor<2x5x32xf32>
// CHECK-NEXT: %[[KC:.*]] = neuron.cast %[[K]] : tensor<2x5x32xf32> -> tensor<2x5x32xbf16>
// CHECK-NEXT: %[[O:.*]] = neuron.attention %arg0, %[[KC]], %arg2 scale = 1.000000e+00 : (tensor<2x3x32xbf16>, tensor<2x5x32xbf16>, tensor<2x5x32xbf16>) -> tensor<2x3x32xf32>
// CHECK-NEXT: return %[[O]]
func.func @keys_transposed_by_a_permute(%q: tensor<2x3x32xbf16>, %k: tensor<5x2x32xf32>, %v: tensor<2x5x32xbf16>) -> tensor<2x3x32xf32> {
  %kt = neuron.transpose %k perm = [1, 2, 0] : tensor<5x2x32xf32> -> tensor<2x32x5xf32>
  %ktc = neuron.cast %kt : tensor<2x32x5xf32> -> tensor<2x32x5xbf16>
  %s = neuron.matmul %q, %ktc : tensor<2x3x32xbf16>, tensor<2x32x5xbf16> -> tensor<2x3x5xf32>
  %p = neuron.softmax %s axis = 2 : tensor<2x3x5xf32>
  %pc = neuron.cast %p : tensor<2x3x5xf32> -> tensor<2x3x5xbf16>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %pc, %v : tensor<2x3x5xbf16>, tensor<2x5x32xbf16> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// kᵀ as a plain swap of k's matrix dims: the attention reads k itself.
// CHECK-LABEL: func.func @keys_transposed_by_a_swap
// CHECK-NEXT: %[[O:.*]] = neuron.attention %arg0, %arg1, %arg2 scale = 1.000000e+00 : (tensor<2x3x32xf32>, tensor<2x5x32xf32>, tensor<2x5x32xf32>) -> tensor<2x3x32xf32>
// CHECK-NEXT: return %[[O]]
func.func @keys_transposed_by_a_swap(%q: tensor<2x3x32xf32>, %k: tensor<2x5x32xf32>, %v: tensor<2x5x32xf32>) -> tensor<2x3x32xf32> {
  %kt = neuron.transpose %k perm = [0, 2, 1] : tensor<2x5x32xf32> -> tensor<2x32x5xf32>
  %s = neuron.matmul %q, %kt : tensor<2x3x32xf32>, tensor<2x32x5xf32> -> tensor<2x3x5xf32>
  %p = neuron.softmax %s axis = 2 : tensor<2x3x5xf32>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x32xf32> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// Why not: the scores come transposed out of the first matmul.
func.func @query_transposed(%qt: tensor<2x32x3xf32>, %k: tensor<2x3x32xf32>, %v: tensor<2x3x32xf32>) -> tensor<2x3x32xf32> {
  %s = neuron.matmul %qt, %k transpose_lhs transpose_rhs : tensor<2x32x3xf32>, tensor<2x3x32xf32> -> tensor<2x3x3xf32>
  // expected-remark @+1 {{not fused attention: the first matmul reads q transposed}}
  %p = neuron.softmax %s axis = 2 : tensor<2x3x3xf32>
  %o = neuron.matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x32xf32> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// Why not: the softmax runs over the query axis.
func.func @softmax_wrong_axis(%q: tensor<2x3x32xf32>, %k: tensor<2x3x32xf32>, %v: tensor<2x3x32xf32>) -> tensor<2x3x32xf32> {
  %s = neuron.matmul %q, %k transpose_rhs : tensor<2x3x32xf32>, tensor<2x3x32xf32> -> tensor<2x3x3xf32>
  // expected-remark @+1 {{not fused attention: the softmax is not a plain softmax over the last axis}}
  %p = neuron.softmax %s axis = 1 : tensor<2x3x3xf32>
  %o = neuron.matmul %p, %v : tensor<2x3x3xf32>, tensor<2x3x32xf32> -> tensor<2x3x32xf32>
  return %o : tensor<2x3x32xf32>
}

// -----

// A softmax with no matmul around it is no attention: no report entry.
func.func @plain_softmax(%x: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %p = neuron.softmax %x axis = 2 : tensor<2x3x3xf32>
  return %p : tensor<2x3x3xf32>
}

// -----

// Why not: the value head dim does not fit the fused kernel's PSUM bank.
func.func @wide_values(%q: tensor<2x3x32xf32>, %k: tensor<2x5x32xf32>, %v: tensor<2x5x600xf32>) -> tensor<2x3x600xf32> {
  %s = neuron.matmul %q, %k transpose_rhs : tensor<2x3x32xf32>, tensor<2x5x32xf32> -> tensor<2x3x5xf32>
  // expected-remark @+1 {{not fused attention: the value head dim 600 exceeds one PSUM bank (512 f32)}}
  %p = neuron.softmax %s axis = 2 : tensor<2x3x5xf32>
  %o = neuron.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x600xf32> -> tensor<2x3x600xf32>
  return %o : tensor<2x3x600xf32>
}

// -----

// --auto-cast's cast of a scaled query (nn.MultiheadAttention scales q
// before the scores): a power-of-two scale (head dim 16: 1/4) only moves
// the exponent, so it commutes with the rounding and folds into the
// attention; the cast applies to the unscaled query (bit-identical). Any
// other scale (head dim 24) folds too: q is rounded instead of q·scale, and
// the scale applies in f32 to the scores.
// CHECK-LABEL: func.func @scaled_query_cast
// CHECK: %[[Q:.*]] = neuron.cast %arg0 : tensor<2x8x16xf32> -> tensor<2x8x16xbf16>
// CHECK: neuron.attention %[[Q]], %arg1, %arg2 scale = 2.500000e-01
func.func @scaled_query_cast(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xbf16>, %v: tensor<2x8x16xbf16>) -> tensor<2x8x16xf32> {
  %c = neuron.constant dense<0.25> : tensor<f32>
  %qs = neuron.mul %q, %c : tensor<2x8x16xf32>, tensor<f32> -> tensor<2x8x16xf32>
  %qc = neuron.cast %qs : tensor<2x8x16xf32> -> tensor<2x8x16xbf16>
  %s = neuron.matmul %qc, %k transpose_rhs : tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x8xf32>
  %p = neuron.softmax %s axis = 2 : tensor<2x8x8xf32>
  %pc = neuron.cast %p : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %pc, %v : tensor<2x8x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @scaled_query_cast_not_pow2
// CHECK-NOT: neuron.mul
// CHECK: %[[Q:.*]] = neuron.cast %arg0
// CHECK: neuron.attention %[[Q]], %arg1, %arg2 scale = 0.204124
func.func @scaled_query_cast_not_pow2(%q: tensor<2x8x24xf32>, %k: tensor<2x8x24xbf16>, %v: tensor<2x8x24xbf16>) -> tensor<2x8x24xf32> {
  %c = neuron.constant dense<0.2041241452> : tensor<f32>
  %qs = neuron.mul %q, %c : tensor<2x8x24xf32>, tensor<f32> -> tensor<2x8x24xf32>
  %qc = neuron.cast %qs : tensor<2x8x24xf32> -> tensor<2x8x24xbf16>
  %s = neuron.matmul %qc, %k transpose_rhs : tensor<2x8x24xbf16>, tensor<2x8x24xbf16> -> tensor<2x8x8xf32>
  %p = neuron.softmax %s axis = 2 : tensor<2x8x8xf32>
  %pc = neuron.cast %p : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
  // expected-remark @+1 {{fused attention}}
  %o = neuron.matmul %pc, %v : tensor<2x8x8xbf16>, tensor<2x8x24xbf16> -> tensor<2x8x24xf32>
  return %o : tensor<2x8x24xf32>
}
