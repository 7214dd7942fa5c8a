// What the newer import forms still cannot take says why: a named linalg op
// whose scalar op has no neuron equivalent, a tensor.empty filled with pieces
// that leave elements unwritten or are not bands along one dim.
// RUN: not neuronc %s --emit=neuron -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

func.func @div_unsigned(%x: tensor<8xi32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  // CHECK: import-pieces-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.div_unsigned': its body uses 'arith.divui', which has no neuron equivalent
  %0 = linalg.div_unsigned ins(%x, %x : tensor<8xi32>, tensor<8xi32>) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

func.func @gap(%a: tensor<1x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // CHECK: import-pieces-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tensor.insert_slice': elements 2 to 3 of dim 0 of the tensor.empty are never written
  %0 = tensor.insert_slice %a into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x4xf32>
  // CHECK: import-pieces-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tensor.insert_slice': elements 2 to 3 of dim 0 of the tensor.empty are never written
  %1 = tensor.insert_slice %a into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

func.func @quadrants(%a: tensor<2x2xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // CHECK: import-pieces-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tensor.insert_slice': the slice differs from its destination in more than one dim (0 and 1)
  %0 = tensor.insert_slice %a into %e[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
