// RUN: not neuron-opt %s --neuron-no-such-pass 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not neuron-opt %s 2>&1 | FileCheck %s --check-prefix=PARSE
// PASS: Unknown command line argument '--neuron-no-such-pass'
// PARSE: neuron-opt-errors.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: custom op 'neuron.frobnicate' is unknown
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
