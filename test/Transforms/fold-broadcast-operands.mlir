// RUN: neuron-opt %s --split-input-file --neuron-fold-broadcast-operands --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// Decode with grouped-query attention: 8 query heads, 2 KV heads, K repeated
// by a broadcast add of zeros (repeat_kv). The 4 query heads of a KV head
// become 4 rows of one matmul against the unrepeated K.
// CHECK-LABEL: func.func @decode_scores
// CHECK-DAG: %[[Q:.*]] = neuron.reshape %arg0 : tensor<8x1x64xf32> -> tensor<1x2x4x64xf32>
// CHECK-DAG: %[[K:.*]] = neuron.reshape %arg1 : tensor<1x2x1x300x64xf32> -> tensor<1x2x300x64xf32>
// CHECK: %[[S:.*]] = neuron.matmul %[[Q]], %[[K]] transpose_rhs : tensor<1x2x4x64xf32>, tensor<1x2x300x64xf32> -> tensor<1x2x4x300xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[S]] : tensor<1x2x4x300xf32> -> tensor<8x1x300xf32>
// CHECK: return %[[R]]
func.func @decode_scores(%q: tensor<8x1x64xf32>, %k: tensor<1x2x1x300x64xf32>) -> tensor<8x1x300xf32> {
  %z = neuron.constant dense<0.0> : tensor<1x2x4x300x64xf32>
  %kb = neuron.add %k, %z : tensor<1x2x1x300x64xf32>, tensor<1x2x4x300x64xf32> -> tensor<1x2x4x300x64xf32>
  %k3 = neuron.reshape %kb : tensor<1x2x4x300x64xf32> -> tensor<8x300x64xf32>
  // expected-remark @+1 {{fused broadcast-into-matmul (absorbed 1 ops, saves 1228800 bytes)}}
  %s = neuron.matmul %q, %k3 transpose_rhs : tensor<8x1x64xf32>, tensor<8x300x64xf32> -> tensor<8x1x300xf32>
  return %s : tensor<8x1x300xf32>
}

// -----

// The same with broadcast_to, for P @ V.
// CHECK-LABEL: func.func @decode_values
// CHECK: neuron.matmul {{.*}} : tensor<1x2x4x300xf32>, tensor<1x2x300x64xf32> -> tensor<1x2x4x64xf32>
func.func @decode_values(%p: tensor<8x1x300xf32>, %v: tensor<1x2x1x300x64xf32>) -> tensor<8x1x64xf32> {
  %vb = neuron.broadcast_to %v : tensor<1x2x1x300x64xf32> -> tensor<1x2x4x300x64xf32>
  %v3 = neuron.reshape %vb : tensor<1x2x4x300x64xf32> -> tensor<8x300x64xf32>
  // expected-remark @+1 {{fused broadcast-into-matmul}}
  %o = neuron.matmul %p, %v3 : tensor<8x1x300xf32>, tensor<8x300x64xf32> -> tensor<8x1x64xf32>
  return %o : tensor<8x1x64xf32>
}

// -----

// Prefill: 4 heads x 40 query rows exceed one row tile, so the repeated copy
// stays (the matmul keeps its batches and its epilogue), and the report says
// why.
// CHECK-LABEL: func.func @prefill
// CHECK: neuron.add
// CHECK: neuron.matmul {{.*}} : tensor<8x40x64xf32>, tensor<8x40x64xf32> -> tensor<8x40x40xf32>
func.func @prefill(%q: tensor<8x40x64xf32>, %k: tensor<1x2x1x40x64xf32>) -> tensor<8x40x40xf32> {
  %z = neuron.constant dense<0.0> : tensor<1x2x4x40x64xf32>
  %kb = neuron.add %k, %z : tensor<1x2x1x40x64xf32>, tensor<1x2x4x40x64xf32> -> tensor<1x2x4x40x64xf32>
  %k3 = neuron.reshape %kb : tensor<1x2x4x40x64xf32> -> tensor<8x40x64xf32>
  // expected-remark @+1 {{not fused broadcast-into-matmul: 4 heads x 40 query rows = 160 rows exceed one row tile (128): the repeated copy is kept}}
  %s = neuron.matmul %q, %k3 transpose_rhs : tensor<8x40x64xf32>, tensor<8x40x64xf32> -> tensor<8x40x40xf32>
  return %s : tensor<8x40x40xf32>
}

// -----

// --auto-cast casts the repeated V right before the matmul: the cast moves
// above the repeat (converting the unrepeated cache) and the repeat folds.
// CHECK-LABEL: func.func @decode_values_cast
// CHECK: %[[C:.*]] = neuron.cast %arg1 : tensor<1x2x1x300x64xf32> -> tensor<1x2x1x300x64xbf16>
// CHECK: neuron.matmul {{.*}} : tensor<1x2x4x300xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x2x4x64xf32>
func.func @decode_values_cast(%p: tensor<8x1x300xbf16>, %v: tensor<1x2x1x300x64xf32>) -> tensor<8x1x64xf32> {
  %z = neuron.constant dense<0.0> : tensor<1x2x4x300x64xf32>
  %vb = neuron.add %v, %z : tensor<1x2x1x300x64xf32>, tensor<1x2x4x300x64xf32> -> tensor<1x2x4x300x64xf32>
  %v3 = neuron.reshape %vb : tensor<1x2x4x300x64xf32> -> tensor<8x300x64xf32>
  %vc = neuron.cast %v3 : tensor<8x300x64xf32> -> tensor<8x300x64xbf16>
  // expected-remark @+1 {{fused broadcast-into-matmul}}
  %o = neuron.matmul %p, %vc : tensor<8x1x300xbf16>, tensor<8x300x64xbf16> -> tensor<8x1x64xf32>
  return %o : tensor<8x1x64xf32>
}
