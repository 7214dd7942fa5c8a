// RUN: neuron-opt %s --split-input-file --neuron-fuse-softmax --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// exp(x - max) * reciprocal(sum), as the attention export writes it.
// CHECK-LABEL: func.func @softmax_reciprocal
// CHECK-NEXT: %[[S:.*]] = neuron.softmax %arg0 axis = 1 : tensor<4x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @softmax_reciprocal(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = neuron.reduce_max %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = neuron.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %r = neuron.reciprocal %s : tensor<4x1xf32>
  // expected-remark @+1 {{fused softmax (absorbed 6 ops}}
  %y = neuron.mul %e, %r : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// exp(x - max) / sum over a middle axis.
// CHECK-LABEL: func.func @softmax_div
// CHECK-NEXT: neuron.softmax %arg0 axis = 1 : tensor<2x4x8xf32>
func.func @softmax_div(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %m = neuron.reduce_max %x axes = [1] keepdims : tensor<2x4x8xf32> -> tensor<2x1x8xf32>
  %d = neuron.sub %x, %m : tensor<2x4x8xf32>, tensor<2x1x8xf32> -> tensor<2x4x8xf32>
  %e = neuron.exp %d : tensor<2x4x8xf32>
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<2x4x8xf32> -> tensor<2x1x8xf32>
  // expected-remark @+1 {{fused softmax}}
  %y = neuron.div %e, %s : tensor<2x4x8xf32>, tensor<2x1x8xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Log-softmax as x - (max + log(sum(exp(x - max)))), then exp of it: the
// log-sum-exp attention form collapses to one softmax.
// CHECK-LABEL: func.func @lse_then_exp
// CHECK-NEXT: %[[S:.*]] = neuron.softmax %arg0 axis = 1 : tensor<4x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @lse_then_exp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = neuron.reduce_max %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = neuron.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %l = neuron.log %s : tensor<4x1xf32>
  %a = neuron.add %m, %l : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
  // expected-remark @+1 {{fused log-softmax}}
  %ls = neuron.sub %x, %a : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{fused softmax (absorbed 8 ops}}
  %y = neuron.exp %ls : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Log-softmax as (x - max) - log(sum).
// CHECK-LABEL: func.func @log_softmax
// CHECK-NEXT: neuron.softmax %arg0 axis = 1 log : tensor<4x8xf32>
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = neuron.reduce_max %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = neuron.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %l = neuron.log %s : tensor<4x1xf32>
  // expected-remark @+1 {{fused log-softmax}}
  %y = neuron.sub %d, %l : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Not fused: the exponentials are also returned.
// CHECK-LABEL: func.func @extra_user
// CHECK: neuron.reduce_sum
func.func @extra_user(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %m = neuron.reduce_max %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = neuron.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  // expected-remark-re @+1 {{not fused softmax: an intermediate (neuron.exp at {{.*}}) has users outside the chain}}
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = neuron.div %e, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %y, %e : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Not fused: no max subtraction (numerically unstable, and not what softmax computes for large x).
// CHECK-LABEL: func.func @unstable
// CHECK: neuron.reduce_sum
func.func @unstable(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = neuron.exp %x : tensor<4x8xf32>
  // expected-remark @+1 {{not fused softmax: the exponent is not x - max(x) (unstable softmax is left alone)}}
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = neuron.div %e, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
