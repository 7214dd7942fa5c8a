// A bf16 depthwise convolution runs its taps on TensorE when that costs
// the engines less: tap t multiplies the block's shifted window (moving) by
// diag(w[:, t]) (stationary) and the taps sum in PSUM; the diagonals are
// made on chip (an identity from one affine_select, then per weight tile
// one multiply of it by the weights, both broadcast), the sum is copied out
// with the bias added. MobileNetV2 at 224x224 bf16 on trn1: 707.7 -> ~537
// us (docs/lowering.md, "Depthwise convolutions on TensorE").
// - @taps: 144 channels of 20x20, two plane tiles sharing nothing: the
//   first tile's diagonals before its taps, the second's after the first
//   tile's first block.
// - @bias: 192 channels of 16x16, 7x7, f32 bias: added as the sum leaves
//   PSUM (tensor_scalar add with the bias column).
// - @rows: 19 output rows of 28 split evenly over the banks (10 + 9).
// - @f32 stays on VectorE/GpSimdE (four passes through the array per
//   product gain nothing); @small too (5 tiles of 4x4 maps: the diagonals
//   cost more than the taps).
// Every case also on the simulator against the interpreter, both targets,
// with strides, bands, dilation, 1-D and asymmetric padding.
//
// RUN: neuronc --no-cache %s --entry=taps --emit=nisa --lowering-remarks -o - 2>&1 | FileCheck %s --check-prefix=TAPS
// TAPS: remark: lowered as one depthwise convolution kernel: 2 plane tile(s) x 1 row block(s) of 20, 9 taps each on TensorE (diagonal weights)
// TAPS-DAG: nisa.alloc @[[PS:tap[0-9]+]] psum 128x1536xf32
// TAPS-DAG: nisa.alloc @[[D0:diag[0-9]+]] sbuf 128x1152xbf16
// TAPS-DAG: nisa.alloc @[[D1:diag[0-9]+]] sbuf 128x1152xbf16
// TAPS-DAG: nisa.alloc @[[I:ident[0-9]+]] sbuf 128x128xbf16
// TAPS: nisa.memset gpsimd @[[I]][0:128, 0, [1,128]] = 1.000000e+00
// TAPS: nisa.affine_select @[[I]][0:128, 0, [1,128]] = @[[I]][0:128, 0, [1,128]] if 0 + 1 * p + [-1] eq else 0.000000e+00
// TAPS: nisa.tensor_tensor {{[a-z]+}} multiply @[[D0]][0:128, 0, [128,9], [1,128]] = @[[I]][0:128, 0, [0,9], [1,128]], @w{{[0-9]+}}[0:128, 0, [1,9], [0,128]]
// The unpadded rows: the middle column's taps first (they read every
// output column), the first row's padding skipped by starting one row in.
// TAPS: nisa.load_stationary @[[D0]][0:128, 128, [1,128]]
// TAPS-NEXT: nisa.multiply_moving @[[PS]][0:128, 0, [20,20], [1,20]] = @x{{[0-9]+}}[0:128, 0, [20,20], [1,20]] start
// TAPS: nisa.load_stationary @[[D0]][0:128, 1024, [1,128]]
// TAPS-NEXT: nisa.multiply_moving @[[PS]][0:128, 0, [20,20], [1,19]] = @x{{[0-9]+}}[0:128, 41, [20,20], [1,19]]
// TAPS-NOT: start
// TAPS: nisa.tensor_copy {{[a-z]+}} @acc{{[0-9]+}}[0:128, 0, [1,400]] = @[[PS]][0:128, 0, [1,400]]
// TAPS: nisa.tensor_tensor {{[a-z]+}} multiply @[[D1]][0:16, 0, [128,9], [1,128]] = @[[I]][0:16, 0, [0,9], [1,128]], @w{{[0-9]+}}[0:16, 9, [1,9], [0,128]]
// TAPS: nisa.load_stationary @[[D1]][0:16, 0, [1,16]]
// TAPS-NOT: scalar_tensor_tensor
//
// RUN: neuronc --no-cache %s --entry=bias --emit=nisa --lowering-remarks -o - 2>&1 | FileCheck %s --check-prefix=BIAS
// BIAS: remark: lowered as one depthwise convolution kernel: 2 plane tile(s) x 1 row block(s) of 16, 49 taps each on TensorE (diagonal weights)
// BIAS: nisa.tensor_scalar {{[a-z]+}} @acc{{[0-9]+}}[0:128, 0, [1,256]] = @tap{{[0-9]+}}[0:128, 0, [1,256]] add @b{{[0-9]+}}[0:128, 0, [1,1]]
//
// RUN: neuronc --no-cache %s --entry=rows --emit=nisa -o - 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: nisa.multiply_moving @[[PS:tap[0-9]+]][0:80, 0, [28,10], [1,28]] = @x{{[0-9]+}}[0:80, 0, [28,10], [1,28]] start
// ROWS-NEXT: nisa.multiply_moving @[[PS]][0:80, 512, [28,9], [1,28]] = @x{{[0-9]+}}[0:80, 280, [28,9], [1,28]] start
//
// RUN: neuronc --no-cache %s --entry=f32 --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: neuronc --no-cache %s --entry=small --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC
// VEC: remark: lowered as one depthwise convolution kernel: {{.*}} taps each on VectorE/GpSimdE
//
// RUN: neuron-run %s --entry=taps --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=taps --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=bias --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=bias --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=rows --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=rows --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stride2 --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stride2 --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=bands --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=bands --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=dilated --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=dilated --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=asym --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=asym --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=conv1d --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=conv1d --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=relu6 --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=relu6 --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM: check: ok

func.func @taps(%x: tensor<1x144x20x20xbf16>, %w: tensor<144x1x3x3xbf16>) -> tensor<1x144x20x20xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 144 : (tensor<1x144x20x20xbf16>, tensor<144x1x3x3xbf16>) -> tensor<1x144x20x20xf32>
  return %y : tensor<1x144x20x20xf32>
}
func.func @bias(%x: tensor<1x192x16x16xbf16>, %w: tensor<192x1x7x7xbf16>, %b: tensor<192xf32>) -> tensor<1x192x16x16xf32> {
  %y = neuron.conv %x, %w bias %b strides = [1, 1] padding = [3, 3, 3, 3] dilations = [1, 1] groups = 192 : (tensor<1x192x16x16xbf16>, tensor<192x1x7x7xbf16>, tensor<192xf32>) -> tensor<1x192x16x16xf32>
  return %y : tensor<1x192x16x16xf32>
}
func.func @rows(%x: tensor<2x40x28x28xbf16>, %w: tensor<40x1x5x5xbf16>, %b: tensor<40xbf16>) -> tensor<2x40x28x28xbf16> {
  %y = neuron.conv %x, %w bias %b strides = [1, 1] padding = [2, 2, 2, 2] dilations = [1, 1] groups = 40 : (tensor<2x40x28x28xbf16>, tensor<40x1x5x5xbf16>, tensor<40xbf16>) -> tensor<2x40x28x28xbf16>
  return %y : tensor<2x40x28x28xbf16>
}
func.func @f32(%x: tensor<1x144x20x20xf32>, %w: tensor<144x1x3x3xf32>) -> tensor<1x144x20x20xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 144 : (tensor<1x144x20x20xf32>, tensor<144x1x3x3xf32>) -> tensor<1x144x20x20xf32>
  return %y : tensor<1x144x20x20xf32>
}
func.func @small(%x: tensor<1x576x4x4xbf16>, %w: tensor<576x1x3x3xbf16>) -> tensor<1x576x4x4xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 576 : (tensor<1x576x4x4xbf16>, tensor<576x1x3x3xbf16>) -> tensor<1x576x4x4xf32>
  return %y : tensor<1x576x4x4xf32>
}
func.func @stride2(%x: tensor<1x144x57x57xbf16>, %w: tensor<144x1x3x3xbf16>) -> tensor<1x144x29x29xf32> {
  %y = neuron.conv %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 144 : (tensor<1x144x57x57xbf16>, tensor<144x1x3x3xbf16>) -> tensor<1x144x29x29xf32>
  return %y : tensor<1x144x29x29xf32>
}
func.func @bands(%x: tensor<1x16x112x112xbf16>, %w: tensor<16x1x3x3xbf16>) -> tensor<1x16x56x56xf32> {
  %y = neuron.conv %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 16 : (tensor<1x16x112x112xbf16>, tensor<16x1x3x3xbf16>) -> tensor<1x16x56x56xf32>
  return %y : tensor<1x16x56x56xf32>
}
func.func @dilated(%x: tensor<1x96x30x31xbf16>, %w: tensor<96x1x3x3xbf16>) -> tensor<1x96x26x27xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [2, 2] groups = 96 : (tensor<1x96x30x31xbf16>, tensor<96x1x3x3xbf16>) -> tensor<1x96x26x27xf32>
  return %y : tensor<1x96x26x27xf32>
}
func.func @asym(%x: tensor<1x24x15x16xbf16>, %w: tensor<24x1x3x3xbf16>) -> tensor<1x24x8x8xf32> {
  %y = neuron.conv %x, %w strides = [2, 2] padding = [1, 0, 1, 1] dilations = [1, 1] groups = 24 : (tensor<1x24x15x16xbf16>, tensor<24x1x3x3xbf16>) -> tensor<1x24x8x8xf32>
  return %y : tensor<1x24x8x8xf32>
}
func.func @conv1d(%x: tensor<2x64x500xbf16>, %w: tensor<64x1x9xbf16>) -> tensor<2x64x496xf32> {
  %y = neuron.conv %x, %w strides = [1] padding = [2, 2] dilations = [1] groups = 64 : (tensor<2x64x500xbf16>, tensor<64x1x9xbf16>) -> tensor<2x64x496xf32>
  return %y : tensor<2x64x496xf32>
}
// MobileNetV2's block: the depthwise convolution with its bias, ReLU6 and
// the cast for the next pointwise one fused after it.
func.func @relu6(%x: tensor<1x96x56x56xbf16>, %w: tensor<96x1x3x3xbf16>, %b: tensor<96xbf16>) -> tensor<1x96x28x28xbf16> {
  %y = neuron.conv %x, %w bias %b strides = [2, 2] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 96 : (tensor<1x96x56x56xbf16>, tensor<96x1x3x3xbf16>, tensor<96xbf16>) -> tensor<1x96x28x28xf32>
  %lo = neuron.constant dense<0.0> : tensor<1xf32>
  %hi = neuron.constant dense<6.0> : tensor<1xf32>
  %m = neuron.max %y, %lo : tensor<1x96x28x28xf32>, tensor<1xf32> -> tensor<1x96x28x28xf32>
  %c = neuron.min %m, %hi : tensor<1x96x28x28xf32>, tensor<1xf32> -> tensor<1x96x28x28xf32>
  %r = neuron.cast %c : tensor<1x96x28x28xf32> -> tensor<1x96x28x28xbf16>
  return %r : tensor<1x96x28x28xbf16>
}
