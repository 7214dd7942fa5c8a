// RUN: neuron-opt %s --split-input-file --neuron-prepack-weights --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// nn.Linear as exporters write it: the weight [out, in] is transposed before
// the matmul. Prepacked, the entry takes it as [in, out] (the runtime swaps
// it at load) and the transpose is gone.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%arg0: tensor<128x256xf32>, %arg1: tensor<256x512xf32> {neuron.host_transposed})
// CHECK-NEXT: %[[Y:.*]] = neuron.matmul %arg0, %arg1 : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
// CHECK-NEXT: return %[[Y]]
// expected-remark @+1 {{fused prepack-weight (absorbed 1 ops, saves 0 bytes)}}
func.func @linear(%x: tensor<128x256xf32>, %w: tensor<512x256xf32>) -> tensor<128x512xf32> {
  %wt = neuron.transpose %w perm = [1, 0] : tensor<512x256xf32> -> tensor<256x512xf32>
  %y = neuron.matmul %x, %wt : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// -----

// After --neuron-fold-transposes the transpose is the matmul's flag, and the
// weight reaches it through a reshape that adds a batch dim and a cast that
// keeps the element type: the flag goes, the views take the swapped shapes.
// Two matmuls read the same weight.
// CHECK-LABEL: func.func @folded
// CHECK-SAME: %arg1: tensor<256x512xbf16> {neuron.host_transposed}
// CHECK-NEXT: %[[R:.*]] = neuron.reshape %arg1 : tensor<256x512xbf16> -> tensor<1x256x512xbf16>
// CHECK-NEXT: %[[A:.*]] = neuron.matmul %arg0, %[[R]] : tensor<1x4x256xbf16>, tensor<1x256x512xbf16> -> tensor<1x4x512xf32>
// CHECK-NEXT: %[[B:.*]] = neuron.matmul %arg0, %[[R]] : tensor<1x4x256xbf16>, tensor<1x256x512xbf16> -> tensor<1x4x512xf32>
// expected-remark @+1 {{fused prepack-weight (absorbed 0 ops, saves 0 bytes)}}
func.func @folded(%x: tensor<1x4x256xbf16>, %w: tensor<512x256xbf16>) -> (tensor<1x4x512xf32>, tensor<1x4x512xf32>) {
  %r = neuron.reshape %w : tensor<512x256xbf16> -> tensor<1x512x256xbf16>
  %a = neuron.matmul %x, %r transpose_rhs : tensor<1x4x256xbf16>, tensor<1x512x256xbf16> -> tensor<1x4x512xf32>
  %b = neuron.matmul %x, %r transpose_rhs : tensor<1x4x256xbf16>, tensor<1x512x256xbf16> -> tensor<1x4x512xf32>
  return %a, %b : tensor<1x4x512xf32>, tensor<1x4x512xf32>
}

// -----

// A reader that takes the weight as declared keeps it: the transpose stays.
// CHECK-LABEL: func.func @also_untransposed
// CHECK-SAME: %arg1: tensor<512x256xf32>)
// CHECK-NEXT: neuron.transpose %arg1
// expected-remark @+1 {{not fused prepack-weight: argument #1 stays as declared: 'neuron.exp' reads it in its own layout}}
func.func @also_untransposed(%x: tensor<128x256xf32>, %w: tensor<512x256xf32>) -> (tensor<128x512xf32>, tensor<512x256xf32>) {
  %wt = neuron.transpose %w perm = [1, 0] : tensor<512x256xf32> -> tensor<256x512xf32>
  %y = neuron.matmul %x, %wt : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %e = neuron.exp %w : tensor<512x256xf32>
  return %y, %e : tensor<128x512xf32>, tensor<512x256xf32>
}

// -----

// --auto-cast's conversion: the transposed load converts in PSUM; a
// prepacked weight would need a converted copy in HBM. Kept.
// CHECK-LABEL: func.func @auto_cast
// CHECK-SAME: %arg1: tensor<512x256xf32>)
// expected-remark @+1 {{not fused prepack-weight: argument #1 stays as declared: it is converted to bf16 (--auto-cast), which its transposed load does on the way through PSUM and a prepacked load would do in HBM}}
func.func @auto_cast(%x: tensor<128x256xbf16>, %w: tensor<512x256xf32>) -> tensor<128x512xf32> {
  %c = neuron.cast %w : tensor<512x256xf32> -> tensor<512x256xbf16>
  %y = neuron.matmul %x, %c transpose_rhs : tensor<128x256xbf16>, tensor<512x256xbf16> -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// -----

// Not candidates (no remark): an activation read as declared, a weight a
// private function takes (its caller decides), a matrix-dim transpose that is
// not the last two dims.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%arg0: tensor<128x256xf32>, %arg1: tensor<256x512xf32>)
func.func @plain(%x: tensor<128x256xf32>, %w: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %y = neuron.matmul %x, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: %arg1: tensor<512x256xf32>)
func.func private @callee(%x: tensor<128x256xf32>, %w: tensor<512x256xf32>) -> tensor<128x512xf32> {
  %y = neuron.matmul %x, %w transpose_rhs : tensor<128x256xf32>, tensor<512x256xf32> -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}
// CHECK-LABEL: func.func @batch_perm
// CHECK-SAME: %arg1: tensor<2x4x8xf32>)
func.func @batch_perm(%x: tensor<4x2x8xf32>, %w: tensor<2x4x8xf32>) -> tensor<4x2x8xf32> {
  %t = neuron.transpose %w perm = [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %y = neuron.add %x, %t : tensor<4x2x8xf32>, tensor<4x2x8xf32> -> tensor<4x2x8xf32>
  return %y : tensor<4x2x8xf32>
}
