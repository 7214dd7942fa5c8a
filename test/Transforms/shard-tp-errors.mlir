// RUN: neuron-opt %s --split-input-file --verify-diagnostics --neuron-shard-tp=parts=16

// 16 cores, 12 heads: neither divides the other.
func.func @heads(%x: tensor<1x4x192xf32>, %wq: tensor<192x192xf32>) -> tensor<1x4x12x16xf32> {
  %q0 = neuron.matmul %x, %wq transpose_rhs : tensor<1x4x192xf32>, tensor<192x192xf32> -> tensor<1x4x192xf32>
  // expected-error @+1 {{cannot shard 'neuron.reshape' for --tp=16: the 12 heads (dim 2 of tensor<1x4x12x16xf32>) are neither a multiple nor a divisor of 16}}
  %q1 = neuron.reshape %q0 : tensor<1x4x192xf32> -> tensor<1x4x12x16xf32>
  return %q1 : tensor<1x4x12x16xf32>
}

// -----

// A column split no reshape regroups: 16 must divide the 40 columns.
func.func @columns(%x: tensor<4x64xf32>, %w: tensor<40x64xf32>) -> tensor<4x40xf32> {
  // expected-error @+1 {{cannot shard 'neuron.matmul' for --tp=16: --tp=16 does not divide its 40 output columns}}
  %h = neuron.matmul %x, %w transpose_rhs : tensor<4x64xf32>, tensor<40x64xf32> -> tensor<4x40xf32>
  return %h : tensor<4x40xf32>
}

// -----

// A reduction over the split columns would need a cross-core sum.
func.func @reduce(%x: tensor<4x64xf32>, %w: tensor<128x64xf32>) -> tensor<4x1xf32> {
  %h = neuron.matmul %x, %w transpose_rhs : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
  // expected-error @+1 {{cannot shard 'neuron.reduce_sum' for --tp=16: it reduces over the split dim 1; a reduction across cores is not covered}}
  %s = neuron.reduce_sum %h axes = [1] keepdims : tensor<4x128xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

// An op the rules do not cover, on a split value.
func.func @uncovered(%x: tensor<4x64xf32>, %w: tensor<128x64xf32>, %ids: tensor<2xi32>) -> tensor<4x2xf32> {
  %h = neuron.matmul %x, %w transpose_rhs : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
  // expected-error @+1 {{cannot shard 'neuron.gather' for --tp=16: the rules do not cover it (operand #0 is split along dim 1)}}
  %g = neuron.gather %h[%ids] axis = 1 : tensor<4x128xf32>, tensor<2xi32> -> tensor<4x2xf32>
  return %g : tensor<4x2xf32>
}

// -----

// A replicated, full-size activation against the split columns: it would
// need a local slice.
func.func @full(%x: tensor<4x64xf32>, %w: tensor<128x64xf32>, %b: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %h = neuron.matmul %x, %w transpose_rhs : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
  %e = neuron.exp %b : tensor<4x128xf32>
  // expected-error @+1 {{cannot shard 'neuron.add' for --tp=16: operand #1 is replicated at full size along the split dim 1; it would need a local slice}}
  %r = neuron.add %h, %e : tensor<4x128xf32>, tensor<4x128xf32> -> tensor<4x128xf32>
  return %r : tensor<4x128xf32>
}

// -----

// A result split into fewer parts than cores (two heads for 16 cores, each
// held by 8) cannot be gathered part by core.
func.func @split_result(%x: tensor<4x64xf32>, %w: tensor<128x64xf32>) -> tensor<4x2x64xf32> {
  %h = neuron.matmul %x, %w transpose_rhs : tensor<4x64xf32>, tensor<128x64xf32> -> tensor<4x128xf32>
  %r = neuron.reshape %h : tensor<4x128xf32> -> tensor<4x2x64xf32>
  // expected-error @+1 {{cannot shard 'func.return' for --tp=16: result #0 is split along dim 1 into 2 parts for 16 cores; only a result split over every core is gathered (end the split with a row-parallel matmul)}}
  return %r : tensor<4x2x64xf32>
}

// -----

// Nothing to split: no weight argument read by a matmul.
// expected-error @+1 {{cannot shard '@nothing' for --tp=16: no matmul reads a weight argument}}
func.func @nothing(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = neuron.exp %x : tensor<4x64xf32>
  return %e : tensor<4x64xf32>
}

// -----

// Grouped-query attention with 2 KV heads repeated 2 times (4 query heads)
// over 16 cores: the query heads themselves are too few.
func.func @gqa(%x: tensor<1x4x64xf32>, %wk: tensor<32x64xf32>) -> tensor<1x4x4x16xf32> {
  %k0 = neuron.matmul %x, %wk transpose_rhs : tensor<1x4x64xf32>, tensor<32x64xf32> -> tensor<1x4x32xf32>
  %k1 = neuron.reshape %k0 : tensor<1x4x32xf32> -> tensor<1x4x2x16xf32>
  %k2 = neuron.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x4x2x16xf32> -> tensor<1x2x4x16xf32>
  %k3 = neuron.reshape %k2 : tensor<1x2x4x16xf32> -> tensor<1x2x1x4x16xf32>
  // expected-error @+1 {{cannot shard 'neuron.broadcast_to' for --tp=16: it repeats 2-way split heads 2 times, which cannot be spread over 16 cores}}
  %k4 = neuron.broadcast_to %k3 : tensor<1x2x1x4x16xf32> -> tensor<1x2x2x4x16xf32>
  %k = neuron.reshape %k4 : tensor<1x2x2x4x16xf32> -> tensor<1x4x4x16xf32>
  return %k : tensor<1x4x4x16xf32>
}
