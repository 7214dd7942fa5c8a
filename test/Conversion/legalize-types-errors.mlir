// RUN: not neuron-opt %s --neuron-legalize-types=auto-cast=fp8 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not neuron-opt %s --neuron-legalize-types=auto-cast-type=f8 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not neuronc %s --auto-cast=sometimes 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not neuron-opt %s --neuron-legalize-types 2>&1 | FileCheck %s --check-prefix=RANGE
// MODE: error: unknown auto-cast '{{fp8|sometimes}}'; expected none, matmult or all
// TYPE: error: unknown auto-cast-type 'f8'; expected bf16 or f16
// RANGE: legalize-types-errors.mlir:[[# @LINE + 3]]:8: error: constant value 5000000000 does not fit in 'i32'; the device computes integers in 32 bits
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi64>) {
  // An i64 constant that i32 cannot hold.
  %c = neuron.constant dense<[1, 5000000000]> : tensor<2xi64>
  return %x, %c : tensor<4xf32>, tensor<2xi64>
}
