// Every input neuron-run rejects: a message naming the argument or file,
// exit code 1, and no output file left behind.
// RUN: split-file %s %t
// RUN: neuron-run %t/make.mlir --output %t/f32_2x3.npy --output %t/i32_3.npy
// RUN: not neuron-run %t/add.mlir --input %t/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not neuron-run %t/add.mlir --input %t/f32_2x3.npy --input %t/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not neuron-run %t/add.mlir --input %t/i32_3.npy --input %t/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not neuron-run %t/add.mlir --input %t/nope.npy --input %t/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not neuron-run %t/add.mlir --input %t/add.mlir --input %t/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=NOTNPY
// RUN: not neuron-run %t/add.mlir --random-inputs --input %t/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not neuron-run %t/add.mlir --random-inputs --output %t/o1.npy --output %t/o2.npy 2>&1 | FileCheck %s --check-prefix=OUTS
// RUN: not neuron-run %t/dynamic.mlir --random-inputs 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: not neuron-run %t/two.mlir 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: not neuron-run %t/two.mlir --entry third 2>&1 | FileCheck %s --check-prefix=NOENTRY
// RUN: not neuron-run %t/foreign.mlir --random-inputs 2>&1 | FileCheck %s --check-prefix=FOREIGN
// An f64 program is not an error: import converts it to f32 and says so.
// RUN: neuron-run %t/f64.mlir --random-inputs 2>&1 | FileCheck %s --check-prefix=F64
// RUN: rm -f %t/out.npy
// RUN: not neuron-run %t/gather.mlir --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: not test -e %t/out.npy

// COUNT: neuron-run: error: @add takes 2 argument(s) but 1 --input file(s) were given (or use --random-inputs)
// SHAPE: neuron-run: error: argument #1 of @add expects tensor<3xf32> but the input is tensor<2x3xf32>
// DTYPE: neuron-run: error: input #0 ({{.*}}i32_3.npy): holds i32 data but the argument is f32
// NOFILE: neuron-run: error: input #0 ({{.*}}nope.npy): cannot open input file '{{.*}}nope.npy': No such file or directory
// NOTNPY: neuron-run: error: input #0 ({{.*}}add.mlir): not a .npy file (missing the \x93NUMPY magic)
// BOTH: neuron-run: error: give either --input files or --random-inputs, not both
// OUTS: neuron-run: error: 2 --output file(s) given but @add has 1 result(s)
// DYN: neuron-run: error: argument #0 has a dynamic shape; give it with --input instead of --random-inputs
// AMBIGUOUS: error: several functions could be the entry point: @first, @second; pick one with --entry NAME
// NOENTRY: error: no function named @third in this module; functions with a body: @first, @second
// FOREIGN: foreign.mlir:2:8: error: neuronc cannot import 'math.atan': it has no neuron equivalent
// F64: f64.mlir:1:1: warning: 1 value of type f64 was converted to f32: the device has no fp64
// F64: output #0: tensor<3xf32>
// RUNTIME: gather.mlir:2:8: error: gather: index {{[0-9]+}} at position {{[0-9]+}} is outside [0, 2)

//--- make.mlir
func.func @make() -> (tensor<2x3xf32>, tensor<3xi32>) {
  %a = neuron.constant dense<1.0> : tensor<2x3xf32>
  %b = neuron.constant dense<[1, 2, 3]> : tensor<3xi32>
  return %a, %b : tensor<2x3xf32>, tensor<3xi32>
}
//--- add.mlir
func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = neuron.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
//--- dynamic.mlir
func.func @dyn(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  return %a : tensor<?x3xf32>
}
//--- two.mlir
func.func @first(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
func.func @second(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
//--- foreign.mlir
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = math.atan %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}
//--- f64.mlir
func.func @f(%a: tensor<3xf64>) -> tensor<3xf64> {
  return %a : tensor<3xf64>
}
//--- gather.mlir
func.func @g(%t: tensor<2x4xf32>, %i: tensor<16xi32>) -> tensor<16x4xf32> {
  %0 = neuron.gather %t[%i] axis = 0 : tensor<2x4xf32>, tensor<16xi32> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}
