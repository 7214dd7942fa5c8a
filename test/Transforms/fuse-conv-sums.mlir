// A bare pointwise convolution (any stride, no padding, one group, no bias)
// whose one reader is a conv-epilogue kernel adding it to the kernel's own
// convolution, each side possibly plus a per-channel constant (reshaped or
// not), joins that kernel (conv-sum): the body becomes add(conv_a, conv_b)
// plus the constants' sum, folded. Refused, with the reason, for a window
// larger than 1x1, padding, groups, other element types, or a value read
// in more than one place.
// RUN: neuron-opt %s --split-input-file --neuron-fuse-elementwise --neuron-fuse-conv-sums --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @downsample
// CHECK: neuron.kernel "conv-sum"(%arg0, %arg1, %arg2, %arg3) : (tensor<1x16x8x8xbf16>, tensor<32x16x3x3xbf16>, tensor<1x16x16x16xbf16>, tensor<32x16x1x1xbf16>) -> tensor<1x32x8x8xf32>
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x16x8x8xbf16>, %[[W:.*]]: tensor<32x16x3x3xbf16>, %[[XD:.*]]: tensor<1x16x16x16xbf16>, %[[WD:.*]]: tensor<32x16x1x1xbf16>):
// CHECK-NEXT: %[[A:.*]] = neuron.conv %[[X]], %[[W]] strides = [1, 1] padding = [1, 1, 1, 1]
// CHECK-NEXT: %[[B:.*]] = neuron.conv %[[XD]], %[[WD]] strides = [2, 2] padding = [0, 0, 0, 0]
// CHECK-NEXT: %[[S:.*]] = neuron.add %[[A]], %[[B]]
// CHECK-NEXT: %[[C:.*]] = neuron.constant dense<1.500000e+00> : tensor<1x32x1x1xf32>
// CHECK-NEXT: %[[T:.*]] = neuron.add %[[S]], %[[C]]
// CHECK-NEXT: %[[R:.*]] = neuron.relu %[[T]]
// CHECK-NEXT: neuron.yield %[[R]]
// CHECK-NOT: neuron.conv
func.func @downsample(%x: tensor<1x16x8x8xbf16>, %w2: tensor<32x16x3x3xbf16>, %xin: tensor<1x16x16x16xbf16>, %wd: tensor<32x16x1x1xbf16>) -> tensor<1x32x8x8xf32> {
  %ba = neuron.constant dense<1.0> : tensor<32xf32>
  %bb = neuron.constant dense<0.5> : tensor<1x32x1x1xf32>
  %c = neuron.conv %x, %w2 strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x16x8x8xbf16>, tensor<32x16x3x3xbf16>) -> tensor<1x32x8x8xf32>
  %bar = neuron.reshape %ba : tensor<32xf32> -> tensor<1x32x1x1xf32>
  %ca = neuron.add %c, %bar : tensor<1x32x8x8xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x8x8xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %d = neuron.conv %xin, %wd strides = [2, 2] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x16x16x16xbf16>, tensor<32x16x1x1xbf16>) -> tensor<1x32x8x8xf32>
  %db = neuron.add %bb, %d : tensor<1x32x1x1xf32>, tensor<1x32x8x8xf32> -> tensor<1x32x8x8xf32>
  %s = neuron.add %ca, %db : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32> -> tensor<1x32x8x8xf32>
  // expected-remark @+2 {{fused kernel (conv-epilogue)}}
  // expected-remark @+1 {{fused kernel (conv-sum) (absorbed 8 ops, saves 16384 bytes)}}
  %r = neuron.relu %s : tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}

// -----

// Per-channel constants of different values on both sides are summed
// element by element.
// CHECK-LABEL: func.func @bias_values
// CHECK: neuron.kernel "conv-sum"
// CHECK: neuron.constant dense<[{{\[\[}}[1.250000e+00]], {{\[\[}}2.500000e+00]]]]> : tensor<1x2x1x1xf32>
func.func @bias_values(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x1x1xf32>, %y: tensor<1x8x4x4xf32>, %wd: tensor<2x8x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %ba = neuron.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %bb = neuron.constant dense<[[[[0.25]], [[0.5]]]]> : tensor<1x2x1x1xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
  %ca = neuron.add %c, %ba : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %d = neuron.conv %y, %wd strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x8x4x4xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x4x4xf32>
  %db = neuron.add %d, %bb : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %s = neuron.add %db, %ca : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  // expected-remark @+2 {{fused kernel (conv-epilogue)}}
  // expected-remark @+1 {{fused kernel (conv-sum)}}
  %r = neuron.relu %s : tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @window
// CHECK-NOT: conv-sum
func.func @window(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %y: tensor<1x4x8x8xf32>, %wd: tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark-re @+1 {{not fused conv-sum: the convolution (neuron.conv at {{.*}}) is not a pointwise 2-D convolution (its window is not 1x1), nor is the kernel's}}
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %d = neuron.conv %y, %wd strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %s : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @padded
// CHECK-NOT: conv-sum
func.func @padded(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %y: tensor<1x4x6x6xf32>, %wd: tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark-re @+1 {{not fused conv-sum: the convolution (neuron.conv at {{.*}}) has padding, and the kernel's convolution is not pointwise}}
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %d = neuron.conv %y, %wd strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %s : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @grouped
// CHECK-NOT: conv-sum
func.func @grouped(%x: tensor<1x8x8x8xf32>, %w: tensor<8x4x3x3xf32>, %y: tensor<1x4x8x8xf32>, %wd: tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark @+1 {{not fused conv-sum: a grouped convolution (each output tile needs every input channel of both)}}
  %c = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 2 : (tensor<1x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %d = neuron.conv %y, %wd strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %s : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @element_types
// CHECK-NOT: conv-sum
func.func @element_types(%x: tensor<1x4x8x8xbf16>, %w: tensor<8x4x1x1xbf16>, %y: tensor<1x4x8x8xf32>, %wd: tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark-re @+1 {{not fused conv-sum: the convolution (neuron.conv at {{.*}}) multiplies another element type than the kernel's convolution}}
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xbf16>, tensor<8x4x1x1xbf16>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{not fused kernel: the producer}}
  %d = neuron.conv %y, %wd strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %s : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// The kernel reads the other convolution's value twice: summing it in PSUM
// would lose the second read.
// CHECK-LABEL: func.func @read_twice
// CHECK-NOT: conv-sum
func.func @read_twice(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x1x1xf32>, %y: tensor<1x4x8x8xf32>, %wd: tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark @+1 {{not fused kernel: the producer}}
  %c = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark-re @+1 {{not fused conv-sum: the kernel (neuron.kernel at {{.*}}) reads its convolution's value or the other convolution's in more than one place}}
  %d = neuron.conv %y, %wd strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  %s = neuron.add %c, %d : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  %m = neuron.mul %s, %d : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{fused kernel (conv-epilogue)}}
  %r = neuron.relu %m : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
