// A constant held as a resource blob (not a dense attribute) cannot be
// converted to the device's f32; nothing is written.
// RUN: not neuron-opt %s --neuron-legalize-types 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: not neuronc %s --emit=legalized -o %t.out 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: not test -e %t.out
// DENSE: legalize-types-resource-errors.mlir:[[# @LINE + 2]]:8: error: cannot convert a constant that is not a dense attribute to 'tensor<2xf32>'
func.func @resource() -> tensor<2xf64> {
  %c = neuron.constant dense_resource<blob> : tensor<2xf64>
  return %c : tensor<2xf64>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x08000000000000000000F03F0000000000000040"
    }
  }
#-}
