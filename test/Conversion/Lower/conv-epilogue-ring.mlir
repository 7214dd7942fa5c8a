// A convolution with a fused epilogue keeps up to 8 output tiles of each
// epilogue value in flight (where SBUF holds them next to its input blocks
// and weights), not 2: a tile's round trip (its residual's load, its
// store, two DMA latencies) outlasts the TensorE and queue time of a tile
// whenever the tiles are many and short. ResNet-50's 7x7 bottlenecks at
// batch 8 (16 output-channel tiles of 392 pixels) waited on the store two
// tiles back: 326 -> 188 us per block. The ring is as deep as the kernel has
// tiles: @deep has 8 (1024 channels), @four 4, @three 3; @two keeps the
// 2 it needs (nothing to say). Each is checked on the simulator against the
// interpreter on both targets (a ring reuses a buffer only after its store
// and its reads are done).
//
// RUN: neuronc --no-cache %s --entry=deep --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: remark: lowered as one convolution kernel: {{.*}}output tiles of 8 image(s) x 7 row(s) x 7 columns{{.*}}, 8 epilogue tiles in flight; stores on
// RUN: neuronc --no-cache %s --entry=four --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOUR
// FOUR: remark: lowered as one convolution kernel: {{.*}}, 4 epilogue tiles in flight; stores on
// RUN: neuronc --no-cache %s --entry=three --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// THREE: remark: lowered as one convolution kernel: {{.*}}, 3 epilogue tiles in flight; stores on
// RUN: neuronc --no-cache %s --entry=two --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: remark: lowered as one convolution kernel:
// TWO-NOT: epilogue tiles in flight
// TWO-SAME: ; stores on
// RUN: neuron-run %s --entry=deep --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=deep --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=three --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=three --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=deep --check --fuse --random-inputs --auto-cast=matmult | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @deep(%x: tensor<8x128x7x7xf32>, %r: tensor<8x1024x7x7xf32>) -> tensor<8x1024x7x7xf32> {
  %w = neuron.constant dense<0.0078125> : tensor<1024x128x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x128x7x7xf32>, tensor<1024x128x1x1xf32>) -> tensor<8x1024x7x7xf32>
  %a = neuron.add %y, %r : tensor<8x1024x7x7xf32>, tensor<8x1024x7x7xf32> -> tensor<8x1024x7x7xf32>
  %z = neuron.relu %a : tensor<8x1024x7x7xf32>
  return %z : tensor<8x1024x7x7xf32>
}
func.func @four(%x: tensor<8x128x7x7xf32>, %r: tensor<8x512x7x7xf32>) -> tensor<8x512x7x7xf32> {
  %w = neuron.constant dense<0.0078125> : tensor<512x128x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x128x7x7xf32>, tensor<512x128x1x1xf32>) -> tensor<8x512x7x7xf32>
  %a = neuron.add %y, %r : tensor<8x512x7x7xf32>, tensor<8x512x7x7xf32> -> tensor<8x512x7x7xf32>
  return %a : tensor<8x512x7x7xf32>
}
func.func @three(%x: tensor<8x128x7x7xf32>, %r: tensor<8x384x7x7xf32>) -> tensor<8x384x7x7xf32> {
  %w = neuron.constant dense<0.0078125> : tensor<384x128x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x128x7x7xf32>, tensor<384x128x1x1xf32>) -> tensor<8x384x7x7xf32>
  %a = neuron.add %y, %r : tensor<8x384x7x7xf32>, tensor<8x384x7x7xf32> -> tensor<8x384x7x7xf32>
  return %a : tensor<8x384x7x7xf32>
}
func.func @two(%x: tensor<8x128x7x7xf32>, %r: tensor<8x256x7x7xf32>) -> tensor<8x256x7x7xf32> {
  %w = neuron.constant dense<0.0078125> : tensor<256x128x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<8x128x7x7xf32>, tensor<256x128x1x1xf32>) -> tensor<8x256x7x7xf32>
  %a = neuron.add %y, %r : tensor<8x256x7x7xf32>, tensor<8x256x7x7xf32> -> tensor<8x256x7x7xf32>
  return %a : tensor<8x256x7x7xf32>
}
