// Weights printed as dense_resource<__elided__> (a model dumped with large
// constants elided) are missing: a clear error, nothing is written.
// RUN: not neuronc %s --emit=neuron -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

func.func @kernel(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // CHECK: check-import-elided-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import this constant of type 'tensor<4x8xf32>': its values are missing (dense_resource<__elided__>: the file was printed with large constants elided); export the model again with its weights (without --mlir-elide-resource-strings-if-larger or --mlir-elide-elementsattrs-if-larger)
  %w = arith.constant dense_resource<__elided__> : tensor<4x8xf32>
  %z = arith.constant dense<0.0> : tensor<2x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// --random-elided-weights=SEED substitutes seeded random values, with a
// warning, so the program still compiles, runs and profiles; the same seed
// gives the same values.
// RUN: neuronc %s --random-elided-weights=7 --emit=neuron -o - 2>&1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: warning: elided weights of type 'tensor<4x8xf32>' replaced by seeded random values (--random-elided-weights=7); the results are not the model's
// RANDOM: neuron.constant dense<{{\[\[}}[[FIRST:-?[0-9.e-]+]],
// RANDOM: neuron.matmul
// RUN: neuronc %s --random-elided-weights=7 --emit=neuron -o %t.a 2>/dev/null
// RUN: neuronc %s --random-elided-weights=7 --emit=neuron -o %t.b 2>/dev/null
// RUN: diff %t.a %t.b
// RUN: neuron-run %s --random-elided-weights=7 --random-inputs --check 2>&1 | FileCheck %s --check-prefix=CHECKED
// CHECKED: check: ok
