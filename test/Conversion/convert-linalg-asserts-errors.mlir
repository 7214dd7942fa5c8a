// A cf.assert in a linalg.generic body whose condition is false at compile
// time stops the import, at the assertion, with its message.
// RUN: neuron-opt %s --split-input-file --neuron-convert-linalg --verify-diagnostics
// RUN: not neuronc %s --entry constant_id_out_of_range -o %t.neff 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not test -e %t.neff

// ERR: convert-linalg-asserts-errors.mlir:[[# @LINE + 15]]:5: error: neuronc cannot import 'linalg.generic': its cf.assert "index must be smaller than dim size" fails at compile time: its condition is false for the value 40 of constant input #0

// Constant ids, one of them past the table: checked value by value.
#ids = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @constant_id_out_of_range(%w: tensor<32x16xf32>) -> tensor<3x16xf32> {
  %ids = arith.constant dense<[0, 40, 31]> : tensor<3xi64>
  %c32 = arith.constant 32 : i64
  %e = tensor.empty() : tensor<3x16xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3xi64>) outs(%e : tensor<3x16xf32>) {
  ^bb0(%in: i64, %o: f32):
    %idx = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %lt = arith.cmpi slt, %in, %c32 : i64
    // expected-error @+1 {{neuronc cannot import 'linalg.generic': its cf.assert "index must be smaller than dim size" fails at compile time: its condition is false for the value 40 of constant input #0}}
    cf.assert %lt, "index must be smaller than dim size"
    %v = tensor.extract %w[%idx, %j] : tensor<32x16xf32>
    linalg.yield %v : f32
  } -> tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}

// -----

// A condition of constants only that is false.
#x = affine_map<(d0) -> (d0)>
func.func @always_false(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c5 = arith.constant 5 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel"]} ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %lt = arith.cmpi slt, %c5, %c4 : index
    // expected-error @+1 {{neuronc cannot import 'linalg.generic': its cf.assert "index out of bounds" fails at compile time: its condition is always false}}
    cf.assert %lt, "index out of bounds"
    %v = arith.addf %in, %in : f32
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
