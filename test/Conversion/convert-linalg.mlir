// RUN: neuron-opt %s --split-input-file --neuron-convert-linalg --neuron-convert-tensor --canonicalize | FileCheck %s

// linalg.matmul with a zero-filled init is a plain matmul; the lm-head's
// transposed-B indexing maps become transpose_rhs.
// CHECK-LABEL: func.func @matmuls
// CHECK-DAG: %[[MM:.*]] = neuron.matmul %arg0, %arg1 : tensor<2x8xf32>, tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-DAG: %[[MT:.*]] = neuron.matmul %arg0, %arg2 transpose_rhs : tensor<2x8xf32>, tensor<16x8xf32> -> tensor<2x16xf32>
// CHECK-DAG: %[[BM:.*]] = neuron.matmul %arg3, %arg4 : tensor<4x2x8xf32>, tensor<4x8x16xf32> -> tensor<4x2x16xf32>
// CHECK-DAG: %[[MM2:.*]] = neuron.matmul %arg0, %arg1
// CHECK-DAG: %[[ACC:.*]] = neuron.add %[[MM2]], %arg5
// CHECK: return %[[MM]], %[[MT]], %[[BM]], %[[ACC]]
func.func @matmuls(%a: tensor<2x8xf32>, %b: tensor<8x16xf32>, %bt: tensor<16x8xf32>, %ba: tensor<4x2x8xf32>, %bb: tensor<4x8x16xf32>, %c: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<4x2x16xf32>, tensor<2x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<2x8xf32>, tensor<8x16xf32>) outs(%init : tensor<2x16xf32>) -> tensor<2x16xf32>
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %bt : tensor<2x8xf32>, tensor<16x8xf32>) outs(%init : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z3 = arith.constant dense<0.0> : tensor<4x2x16xf32>
  %2 = linalg.batch_matmul ins(%ba, %bb : tensor<4x2x8xf32>, tensor<4x8x16xf32>) outs(%z3 : tensor<4x2x16xf32>) -> tensor<4x2x16xf32>
  %3 = linalg.matmul ins(%a, %b : tensor<2x8xf32>, tensor<8x16xf32>) outs(%c : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0, %1, %2, %3 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<4x2x16xf32>, tensor<2x16xf32>
}

// -----

// CHECK-LABEL: func.func @named
// CHECK-DAG: %[[F:.*]] = neuron.constant dense<2.500000e+00> : tensor<3xf32>
// CHECK-DAG: %[[T:.*]] = neuron.transpose %arg0 perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: %[[S:.*]] = neuron.softmax %[[T]] axis = 1 : tensor<8x4xf32>
// CHECK: return %[[S]], %[[F]]
func.func @named(%x: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %s = linalg.softmax dimension(1) ins(%t : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %c = arith.constant 2.5 : f32
  %e3 = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%c : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  return %s, %f : tensor<8x4xf32>, tensor<3xf32>
}

// -----

// x² written with math.fpowi (buddy's RMSNorm) is a square.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @fpowi
// CHECK-NEXT: %[[S:.*]] = neuron.square %arg0 : tensor<1x1x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @fpowi(%x: tensor<1x1x8xf32>) -> tensor<1x1x8xf32> {
  %e = tensor.empty() : tensor<1x1x8xf32>
  %c2 = arith.constant 2 : i32
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x8xf32>) outs(%e : tensor<1x1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.fpowi %in, %c2 : f32, i32
    linalg.yield %p : f32
  } -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}

// -----

// SiLU written by hand: negf, exp, addf, divf, mulf on the same input.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu_by_hand
// CHECK-DAG: %[[ONE:.*]] = neuron.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[N:.*]] = neuron.neg %arg0
// CHECK: %[[E:.*]] = neuron.exp %[[N]]
// CHECK: %[[A:.*]] = neuron.add %[[E]], %[[ONE]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
// CHECK: %[[D:.*]] = neuron.div %arg0, %[[A]]
// CHECK: return %[[D]]
func.func @silu_by_hand(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %in : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %in, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcasting maps: a row vector indexed by d1 and a column indexed by
// (d0, d2) over a unit reduction dim d2 (buddy's causal mask) compare into a
// 40x40 matrix. The row is viewed as 1x40 for the compare, and that
// rank-expanding reshape then folds into the broadcasting compare.
#row = affine_map<(d0, d1, d2) -> (d1)>
#col = affine_map<(d0, d1, d2) -> (d0, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @mask
// CHECK: %[[C:.*]] = neuron.compare lt, %arg0, %arg1 : tensor<40xi32>, tensor<40x1xi32> -> tensor<40x40xi1>
// CHECK: return %[[C]]
func.func @mask(%a: tensor<40xi32>, %b: tensor<40x1xi32>) -> tensor<40x40xi1> {
  %e = tensor.empty() : tensor<40x40xi1>
  %0 = linalg.generic {indexing_maps = [#row, #col, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<40xi32>, tensor<40x1xi32>) outs(%e : tensor<40x40xi1>) {
  ^bb0(%x: i32, %y: i32, %o: i1):
    %c = arith.cmpi slt, %x, %y : i32
    linalg.yield %c : i1
  } -> tensor<40x40xi1>
  return %0 : tensor<40x40xi1>
}

// -----

// A transposing input map becomes a neuron.transpose; a select with a
// captured constant becomes a select against a rank-0 constant.
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_select
// CHECK-DAG: %[[Z:.*]] = neuron.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[T:.*]] = neuron.transpose %arg1 perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: %[[C:.*]] = neuron.compare gt, %arg0, %[[T]]
// CHECK: neuron.select %[[C]], %[[Z]], %arg0 : tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
// `une` is `eq` with the answers swapped.
// CHECK: %[[EQ:.*]] = neuron.compare eq
// CHECK: neuron.select %[[EQ]], {{.*}} : tensor<4x8xi1>, tensor<i1>, tensor<i1> -> tensor<4x8xi1>
func.func @transposed_select(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [#i, #t, #i], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %c = arith.cmpf ogt, %x, %y : f32
    %s = arith.select %c, %zero, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %eb = tensor.empty() : tensor<4x8xi1>
  %1 = linalg.generic {indexing_maps = [#i, #t, #i], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%eb : tensor<4x8xi1>) {
  ^bb0(%x: f32, %y: f32, %o: i1):
    %c = arith.cmpf une, %x, %y : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// Reductions: a sum over d1 into a zero init, a max into a -inf init.
#in3 = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reductions
// CHECK: %[[S:.*]] = neuron.reduce_sum %arg0 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: %[[M:.*]] = neuron.reduce_max %arg0 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: return %[[S]], %[[M]]
func.func @reductions(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %n = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#in3, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#in3, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%n : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.maximumf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A matmul written as a generic (multiply, accumulate).
#ma = affine_map<(m, n, k) -> (m, k)>
#mb = affine_map<(m, n, k) -> (k, n)>
#mc = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @generic_matmul
// CHECK-NEXT: %[[M:.*]] = neuron.matmul %arg0, %arg1 : tensor<2x8xf32>, tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[M]]
func.func @generic_matmul(%a: tensor<2x8xf32>, %b: tensor<8x16xf32>) -> tensor<2x16xf32> {
  %init = arith.constant dense<0.0> : tensor<2x16xf32>
  %0 = linalg.generic {indexing_maps = [#ma, #mb, #mc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x8xf32>, tensor<8x16xf32>) outs(%init : tensor<2x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// Elementwise arith/math ops applied to whole tensors.
// CHECK-LABEL: func.func @tensor_math
// CHECK-NEXT: %[[E:.*]] = neuron.exp %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = neuron.add %[[E]], %arg0
// CHECK-NEXT: return %[[A]]
func.func @tensor_math(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %x : tensor<4xf32>
  %1 = arith.addf %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}
