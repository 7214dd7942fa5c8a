// cf.assert in linalg.generic bodies (torch-mlir's index checks before a
// tensor.extract): a condition on run-time values is dropped with one
// warning per function; one that folds to true at compile time is dropped
// silently; the rest of the body imports as usual.
// REQUIRES: numpy
// RUN: neuron-opt %s --split-input-file --neuron-convert-linalg --verify-diagnostics | FileCheck %s
// RUN: neuronc %s --entry embed --emit=neuron -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: neuronc %s --entry constant_ids --emit=neuron -o /dev/null 2>&1 | FileCheck %s --check-prefix=SILENT --allow-empty
// RUN: neuron-run %s --entry embed --check --random-inputs 2>&1 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry embed --check --random-inputs --target=trn2 2>&1 | FileCheck %s --check-prefix=SIM
// Run-time ids through the interpreter: row i of the table holds 100 i + j.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/ids.npy', np.array([[3, 0, 7, 1, 31, 2, 5]], dtype=np.int32))"
// RUN: neuron-run %s --entry embed_table --input %t/ids.npy 2>&1 | FileCheck %s --check-prefix=VALUES
// RUN: neuron-run %s --entry embed_table --input %t/ids.npy --sim 2>&1 | FileCheck %s --check-prefix=VALUES
// An id past the table still stops a run: the gather refuses it.
// RUN: %python -c "import numpy as np; np.save('%t/bad.npy', np.array([[3, 0, 40, 1, 31, 2, 5]], dtype=np.int32))"
// RUN: not neuron-run %s --entry embed_table --input %t/bad.npy 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not neuron-run %s --entry embed_table --input %t/bad.npy --sim 2>&1 | FileCheck %s --check-prefix=OOB

// SILENT-NOT: cf.assert
// SIM: check: ok
// VALUES: output #0: tensor<1x7x4xf32>
// VALUES-NEXT: first: [300, 301, 302, 303, 0, 1, ...]
// OOB: error: {{.*}}gather{{:?}} index 160 {{.*}}is outside [0, 128)

#ids = affine_map<(d0, d1, d2) -> (d0, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embed
// CHECK-NOT: cf.assert
// CHECK-NOT: arith.cmpi
// CHECK: %[[G:.*]] = neuron.gather %{{.*}}[%{{.*}}] axis = 0 : tensor<512xf32>, tensor<1x7x16xi32> -> tensor<1x7x16xf32>
// CHECK: return %[[G]]
func.func @embed(%ids: tensor<1x7xi64>, %w: tensor<32x16xf32>) -> tensor<1x7x16xf32> {
  %c32 = arith.constant 32 : i64
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<1x7x16xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x7xi64>) outs(%e : tensor<1x7x16xf32>) {
  ^bb0(%in: i64, %o: f32):
    %idx = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %lt = arith.cmpi slt, %in, %c32 : i64
    // WARN: convert-linalg-asserts.mlir:[[# @LINE + 2]]:5: warning: @embed: dropped 2 cf.assert checks of linalg.generic bodies that depend on run-time values (the first here: "index must be smaller than dim size"); the device does not evaluate assertions
    // expected-warning @+1 {{@embed: dropped 2 cf.assert checks of linalg.generic bodies that depend on run-time values (the first here: "index must be smaller than dim size"); the device does not evaluate assertions}}
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %in, %c0 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    // WARN-NOT: warning
    %v = tensor.extract %w[%idx, %j] : tensor<32x16xf32>
    linalg.yield %v : f32
  } -> tensor<1x7x16xf32>
  return %r : tensor<1x7x16xf32>
}

// -----

// Constant ids: every check holds at compile time, so the assert goes
// without a warning, and its condition's code (an unsigned compare
// included: it is folded, never raised) with it, but not the index the
// extract reads.
#ids1 = affine_map<(d0, d1) -> (d0)>
#out1 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @constant_ids
// CHECK-NOT: cf.assert
// CHECK-NOT: arith.cmpi
// CHECK: %[[IDS:.*]] = neuron.reshape %{{.*}} : tensor<3xi64> -> tensor<3x1xi64>
// CHECK: neuron.cast %[[IDS]]
// CHECK: neuron.gather
func.func @constant_ids(%w: tensor<32x16xf32>) -> tensor<3x16xf32> {
  %ids = arith.constant dense<[0, 5, 31]> : tensor<3xi64>
  %c32 = arith.constant 32 : index
  %e = tensor.empty() : tensor<3x16xf32>
  %r = linalg.generic {indexing_maps = [#ids1, #out1], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3xi64>) outs(%e : tensor<3x16xf32>) {
  ^bb0(%in: i64, %o: f32):
    %idx = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %next = arith.addi %idx, %c1 : index
    %lt = arith.cmpi ule, %next, %c32 : index
    %ge = arith.cmpi sge, %next, %idx : index
    %ok = arith.andi %lt, %ge : i1
    cf.assert %ok, "index out of bounds"
    %v = tensor.extract %w[%idx, %j] : tensor<32x16xf32>
    linalg.yield %v : f32
  } -> tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}

// -----

// A condition of constants only (a splat input, a unit loop dim's position).
#x = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @constant_condition
// CHECK-NOT: cf.assert
// CHECK: neuron.add %arg0, %arg0
func.func @constant_condition(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %n = arith.constant dense<7> : tensor<1x4xi32>
  %c8 = arith.constant 8 : i32
  %e = tensor.empty() : tensor<1x4xf32>
  %r = linalg.generic {indexing_maps = [#x, #x, #x], iterator_types = ["parallel", "parallel"]} ins(%x, %n : tensor<1x4xf32>, tensor<1x4xi32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%a: f32, %k: i32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %s = arith.addi %k, %ii : i32
    %ok = arith.cmpi slt, %s, %c8 : i32
    cf.assert %ok, "in range"
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

// -----

// The interpreter's and the simulator's values for run-time ids: a table
// whose row i holds 100 i + j.
#ids2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#out2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tab = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @embed_table
// CHECK-NOT: cf.assert
// CHECK: neuron.gather
func.func @embed_table(%ids: tensor<1x7xi64>) -> tensor<1x7x4xf32> {
  %c32 = arith.constant 32 : i64
  %c0 = arith.constant 0 : i64
  %et = tensor.empty() : tensor<32x4xf32>
  %w = linalg.generic {indexing_maps = [#tab], iterator_types = ["parallel", "parallel"]} outs(%et : tensor<32x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c100 = arith.constant 100 : index
    %i100 = arith.muli %i, %c100 : index
    %v = arith.addi %i100, %j : index
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  } -> tensor<32x4xf32>
  %e = tensor.empty() : tensor<1x7x4xf32>
  %r = linalg.generic {indexing_maps = [#ids2, #out2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<1x7xi64>) outs(%e : tensor<1x7x4xf32>) {
  ^bb0(%in: i64, %o: f32):
    %idx = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %lt = arith.cmpi slt, %in, %c32 : i64
    // expected-warning @+1 {{@embed_table: dropped 2 cf.assert checks}}
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %in, %c0 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    %v = tensor.extract %w[%idx, %j] : tensor<32x4xf32>
    linalg.yield %v : f32
  } -> tensor<1x7x4xf32>
  return %r : tensor<1x7x4xf32>
}
