// RUN: neuron-opt %s --split-input-file --neuron-merge-sibling-matmuls --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// Separate query, key and value projections of one input (a key/value
// narrower than the query, as grouped-query attention has): one matmul by
// the weights concatenated along N, each column block its own slice.
// CHECK-LABEL: func.func @qkv
// CHECK:      %[[W:.*]] = neuron.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00, 7.000000e+00, 8.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00, 9.000000e+00, 1.000000e+01]]> : tensor<2x5xf32>
// CHECK-NEXT: %[[M:.*]] = neuron.matmul %arg0, %[[W]] : tensor<3x4x2xf32>, tensor<2x5xf32> -> tensor<3x4x5xf32>
// CHECK-NEXT: %[[Q:.*]] = neuron.slice %[[M]] offsets = [0, 0, 0] sizes = [3, 4, 2]
// CHECK-NEXT: %[[K:.*]] = neuron.slice %[[M]] offsets = [0, 0, 2] sizes = [3, 4, 1]
// CHECK-NEXT: %[[V:.*]] = neuron.slice %[[M]] offsets = [0, 0, 3] sizes = [3, 4, 2]
// CHECK-NOT:  neuron.matmul %arg0
// CHECK:      return %[[Q]], %[[K]], %[[V]]
func.func @qkv(%x: tensor<3x4x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x1xf32>, tensor<3x4x2xf32>) {
  %wq = neuron.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wk = neuron.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %wv = neuron.constant dense<[[7.0, 8.0], [9.0, 10.0]]> : tensor<2x2xf32>
  // expected-remark @+1 {{fused sibling matmuls}}
  %q = neuron.matmul %x, %wq : tensor<3x4x2xf32>, tensor<2x2xf32> -> tensor<3x4x2xf32>
  %k = neuron.matmul %x, %wk : tensor<3x4x2xf32>, tensor<2x1xf32> -> tensor<3x4x1xf32>
  %v = neuron.matmul %x, %wv : tensor<3x4x2xf32>, tensor<2x2xf32> -> tensor<3x4x2xf32>
  return %q, %k, %v : tensor<3x4x2xf32>, tensor<3x4x1xf32>, tensor<3x4x2xf32>
}

// -----

// A SwiGLU's gate and up projections meet in silu(gate) * up: general
// fusion runs the up projection and that product as one kernel, so they
// stay two matmuls.
// CHECK-LABEL: func.func @gated
// CHECK:      neuron.matmul %arg0, %{{.*}} : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK:      neuron.matmul %arg0, %{{.*}} : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NOT:  neuron.slice
func.func @gated(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %wg = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %wu = neuron.constant dense<[[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]]> : tensor<2x3xf32>
  %g = neuron.matmul %x, %wg : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  // expected-remark @+1 {{not fused sibling matmuls: its result meets a sibling's in an elementwise op}}
  %u = neuron.matmul %x, %wu : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %s = neuron.silu %g : tensor<4x3xf32>
  %y = neuron.mul %s, %u : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Only weights the compiler holds merge: a weight given as an argument and
// a splat keep their own matmuls; the two dense constants still merge.
// CHECK-LABEL: func.func @mixed
// CHECK-DAG:  neuron.matmul %arg0, %arg1 : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-DAG:  neuron.matmul %arg0, %{{.*}} : tensor<4x2xf32>, tensor<2x6xf32> -> tensor<4x6xf32>
// CHECK-DAG:  neuron.matmul %arg0, %{{.*}} : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
func.func @mixed(%x: tensor<4x2xf32>, %w: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %wa = neuron.constant dense<1.0> : tensor<2x3xf32>
  %wb = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %wc = neuron.constant dense<[[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]]> : tensor<2x3xf32>
  %a = neuron.matmul %x, %w : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  // expected-remark @+1 {{fused sibling matmuls}}
  %b = neuron.matmul %x, %wb : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %c = neuron.matmul %x, %wc : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %d = neuron.matmul %x, %wa : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %a, %b, %c, %d : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
