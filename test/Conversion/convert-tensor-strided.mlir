// RUN: neuron-opt %s --split-input-file --neuron-convert-tensor | FileCheck %s
// RUN: neuron-run %s --entry values | FileCheck %s --check-prefix=VALUES

// A strided insert_slice (iree_regression_strided_slice) selects between
// the destination and the source spread over the strides: each element
// repeated stride times (reshape, broadcast_to, reshape), cut to the
// written extent (slice), padded with zeros to the destination (concat);
// the mask is one small i1 constant per dim, and-ed with a select.
// CHECK-LABEL: func.func @strided_insert
// CHECK-DAG: %[[ROWS:.*]] = neuron.constant dense<[{{\[}}false], [true], [false], [true], [false], [true], [false], [false], [false], [false]]> : tensor<10x1xi1>
// CHECK-DAG: %[[COLS:.*]] = neuron.constant dense<{{\[\[}}false, false, true, false, false, true, false, false, true, false, false, false]]> : tensor<1x12xi1>
// CHECK: %[[R:.*]] = neuron.reshape %arg0 : tensor<3x3xi32> -> tensor<3x1x3x1xi32>
// CHECK: %[[B:.*]] = neuron.broadcast_to %[[R]] : tensor<3x1x3x1xi32> -> tensor<3x2x3x3xi32>
// CHECK: %[[M:.*]] = neuron.reshape %[[B]] : tensor<3x2x3x3xi32> -> tensor<6x9xi32>
// CHECK: %[[S:.*]] = neuron.slice %[[M]] offsets = [0, 0] sizes = [5, 7] strides = [1, 1]
// CHECK: %[[P0:.*]] = neuron.concat %{{.*}}, %[[S]], %{{.*}} axis = 0 : tensor<1x7xi32>, tensor<5x7xi32>, tensor<4x7xi32> -> tensor<10x7xi32>
// CHECK: %[[P1:.*]] = neuron.concat %{{.*}}, %[[P0]], %{{.*}} axis = 1 : tensor<10x2xi32>, tensor<10x7xi32>, tensor<10x3xi32> -> tensor<10x12xi32>
// CHECK: %[[MASK:.*]] = neuron.select %[[ROWS]], %[[COLS]], %{{.*}} : tensor<10x1xi1>, tensor<1x12xi1>, tensor<i1> -> tensor<10x12xi1>
// CHECK: %[[RES:.*]] = neuron.select %[[MASK]], %[[P1]], %arg1
// CHECK: return %[[RES]]
func.func @strided_insert(%src: tensor<3x3xi32>, %dest: tensor<10x12xi32>) -> tensor<10x12xi32> {
  %0 = tensor.insert_slice %src into %dest[1, 2] [3, 3] [2, 3] : tensor<3x3xi32> into tensor<10x12xi32>
  return %0 : tensor<10x12xi32>
}

// -----

// tensor.insert of a constant scalar at constant indices (iree_linalg_argmax).
// CHECK-LABEL: func.func @insert_scalar
// CHECK-DAG: %[[V:.*]] = neuron.constant dense<5.300000e+01> : tensor<f32>
// CHECK-DAG: %[[ROW:.*]] = neuron.constant dense<[{{\[}}false], [true]]> : tensor<2x1xi1>
// CHECK-DAG: %[[COL:.*]] = neuron.constant dense<{{\[\[}}false, false, true]]> : tensor<1x3xi1>
// CHECK: %[[M:.*]] = neuron.select %[[ROW]], %[[COL]]
// CHECK: %[[R:.*]] = neuron.select %[[M]], %[[V]], %arg0 : tensor<2x3xi1>, tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @insert_scalar(%t: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %v = arith.constant 53.0 : f32
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %0 = tensor.insert %v into %t[%i, %j] : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// VALUES: output #0: tensor<6xi32>
// VALUES-NEXT: first: [1, 42, 2, 42, 3, 42]
// VALUES: output #1: tensor<2x3xi32>
// VALUES-NEXT: first: [0, 0, 0, 0, 1, 2]
// VALUES: output #2: tensor<6xf32>
// VALUES-NEXT: first: [7, 7, 7, 7, 53, 7]
// VALUES: output #3: tensor<3xi32>
// VALUES-NEXT: first: [2, 5, 8]
func.func @values() -> (tensor<6xi32>, tensor<2x3xi32>, tensor<6xf32>, tensor<3xi32>) {
  %src = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %d42 = arith.constant dense<42> : tensor<6xi32>
  %0 = tensor.insert_slice %src into %d42[0] [3] [2] : tensor<3xi32> into tensor<6xi32>
  %row = arith.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %z = arith.constant dense<0> : tensor<2x3xi32>
  %1 = tensor.insert_slice %row into %z[1, 1] [1, 2] [1, 1] : tensor<1x2xi32> into tensor<2x3xi32>
  %sevens = arith.constant dense<7.0> : tensor<6xf32>
  %v = arith.constant 53.0 : f32
  %i = arith.constant 4 : index
  %2 = tensor.insert %v into %sevens[%i] : tensor<6xf32>
  %seq = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8]> : tensor<9xi32>
  %3 = tensor.extract_slice %seq[2] [3] [3] : tensor<9xi32> to tensor<3xi32>
  return %0, %1, %2, %3 : tensor<6xi32>, tensor<2x3xi32>, tensor<6xf32>, tensor<3xi32>
}
