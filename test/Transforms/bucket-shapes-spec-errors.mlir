// Bucket specs that do not fit the program: a spec for a program without
// dynamic dims, and one symbol given under two of its names.
// RUN: split-file %s %t
// RUN: not neuron-opt %t/static.mlir --neuron-bucket-shapes="buckets=seq:4,8" 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not neuronc %t/static.mlir --buckets=seq:4,8 -o %t/out.neff 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not test -e %t/out.neff
// RUN: not neuron-opt %t/alias.mlir --neuron-bucket-shapes="buckets=seq:4,8;arg0.0:16" 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not neuronc %t/alias.mlir "--buckets=seq:4,8;arg0.0:16" -o %t/out.neff 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not test -e %t/out.neff

// STATIC: error: bucket spec names 'seq', which is no dynamic dim of any function (no function has dynamic dims)
// ALIAS: alias.mlir:1:1: error: bucket spec gives 'seq' twice (as 'arg0.0'; its names are seq, arg0.0)

//--- static.mlir
func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = neuron.exp %x : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
//--- alias.mlir
func.func @f(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<?x4xf32> {
  %y = neuron.exp %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
