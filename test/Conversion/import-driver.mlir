// How neuronc picks what to import, and what it says about pre-1.0 TOSA.
// RUN: split-file %s %t
// RUN: neuronc %t/two.mlir | FileCheck %s --check-prefix=ALL
// RUN: neuronc %t/two.mlir --entry second | FileCheck %s --check-prefix=ONE
// RUN: not neuronc %t/two.mlir --entry third 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: neuronc %t/calls.mlir --entry outer | FileCheck %s --check-prefix=INLINE
// RUN: not neuronc %t/legacy.mlir -o %t/legacy.out 2>&1 | FileCheck %s --check-prefix=LEGACY
// RUN: not test -e %t/legacy.out

// Without --entry every device function is imported; the host `main` goes.
// ALL: func.func @first
// ALL: func.func @second
// ALL-NOT: func.func @main
// ONE-NOT: func.func @first
// ONE: func.func @second
// ONE-NOT: func.func @main
// MISSING: error: no function named @third in this module; functions with a body: @first, @second, @main

// Calls between device functions are inlined.
// INLINE-LABEL: func.func @outer
// INLINE-NEXT: %[[E:.*]] = neuron.exp %arg0
// INLINE-NEXT: %[[S:.*]] = neuron.sigmoid %[[E]]
// INLINE-NEXT: return %[[S]]
// INLINE-NOT: func.func @inner

// LEGACY: legacy.mlir:2:8: error: {{.*}}
// LEGACY: legacy.mlir:2:{{[0-9]+}}: note: the input looks like pre-TOSA-1.0 syntax (a `new_shape` attribute on tosa.reshape); MLIR 22 parses TOSA 1.0 only: re-export the model with a current exporter, or update it (shapes are tosa.const_shape operands, tosa.const takes `values`, tosa.mul takes its shift as a third operand)

//--- two.mlir
func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main() {
  return
}
//--- calls.mlir
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @inner(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
//--- legacy.mlir
func.func @f(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = tosa.reshape %x {new_shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
