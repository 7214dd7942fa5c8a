// RUN: neuron-opt %s --split-input-file --neuron-convert-linalg --neuron-convert-tensor --canonicalize | FileCheck %s
// RUN: neuron-run %s --entry narrow_n | FileCheck %s --check-prefix=VALUES

// matvec and batch_matvec are matmuls by a one-column matrix; a non-zero
// accumulator is added after the product.
// CHECK-LABEL: func.func @matvec
// CHECK: %[[X:.*]] = neuron.reshape %arg1 : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[MM:.*]] = neuron.matmul %arg0, %[[X]] : tensor<3x4xf32>, tensor<4x1xf32> -> tensor<3x1xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[MM]] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK: %[[ACC:.*]] = neuron.add %[[R]], %arg2 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK: %[[BX:.*]] = neuron.reshape %arg4 : tensor<2x4xi32> -> tensor<2x4x1xi32>
// CHECK: %[[BMM:.*]] = neuron.matmul %arg3, %[[BX]] : tensor<2x3x4xi32>, tensor<2x4x1xi32> -> tensor<2x3x1xi32>
// CHECK: %[[BR:.*]] = neuron.reshape %[[BMM]] : tensor<2x3x1xi32> -> tensor<2x3xi32>
// CHECK: %[[BACC:.*]] = neuron.add %[[BR]], %arg5
// CHECK: return %[[ACC]], %[[BACC]]
func.func @matvec(%a: tensor<3x4xf32>, %x: tensor<4xf32>, %acc: tensor<3xf32>, %ba: tensor<2x3x4xi32>, %bx: tensor<2x4xi32>, %bacc: tensor<2x3xi32>) -> (tensor<3xf32>, tensor<2x3xi32>) {
  %0 = linalg.matvec ins(%a, %x : tensor<3x4xf32>, tensor<4xf32>) outs(%acc : tensor<3xf32>) -> tensor<3xf32>
  %1 = linalg.batch_matvec ins(%ba, %bx : tensor<2x3x4xi32>, tensor<2x4xi32>) outs(%bacc : tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<3xf32>, tensor<2x3xi32>
}

// -----

// vecmat is a one-row matrix times a matrix, dot a one-row times a
// one-column matrix; a zero-filled accumulator adds nothing.
// CHECK-LABEL: func.func @vecmat_dot
// CHECK: %[[V:.*]] = neuron.reshape %arg0 : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[VM:.*]] = neuron.matmul %[[V]], %arg1 : tensor<1x4xf32>, tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK: %[[VR:.*]] = neuron.reshape %[[VM]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[V2:.*]] = neuron.reshape %arg0 : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[Y:.*]] = neuron.reshape %arg2 : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[D:.*]] = neuron.matmul %[[V2]], %[[Y]] : tensor<1x4xf32>, tensor<4x1xf32> -> tensor<1x1xf32>
// CHECK: %[[DR:.*]] = neuron.reshape %[[D]] : tensor<1x1xf32> -> tensor<f32>
// CHECK: return %[[VR]], %[[DR]]
func.func @vecmat_dot(%x: tensor<4xf32>, %b: tensor<4x3xf32>, %y: tensor<4xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<3xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %0 = linalg.vecmat ins(%x, %b : tensor<4xf32>, tensor<4x3xf32>) outs(%z3 : tensor<3xf32>) -> tensor<3xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %1 = linalg.dot ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%z0 : tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<3xf32>, tensor<f32>
}

// -----

// Narrow N (1 and 2) with accumulators that are not zero: IREE's expected
// values (iree_linalg_narrow_n_matmuls, operands as i32).
// CHECK-LABEL: func.func @narrow_n
// CHECK-COUNT-5: neuron.matmul
// VALUES: output #0: tensor<3xi32>
// VALUES-NEXT: first: [0, 7, -17]
// VALUES: output #1: tensor<3x1xi32>
// VALUES-NEXT: first: [0, 7, -17]
// VALUES: output #2: tensor<3x2xi32>
// VALUES-NEXT: first: [0, 8, 7, -7, -17, 0]
// VALUES: output #3: tensor<2x3x2xi32>
// VALUES-NEXT: first: [0, 11, 7, -1, -17, 14, ...]
// VALUES: output #4: tensor<2x3xi32>
// VALUES-NEXT: first: [0, 7, -17, -11, -29, -24]
func.func @narrow_n() -> (tensor<3xi32>, tensor<3x1xi32>, tensor<3x2xi32>, tensor<2x3x2xi32>, tensor<2x3xi32>) {
  %lhs = arith.constant dense<[[1, 2, 0, 5], [3, 4, -1, -3], [5, 6, -7, 0]]> : tensor<3x4xi32>
  %rhs = arith.constant dense<[-2, 3, 4, -1]> : tensor<4xi32>
  %acc = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = linalg.matvec ins(%lhs, %rhs : tensor<3x4xi32>, tensor<4xi32>) outs(%acc : tensor<3xi32>) -> tensor<3xi32>
  %rhs1 = arith.constant dense<[[-2], [3], [4], [-1]]> : tensor<4x1xi32>
  %acc1 = arith.constant dense<[[1], [2], [3]]> : tensor<3x1xi32>
  %1 = linalg.matmul ins(%lhs, %rhs1 : tensor<3x4xi32>, tensor<4x1xi32>) outs(%acc1 : tensor<3x1xi32>) -> tensor<3x1xi32>
  %rhs2 = arith.constant dense<[[-2, 1], [3, -1], [4, 0], [-1, 2]]> : tensor<4x2xi32>
  %acc2 = arith.constant dense<[[1, -1], [2, 0], [3, 1]]> : tensor<3x2xi32>
  %2 = linalg.matmul ins(%lhs, %rhs2 : tensor<3x4xi32>, tensor<4x2xi32>) outs(%acc2 : tensor<3x2xi32>) -> tensor<3x2xi32>
  %blhs = arith.constant dense<[[[1, 2, 0, 5], [3, 4, -1, -3], [5, 6, -7, 0]], [[-3, 1, 4, 2], [-1, 0, 6, -1], [1, -2, 3, -4]]]> : tensor<2x3x4xi32>
  %brhs = arith.constant dense<[[[-2, 0], [3, 1], [4, -1], [-1, 2]], [[1, -2], [2, 3], [-5, -3], [3, 0]]]> : tensor<2x4x2xi32>
  %bacc = arith.constant dense<[[[1, -1], [2, 0], [3, 1]], [[4, 2], [5, 1], [6, -1]]]> : tensor<2x3x2xi32>
  %3 = linalg.batch_matmul ins(%blhs, %brhs : tensor<2x3x4xi32>, tensor<2x4x2xi32>) outs(%bacc : tensor<2x3x2xi32>) -> tensor<2x3x2xi32>
  %bv = arith.constant dense<[[-2, 3, 4, -1], [1, 2, -5, 3]]> : tensor<2x4xi32>
  %bvacc = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %4 = linalg.batch_matvec ins(%blhs, %bv : tensor<2x3x4xi32>, tensor<2x4xi32>) outs(%bvacc : tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4 : tensor<3xi32>, tensor<3x1xi32>, tensor<3x2xi32>, tensor<2x3x2xi32>, tensor<2x3xi32>
}

// -----

// A matmul generic whose operands are extended to the accumulator type:
// f16 into f32 is what neuron.matmul does itself (exact products, f32 sums).
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @extended
// CHECK: %[[MM:.*]] = neuron.matmul %arg0, %arg1 : tensor<2x4xf16>, tensor<4x3xf16> -> tensor<2x3xf32>
// CHECK: %[[ACC:.*]] = neuron.add %[[MM]], %arg2
// CHECK: return %[[ACC]]
func.func @extended(%a: tensor<2x4xf16>, %b: tensor<4x3xf16>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x4xf16>, tensor<4x3xf16>) outs(%c : tensor<2x3xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
