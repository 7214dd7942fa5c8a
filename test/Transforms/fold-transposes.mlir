// RUN: neuron-opt %s --split-input-file --neuron-fold-transposes --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// nn.Linear as exporters write it: the weight [out, in] is transposed before
// the matmul. The matmul reads it as it is.
// CHECK-LABEL: func.func @linear
// CHECK-NEXT: %[[Y:.*]] = neuron.matmul %arg0, %arg1 transpose_rhs : tensor<128x256xf32>, tensor<512x256xf32> -> tensor<128x512xf32>
// CHECK-NEXT: return %[[Y]]
func.func @linear(%x: tensor<128x256xf32>, %w: tensor<512x256xf32>) -> tensor<128x512xf32> {
  %wt = neuron.transpose %w perm = [1, 0] : tensor<512x256xf32> -> tensor<256x512xf32>
  // expected-remark @+1 {{fused transpose-into-matmul (absorbed 1 ops, saves 1048576 bytes)}}
  %y = neuron.matmul %x, %wt : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// -----

// Attention scores: K transposed through a reshape that drops the leading
// unit dim; the reshape moves above the transpose, which then folds. The
// lhs side: a flag already set is toggled off.
// CHECK-LABEL: func.func @scores
// CHECK-NEXT: %[[K:.*]] = neuron.reshape %arg1 : tensor<1x12x64x32xf32> -> tensor<12x64x32xf32>
// CHECK-NEXT: %[[S:.*]] = neuron.matmul %arg0, %[[K]] transpose_rhs : tensor<12x64x32xf32>, tensor<12x64x32xf32> -> tensor<12x64x64xf32>
// CHECK-NEXT: %[[T:.*]] = neuron.matmul %arg2, %[[S]] : tensor<12x64x64xf32>, tensor<12x64x64xf32> -> tensor<12x64x64xf32>
// CHECK-NEXT: return %[[T]]
func.func @scores(%q: tensor<12x64x32xf32>, %k: tensor<1x12x64x32xf32>, %a: tensor<12x64x64xf32>) -> tensor<12x64x64xf32> {
  %kt = neuron.transpose %k perm = [0, 1, 3, 2] : tensor<1x12x64x32xf32> -> tensor<1x12x32x64xf32>
  %k3 = neuron.reshape %kt : tensor<1x12x32x64xf32> -> tensor<12x32x64xf32>
  // expected-remark @+1 {{fused transpose-into-matmul}}
  %s = neuron.matmul %q, %k3 : tensor<12x64x32xf32>, tensor<12x32x64xf32> -> tensor<12x64x64xf32>
  %at = neuron.transpose %a perm = [0, 2, 1] : tensor<12x64x64xf32> -> tensor<12x64x64xf32>
  // expected-remark @+1 {{fused transpose-into-matmul}}
  %t = neuron.matmul %at, %s transpose_lhs : tensor<12x64x64xf32>, tensor<12x64x64xf32> -> tensor<12x64x64xf32>
  return %t : tensor<12x64x64xf32>
}

// -----

// A transpose with another user stays for it; the matmul still reads the
// untransposed value (saving nothing is said).
// CHECK-LABEL: func.func @shared
// CHECK: %[[WT:.*]] = neuron.transpose %arg1
// CHECK: neuron.matmul %arg0, %arg1 transpose_rhs
// CHECK: return {{.*}}, %[[WT]]
func.func @shared(%x: tensor<16x32xf32>, %w: tensor<8x32xf32>) -> (tensor<16x8xf32>, tensor<32x8xf32>) {
  %wt = neuron.transpose %w perm = [1, 0] : tensor<8x32xf32> -> tensor<32x8xf32>
  // expected-remark @+1 {{fused transpose-into-matmul (absorbed 1 ops, saves 0 bytes)}}
  %y = neuron.matmul %x, %wt : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %y, %wt : tensor<16x8xf32>, tensor<32x8xf32>
}

// -----

// Not the matrix dims (a head split), or a reshape that regroups the matrix
// dims: the transpose stays, and the second is explained.
// CHECK-LABEL: func.func @kept
// CHECK: neuron.transpose %arg0 perm = [1, 0, 2]
// CHECK: neuron.transpose %arg2 perm = [1, 0]
func.func @kept(%x: tensor<4x8x16xf32>, %y: tensor<8x16x8xf32>, %z: tensor<16x8xf32>, %w: tensor<16x8xf32>) -> (tensor<8x4x8xf32>, tensor<16x16xf32>) {
  %xt = neuron.transpose %x perm = [1, 0, 2] : tensor<4x8x16xf32> -> tensor<8x4x16xf32>
  %a = neuron.matmul %xt, %y : tensor<8x4x16xf32>, tensor<8x16x8xf32> -> tensor<8x4x8xf32>
  // expected-remark @+1 {{not fused transpose-into-matmul: a reshape between the transpose and the matmul changes the matrix dims}}
  %zt = neuron.transpose %z perm = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %zr = neuron.reshape %zt : tensor<8x16xf32> -> tensor<16x8xf32>
  %b = neuron.matmul %w, %zr transpose_rhs : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x16xf32>
  return %a, %b : tensor<8x4x8xf32>, tensor<16x16xf32>
}

// -----

// --auto-cast puts a cast between the transposed weight and the matmul
// (transpose, reshape, cast): the transpose still folds.
// CHECK-LABEL: func.func @cast_between
// CHECK-NEXT: %[[R:.*]] = neuron.reshape %arg1 : tensor<512x256xf32> -> tensor<1x512x256xf32>
// CHECK-NEXT: %[[C:.*]] = neuron.cast %[[R]] : tensor<1x512x256xf32> -> tensor<1x512x256xbf16>
// CHECK-NEXT: %[[Y:.*]] = neuron.matmul %arg0, %[[C]] transpose_rhs
func.func @cast_between(%x: tensor<1x128x256xbf16>, %w: tensor<512x256xf32>) -> tensor<1x128x512xf32> {
  %wt = neuron.transpose %w perm = [1, 0] : tensor<512x256xf32> -> tensor<256x512xf32>
  %w3 = neuron.reshape %wt : tensor<256x512xf32> -> tensor<1x256x512xf32>
  %wc = neuron.cast %w3 : tensor<1x256x512xf32> -> tensor<1x256x512xbf16>
  // expected-remark @+1 {{fused transpose-into-matmul}}
  %y = neuron.matmul %x, %wc : tensor<1x128x256xbf16>, tensor<1x256x512xbf16> -> tensor<1x128x512xf32>
  return %y : tensor<1x128x512xf32>
}

// -----

// A classifier's weight, exported as Gemm with transB: the constant is
// stored transposed and the matmul reads it as the multiply wants it. A
// transpose of a constant folds into the flag first, then into the data.
// CHECK-LABEL: func.func @constant_weight
// CHECK-DAG:  %[[W:.*]] = neuron.constant dense<{{\[}}[1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-DAG:  %[[V:.*]] = neuron.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK:      %[[Y:.*]] = neuron.matmul %arg0, %[[W]] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[Z:.*]] = neuron.matmul %arg1, %[[V]] : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: return %[[Y]], %[[Z]]
func.func @constant_weight(%x: tensor<2x3xf32>, %u: tensor<2x2xf32>) -> (tensor<2x4xf32>, tensor<2x2xf32>) {
  %w = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  // expected-remark @+1 {{fused transpose-constant}}
  %y = neuron.matmul %x, %w transpose_rhs : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %v = neuron.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %vt = neuron.transpose %v perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  // expected-remark @+2 {{fused transpose-into-matmul}}
  // expected-remark @+1 {{fused transpose-constant}}
  %z = neuron.matmul %u, %vt : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x2xf32>
}

// -----

// Batched: each matrix is transposed; bf16 data moves as whole elements. A
// constant read both ways (a tied embedding) gets a transposed copy, and
// the reader that wants it as it is keeps the original.
// CHECK-LABEL: func.func @batched_and_shared
// CHECK-DAG:  %[[B:.*]] = neuron.constant dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]], {{\[}}[5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]]> : tensor<2x2x2xbf16>
// CHECK-DAG:  %[[E:.*]] = neuron.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:  %[[ET:.*]] = neuron.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK:      neuron.matmul %arg0, %[[B]] : tensor<2x2x2xbf16>, tensor<2x2x2xbf16>
// CHECK:      neuron.matmul %arg1, %[[ET]] : tensor<4x3xf32>, tensor<3x2xf32>
// CHECK:      neuron.matmul %arg2, %[[E]] : tensor<4x2xf32>, tensor<2x3xf32>
func.func @batched_and_shared(%x: tensor<2x2x2xbf16>, %h: tensor<4x3xf32>, %t: tensor<4x2xf32>) -> (tensor<2x2x2xf32>, tensor<4x2xf32>, tensor<4x3xf32>) {
  %b = neuron.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xbf16>
  // expected-remark @+1 {{fused transpose-constant}}
  %y = neuron.matmul %x, %b transpose_rhs : tensor<2x2x2xbf16>, tensor<2x2x2xbf16> -> tensor<2x2x2xf32>
  %e = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  // expected-remark @+1 {{fused transpose-constant}}
  %logits = neuron.matmul %h, %e transpose_rhs : tensor<4x3xf32>, tensor<2x3xf32> -> tensor<4x2xf32>
  %emb = neuron.matmul %t, %e : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %y, %logits, %emb : tensor<2x2x2xf32>, tensor<4x2xf32>, tensor<4x3xf32>
}

// -----

// A constant other ops read as it is and too big to store twice (16 MiB
// and more) stays, and the report says why.
// CHECK-LABEL: func.func @shared_too_big
// CHECK: neuron.matmul %arg0, %{{.*}} transpose_rhs
func.func @shared_too_big(%h: tensor<1x2049xf32>, %t: tensor<1x2048xf32>) -> (tensor<1x2048xf32>, tensor<1x2049xf32>) {
  %e = neuron.constant dense<0.5> : tensor<2048x2049xf32>
  // expected-remark @+1 {{not fused transpose-constant: other ops read the constant as it is and a transposed copy of 16785408 bytes would be stored beside it}}
  %logits = neuron.matmul %h, %e transpose_rhs : tensor<1x2049xf32>, tensor<2048x2049xf32> -> tensor<1x2048xf32>
  %emb = neuron.matmul %t, %e : tensor<1x2048xf32>, tensor<2048x2049xf32> -> tensor<1x2049xf32>
  return %logits, %emb : tensor<1x2048xf32>, tensor<1x2049xf32>
}
