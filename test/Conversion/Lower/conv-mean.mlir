// A conv-epilogue kernel whose epilogue ends in a mean over each image's
// pixels (a global average pool) takes the mean on chip when its output
// tiles hold whole images: the epilogue writes each image's value into a
// ring in SBUF, a reduce sums it, the sum is scaled and stored, so the
// feature map never goes to HBM for the pool. @resnet_tail is ResNet-50's
// last block at batch 8 (conv3, bias, residual, ReLU, mean, flatten: the
// flatten is the store's view). @stored yields the activation too (stored
// from the ring) and casts the mean to bf16 (the scale writes bf16).
// @after applies a sigmoid after the mean: a row kernel of its own.
// @big_image has 32x32 images, more pixels than a PSUM bank: the
// convolution and its epilogue are separate kernels as before. Every one
// checked fused on the simulator against the interpreter, on both targets,
// f32 and bf16.
//
// RUN: neuronc --no-cache %s --entry=resnet_tail --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=TAIL
// TAIL: remark: lowered as one convolution kernel: 1 group(s) x 4 channel tile(s) x 1 taps into output tiles of 8 image(s) x 7 row(s) x 7 columns; the mean over each image's pixels taken on chip; stores on
// TAIL-NOT: remark
// RUN: neuronc --no-cache %s --entry=stored --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=STORED
// STORED: remark: lowered as one convolution kernel: 1 group(s) x 1 channel tile(s) x 9 taps into output tiles of 2 image(s) x 9 row(s) x 9 columns; the mean over each image's pixels taken on chip; stores on
// RUN: neuronc --no-cache %s --entry=after --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: remark: lowered as one convolution kernel: {{.*}}; the mean over each image's pixels taken on chip, the ops after it a kernel of their own
// RUN: neuronc --no-cache %s --entry=big_image --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: remark: the convolution's epilogue is a separate kernel
// RUN: neuron-run %s --entry=resnet_tail --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=resnet_tail --check --fuse --random-inputs --target=trn2 --auto-cast=matmult --check-rtol=3e-2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stored --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=stored --check --fuse --random-inputs --auto-cast=matmult --check-rtol=3e-2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=after --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=big_image --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @resnet_tail(%x: tensor<8x512x7x7xf32>, %w: tensor<2048x512x1x1xf32>, %r: tensor<8x2048x7x7xf32>) -> tensor<8x2048xf32> {
  %b = neuron.constant dense<0.125> : tensor<1x2048x1x1xf32>
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<8x2048x7x7xf32>
  %cb = neuron.add %c, %b : tensor<8x2048x7x7xf32>, tensor<1x2048x1x1xf32> -> tensor<8x2048x7x7xf32>
  %a = neuron.add %cb, %r : tensor<8x2048x7x7xf32>, tensor<8x2048x7x7xf32> -> tensor<8x2048x7x7xf32>
  %y = neuron.relu %a : tensor<8x2048x7x7xf32>
  %m = neuron.reduce_mean %y axes = [2, 3] keepdims : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf32>
  %f = neuron.reshape %m : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
  return %f : tensor<8x2048xf32>
}
func.func @stored(%x: tensor<2x64x9x9xf32>, %w: tensor<200x64x3x3xf32>) -> (tensor<2x200x9x9xf32>, tensor<2x200x1x1xbf16>) {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<2x64x9x9xf32>, tensor<200x64x3x3xf32>) -> tensor<2x200x9x9xf32>
  %y = neuron.silu %c : tensor<2x200x9x9xf32>
  %m = neuron.reduce_mean %y axes = [2, 3] keepdims : tensor<2x200x9x9xf32> -> tensor<2x200x1x1xf32>
  %n = neuron.cast %m : tensor<2x200x1x1xf32> -> tensor<2x200x1x1xbf16>
  return %y, %n : tensor<2x200x9x9xf32>, tensor<2x200x1x1xbf16>
}
func.func @after(%x: tensor<1x32x4x4xf32>, %w: tensor<64x32x1x1xf32>) -> tensor<1x64x1x1xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x4x4xf32>, tensor<64x32x1x1xf32>) -> tensor<1x64x4x4xf32>
  %y = neuron.relu %c : tensor<1x64x4x4xf32>
  %m = neuron.reduce_mean %y axes = [2, 3] keepdims : tensor<1x64x4x4xf32> -> tensor<1x64x1x1xf32>
  %s = neuron.sigmoid %m : tensor<1x64x1x1xf32>
  return %s : tensor<1x64x1x1xf32>
}
func.func @big_image(%x: tensor<1x16x32x32xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x1x1xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x16x32x32xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x32x32xf32>
  %y = neuron.relu %c : tensor<1x32x32x32xf32>
  %m = neuron.reduce_mean %y axes = [2, 3] keepdims : tensor<1x32x32x32xf32> -> tensor<1x32x1x1xf32>
  return %m : tensor<1x32x1x1xf32>
}
