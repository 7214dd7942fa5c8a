// RUN: neuron-opt %s --canonicalize --split-input-file | FileCheck %s
// Folders: algebraic identities and constant folding of small tensors.

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]] :
func.func @identities(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = neuron.constant dense<0.0> : tensor<8xf32>
  %one = neuron.constant dense<1.0> : tensor<4x8xf32>
  %0 = neuron.add %x, %zero : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = neuron.mul %one, %0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = neuron.sub %1, %zero : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %3 = neuron.div %2, %one : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// x + 0 where the zero broadcasts x to a larger shape is not an identity.
// CHECK-LABEL: func.func @broadcasting_zero_is_kept
// CHECK: neuron.add
func.func @broadcasting_zero_is_kept(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = neuron.constant dense<0.0> : tensor<4x8xf32>
  %0 = neuron.add %x, %zero : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_pairs
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = neuron.transpose %[[X]] perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[X]], %[[T]]
func.func @transpose_pairs(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4x2xf32>) {
  %0 = neuron.transpose %x perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = neuron.transpose %0 perm = [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %2 = neuron.transpose %0 perm = [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<3x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chains
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = neuron.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @reshape_chains(%x: tensor<2x3x4xf32>) -> (tensor<24xf32>, tensor<2x3x4xf32>) {
  %0 = neuron.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = neuron.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  %2 = neuron.reshape %0 : tensor<6x4xf32> -> tensor<2x3x4xf32>
  return %1, %2 : tensor<24xf32>, tensor<2x3x4xf32>
}

// -----

// Constant folding runs the reference kernels.
// CHECK-LABEL: func.func @constant_folding
// CHECK-DAG: neuron.constant dense<[3.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK-DAG: neuron.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK-DAG: neuron.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: neuron.constant dense<[-3, 3]> : tensor<2xi32>
// CHECK-NOT: neuron.add
// CHECK-NOT: neuron.rsqrt
func.func @constant_folding() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xi32>) {
  %a = neuron.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = neuron.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %s = neuron.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %f = neuron.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %r = neuron.rsqrt %f : tensor<2xf32>
  %e = neuron.constant dense<[1.0, 5.0]> : tensor<2xf32>
  %m = neuron.compare eq, %a, %e : tensor<2xf32>, tensor<2xf32> -> tensor<2xi1>
  %p = neuron.constant dense<[-7, 7]> : tensor<2xi32>
  %two = neuron.constant dense<2> : tensor<2xi32>
  %d = neuron.div %p, %two : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  return %s, %r, %m, %d : tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xi32>
}

// -----

// Folding stops at non-splat tensors over 4096 elements and at errors such
// as an integer division by zero, which is left to run time. Splats fold at
// any size: the result is a splat too.
// CHECK-LABEL: func.func @no_fold
// CHECK-DAG: %[[SPLAT:.*]] = neuron.constant dense<2.000000e+00> : tensor<8192xf32>
// CHECK-DAG: neuron.concat
// CHECK-DAG: neuron.add
// CHECK-DAG: neuron.div
// CHECK: return %[[SPLAT]]
func.func @no_fold() -> (tensor<8192xf32>, tensor<8193xf32>, tensor<2xi32>) {
  %a = neuron.constant dense<1.0> : tensor<8192xf32>
  %s = neuron.add %a, %a : tensor<8192xf32>, tensor<8192xf32> -> tensor<8192xf32>
  %b = neuron.constant dense<3.0> : tensor<1xf32>
  %c = neuron.concat %a, %b axis = 0 : tensor<8192xf32>, tensor<1xf32> -> tensor<8193xf32>
  %t = neuron.add %c, %c : tensor<8193xf32>, tensor<8193xf32> -> tensor<8193xf32>
  %p = neuron.constant dense<[-7, 7]> : tensor<2xi32>
  %z = neuron.constant dense<[1, 0]> : tensor<2xi32>
  %d = neuron.div %p, %z : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  return %s, %t, %d : tensor<8192xf32>, tensor<8193xf32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @select_and_cast
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[B]], %[[A]]
func.func @select_and_cast(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %false = neuron.constant dense<false> : tensor<4xi1>
  %0 = neuron.select %false, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = neuron.cast %a : tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A gather of one constant index is a slice (torch's `qkv[0]`, `unbind`),
// reshaped to the gather's result; an index out of range stays a gather.
// CHECK-LABEL: func.func @gather_constant_index
// CHECK: %[[S:.*]] = neuron.slice %arg0 offsets = [0, 2, 0] sizes = [3, 1, 4] strides = [1, 1, 1] : tensor<3x5x4xf32> -> tensor<3x1x4xf32>
// CHECK-NEXT: %[[R:.*]] = neuron.reshape %[[S]] : tensor<3x1x4xf32> -> tensor<3x4xf32>
// CHECK: %[[S1:.*]] = neuron.slice %arg0 offsets = [1, 0, 0] sizes = [1, 5, 4] strides = [1, 1, 1] : tensor<3x5x4xf32> -> tensor<1x5x4xf32>
// CHECK-NOT: neuron.reshape
// CHECK: neuron.gather %arg0[%{{.*}}] axis = 0 : tensor<3x5x4xf32>, tensor<i32> -> tensor<5x4xf32>
// CHECK: return %[[R]], %[[S1]]
func.func @gather_constant_index(%x: tensor<3x5x4xf32>) -> (tensor<3x4xf32>, tensor<1x5x4xf32>, tensor<5x4xf32>) {
  %c2 = neuron.constant dense<2> : tensor<i32>
  %a = neuron.gather %x[%c2] axis = 1 : tensor<3x5x4xf32>, tensor<i32> -> tensor<3x4xf32>
  %c1 = neuron.constant dense<1> : tensor<1xi32>
  %b = neuron.gather %x[%c1] axis = 0 : tensor<3x5x4xf32>, tensor<1xi32> -> tensor<1x5x4xf32>
  %c7 = neuron.constant dense<7> : tensor<i32>
  %c = neuron.gather %x[%c7] axis = 0 : tensor<3x5x4xf32>, tensor<i32> -> tensor<5x4xf32>
  return %a, %b, %c : tensor<3x4xf32>, tensor<1x5x4xf32>, tensor<5x4xf32>
}
