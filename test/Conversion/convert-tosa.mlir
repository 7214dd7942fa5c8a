// RUN: neuron-opt %s --split-input-file --neuron-convert-tosa --canonicalize | FileCheck %s
// One test per TOSA op family that neuron-convert-tosa converts.

// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.*]]: tensor<1x4xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[ADD:.*]] = neuron.add %[[A]], %[[B]] : tensor<1x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK: %[[SUB:.*]] = neuron.sub %[[ADD]], %[[B]]
// CHECK: %[[MUL:.*]] = neuron.mul %[[SUB]], %[[A]] : tensor<3x4xf32>, tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK: %[[MAX:.*]] = neuron.max %[[MUL]], %[[B]]
// CHECK: %[[MIN:.*]] = neuron.min %[[MAX]], %[[B]]
// CHECK: %[[POW:.*]] = neuron.pow %[[MIN]], %[[B]]
// CHECK: return %[[POW]]
func.func @elementwise(%a: tensor<1x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.add %a, %b : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = tosa.sub %0, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = tosa.mul %1, %a, %shift : (tensor<3x4xf32>, tensor<1x4xf32>, tensor<1xi8>) -> tensor<3x4xf32>
  %3 = tosa.maximum %2, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = tosa.minimum %3, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = tosa.pow %4, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %5 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK: neuron.abs
// CHECK-NEXT: neuron.exp
// CHECK-NEXT: neuron.log
// CHECK-NEXT: neuron.rsqrt
// CHECK-NEXT: neuron.reciprocal
// CHECK-NEXT: neuron.tanh
// CHECK-NEXT: neuron.sigmoid
// CHECK-NEXT: neuron.erf
// CHECK-NEXT: neuron.neg
// CHECK-NEXT: return
func.func @unary(%x: tensor<8xf32>) -> tensor<8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.abs %x : (tensor<8xf32>) -> tensor<8xf32>
  %1 = tosa.exp %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = tosa.log %1 : (tensor<8xf32>) -> tensor<8xf32>
  %3 = tosa.rsqrt %2 : (tensor<8xf32>) -> tensor<8xf32>
  %4 = tosa.reciprocal %3 : (tensor<8xf32>) -> tensor<8xf32>
  %5 = tosa.tanh %4 : (tensor<8xf32>) -> tensor<8xf32>
  %6 = tosa.sigmoid %5 : (tensor<8xf32>) -> tensor<8xf32>
  %7 = tosa.erf %6 : (tensor<8xf32>) -> tensor<8xf32>
  %8 = tosa.negate %7, %zp, %zp : (tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8xf32>
  %9 = tosa.identity %8 : (tensor<8xf32>) -> tensor<8xf32>
  return %9 : tensor<8xf32>
}

// -----

// clamp to [0, max float] is a relu; any other range is a min and a max.
// CHECK-LABEL: func.func @clamp
// CHECK-DAG: %[[LO:.*]] = neuron.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[HI:.*]] = neuron.constant dense<6.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = neuron.relu %arg0
// CHECK: %[[M:.*]] = neuron.min %arg0, %[[HI]] : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
// CHECK: %[[C:.*]] = neuron.max %[[M]], %[[LO]]
// CHECK: return %[[R]], %[[C]]
func.func @clamp(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tosa.clamp %x {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = tosa.clamp %x {min_val = -1.0 : f32, max_val = 6.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @compare_select
// CHECK: %[[GT:.*]] = neuron.compare gt, %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
// CHECK: %[[GE:.*]] = neuron.compare ge, %arg0, %arg1
// CHECK: %[[EQ:.*]] = neuron.compare eq, %arg0, %arg1
// CHECK: neuron.select %[[GT]], %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tosa.greater %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = tosa.greater_equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = tosa.equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = tosa.select %0, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3, %1, %2 : tensor<4xf32>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Float to int rounds to nearest even in TOSA: a neuron.round goes first.
// CHECK-LABEL: func.func @casts
// CHECK: %[[R:.*]] = neuron.round %arg0 : tensor<4xf32>
// CHECK: %[[I:.*]] = neuron.cast %[[R]] : tensor<4xf32> -> tensor<4xi32>
// CHECK: %[[B:.*]] = neuron.cast %arg0 : tensor<4xf32> -> tensor<4xi1>
// CHECK: %[[F:.*]] = neuron.cast %[[I]] : tensor<4xi32> -> tensor<4xbf16>
func.func @casts(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4xbf16>) {
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  %1 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi1>
  %2 = tosa.cast %0 : (tensor<4xi32>) -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi1>, tensor<4xbf16>
}

// -----

// TOSA reductions keep the axis as size 1.
// CHECK-LABEL: func.func @reductions
// CHECK: neuron.reduce_sum %arg0 axes = [1] keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK: neuron.reduce_max %arg0 axes = [2] keepdims
// CHECK: neuron.reduce_min %arg0 axes = [0] keepdims
// CHECK: neuron.reduce_prod %arg0 axes = [2] keepdims
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x3x1xf32>, tensor<1x3x4xf32>, tensor<2x3x1xf32>) {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %1 = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %2 = tosa.reduce_min %x {axis = 0 : i32} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
  %3 = tosa.reduce_product %x {axis = 2 : i32} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0, %1, %2, %3 : tensor<2x1x4xf32>, tensor<2x3x1xf32>, tensor<1x3x4xf32>, tensor<2x3x1xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_and_movement
// CHECK: %[[MM:.*]] = neuron.matmul %arg0, %arg1 : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
// CHECK: %[[T:.*]] = neuron.transpose %[[MM]] perm = [0, 2, 1] : tensor<2x3x5xf32> -> tensor<2x5x3xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[T]] : tensor<2x5x3xf32> -> tensor<10x3xf32>
// CHECK: %[[S:.*]] = neuron.slice %[[R]] offsets = [2, 0] sizes = [4, 3] strides = [1, 1] : tensor<10x3xf32> -> tensor<4x3xf32>
// CHECK: %[[C:.*]] = neuron.concat %[[S]], %[[S]] axis = 1 : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK: return %[[C]]
func.func @matmul_and_movement(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<4x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  %1 = tosa.transpose %0 {perms = array<i32: 0, 2, 1>} : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32>
  %s = tosa.const_shape {values = dense<[10, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.reshape %1, %s : (tensor<2x5x3xf32>, !tosa.shape<2>) -> tensor<10x3xf32>
  %start = tosa.const_shape {values = dense<[2, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[4, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = tosa.slice %2, %start, %size : (tensor<10x3xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x3xf32>
  %4 = tosa.concat %3, %3 {axis = 1 : i32} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return %4 : tensor<4x6xf32>
}

// -----

// An embedding lookup (N = 1) is one gather; N = 2 gathers per batch.
// CHECK-LABEL: func.func @gather
// CHECK: %[[T:.*]] = neuron.reshape %arg0 : tensor<1x100x16xf32> -> tensor<100x16xf32>
// CHECK: %[[G:.*]] = neuron.gather %[[T]][%arg1] axis = 0 : tensor<100x16xf32>, tensor<1x7xi32> -> tensor<1x7x16xf32>
// CHECK: neuron.slice %arg2 offsets = [1, 0, 0] sizes = [1, 10, 4]
// CHECK: neuron.concat {{.*}} axis = 0 : tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<2x3x4xf32>
func.func @gather(%t: tensor<1x100x16xf32>, %i: tensor<1x7xi32>, %t2: tensor<2x10x4xf32>, %i2: tensor<2x3xi32>) -> (tensor<1x7x16xf32>, tensor<2x3x4xf32>) {
  %0 = tosa.gather %t, %i : (tensor<1x100x16xf32>, tensor<1x7xi32>) -> tensor<1x7x16xf32>
  %1 = tosa.gather %t2, %i2 : (tensor<2x10x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<1x7x16xf32>, tensor<2x3x4xf32>
}

// -----

// The rank-matching reshape TOSA puts before a broadcast folds into the op.
// CHECK-LABEL: func.func @broadcast_reshape_folds
// CHECK-NEXT: %[[M:.*]] = neuron.mul %arg0, %arg1 : tensor<1x4x64xf32>, tensor<64xf32> -> tensor<1x4x64xf32>
// CHECK-NEXT: return %[[M]]
func.func @broadcast_reshape_folds(%x: tensor<1x4x64xf32>, %w: tensor<64xf32>) -> tensor<1x4x64xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.const_shape {values = dense<[1, 1, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %w, %s : (tensor<64xf32>, !tosa.shape<3>) -> tensor<1x1x64xf32>
  %0 = tosa.mul %x, %r, %shift : (tensor<1x4x64xf32>, tensor<1x1x64xf32>, tensor<1xi8>) -> tensor<1x4x64xf32>
  return %0 : tensor<1x4x64xf32>
}
