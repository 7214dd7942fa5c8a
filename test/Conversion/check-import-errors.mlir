// Everything import cannot convert is reported, all of it, with a reason
// and the nearest supported op; nothing is written. (A float tosa.mul with a
// non-zero shift is already rejected by TOSA's own verifier.)
// RUN: rm -f %t.out
// RUN: not neuronc %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: not neuron-opt %s --neuron-import 2>&1 | FileCheck %s

func.func @kernel(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>, %q: tensor<8xf8E4M3FN>, %m: tensor<8xf32>, %n: tensor<8xi32>) -> (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf8E4M3FN>, tensor<8xi32>, tensor<1x8x8x4xf32>, tensor<i32>) {
  %multiples = tosa.const_shape {values = dense<[1, 1, 1, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  // CHECK: check-import-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.tile': it has no neuron equivalent; the nearest supported op is 'tosa.concat'
  %0 = tosa.tile %x, %multiples : (tensor<1x8x8x4xf32>, !tosa.shape<4>) -> tensor<1x8x8x8xf32>
  // CHECK: check-import-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'math.atan': it has no neuron equivalent{{$}}
  %1 = math.atan %m : tensor<8xf32>
  // CHECK: check-import-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.add': element type f8E4M3FN is not one the device has (f32, bf16, f16, i32, i1; f64, i64, i2, i4, i8 and i16 are converted)
  %2 = tosa.add %q, %q : (tensor<8xf8E4M3FN>, tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FN>
  %shift = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  // CHECK: check-import-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.mul': its shift is 3 (a fixed-point rescale neuronc does not implement); use a shift of 0
  %3 = tosa.mul %n, %n, %shift : (tensor<8xi32>, tensor<8xi32>, tensor<1xi8>) -> tensor<8xi32>
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  // CHECK: check-import-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': its body uses 'math.acos', which has no neuron equivalent
  %4 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x8x4xf32>) outs(%e : tensor<1x8x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.acos %in : f32
    linalg.yield %c : f32
  } -> tensor<1x8x8x4xf32>
  // CHECK: check-import-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.argmax': it has no neuron equivalent; the nearest supported op is 'tosa.reduce_max'
  %5 = tosa.argmax %m {axis = 0 : i32} : (tensor<8xf32>) -> tensor<i32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf8E4M3FN>, tensor<8xi32>, tensor<1x8x8x4xf32>, tensor<i32>
}
