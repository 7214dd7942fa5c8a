// RUN: neuron-opt %s --split-input-file --verify-diagnostics
// RUN: not neuronc %S/Inputs/custom-rmsnorm.mlir --target=trn2 -o %t.neff 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: 'neuron.custom_kernel' op calls @rmsnorm_hand, written for target 'trn1', from a program compiled for 'trn2'; compile with --target=trn1 or port the kernel

// Shapes are checked at the call.
func.func @f(%x: tensor<128x32xf32>) -> tensor<128x32xf32> {
  // expected-error @+1 {{'neuron.custom_kernel' op input #0 has type 'tensor<128x32xf32>' but @k's input 0 is 'tensor<128x64xf32>'}}
  %y = neuron.custom_kernel @k(%x) : (tensor<128x32xf32>) -> tensor<128x32xf32>
  return %y : tensor<128x32xf32>
}
nisa.program @k target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
}

// -----

func.func @f(%x: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  // expected-error @+1 {{'neuron.custom_kernel' op passes 2 output(s) to @k, which has 1}}
  %y:2 = neuron.custom_kernel @k(%x) : (tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
  return %y#0, %y#1 : tensor<128x64xf32>, tensor<128x64xf32>
}
nisa.program @k target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
}

// -----

func.func @f(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  // expected-error @+1 {{'neuron.custom_kernel' op calls @missing, which is not defined in this module (write the kernel as a nisa.program in the same file)}}
  %y = neuron.custom_kernel @missing(%x) : (tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

// -----

func.func @g(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  return %x : tensor<128x64xf32>
}
func.func @f(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  // expected-error @+1 {{'neuron.custom_kernel' op calls @g, which is a 'func.func', not a nisa.program}}
  %y = neuron.custom_kernel @g(%x) : (tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

// -----

// A bad kernel is refused by the engine rules, whoever calls it: TensorE
// cannot run tensor_tensor.
func.func @f(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %y = neuron.custom_kernel @k(%x) : (tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
nisa.program @k target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "bad" from "hand" {
    nisa.alloc @a sbuf 128x64xf32
    // expected-error @+1 {{'nisa.tensor_tensor' op cannot run on the tensor engine (it runs on vector, gpsimd)}}
    nisa.tensor_tensor tensor add @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]], @a[0:128, 0, [1,64]]
  }
}

// A kernel that breaks the backend's rules once inlined is refused with the
// backend's message at the kernel's own line, called from the call; the
// entry's other hand-written kernels are not compiled.
// RUN: not neuronc %S/Inputs/custom-bad-kernels.mlir --entry lost_write -o %t.neff 2>&1 | FileCheck %s --check-prefix=LOST
// LOST: custom-bad-kernels.mlir:15:5: error: 'nisa.dma_copy' op overwrites data nothing has read yet
// LOST-NEXT: nisa.dma_copy q1
// LOST: custom-bad-kernels.mlir:6:8: note: called from
// LOST: custom-bad-kernels.mlir:14:5: note: the earlier write
// LOST-NOT: error
// RUN: not neuronc %S/Inputs/custom-bad-kernels.mlir --entry too_big -o %t.neff 2>&1 | FileCheck %s --check-prefix=BIG
// BIG-NOT: overwrites
// BIG: custom-bad-kernels.mlir:29:5: error: 'nisa.alloc' op does not fit: SBUF needs 160000 more bytes per partition {{.*}}(kernel @k0, hog from neuron.custom_kernel @hog); split this kernel
// BIG: custom-bad-kernels.mlir:21:8: note: called from
// BIG-NOT: error

// The reference interpreter has no semantics for a hand-written kernel.
// RUN: not neuron-run %S/Inputs/custom-rmsnorm.mlir --random-inputs 2>&1 | FileCheck %s --check-prefix=INTERP
// INTERP: error: the interpreter cannot execute the hand-written kernel @rmsnorm_hand: it has no graph-level semantics; compile the program and run the executable (neuron-run model.neff, or neuron-run --sim)
