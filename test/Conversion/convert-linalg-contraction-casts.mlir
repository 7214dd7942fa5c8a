// Contraction operands cast as linalg casts them: cast_unsigned i8 reads
// 0..255 (masked to 8 bits in i32), a signed i1 is 0 or -1.
// RUN: neuron-opt %s --neuron-convert-linalg | FileCheck %s
// RUN: neuron-run %s --entry unsigned_i8 --sim | FileCheck %s --check-prefix=U8
// RUN: neuron-run %s --entry signed_i1 --sim | FileCheck %s --check-prefix=I1

// CHECK-LABEL: func.func @unsigned_i8
// CHECK: %[[W:.*]] = neuron.cast %{{.*}} : tensor<2x3xi8> -> tensor<2x3xi32>
// CHECK: neuron.bitwise_and %[[W]], %{{.*}} : tensor<2x3xi32>, tensor<i32>
// CHECK: neuron.matmul
// A = [[-1, 2, 3], [4, -128, 6]] read as [[255, 2, 3], [4, 128, 6]], B = ones(3, 2).
// U8: first: [260, 260, 138, 138]
func.func @unsigned_i8() -> tensor<2x2xi32> {
  %a = arith.constant dense<[[-1, 2, 3], [4, -128, 6]]> : tensor<2x3xi8>
  %b = arith.constant dense<1> : tensor<3x2xi8>
  %z = arith.constant dense<0> : tensor<2x2xi32>
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<2x3xi8>, tensor<3x2xi8>) outs(%z : tensor<2x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// CHECK-LABEL: func.func @signed_i1
// CHECK: %[[C:.*]] = neuron.cast %{{.*}} : tensor<2x2xi1> -> tensor<2x2xf32>
// CHECK: neuron.neg %[[C]]
// [[1, 0], [1, 1]] as [[-1, 0], [-1, -1]] times [[1, 2], [3, 4]].
// I1: first: [-1, -2, -4, -6]
func.func @signed_i1() -> tensor<2x2xf32> {
  %a = arith.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %b = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %z = arith.constant dense<0.0> : tensor<2x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<2x2xi1>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
