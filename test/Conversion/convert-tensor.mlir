// RUN: neuron-opt %s --split-input-file --neuron-convert-tensor --canonicalize | FileCheck %s

// expand then collapse is the identity once both are neuron.reshape.
// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT: %[[E:.*]] = neuron.reshape %arg0 : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[E]], %arg0
func.func @reshapes(%x: tensor<6xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %0 = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<6xf32>
}

// -----

// A rank-reducing extract_slice is a slice and a reshape.
// CHECK-LABEL: func.func @extract
// CHECK: %[[S:.*]] = neuron.slice %arg0 offsets = [1, 0] sizes = [1, 4] strides = [1, 2] : tensor<3x8xf32> -> tensor<1x4xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[S]] : tensor<1x4xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @extract(%x: tensor<3x8xf32>) -> tensor<4xf32> {
  %0 = tensor.extract_slice %x[1, 0] [1, 4] [1, 2] : tensor<3x8xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// insert_slice along one dim: the slices of dest around the update, concatenated.
// CHECK-LABEL: func.func @insert
// CHECK-DAG: %[[BEFORE:.*]] = neuron.slice %arg0 offsets = [0, 0] sizes = [2, 8] strides = [1, 1]
// CHECK-DAG: %[[AFTER:.*]] = neuron.slice %arg0 offsets = [3, 0] sizes = [1, 8] strides = [1, 1]
// CHECK: %[[C:.*]] = neuron.concat %[[BEFORE]], %arg1, %[[AFTER]] axis = 0 : tensor<2x8xf32>, tensor<1x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: return %[[C]]
func.func @insert(%cache: tensor<4x8xf32>, %row: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.insert_slice %row into %cache[2, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @constants_concat_cast
// CHECK-DAG: %[[K:.*]] = neuron.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[S:.*]] = neuron.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK: %[[C:.*]] = neuron.concat %[[K]], %arg0, %[[S]] axis = 0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<6xf32>
// CHECK: %[[D:.*]] = neuron.reshape %[[C]] : tensor<6xf32> -> tensor<?xf32>
// CHECK: return %[[D]]
func.func @constants_concat_cast(%x: tensor<2xf32>) -> tensor<?xf32> {
  %k = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %three = arith.constant 3.0 : f32
  %s = tensor.splat %three : tensor<2xf32>
  %c = tensor.concat dim(0) %k, %x, %s : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>
  %d = tensor.cast %c : tensor<6xf32> to tensor<?xf32>
  return %d : tensor<?xf32>
}
