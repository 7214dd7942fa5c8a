// An elementwise kernel's value read by a matmul and returned through a
// reshape that merges its dims: the race checker refused the program
// ("overwrites data nothing has read yet") while the reshape was a member of
// the kernel and the lowering split it. The reshape is now a view of the
// kernel's result.
// RUN: neuronc --no-cache %s -O2 -o %t.neff
// RUN: neuron-run %s --check --fuse --random-inputs | FileCheck %s
// RUN: neuron-run %s --check --fuse --random-inputs --target=trn2 | FileCheck %s
// CHECK-NOT: WRONG
// CHECK: check: ok
func.func @main(%x: tensor<1x2x12xf32>, %w: tensor<12x12xf32>) -> (tensor<24xf32>, tensor<2x12xf32>) {
  %a = neuron.reshape %x : tensor<1x2x12xf32> -> tensor<2x12xf32>
  %e = neuron.exp %a : tensor<2x12xf32>
  %l = neuron.log %e : tensor<2x12xf32>
  %r = neuron.reshape %l : tensor<2x12xf32> -> tensor<24xf32>
  %m = neuron.matmul %l, %w : tensor<2x12xf32>, tensor<12x12xf32> -> tensor<2x12xf32>
  return %r, %m : tensor<24xf32>, tensor<2x12xf32>
}
