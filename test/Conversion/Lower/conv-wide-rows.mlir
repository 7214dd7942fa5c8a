// Convolutions over long rows (wav2vec2's feature encoder on 16000 samples):
// - @chunks: the input rows leave room for the weights of only 26 output
//   channels at a time; chunks that start mid-tile take their bias from
//   columns of their own (every channel past the first chunk read the first
//   chunk's bias: a silent wrong result on a 512 -> 512 conv1d over 3199).
// - @halves: one block of input rows does not fit SBUF at all: the
//   convolution runs over column halves of its output, each reading the
//   input columns its windows read, with the padding outside the input.
// RUN: neuronc --no-cache %s --entry=chunks --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHUNKS
// CHUNKS: weights in chunks of 26 channels
// RUN: neuron-run %s --entry=chunks --check --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=chunks --check --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuronc --no-cache %s --entry=halves --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=HALVES
// HALVES: remark: lowered as 2 convolutions over column halves of its 3200 output columns: one block of its input rows does not fit SBUF
// RUN: neuron-run %s --entry=halves --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=halves --check --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @chunks(%x: tensor<1x512x3199xf32>, %w: tensor<512x512x3xf32>, %b: tensor<512xf32>) -> tensor<1x512x1599xf32> {
  %y = neuron.conv %x, %w bias %b strides = [2] padding = [0, 0] dilations = [1] groups = 1 : (tensor<1x512x3199xf32>, tensor<512x512x3xf32>, tensor<512xf32>) -> tensor<1x512x1599xf32>
  return %y : tensor<1x512x1599xf32>
}
func.func @halves(%x: tensor<2x1x16003xf32>, %w: tensor<16x1x10xf32>, %b: tensor<16xf32>) -> tensor<2x16x3200xf32> {
  %y = neuron.conv %x, %w bias %b strides = [5] padding = [2, 1] dilations = [1] groups = 1 : (tensor<2x1x16003xf32>, tensor<16x1x10xf32>, tensor<16xf32>) -> tensor<2x16x3200xf32>
  %r = neuron.relu %y : tensor<2x16x3200xf32>
  return %r : tensor<2x16x3200xf32>
}
