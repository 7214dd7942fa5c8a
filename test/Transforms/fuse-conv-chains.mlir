// A pointwise convolution (1x1, stride 1, no padding, one group) whose input
// is another convolution kernel's output - directly, or through an
// --auto-cast narrowing - joins that kernel (conv-chain); the first value is
// still yielded when something after the chain reads it. Refused, with the
// reason, for a window larger than 1x1, strides, a reader of the first value
// before the tail, or a kernel already in a chain that saves more.
// A conv-sum kernel (two convolutions summed in PSUM) may be the head.
// RUN: neuron-opt %s --split-input-file --neuron-fuse-elementwise --neuron-fuse-conv-sums --neuron-fuse-conv-chains --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @bottleneck
// CHECK: %[[K:.*]]:2 = neuron.kernel "conv-chain"(%arg0, %arg1, %arg2, %arg3) : (tensor<1x16x8x8xbf16>, tensor<64x16x1x1xbf16>, tensor<1x64x8x8xf32>, tensor<16x64x1x1xbf16>) -> (tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>)
// CHECK: neuron.conv
// CHECK-NEXT: neuron.add
// CHECK-NEXT: %[[R:.*]] = neuron.relu
// CHECK-NEXT: %[[C:.*]] = neuron.cast %[[R]]
// CHECK-NEXT: neuron.conv %[[C]]
// CHECK-NEXT: %[[S:.*]] = neuron.relu
// CHECK-NEXT: %[[L:.*]] = neuron.add %[[S]], %[[S]]
// CHECK-NEXT: neuron.yield %[[R]], %[[L]] : tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @bottleneck(%x: tensor<1x16x8x8xbf16>, %w3: tensor<64x16x1x1xbf16>, %res: tensor<1x64x8x8xf32>, %w1: tensor<16x64x1x1xbf16>) -> (tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>) {
  %c = neuron.conv %x, %w3 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xbf16>, tensor<64x16x1x1xbf16>) -> tensor<1x64x8x8xf32>
  %a = neuron.add %c, %res : tensor<1x64x8x8xf32>, tensor<1x64x8x8xf32> -> tensor<1x64x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %a : tensor<1x64x8x8xf32>
  // expected-remark-re @+1 {{not fused kernel: the cast (neuron.cast at {{.*}}) is converted on chip by the matmuls or convolutions reading it}}
  %n = neuron.cast %r : tensor<1x64x8x8xf32> -> tensor<1x64x8x8xbf16>
  %c2 = neuron.conv %n, %w1 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x64x8x8xbf16>, tensor<16x64x1x1xbf16>) -> tensor<1x16x8x8xf32>
  %s = neuron.relu %c2 : tensor<1x16x8x8xf32>
  // expected-remark @+2 {{fused kernel (conv-epilogue) (absorbed 3 ops, saves 20480 bytes)}}
  // expected-remark @+1 {{fused kernel (conv-chain) (absorbed 7 ops, saves 32768 bytes)}}
  %later = neuron.add %s, %s : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  return %r, %later : tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @not_pointwise
// CHECK-NOT: conv-chain
func.func @not_pointwise(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<32x32x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c : tensor<1x32x8x8xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the convolution (neuron.conv at {{.*}}) is not pointwise (its window is not 1x1)}}
  %c2 = neuron.conv %r, %w2 strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %s = neuron.relu %c2 : tensor<1x32x8x8xf32>
  return %s : tensor<1x32x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @strided
// CHECK-NOT: conv-chain
func.func @strided(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<32x32x1x1xf32>) -> tensor<1x32x4x4xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c : tensor<1x32x8x8xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the convolution (neuron.conv at {{.*}}) has strides or padding (its input tile is not the producer's output tile)}}
  %c2 = neuron.conv %r, %w2 strides = [2, 2] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x4x4xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %s = neuron.relu %c2 : tensor<1x32x4x4xf32>
  return %s : tensor<1x32x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @reader_between
// CHECK-NOT: conv-chain
func.func @reader_between(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<32x32x1x1xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x32x4x4xf32>) {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c : tensor<1x32x8x8xf32>
  %p = neuron.pool max %r kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x32x8x8xf32> -> tensor<1x32x4x4xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the first convolution's kernel (neuron.kernel at {{.*}}) has a user between it and the pointwise convolution}}
  %c2 = neuron.conv %r, %w2 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %s = neuron.relu %c2 : tensor<1x32x8x8xf32>
  return %s, %p : tensor<1x32x8x8xf32>, tensor<1x32x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @reduces
// CHECK-NOT: conv-chain
func.func @reduces(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<32x32x1x1xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %r = neuron.relu %c : tensor<1x32x8x8xf32>
  %m = neuron.reduce_sum %r axes = [2, 3] keepdims : tensor<1x32x8x8xf32> -> tensor<1x32x1x1xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %b = neuron.mul %r, %m : tensor<1x32x8x8xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x8x8xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the first convolution (neuron.conv at {{.*}})'s epilogue reduces its output (it runs as a kernel of its own)}}
  %c2 = neuron.conv %r, %w2 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %s = neuron.relu %c2 : tensor<1x32x8x8xf32>
  return %s, %b : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>
}

// -----

// Two pointwise convolutions after a convolution: the pair that saves more
// (the first one's 32 channels, read by the second, not stored) chains; the
// second pair's head is taken.
// CHECK-LABEL: func.func @best_pair
// CHECK: neuron.kernel "conv-chain"(%arg0, %arg1, %arg2)
// CHECK-NOT: conv-chain
func.func @best_pair(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<8x32x1x1xf32>, %w3: tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c : tensor<1x32x8x8xf32>
  %c2 = neuron.conv %r, %w2 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<8x32x1x1xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+2 {{fused kernel (conv-epilogue)}}
  // expected-remark @+1 {{fused kernel (conv-chain)}}
  %s = neuron.relu %c2 : tensor<1x8x8x8xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the kernel (neuron.kernel at {{.*}}) is already in a chain that saves more bytes}}
  %c3 = neuron.conv %s, %w3 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %t = neuron.relu %c3 : tensor<1x8x8x8xf32>
  return %t : tensor<1x8x8x8xf32>
}

// -----

// A squeeze-excitation: the 1x1 convolution's kernel scales a feature map,
// a value of another shape than its own output.
// CHECK-LABEL: func.func @scale_of_another_shape
// CHECK-NOT: conv-chain
func.func @scale_of_another_shape(%s: tensor<1x8x1x1xf32>, %w: tensor<32x8x1x1xf32>, %x: tensor<1x32x8x8xf32>, %w2: tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %c = neuron.conv %s, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x8x1x1xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x1x1xf32>
  %g = neuron.sigmoid %c : tensor<1x32x1x1xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %m = neuron.mul %g, %x : tensor<1x32x1x1xf32>, tensor<1x32x8x8xf32> -> tensor<1x32x8x8xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the first convolution's kernel (neuron.kernel at {{.*}}) computes a value of another shape than its convolution's output (a squeeze-excitation's scale applied to a feature map): its epilogue does not run on the output tiles}}
  %c2 = neuron.conv %m, %w2 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c2 : tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}

// -----

// A tail whose weights outweigh the value by far (EfficientNet's late
// blocks): chained, they would load when the kernel starts.
// CHECK-LABEL: func.func @weights_dominate
// CHECK-NOT: conv-chain
func.func @weights_dominate(%x: tensor<1x16x2x2xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<1024x32x1x1xf32>) -> tensor<1x1024x2x2xf32> {
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x2x2xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x2x2xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %c : tensor<1x32x2x2xf32>
  // expected-remark-re @+1 {{not fused conv-chain: the convolution (neuron.conv at {{.*}})'s weights (131072 bytes) are more than 64 times the value it would not read back (512 bytes): chained, they load when the kernel starts}}
  %c2 = neuron.conv %r, %w2 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x2x2xf32>, tensor<1024x32x1x1xf32>) -> tensor<1x1024x2x2xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %s = neuron.relu %c2 : tensor<1x1024x2x2xf32>
  return %s : tensor<1x1024x2x2xf32>
}

// -----

// ResNet's first bottleneck of a stage: conv3 plus the strided projection
// (a conv-sum kernel), ReLU, then the next block's conv1.
// CHECK-LABEL: func.func @sum_head
// CHECK: %[[K:.*]]:2 = neuron.kernel "conv-chain"(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<1x16x8x8xf32>, tensor<64x16x1x1xf32>, tensor<1x32x16x16xf32>, tensor<64x32x1x1xf32>, tensor<16x64x1x1xf32>) -> (tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>)
// CHECK: %[[A:.*]] = neuron.conv %{{.*}}, %{{.*}} strides = [1, 1]
// CHECK-NEXT: %[[B:.*]] = neuron.conv %{{.*}}, %{{.*}} strides = [2, 2]
// CHECK-NEXT: %[[S:.*]] = neuron.add %[[A]], %[[B]]
// CHECK-NEXT: %[[R:.*]] = neuron.relu %[[S]]
// CHECK-NEXT: neuron.conv %[[R]]
// CHECK-NEXT: %[[T:.*]] = neuron.relu
// CHECK-NEXT: neuron.yield %[[R]], %[[T]]
func.func @sum_head(%x: tensor<1x16x8x8xf32>, %w3: tensor<64x16x1x1xf32>, %xin: tensor<1x32x16x16xf32>, %wd: tensor<64x32x1x1xf32>, %w1: tensor<16x64x1x1xf32>) -> (tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>) {
  %c = neuron.conv %x, %w3 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xf32>, tensor<64x16x1x1xf32>) -> tensor<1x64x8x8xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %d = neuron.conv %xin, %wd strides = [2, 2] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x32x16x16xf32>, tensor<64x32x1x1xf32>) -> tensor<1x64x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x64x8x8xf32>, tensor<1x64x8x8xf32> -> tensor<1x64x8x8xf32>
  // expected-remark @+2 {{fused kernel (conv-epilogue)}}
  // expected-remark @+1 {{fused kernel (conv-sum)}}
  %r = neuron.relu %s : tensor<1x64x8x8xf32>
  %c2 = neuron.conv %r, %w1 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x64x8x8xf32>, tensor<16x64x1x1xf32>) -> tensor<1x16x8x8xf32>
  // expected-remark @+2 {{fused kernel (conv-epilogue)}}
  // expected-remark @+1 {{fused kernel (conv-chain)}}
  %t = neuron.relu %c2 : tensor<1x16x8x8xf32>
  return %r, %t : tensor<1x64x8x8xf32>, tensor<1x16x8x8xf32>
}
