// A pooling joins the kernel of the convolution that produces its input
// (conv-pool): after the convolution's epilogue kernel, or a bare
// convolution. Refused, with the reason, when the convolution's value has
// another user, the convolution is depthwise, or one padded plane would take
// more than half an SBUF partition; a pooling of anything else is left alone.
// RUN: neuron-opt %s --split-input-file --neuron-fuse-elementwise --neuron-fuse-pool --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @stem
// CHECK: %[[K:.*]] = neuron.kernel "conv-pool"(%arg0, %arg1) : (tensor<1x3x32x32xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x8x8xf32>
// CHECK: neuron.conv
// CHECK-NEXT: neuron.relu
// CHECK-NEXT: %[[P:.*]] = neuron.pool max
// CHECK-NEXT: neuron.yield %[[P]] : tensor<1x16x8x8xf32>
// CHECK: return %[[K]]
func.func @stem(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x7x7xf32>) -> tensor<1x16x8x8xf32> {
  %c = neuron.conv %x, %w strides = [2, 2] padding = [3, 3, 3, 3] dilations = [1, 1] groups = 1 : (tensor<1x3x32x32xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x16x16xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue) (absorbed 2 ops, saves 32768 bytes)}}
  %r = neuron.relu %c : tensor<1x16x16x16xf32>
  // expected-remark @+1 {{fused kernel (conv-pool) (absorbed 3 ops, saves 32768 bytes)}}
  %p = neuron.pool max %r kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x16x16x16xf32> -> tensor<1x16x8x8xf32>
  return %p : tensor<1x16x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @bare_conv_avg
// CHECK: neuron.kernel "conv-pool"(%arg0, %arg1, %arg2)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: neuron.conv %{{.*}} bias
// CHECK-NEXT: neuron.pool avg
func.func @bare_conv_avg(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x5x5xf32> {
  %c = neuron.conv %x, %w bias %b strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x9x9xf32>
  // expected-remark @+1 {{fused kernel (conv-pool) (absorbed 2 ops, saves 10368 bytes)}}
  %p = neuron.pool avg %c kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x16x9x9xf32> -> tensor<1x16x5x5xf32>
  return %p : tensor<1x16x5x5xf32>
}

// -----

// CHECK-LABEL: func.func @also_returned
// CHECK: neuron.kernel "conv-epilogue"
// CHECK: neuron.pool max
func.func @also_returned(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x32x32xf32>) {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c : tensor<1x16x32x32xf32>
  // expected-remark-re @+1 {{not fused conv-pool: the convolution (neuron.kernel at {{.*}}) has other users than the pooling, which would read it from HBM anyway}}
  %p = neuron.pool max %r kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x16x32x32xf32> -> tensor<1x16x16x16xf32>
  return %p, %r : tensor<1x16x16x16xf32>, tensor<1x16x32x32xf32>
}

// -----

// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: conv-pool
func.func @depthwise(%x: tensor<1x8x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 8 : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32>
  // expected-remark-re @+1 {{not fused conv-pool: the convolution (neuron.conv at {{.*}}) is depthwise: it runs plane-per-partition on the vector engines, which do not keep its planes for a pooling}}
  %p = neuron.pool max %c kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  return %p : tensor<1x8x5x5xf32>
}

// -----

// CHECK-LABEL: func.func @plane_too_big
// CHECK-NOT: conv-pool
func.func @plane_too_big(%x: tensor<1x2x200x200xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x4x100x100xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x2x200x200xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x200x200xf32>
  // expected-remark @+1 {{not fused conv-pool: one padded plane of the convolution's output (160000 bytes per partition) takes more than half a partition of SBUF (98304 bytes)}}
  %p = neuron.pool avg %c kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x200x200xf32> -> tensor<1x4x100x100xf32>
  return %p : tensor<1x4x100x100xf32>
}

// -----

// CHECK-LABEL: func.func @not_a_convolution
// CHECK-NOT: neuron.kernel
func.func @not_a_convolution(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %p = neuron.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}
