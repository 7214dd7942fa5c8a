// --auto-cast casts each convolution's input to bf16. A cast that no
// producer's kernel takes in (a function input, a value the residual add
// also reads in f32, a channel-shuffle slice) is not a kernel of its own:
// the convolution loads the f32 input into staging tiles and converts each
// block in SBUF (bf16 ShuffleNet and MobileNetV2 were slower than f32 with
// one cast kernel per such input).
// - @pointwise: a 1x1 convolution (TensorE) and @depthwise (VectorE/GpSimdE)
//   convert on chip: one kernel each, tensor_copy from the f32 staging tile;
//   @depthwise_fold the same with 7 plane tiles folded onto the free axis
//   (one conversion over the group); @depthwise_bands with 16 planes cut
//   into 8 bands of 7 output rows across the partitions: the padding rows
//   of the first and last band come by DMA into the f32 staging tile, which
//   is converted whole.
// - @stem: 3 input channels, 7x7: kernel rows packed onto the partitions,
//   which start where the engines cannot: the block is converted once at
//   partition 0 ("xu") and the 7 copies made from it by SBUF-to-SBUF DMA;
//   @stem_batch the same with 4 images per block, @stem_3x3 3 copies.
// - @stem_large: a 224² image would take 50176 conversions on each of its 3
//   partitions, more than a conversion kernel over all 128 costs: the cast
//   is its own kernel, the packing stays.
// - @wide: a block of rows of 16003 samples fits SBUF in bf16 but not next
//   to its f32 staging tile: the cast is its own kernel and the convolution
//   is planned again on the bf16 copy.
// Each is checked on the simulator against the interpreter, both targets.
//
// RUN: neuronc --no-cache %s --entry=pointwise --emit=nisa --lowering-remarks -o - 2>&1 | FileCheck %s --check-prefix=POINT
// POINT-NOT: cast kernel
// POINT: remark: lowered as one convolution kernel: {{.*}}, its input converted to bf16 on chip
// POINT: nisa.kernel @k0 "conv"
// POINT-DAG: nisa.alloc @x{{[0-9]+}} sbuf {{.*}}xbf16
// POINT-DAG: nisa.alloc @xs{{[0-9]+}} sbuf {{.*}}xf32
// POINT: nisa.tensor_copy {{.*}} @x{{[0-9]+}}[{{.*}}] = @xs{{[0-9]+}}[
// RUN: neuronc --no-cache %s --entry=depthwise --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEPTH
// DEPTH-NOT: cast kernel
// DEPTH: remark: lowered as one depthwise convolution kernel: {{.*}}, its input converted to bf16 on chip
// RUN: neuronc --no-cache %s --entry=depthwise_bands --emit=nisa --lowering-remarks -o - 2>&1 | FileCheck %s --check-prefix=BANDS
// BANDS-NOT: cast kernel
// BANDS: remark: lowered as one depthwise convolution kernel: 1 plane tile(s) cut into 8 bands of 7 rows across the partitions x {{.*}}, its input converted to bf16 on chip
// BANDS-DAG: nisa.alloc @[[XS:xs[0-9]+]] sbuf 128x{{[0-9]+}}xf32
// BANDS-DAG: nisa.alloc @[[X:x[0-9]+]] sbuf 128x{{[0-9]+}}xbf16
// BANDS: nisa.dma_copy q{{[0-9]+}} @[[XS]][0:16, {{.*}}] = @{{.*}}[0, [0,16], [0,1], [1,112]]
// BANDS: nisa.tensor_copy {{.*}} @[[X]][0:128, {{.*}}] = @[[XS]][0:128,
// RUN: neuronc --no-cache %s --entry=depthwise_fold --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOLD
// FOLD-NOT: cast kernel
// FOLD: remark: lowered as one depthwise convolution kernel: 8 plane tile(s) (7 at a time on the free axis) x {{.*}}, its input converted to bf16 on chip
// RUN: neuronc --no-cache %s --entry=stem --emit=nisa --lowering-remarks -o - 2>&1 | FileCheck %s --check-prefix=STEM
// STEM-NOT: cast kernel
// STEM: remark: lowered as one convolution kernel: {{.*}}its input converted to bf16 on chip, 7 kernel rows packed onto the partitions
// STEM: nisa.kernel @k0 "conv"
// STEM-DAG: nisa.alloc @[[XS:xs[0-9]+]] sbuf 3x{{[0-9]+}}xf32
// STEM-DAG: nisa.alloc @[[XU:xu[0-9]+]] sbuf 3x{{[0-9]+}}xbf16
// STEM-DAG: nisa.alloc @[[X:x[0-9]+]] sbuf 21x{{[0-9]+}}xbf16
// STEM: nisa.tensor_copy {{.*}} @[[XU]][0:3, {{.*}}] = @[[XS]][0:3,
// STEM: nisa.dma_copy q{{[0-9]+}} @[[X]][0:3, {{.*}}] = @[[XU]][0:3,
// STEM: nisa.dma_copy q{{[0-9]+}} @[[X]][3:6, {{.*}}] = @[[XU]][0:3,
// STEM: nisa.dma_copy q{{[0-9]+}} @[[X]][18:21, {{.*}}] = @[[XU]][0:3,
// RUN: neuronc --no-cache %s --entry=stem_large --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: remark: lowered as one cast kernel
// LARGE: remark: lowered as one convolution kernel: {{.*}} 7 kernel rows packed onto the partitions
// RUN: neuronc --no-cache %s --entry=wide --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: remark: lowered as one cast kernel
// WIDE: remark: lowered as one convolution kernel: {{.*}}weights read strided; stores on
// RUN: neuron-run %s --entry=pointwise --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=pointwise --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=depthwise --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=depthwise --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=depthwise_bands --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=depthwise_bands --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=depthwise_fold --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=depthwise_fold --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stem --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stem --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stem_batch --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stem_3x3 --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stem_large --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stem_padded --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=wide --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @pointwise(%x: tensor<1x130x17x19xf32>, %w: tensor<64x130x1x1xbf16>) -> tensor<1x64x17x19xf32> {
  %c = neuron.cast %x : tensor<1x130x17x19xf32> -> tensor<1x130x17x19xbf16>
  %y = neuron.conv %c, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x130x17x19xbf16>, tensor<64x130x1x1xbf16>) -> tensor<1x64x17x19xf32>
  return %y : tensor<1x64x17x19xf32>
}
func.func @depthwise(%x: tensor<1x48x9x9xf32>, %w: tensor<48x1x3x3xbf16>) -> tensor<1x48x9x9xf32> {
  %c = neuron.cast %x : tensor<1x48x9x9xf32> -> tensor<1x48x9x9xbf16>
  %y = neuron.conv %c, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 48 : (tensor<1x48x9x9xbf16>, tensor<48x1x3x3xbf16>) -> tensor<1x48x9x9xf32>
  return %y : tensor<1x48x9x9xf32>
}
func.func @depthwise_bands(%x: tensor<1x16x112x112xf32>, %w: tensor<16x1x3x3xbf16>) -> tensor<1x16x56x56xf32> {
  %c = neuron.cast %x : tensor<1x16x112x112xf32> -> tensor<1x16x112x112xbf16>
  %y = neuron.conv %c, %w strides = [2, 2] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 16 : (tensor<1x16x112x112xbf16>, tensor<16x1x3x3xbf16>) -> tensor<1x16x56x56xf32>
  return %y : tensor<1x16x56x56xf32>
}
func.func @depthwise_fold(%x: tensor<1x960x2x2xf32>, %w: tensor<960x1x3x3xbf16>) -> tensor<1x960x2x2xf32> {
  %c = neuron.cast %x : tensor<1x960x2x2xf32> -> tensor<1x960x2x2xbf16>
  %y = neuron.conv %c, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 960 : (tensor<1x960x2x2xbf16>, tensor<960x1x3x3xbf16>) -> tensor<1x960x2x2xf32>
  return %y : tensor<1x960x2x2xf32>
}
func.func @stem(%x: tensor<1x3x40x40xf32>) -> tensor<1x16x20x20xf32> {
  %w = neuron.constant dense<0.0625> : tensor<16x3x7x7xbf16>
  %c = neuron.cast %x : tensor<1x3x40x40xf32> -> tensor<1x3x40x40xbf16>
  %y = neuron.conv %c, %w strides = [2, 2] padding = [3, 3, 3, 3] dilations = [1, 1] groups = 1 : (tensor<1x3x40x40xbf16>, tensor<16x3x7x7xbf16>) -> tensor<1x16x20x20xf32>
  return %y : tensor<1x16x20x20xf32>
}
func.func @stem_batch(%x: tensor<4x3x16x16xf32>) -> tensor<4x16x8x8xf32> {
  %w = neuron.constant dense<0.0625> : tensor<16x3x7x7xbf16>
  %c = neuron.cast %x : tensor<4x3x16x16xf32> -> tensor<4x3x16x16xbf16>
  %y = neuron.conv %c, %w strides = [2, 2] padding = [3, 3, 3, 3] dilations = [1, 1] groups = 1 : (tensor<4x3x16x16xbf16>, tensor<16x3x7x7xbf16>) -> tensor<4x16x8x8xf32>
  return %y : tensor<4x16x8x8xf32>
}
func.func @stem_3x3(%x: tensor<1x3x33x31xf32>) -> tensor<1x32x17x16xf32> {
  %w = neuron.constant dense<0.125> : tensor<32x3x3x3xbf16>
  %c = neuron.cast %x : tensor<1x3x33x31xf32> -> tensor<1x3x33x31xbf16>
  %y = neuron.conv %c, %w strides = [2, 2] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x3x33x31xbf16>, tensor<32x3x3x3xbf16>) -> tensor<1x32x17x16xf32>
  return %y : tensor<1x32x17x16xf32>
}
// Padding wider than the taps: rows kept with their padding columns.
func.func @stem_padded(%x: tensor<2x3x10x10xf32>) -> tensor<2x8x12x12xf32> {
  %w = neuron.constant dense<0.0625> : tensor<8x3x7x7xbf16>
  %c = neuron.cast %x : tensor<2x3x10x10xf32> -> tensor<2x3x10x10xbf16>
  %y = neuron.conv %c, %w strides = [1, 1] padding = [4, 4, 4, 4] dilations = [1, 1] groups = 1 : (tensor<2x3x10x10xbf16>, tensor<8x3x7x7xbf16>) -> tensor<2x8x12x12xf32>
  return %y : tensor<2x8x12x12xf32>
}
func.func @stem_large(%x: tensor<1x3x224x224xf32>) -> tensor<1x16x112x112xf32> {
  %w = neuron.constant dense<0.0625> : tensor<16x3x7x7xbf16>
  %c = neuron.cast %x : tensor<1x3x224x224xf32> -> tensor<1x3x224x224xbf16>
  %y = neuron.conv %c, %w strides = [2, 2] padding = [3, 3, 3, 3] dilations = [1, 1] groups = 1 : (tensor<1x3x224x224xbf16>, tensor<16x3x7x7xbf16>) -> tensor<1x16x112x112xf32>
  return %y : tensor<1x16x112x112xf32>
}
func.func @wide(%x: tensor<2x1x16003xf32>, %w: tensor<16x1x10xbf16>) -> tensor<2x16x3200xf32> {
  %c = neuron.cast %x : tensor<2x1x16003xf32> -> tensor<2x1x16003xbf16>
  %y = neuron.conv %c, %w strides = [5] padding = [2, 1] dilations = [1] groups = 1 : (tensor<2x1x16003xbf16>, tensor<16x1x10xbf16>) -> tensor<2x16x3200xf32>
  return %y : tensor<2x16x3200xf32>
}
