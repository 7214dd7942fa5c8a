// RUN: neuron-opt %s --neuron-convert-linalg --neuron-convert-tensor --canonicalize | FileCheck %s
// RUN: neuron-run %s --entry issue_8825 | FileCheck %s --check-prefix=VALUES
// RUN: neuron-run %s --entry max_dynamic | FileCheck %s --check-prefix=MAX

// Slice bounds computed from constants and tensor.dim of a static tensor
// (IREE's issue_8825) fold before the import, so the slice, the
// tensor.empty and the generic on `?` dims are static.
// CHECK-LABEL: func.func @issue_8825
// CHECK-NOT: ?x
// CHECK: %[[S:.*]] = neuron.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: %[[M:.*]] = neuron.mul %{{.*}}, %[[S]] : tensor<f32>, tensor<2xf32> -> tensor<2xf32>
// CHECK: return %[[M]] : tensor<2xf32>
// VALUES: first: [6, 9]
#map = affine_map<(d0) -> (d0)>
func.func @issue_8825() -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %c3_i64 = arith.constant 3 : i64
  %c2_i64 = arith.constant 2 : i64
  %arg0 = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %0 = tensor.dim %arg0, %c0 : tensor<4xf32>
  %1 = arith.index_cast %0 : index to i64
  %2 = arith.addi %c2_i64, %1 : i64
  %3 = arith.cmpi sge, %c2_i64, %c0_i64 : i64
  %4 = arith.select %3, %c2_i64, %2 : i64
  %5 = arith.cmpi slt, %4, %c0_i64 : i64
  %6 = arith.select %5, %c0_i64, %4 : i64
  %7 = arith.cmpi sgt, %6, %1 : i64
  %8 = arith.select %7, %1, %6 : i64
  %9 = arith.index_cast %8 : i64 to index
  %10 = arith.cmpi sge, %0, %9 : index
  %11 = arith.select %10, %0, %9 : index
  %12 = arith.subi %11, %9 : index
  %13 = tensor.extract_slice %arg0[%9] [%12] [1] : tensor<4xf32> to tensor<?xf32>
  %14 = tensor.empty(%12) : tensor<?xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%13 : tensor<?xf32>) outs(%14 : tensor<?xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %16 = arith.sitofp %c3_i64 : i64 to f32
      %17 = arith.mulf %arg1, %16 : f32
      linalg.yield %17 : f32
    } -> tensor<?xf32>
  %17 = tensor.cast %16 : tensor<?xf32> to tensor<2xf32>
  return %17 : tensor<2xf32>
}

// Dims read from a constant cast to `?` (iree_regression_reduction_broadcast_elementwise
// @max_sub_exp_dynamic): the generic reads the static constant, its output
// shape folds from tensor.dim.
// CHECK-LABEL: func.func @max_dynamic
// CHECK-NOT: ?x
// CHECK: neuron.reduce_max %{{.*}} axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
// MAX: first: [3, 6]
func.func @max_dynamic() -> tensor<2xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %x = arith.constant dense<[[1.0, 3.0, 2.0], [6.0, 5.0, 4.0]]> : tensor<2x3xf32>
  %d = tensor.cast %x : tensor<2x3xf32> to tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %r = tensor.cast %0 : tensor<?xf32> to tensor<2xf32>
  return %r : tensor<2xf32>
}
