// RUN: neuron-opt %s --split-input-file --neuron-hoist-casts --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// Attention's head split as exporters write it: the cast --auto-cast put
// before the attention matmul moves above the transpose and the reshape, to
// the projection, whose kernel then writes bf16; the transpose moves bf16.
// CHECK-LABEL: func.func @head_split
// CHECK: %[[M:.*]] = neuron.matmul %arg0, %arg1
// CHECK-NEXT: %[[C:.*]] = neuron.cast %[[M]] : tensor<64x128xf32> -> tensor<64x128xbf16>
// CHECK-NEXT: %[[R:.*]] = neuron.reshape %[[C]] : tensor<64x128xbf16> -> tensor<64x2x64xbf16>
// CHECK-NEXT: %[[T:.*]] = neuron.transpose %[[R]] perm = [1, 0, 2] : tensor<64x2x64xbf16> -> tensor<2x64x64xbf16>
// CHECK-NEXT: return %[[T]]
func.func @head_split(%x: tensor<64x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<2x64x64xbf16> {
  %m = neuron.matmul %x, %w : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
  %r = neuron.reshape %m : tensor<64x128xf32> -> tensor<64x2x64xf32>
  %t = neuron.transpose %r perm = [1, 0, 2] : tensor<64x2x64xf32> -> tensor<2x64x64xf32>
  // expected-remark @+1 {{fused hoist-cast (absorbed 1 ops, saves 32768 bytes)}}
  %c = neuron.cast %t : tensor<2x64x64xf32> -> tensor<2x64x64xbf16>
  return %c : tensor<2x64x64xbf16>
}

// -----

// A fire module's concat and the max pool after it (SqueezeNet): the cast
// splits into one per concat input, each right after the ReLU computing it;
// the pool and the concat run in bf16 (rounding commutes with max).
// CHECK-LABEL: func.func @concat_pool
// CHECK-DAG: %[[A:.*]] = neuron.relu %arg0
// CHECK-DAG: %[[B:.*]] = neuron.relu %arg1
// CHECK-DAG: %[[CA:.*]] = neuron.cast %[[A]] : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xbf16>
// CHECK-DAG: %[[CB:.*]] = neuron.cast %[[B]] : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xbf16>
// CHECK: %[[J:.*]] = neuron.concat %[[CA]], %[[CB]] axis = 1 : tensor<1x8x6x6xbf16>, tensor<1x8x6x6xbf16> -> tensor<1x16x6x6xbf16>
// CHECK: %[[P:.*]] = neuron.pool max %[[J]] {{.*}} : tensor<1x16x6x6xbf16> -> tensor<1x16x3x3xbf16>
// CHECK: return %[[P]]
func.func @concat_pool(%a: tensor<1x8x6x6xf32>, %b: tensor<1x8x6x6xf32>) -> tensor<1x16x3x3xbf16> {
  %ra = neuron.relu %a : tensor<1x8x6x6xf32>
  %rb = neuron.relu %b : tensor<1x8x6x6xf32>
  %j = neuron.concat %ra, %rb axis = 1 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x16x6x6xf32>
  %p = neuron.pool max %j kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x16x6x6xf32> -> tensor<1x16x3x3xf32>
  // expected-remark @+2 {{fused hoist-cast (absorbed 1 ops, saves 576 bytes)}}
  // expected-remark @+1 {{fused hoist-cast (absorbed 1 ops, saves 2304 bytes)}}
  %c = neuron.cast %p : tensor<1x16x3x3xf32> -> tensor<1x16x3x3xbf16>
  return %c : tensor<1x16x3x3xbf16>
}

// -----

// An average pool does not commute with rounding; a producer with another
// user keeps its value wide: both casts stay, the second with the reason.
// CHECK-LABEL: func.func @stays
// CHECK: neuron.pool avg %arg0 {{.*}} -> tensor<1x4x2x2xf32>
// CHECK: neuron.cast {{.*}} : tensor<1x4x2x2xf32> -> tensor<1x4x2x2xbf16>
// CHECK: %[[T:.*]] = neuron.transpose %arg1
// CHECK: neuron.cast %[[T]] : tensor<4x8xf32> -> tensor<4x8xbf16>
func.func @stays(%x: tensor<1x4x4x4xf32>, %y: tensor<8x4xf32>) -> (tensor<1x4x2x2xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>) {
  %p = neuron.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
  %c = neuron.cast %p : tensor<1x4x2x2xf32> -> tensor<1x4x2x2xbf16>
  %t = neuron.transpose %y perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  // expected-remark-re @+1 {{not fused hoist-cast: the producer (neuron.transpose at {{.*}}) has other users that read it wide: the cast stays after it}}
  %d = neuron.cast %t : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %c, %d, %t : tensor<1x4x2x2xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>
}

// -----

// A slice of a function argument: moved up, the cast would convert the
// whole argument and still be a kernel; a transpose feeding a matmul that
// converts its operand on chip keeps its cast (moved up to an
// argument, it would be a kernel of its own).
// CHECK-LABEL: func.func @not_worth
// CHECK: %[[S:.*]] = neuron.slice %arg0
// CHECK: neuron.cast %[[S]]
// CHECK: %[[T:.*]] = neuron.transpose %arg1
// CHECK: %[[C:.*]] = neuron.cast %[[T]]
// CHECK: neuron.matmul %arg2, %[[C]] transpose_rhs
func.func @not_worth(%x: tensor<8x8xf32>, %k: tensor<16x8x2xf32>, %q: tensor<8x16x2xbf16>) -> (tensor<4x8xbf16>, tensor<8x16x16xf32>) {
  %s = neuron.slice %x offsets = [0, 0] sizes = [4, 8] strides = [1, 1] : tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused hoist-cast: moved up, the cast would convert more elements (above a slice or pool) and still be a kernel of its own}}
  %c = neuron.cast %s : tensor<4x8xf32> -> tensor<4x8xbf16>
  %t = neuron.transpose %k perm = [1, 0, 2] : tensor<16x8x2xf32> -> tensor<8x16x2xf32>
  // expected-remark @+1 {{not fused hoist-cast: its users convert the operand on chip; moved up to a value no kernel writes narrow, the cast would be a kernel of its own}}
  %kc = neuron.cast %t : tensor<8x16x2xf32> -> tensor<8x16x2xbf16>
  %m = neuron.matmul %q, %kc transpose_rhs : tensor<8x16x2xbf16>, tensor<8x16x2xbf16> -> tensor<8x16x16xf32>
  return %c, %m : tensor<4x8xbf16>, tensor<8x16x16xf32>
}

// -----

// A fused QKV projection split into Q, K and V, each cast on its way to
// attention (nn.MultiheadAttention's in-projection, GPT-2's c_attn): the
// three casts become one, right after the projection, whose kernel then
// writes bf16; the slices, reshapes and transposes move bf16.
// CHECK-LABEL: func.func @qkv_slices
// CHECK: %[[M:.*]] = neuron.matmul %arg0, %arg1
// CHECK-NEXT: %[[C:.*]] = neuron.cast %[[M]] : tensor<8x96xf32> -> tensor<8x96xbf16>
// CHECK-NOT: neuron.cast
// CHECK: neuron.slice %[[C]] {{.*}} -> tensor<8x32xbf16>
// CHECK: neuron.slice %[[C]] {{.*}} -> tensor<8x32xbf16>
// CHECK: neuron.slice %[[C]] {{.*}} -> tensor<8x32xbf16>
// CHECK: return
func.func @qkv_slices(%x: tensor<8x64xbf16>, %w: tensor<64x96xbf16>) -> (tensor<8x2x16xbf16>, tensor<2x16x8xbf16>, tensor<8x32xbf16>) {
  %m = neuron.matmul %x, %w : tensor<8x64xbf16>, tensor<64x96xbf16> -> tensor<8x96xf32>
  %q = neuron.slice %m offsets = [0, 0] sizes = [8, 32] strides = [1, 1] : tensor<8x96xf32> -> tensor<8x32xf32>
  %k = neuron.slice %m offsets = [0, 32] sizes = [8, 32] strides = [1, 1] : tensor<8x96xf32> -> tensor<8x32xf32>
  %v = neuron.slice %m offsets = [0, 64] sizes = [8, 32] strides = [1, 1] : tensor<8x96xf32> -> tensor<8x32xf32>
  %qr = neuron.reshape %q : tensor<8x32xf32> -> tensor<8x2x16xf32>
  // expected-remark @+1 {{fused hoist-cast (absorbed 1 ops, saves 1024 bytes)}}
  %qc = neuron.cast %qr : tensor<8x2x16xf32> -> tensor<8x2x16xbf16>
  %kr = neuron.reshape %k : tensor<8x32xf32> -> tensor<8x2x16xf32>
  %kt = neuron.transpose %kr perm = [1, 2, 0] : tensor<8x2x16xf32> -> tensor<2x16x8xf32>
  // expected-remark @+1 {{fused hoist-cast (absorbed 1 ops, saves 1024 bytes)}}
  %kc = neuron.cast %kt : tensor<2x16x8xf32> -> tensor<2x16x8xbf16>
  // expected-remark @+1 {{fused hoist-cast (absorbed 1 ops, saves 1024 bytes)}}
  %vc = neuron.cast %v : tensor<8x32xf32> -> tensor<8x32xbf16>
  return %qc, %kc, %vc : tensor<8x2x16xbf16>, tensor<2x16x8xbf16>, tensor<8x32xbf16>
}

// -----

// Swin's window attention: the projection is reshaped and transposed to
// [3, windows, heads, tokens, dim] before Q, K and V are sliced out (ONNX
// Gathers of a constant index, slices after canonicalization). The slices'
// casts move above the transpose they share, and on to the projection.
// CHECK-LABEL: func.func @qkv_after_transpose
// CHECK: %[[M:.*]] = neuron.matmul %arg0, %arg1
// CHECK-NEXT: %[[C:.*]] = neuron.cast %[[M]] : tensor<4x48xf32> -> tensor<4x48xbf16>
// CHECK-NOT: neuron.cast
// CHECK: neuron.transpose {{.*}} -> tensor<3x2x4x8xbf16>
// CHECK-COUNT-3: neuron.slice {{.*}} -> tensor<1x2x4x8xbf16>
// CHECK-NOT: neuron.cast
// CHECK: return
func.func @qkv_after_transpose(%x: tensor<4x16xbf16>, %w: tensor<16x48xbf16>) -> (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) {
  %m = neuron.matmul %x, %w : tensor<4x16xbf16>, tensor<16x48xbf16> -> tensor<4x48xf32>
  %r = neuron.reshape %m : tensor<4x48xf32> -> tensor<4x3x2x8xf32>
  %t = neuron.transpose %r perm = [1, 2, 0, 3] : tensor<4x3x2x8xf32> -> tensor<3x2x4x8xf32>
  %q = neuron.slice %t offsets = [0, 0, 0, 0] sizes = [1, 2, 4, 8] strides = [1, 1, 1, 1] : tensor<3x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %k = neuron.slice %t offsets = [1, 0, 0, 0] sizes = [1, 2, 4, 8] strides = [1, 1, 1, 1] : tensor<3x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %v = neuron.slice %t offsets = [2, 0, 0, 0] sizes = [1, 2, 4, 8] strides = [1, 1, 1, 1] : tensor<3x2x4x8xf32> -> tensor<1x2x4x8xf32>
  // expected-remark @+1 {{fused hoist-cast}}
  %qc = neuron.cast %q : tensor<1x2x4x8xf32> -> tensor<1x2x4x8xbf16>
  // expected-remark @+1 {{fused hoist-cast}}
  %kc = neuron.cast %k : tensor<1x2x4x8xf32> -> tensor<1x2x4x8xbf16>
  // expected-remark @+1 {{fused hoist-cast}}
  %vc = neuron.cast %v : tensor<1x2x4x8xf32> -> tensor<1x2x4x8xbf16>
  return %qc, %kc, %vc : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
}

// -----

// nn.MultiheadAttention's out-projection under --auto-cast: the cast of its
// operand moves above the head merge (transpose, reshape) to the attention,
// which then writes bf16 itself (it sums in f32 and rounds only its result,
// as the cast did); the head merge moves bf16.
// CHECK-LABEL: func.func @attention_output
// CHECK: %[[A:.*]] = neuron.attention %arg0, %arg1, %arg2 scale = 1.250000e-01 : (tensor<2x64x8xbf16>, tensor<2x64x8xbf16>, tensor<2x64x8xbf16>) -> tensor<2x64x8xbf16>
// CHECK-NEXT: %[[T:.*]] = neuron.transpose %[[A]] perm = [1, 0, 2] : tensor<2x64x8xbf16> -> tensor<64x2x8xbf16>
// CHECK-NEXT: %[[R:.*]] = neuron.reshape %[[T]] : tensor<64x2x8xbf16> -> tensor<64x16xbf16>
// CHECK-NEXT: neuron.matmul %[[R]], %arg3
func.func @attention_output(%q: tensor<2x64x8xbf16>, %k: tensor<2x64x8xbf16>, %v: tensor<2x64x8xbf16>, %w: tensor<16x16xbf16>) -> tensor<64x16xf32> {
  %a = neuron.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x64x8xbf16>, tensor<2x64x8xbf16>, tensor<2x64x8xbf16>) -> tensor<2x64x8xf32>
  %t = neuron.transpose %a perm = [1, 0, 2] : tensor<2x64x8xf32> -> tensor<64x2x8xf32>
  %r = neuron.reshape %t : tensor<64x2x8xf32> -> tensor<64x16xf32>
  // (three remarks: the transpose, the reshape, the attention)
  // expected-remark @+1 {{fused hoist-cast (absorbed 1 ops, saves 4096 bytes)}}
  %c = neuron.cast %r : tensor<64x16xf32> -> tensor<64x16xbf16>
  %m = neuron.matmul %c, %w : tensor<64x16xbf16>, tensor<16x16xbf16> -> tensor<64x16xf32>
  return %m : tensor<64x16xf32>
}

// -----

// The attention's result also read wide (returned in f32): the cast stays.
// CHECK-LABEL: func.func @attention_read_wide
// CHECK: neuron.attention {{.*}} -> tensor<2x64x8xf32>
// CHECK-NEXT: neuron.cast
func.func @attention_read_wide(%q: tensor<2x64x8xbf16>, %k: tensor<2x64x8xbf16>, %v: tensor<2x64x8xbf16>) -> (tensor<2x64x8xbf16>, tensor<2x64x8xf32>) {
  %a = neuron.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x64x8xbf16>, tensor<2x64x8xbf16>, tensor<2x64x8xbf16>) -> tensor<2x64x8xf32>
  // expected-remark @+1 {{has other users that read it wide: the cast stays after it}}
  %c = neuron.cast %a : tensor<2x64x8xf32> -> tensor<2x64x8xbf16>
  return %c, %a : tensor<2x64x8xbf16>, tensor<2x64x8xf32>
}
