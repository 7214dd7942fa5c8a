// Bad input: a located error, exit code 1, and no output file left behind.
// RUN: rm -f %t.out
// RUN: split-file %s %t
// RUN: not neuronc %t/parse.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not test -e %t.out
// RUN: not neuronc %t/verify.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not test -e %t.out
// RUN: not neuronc %t/foreign.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not test -e %t.out
// RUN: not neuronc %t/missing.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t.out
// RUN: not neuronc %t/parse.mlir --emit=llvm 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not neuronc %t/ok.mlir --emit=fused --fusion-report=%t/no/such/dir/r.txt -o %t.out 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not test -e %t.out
// RUN: not neuronc %t/ok.mlir --target=trn9 -o %t.out.neff 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not test -e %t.out.neff
// RUN: not neuronc %t/ok.mlir -O7 -o %t.out.neff 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not neuronc %t/dynamic.mlir -o %t.out.neff 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not test -e %t.out.neff
// An executable that cannot be written leaves nothing, and an existing one
// is replaced only by a complete new one.
// RUN: not neuronc %t/ok.mlir -o %t/no/such/dir/x.neff 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: neuronc %t/ok.mlir -o %t.keep.neff && cp %t.keep.neff %t.before.neff
// RUN: not neuronc %t/dynamic.mlir -o %t.keep.neff 2>/dev/null
// RUN: cmp %t.keep.neff %t.before.neff

// TARGET: neuronc: error: unknown target 'trn9'; known targets: trn1, trn2
// OPT: neuronc: error: -O7 is not a level; use -O0 to -O3
// DYNAMIC: dynamic.mlir:1:1: error: dynamic dim 'arg0.0' (argument #0 dim 0) has no buckets; give them with --buckets=arg0.0:128,256,... or --buckets=arg0.0:auto:MIN:MAX
// WRITE: neuronc: error: cannot write {{.*}}x.neff: {{.*}}

// PARSE: parse.mlir:2:22: error: expected SSA operand
// VERIFY: verify.mlir:2:8: error: 'neuron.add' op operand shapes 4 and 5 are not broadcast-compatible
// FOREIGN: foreign.mlir:2:8: error: neuronc cannot import 'math.atan': it has no neuron equivalent
// FOREIGN: foreign.mlir:3:8: error: neuronc cannot import 'math.acos': it has no neuron equivalent
// MISSING: neuronc: error: cannot open input file '{{.*}}missing.mlir': No such file or directory
// EMIT: for the --emit option: Cannot find option named 'llvm'!
// REPORT: neuronc: error: cannot write {{.*}}no/such/dir/r.txt: No such file or directory

//--- parse.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.add %x, : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- verify.mlir
func.func @f(%x: tensor<4xf32>, %y: tensor<5xf32>) -> tensor<4xf32> {
  %0 = neuron.add %x, %y : tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- foreign.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.atan %x : tensor<4xf32>
  %1 = math.acos %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
//--- ok.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- dynamic.mlir
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = neuron.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
