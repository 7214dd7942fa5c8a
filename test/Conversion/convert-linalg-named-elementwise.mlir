// Named elementwise linalg ops (what exporters emit for single ops) raise like
// the same op inside a linalg.generic body.
// RUN: neuron-opt %s --split-input-file --neuron-convert-linalg --neuron-convert-tensor --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @unary
// CHECK-NEXT: %[[N:.*]] = neuron.neg %arg0 : tensor<2x8xf32>
// CHECK-NEXT: %[[E:.*]] = neuron.exp %[[N]] : tensor<2x8xf32>
// CHECK-NEXT: %[[R:.*]] = neuron.rsqrt %[[E]] : tensor<2x8xf32>
// CHECK-NEXT: %[[S:.*]] = neuron.mul %[[R]], %[[R]]
// CHECK-NEXT: %[[A:.*]] = neuron.abs %[[S]] : tensor<2x8xf32>
// CHECK-NEXT: %[[T:.*]] = neuron.tanh %[[A]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[T]]
func.func @unary(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.negf ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = linalg.exp ins(%0 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = linalg.rsqrt ins(%1 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = linalg.square ins(%2 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = linalg.abs ins(%3 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = linalg.tanh ins(%4 : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %5 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @binary
// CHECK-NEXT: %[[A:.*]] = neuron.add %arg0, %arg1 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[S:.*]] = neuron.sub %[[A]], %arg1
// CHECK-NEXT: %[[M:.*]] = neuron.mul %[[S]], %arg0
// CHECK-NEXT: %[[D:.*]] = neuron.div %[[M]], %arg1
// CHECK-NEXT: %[[X:.*]] = neuron.max %[[D]], %arg0
// CHECK-NEXT: %[[N:.*]] = neuron.min %[[X]], %arg1
// CHECK-NEXT: return %[[N]]
func.func @binary(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.add ins(%x, %y : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = linalg.sub ins(%0, %y : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = linalg.mul ins(%1, %x : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = linalg.div ins(%2, %y : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = linalg.max ins(%3, %x : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = linalg.min ins(%4, %y : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %5 : tensor<2x8xf32>
}

// -----

// linalg.broadcast is an elementwise copy with a broadcasting input map.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[R:.*]] = neuron.reshape %arg0 : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[B:.*]] = neuron.broadcast_to %[[R]] : tensor<1x8xf32> -> tensor<2x8xf32>
// CHECK: return %[[B]]
func.func @broadcast(%x: tensor<8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.broadcast ins(%x : tensor<8xf32>) outs(%e : tensor<2x8xf32>) dimensions = [0]
  return %0 : tensor<2x8xf32>
}
