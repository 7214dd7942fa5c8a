// linalg.index in an elementwise generic body is a constant position table
// (i32) in the output's dim order; index casts and index comparisons follow.
// Checked against mlir-runner in import-gaps.test (gap_index.mlir).
// RUN: neuron-opt %s --neuron-convert-linalg | FileCheck %s

// CHECK-LABEL: func.func @causal_mask
// CHECK-DAG: %[[I:.*]] = neuron.constant dense<{{\[}}[0], [1], [2]]> : tensor<3x1xi32>
// CHECK-DAG: %[[J:.*]] = neuron.constant dense<{{\[}}[0, 1, 2, 3, 4]]> : tensor<1x5xi32>
// CHECK: %[[F:.*]] = neuron.compare gt, %[[J]], %[[I]] : tensor<1x5xi32>, tensor<3x1xi32> -> tensor<3x5xi1>
// CHECK: neuron.select %[[F]]
func.func @causal_mask(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %ef = tensor.empty() : tensor<3x5xf32>
  %masked = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x5xf32>) outs(%ef : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant -1.0e+09 : f32
    %m = arith.select %future, %ninf, %in : f32
    linalg.yield %m : f32
  } -> tensor<3x5xf32>
  return %masked : tensor<3x5xf32>
}
