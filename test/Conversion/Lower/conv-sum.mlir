// A conv-sum kernel (neuron-fuse-conv-sums) lowers as two convolutions
// summed in PSUM: per output tile, the kernel's convolution, then the
// pointwise one from its own input block into the same accumulator, then
// the epilogue on the sum (of two pointwise convolutions, the one with more
// input channels is the kernel's). @downsample is the first bottleneck of a
// ResNet stage (conv3 plus the strided 1x1 projection of the block input,
// their folded batch norms' biases, ReLU): 2 images of 14x14 per tile, the
// projection's 2 channel tiles read with strides 2x2, conv3 the addend. @basic_block is
// ResNet-18's (a 3x3 main convolution); @rows has output tiles of row
// blocks (28x28) with a stride-1 addend; @partial_tiles has channel counts
// that are not multiples of 128 on both sides (320 -> 200, 96 -> 200).
// @no_epilogue adds the two convolutions and nothing else: the pointwise
// convolution is a kernel of its own, and the remark says so. Every one
// checked fused on the simulator against the interpreter, on both targets,
// f32 and bf16 (weights are arguments: random, so a block read at the wrong
// place shows).
//
// RUN: neuronc --no-cache %s --entry=downsample --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOWN
// DOWN: remark: lowered as two convolutions summed in PSUM: 2 channel tile(s) x 1 taps, plus 1 channel tile(s) of a pointwise convolution, into output tiles of 2 image(s) x 14 row(s) x 14 columns{{.*}}; stores on
// RUN: neuronc --no-cache %s --entry=basic_block --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=BASIC
// BASIC: remark: lowered as two convolutions summed in PSUM: 1 channel tile(s) x 9 taps, plus 1 channel tile(s) of a pointwise convolution with strides 2x2, into output tiles of
// RUN: neuronc --no-cache %s --entry=rows --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: remark: lowered as two convolutions summed in PSUM: 1 channel tile(s) x 1 taps, plus 1 channel tile(s) of a pointwise convolution, into output tiles of 1 image(s) x 14 row(s) x 28 columns
// RUN: neuronc --no-cache %s --entry=partial_tiles --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: remark: lowered as two convolutions summed in PSUM: 3 channel tile(s) x 1 taps, plus 1 channel tile(s) of a pointwise convolution
// RUN: neuronc --no-cache %s --entry=no_epilogue --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: remark: the pointwise convolution is a kernel of its own: the kernel has no epilogue to store the sum
// RUN: neuron-run %s --entry=downsample --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=downsample --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=downsample --check --fuse --check-rtol=3e-2 --random-inputs --auto-cast=matmult | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=basic_block --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=basic_block --check --fuse --check-rtol=3e-2 --random-inputs --auto-cast=matmult --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=rows --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=rows --check --fuse --check-rtol=3e-2 --random-inputs --auto-cast=matmult | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=partial_tiles --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=partial_tiles --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=no_epilogue --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @downsample(%x: tensor<8x64x14x14xf32>, %w3: tensor<256x64x1x1xf32>, %xin: tensor<8x256x28x28xf32>, %wd: tensor<256x256x1x1xf32>) -> tensor<8x256x14x14xf32> {
  %b3 = neuron.constant dense<0.25> : tensor<1x256x1x1xf32>
  %bd = neuron.constant dense<-0.5> : tensor<1x256x1x1xf32>
  %c = neuron.conv %x, %w3 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x64x14x14xf32>, tensor<256x64x1x1xf32>) -> tensor<8x256x14x14xf32>
  %cb = neuron.add %c, %b3 : tensor<8x256x14x14xf32>, tensor<1x256x1x1xf32> -> tensor<8x256x14x14xf32>
  %d = neuron.conv %xin, %wd strides = [2, 2] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x256x28x28xf32>, tensor<256x256x1x1xf32>) -> tensor<8x256x14x14xf32>
  %db = neuron.add %d, %bd : tensor<8x256x14x14xf32>, tensor<1x256x1x1xf32> -> tensor<8x256x14x14xf32>
  %s = neuron.add %cb, %db : tensor<8x256x14x14xf32>, tensor<8x256x14x14xf32> -> tensor<8x256x14x14xf32>
  %r = neuron.relu %s : tensor<8x256x14x14xf32>
  return %r : tensor<8x256x14x14xf32>
}
func.func @basic_block(%x: tensor<1x128x8x8xf32>, %w2: tensor<128x128x3x3xf32>, %xin: tensor<1x64x16x16xf32>, %wd: tensor<128x64x1x1xf32>) -> tensor<1x128x8x8xf32> {
  %c = neuron.conv %x, %w2 strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x128x8x8xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x8x8xf32>
  %d = neuron.conv %xin, %wd strides = [2, 2] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x64x16x16xf32>, tensor<128x64x1x1xf32>) -> tensor<1x128x8x8xf32>
  %s = neuron.add %d, %c : tensor<1x128x8x8xf32>, tensor<1x128x8x8xf32> -> tensor<1x128x8x8xf32>
  %r = neuron.relu %s : tensor<1x128x8x8xf32>
  return %r : tensor<1x128x8x8xf32>
}
func.func @rows(%x: tensor<2x64x28x28xf32>, %w3: tensor<256x64x1x1xf32>, %xin: tensor<2x64x28x28xf32>, %wd: tensor<256x64x1x1xf32>) -> tensor<2x256x28x28xf32> {
  %b3 = neuron.constant dense<0.125> : tensor<1x256x1x1xf32>
  %c = neuron.conv %x, %w3 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<2x64x28x28xf32>, tensor<256x64x1x1xf32>) -> tensor<2x256x28x28xf32>
  %cb = neuron.add %c, %b3 : tensor<2x256x28x28xf32>, tensor<1x256x1x1xf32> -> tensor<2x256x28x28xf32>
  %d = neuron.conv %xin, %wd strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<2x64x28x28xf32>, tensor<256x64x1x1xf32>) -> tensor<2x256x28x28xf32>
  %s = neuron.add %cb, %d : tensor<2x256x28x28xf32>, tensor<2x256x28x28xf32> -> tensor<2x256x28x28xf32>
  %r = neuron.relu %s : tensor<2x256x28x28xf32>
  return %r : tensor<2x256x28x28xf32>
}
func.func @partial_tiles(%x: tensor<1x320x9x9xf32>, %w: tensor<200x320x1x1xf32>, %xin: tensor<1x96x17x17xf32>, %wd: tensor<200x96x1x1xf32>) -> tensor<1x200x9x9xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x320x9x9xf32>, tensor<200x320x1x1xf32>) -> tensor<1x200x9x9xf32>
  %d = neuron.conv %xin, %wd strides = [2, 2] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x96x17x17xf32>, tensor<200x96x1x1xf32>) -> tensor<1x200x9x9xf32>
  %s = neuron.add %c, %d : tensor<1x200x9x9xf32>, tensor<1x200x9x9xf32> -> tensor<1x200x9x9xf32>
  %r = neuron.sigmoid %s : tensor<1x200x9x9xf32>
  return %r : tensor<1x200x9x9xf32>
}
func.func @no_epilogue(%x: tensor<1x32x8x8xf32>, %w: tensor<64x32x1x1xf32>, %xin: tensor<1x16x8x8xf32>, %wd: tensor<64x16x1x1xf32>) -> tensor<1x64x8x8xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<64x32x1x1xf32>) -> tensor<1x64x8x8xf32>
  %d = neuron.conv %xin, %wd strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<64x16x1x1xf32>) -> tensor<1x64x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x64x8x8xf32>, tensor<1x64x8x8xf32> -> tensor<1x64x8x8xf32>
  return %s : tensor<1x64x8x8xf32>
}
