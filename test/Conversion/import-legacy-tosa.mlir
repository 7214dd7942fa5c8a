// The pre-TOSA-1.0 note for each marker other than `new_shape` (pinned in
// import-driver.mlir): printed after MLIR's own error, nothing written.
// RUN: rm -rf %t && split-file %s %t
// RUN: not neuronc %t/const.mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: not test -e %t/out.mlir
// RUN: not neuronc %t/mul.mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=MUL
// RUN: not test -e %t/out.mlir
// RUN: not neuronc %t/slice.mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=SLICE
// RUN: not test -e %t/out.mlir
// RUN: not neuronc %t/tile.mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not test -e %t/out.mlir

// CONST: const.mlir:2:8: error: 'tosa.const' op requires attribute 'values'
// CONST: const.mlir:2:{{[0-9]+}}: note: the input looks like pre-TOSA-1.0 syntax (`value` instead of `values` on tosa.const); MLIR 22 parses TOSA 1.0 only: re-export the model with a current exporter, or update it (shapes are tosa.const_shape operands, tosa.const takes `values`, tosa.mul takes its shift as a third operand)
// MUL: mul.mlir:2:8: error: {{.*}}
// MUL: mul.mlir:2:{{[0-9]+}}: note: the input looks like pre-TOSA-1.0 syntax (a `shift` attribute on tosa.mul); MLIR 22 parses TOSA 1.0 only: re-export the model with a current exporter, or update it (shapes are tosa.const_shape operands, tosa.const takes `values`, tosa.mul takes its shift as a third operand)
// SLICE: slice.mlir:2:8: error: {{.*}}
// SLICE: slice.mlir:2:{{[0-9]+}}: note: the input looks like pre-TOSA-1.0 syntax (a `start` attribute on tosa.slice); MLIR 22 parses TOSA 1.0 only: re-export the model with a current exporter, or update it (shapes are tosa.const_shape operands, tosa.const takes `values`, tosa.mul takes its shift as a third operand)
// TILE: tile.mlir:2:8: error: {{.*}}
// TILE: tile.mlir:2:{{[0-9]+}}: note: the input looks like pre-TOSA-1.0 syntax (a `multiples` attribute on tosa.tile); MLIR 22 parses TOSA 1.0 only: re-export the model with a current exporter, or update it (shapes are tosa.const_shape operands, tosa.const takes `values`, tosa.mul takes its shift as a third operand)

//--- const.mlir
func.func @f() -> tensor<4xf32> {
  %0 = "tosa.const"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- mul.mlir
func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.mul %a, %b {shift = 0 : i8} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
//--- slice.mlir
func.func @f(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = tosa.slice %a {start = array<i64: 0>, size = array<i64: 4>} : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- tile.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {
  %0 = tosa.tile %a {multiples = array<i64: 2>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
