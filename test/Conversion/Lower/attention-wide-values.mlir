// P·V of a key block accumulates in one PSUM bank (512 f32 columns): a
// wider value head dim runs as one attention kernel per 512-column slice of
// the values, joined along that dim, and agrees with the interpreter.
// RUN: neuronc --no-cache %s --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: lowered as 2 attention kernels over slices of 512 value columns (the value head dim 600 exceeds one PSUM bank)
// RUN: neuron-run %s --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @attention_wide_values(%q: tensor<1x4x8xf32>, %k: tensor<1x6x8xf32>, %v: tensor<1x6x600xf32>) -> tensor<1x4x600xf32> {
  %o = neuron.attention %q, %k, %v scale = 1.0 : (tensor<1x4x8xf32>, tensor<1x6x8xf32>, tensor<1x6x600xf32>) -> tensor<1x4x600xf32>
  return %o : tensor<1x4x600xf32>
}
