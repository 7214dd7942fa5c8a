// A convolution's epilogue reads per-channel operands (a folded batchnorm's
// scale and shift, a bias that is not the convolution's own): their values
// depend only on the output channel, so each channel tile loads them once
// for the whole kernel and every image and spatial block reuses the tile.
// They were loaded again before each block's epilogue, a DMA round trip
// (about 2 us for 128 one-element runs) in front of every block: ResNet-50's
// last stage at batch 8 reloaded them 8 times per channel tile.
//
// @scale_shift: 4 images, 2 channel tiles, 2 per-channel operands: 4 loads
// (one per operand and channel tile), not 16.
// RUN: neuronc --no-cache %s --entry=scale_shift --emit=nisa -o %t.nisa
// RUN: FileCheck %s --check-prefix=ONCE < %t.nisa
// RUN: grep -c "= @in2\[" %t.nisa | FileCheck %s --check-prefix=COUNT
// RUN: grep -c "= @in3\[" %t.nisa | FileCheck %s --check-prefix=COUNT
// ONCE: nisa.kernel @k0 "conv-epilogue"
// ONCE: nisa.dma_copy q{{[0-9]+}} @r{{[0-9]+}}[0:128, 0, [1,1]] = @in{{[23]}}[0, [1,128]]
// ONCE: nisa.dma_copy q{{[0-9]+}} @r{{[0-9]+}}[0:128, 0, [1,1]] = @in{{[23]}}[128, [1,128]]
// COUNT: {{^2$}}
// Checked on the simulator against the interpreter, both targets, and at a
// channel count that leaves a partial tile (200 = 128 + 72).
// RUN: neuron-run %s --entry=scale_shift --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=scale_shift --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=partial --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @scale_shift(%x: tensor<4x64x7x7xf32>, %w: tensor<256x64x1x1xf32>, %s: tensor<1x256x1x1xf32>, %b: tensor<1x256x1x1xf32>) -> tensor<4x256x7x7xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<4x64x7x7xf32>, tensor<256x64x1x1xf32>) -> tensor<4x256x7x7xf32>
  %m = neuron.mul %y, %s : tensor<4x256x7x7xf32>, tensor<1x256x1x1xf32> -> tensor<4x256x7x7xf32>
  %a = neuron.add %m, %b : tensor<4x256x7x7xf32>, tensor<1x256x1x1xf32> -> tensor<4x256x7x7xf32>
  %z = neuron.relu %a : tensor<4x256x7x7xf32>
  return %z : tensor<4x256x7x7xf32>
}
func.func @partial(%x: tensor<3x32x9x9xf32>, %w: tensor<200x32x3x3xf32>, %s: tensor<1x200x1x1xf32>, %r: tensor<3x200x9x9xf32>) -> tensor<3x200x9x9xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<3x32x9x9xf32>, tensor<200x32x3x3xf32>) -> tensor<3x200x9x9xf32>
  %m = neuron.mul %y, %s : tensor<3x200x9x9xf32>, tensor<1x200x1x1xf32> -> tensor<3x200x9x9xf32>
  %a = neuron.add %m, %r : tensor<3x200x9x9xf32>, tensor<3x200x9x9xf32> -> tensor<3x200x9x9xf32>
  return %a : tensor<3x200x9x9xf32>
}
