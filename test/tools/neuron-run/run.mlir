// RUN: split-file %s %t
// RUN: neuron-run %t/consts.mlir | FileCheck %s --check-prefix=CONST
// RUN: neuron-run %t/consts.mlir --output %t/a.npy --output %t/b.npy
// RUN: neuron-run %t/twice.mlir --input %t/a.npy --input %t/b.npy --output %t/c.npy | FileCheck %s --check-prefix=TWICE
// RUN: neuron-run %t/twice.mlir --random-inputs --seed 7 | FileCheck %s --check-prefix=RANDOM
// RUN: neuron-run %t/twice.mlir --random-inputs --seed 7 | FileCheck %s --check-prefix=RANDOM
// RUN: neuron-run %t/entry.mlir --entry second | FileCheck %s --check-prefix=ENTRY
// RUN: neuron-run %t/entry.mlir --entry first | FileCheck %s --check-prefix=ENTRY1
// RUN: neuron-run %t/hostmain.mlir --random-inputs | FileCheck %s --check-prefix=HOSTMAIN

// CONST: @consts: 2 output(s)
// CONST-NEXT:   output #0: tensor<2x3xf32>  min=0.5 max=3 mean=1.75
// CONST-NEXT:     first: [0.5, 1, 1.5, 2, 2.5, 3]
// CONST-NEXT:   output #1: tensor<3xi32>  min=-1 max=4 mean=1.33333
// CONST-NEXT:     first: [-1, 1, 4]

// TWICE: @twice: 1 output(s)
// TWICE-NEXT:   output #0: tensor<2x3xf32>  min=-1 max=4 mean=1.5
// TWICE-NEXT:     first: [-1, 0, 1, 2, 3, 4]

// Random inputs are the same for the same seed, on every run.
// RANDOM: @twice: 1 output(s)
// (seed 7 draws b = [3, 5, 6]; the program adds it to the constant rows)
// RANDOM-NEXT: output #0: tensor<2x3xf32>  min=3 max=7 mean=4.83333
// RANDOM-NEXT: first: [3, 4, 3, 6, 7, 6]

// ENTRY: @second: 1 output(s)
// ENTRY-NEXT: output #0: tensor<1xf32>  min=2 max=2 mean=2
// ENTRY1: output #0: tensor<1xf32>  min=1 max=1

// A `main` without arguments is host code and is not picked as the entry.
// HOSTMAIN: @kernel: 1 output(s)

//--- consts.mlir
func.func @consts() -> (tensor<2x3xf32>, tensor<3xi32>) {
  %a = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %h = neuron.constant dense<0.5> : tensor<1xf32>
  %0 = neuron.mul %a, %h : tensor<2x3xf32>, tensor<1xf32> -> tensor<2x3xf32>
  %i = neuron.constant dense<[-1, 1, 4]> : tensor<3xi32>
  return %0, %i : tensor<2x3xf32>, tensor<3xi32>
}
//--- twice.mlir
// out = (a + a) - (a + a) + float(b) + k, with b broadcast along the rows.
func.func @twice(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  %0 = neuron.add %a, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %bf = neuron.cast %b : tensor<3xi32> -> tensor<3xf32>
  %1 = neuron.sub %0, %0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = neuron.add %1, %bf : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %k = neuron.constant dense<[[0.0, -1.0, -3.0], [3.0, 2.0, 0.0]]> : tensor<2x3xf32>
  %3 = neuron.add %2, %k : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
//--- entry.mlir
func.func @first() -> tensor<1xf32> {
  %0 = neuron.constant dense<1.0> : tensor<1xf32>
  return %0 : tensor<1xf32>
}
func.func @second() -> tensor<1xf32> {
  %0 = neuron.constant dense<2.0> : tensor<1xf32>
  return %0 : tensor<1xf32>
}
//--- hostmain.mlir
func.func @kernel(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @main() {
  return
}
