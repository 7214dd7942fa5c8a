// A tensor.empty filled band by band with tensor.insert_slice (RoPE's
// rotate-half builds [-x2, x1] this way) is a concat of the bands. Errors:
// import-pieces-errors.mlir.
// RUN: neuron-opt %s --split-input-file --neuron-convert-tensor --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @rotate_half
// CHECK-DAG: %[[X1:.*]] = neuron.slice %arg0 {{.*}}offsets = [0, 0, 0]{{.*}} -> tensor<1x4x2xf32>
// CHECK-DAG: %[[X2:.*]] = neuron.slice %arg0 {{.*}}offsets = [0, 0, 2]{{.*}} -> tensor<1x4x2xf32>
// CHECK: %[[N:.*]] = neuron.neg %[[X2]]
// CHECK: %[[C:.*]] = neuron.concat %[[N]], %[[X1]] axis = 2 : tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x4xf32>
// CHECK: return %[[C]]
func.func @rotate_half(%x: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %x1 = tensor.extract_slice %x[0, 0, 0] [1, 4, 2] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x4x2xf32>
  %x2 = tensor.extract_slice %x[0, 0, 2] [1, 4, 2] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x4x2xf32>
  %neg = arith.negf %x2 : tensor<1x4x2xf32>
  %e = tensor.empty() : tensor<1x4x4xf32>
  %a = tensor.insert_slice %neg into %e[0, 0, 0] [1, 4, 2] [1, 1, 1] : tensor<1x4x2xf32> into tensor<1x4x4xf32>
  %b = tensor.insert_slice %x1 into %a[0, 0, 2] [1, 4, 2] [1, 1, 1] : tensor<1x4x2xf32> into tensor<1x4x4xf32>
  return %b : tensor<1x4x4xf32>
}

// -----

// Pieces in any order, rank-reduced sources.
// CHECK-LABEL: func.func @three_pieces
// CHECK-DAG: %[[A:.*]] = neuron.reshape %arg0 : tensor<4xf32> -> tensor<1x4xf32>
// CHECK-DAG: %[[C:.*]] = neuron.reshape %arg2 : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[R:.*]] = neuron.concat %[[A]], %arg1, %[[C]] axis = 0 : tensor<1x4xf32>, tensor<2x4xf32>, tensor<1x4xf32> -> tensor<4x4xf32>
// CHECK: return %[[R]]
func.func @three_pieces(%a: tensor<4xf32>, %b: tensor<2x4xf32>, %c: tensor<4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %0 = tensor.insert_slice %c into %e[3, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<4x4xf32>
  %1 = tensor.insert_slice %a into %0[0, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<4x4xf32>
  %2 = tensor.insert_slice %b into %1[1, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}
