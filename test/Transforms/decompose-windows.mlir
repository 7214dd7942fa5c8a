// RUN: neuron-opt %s --neuron-decompose-windows -split-input-file | FileCheck %s

// A 3-D convolution: depth moves next to the batch, its padding becomes zero
// planes, and each of the 3 depth taps is a 2-D convolution over the planes
// it reads (offset = tap * dilation, step = stride) with the weight's slice;
// the bias goes to the first, the partial sums are added, depth moves back.
// CHECK-LABEL: func.func @conv3d
// CHECK: %[[Z:.*]] = neuron.constant dense<0.000000e+00> : tensor<2x1x4x7x5xf32>
// CHECK: %[[T:.*]] = neuron.transpose %arg0 perm = [0, 2, 1, 3, 4] : tensor<2x4x6x7x5xf32> -> tensor<2x6x4x7x5xf32>
// CHECK: %[[P:.*]] = neuron.concat %[[Z]], %[[T]], %[[Z]] axis = 1 {{.*}} -> tensor<2x8x4x7x5xf32>
// CHECK: neuron.slice %[[P]] offsets = [0, 0, 0, 0, 0] sizes = [2, 3, 4, 7, 5] strides = [1, 2, 1, 1, 1]
// CHECK: neuron.slice %arg1 offsets = [0, 0, 0, 0, 0] sizes = [6, 2, 1, 2, 3]
// CHECK: %[[C0:.*]] = neuron.conv %{{.*}}, %{{.*}} bias %arg2 strides = [2, 1] padding = [1, 0, 0, 0] dilations = [1, 2] groups = 2 : (tensor<6x4x7x5xf32>, tensor<6x2x2x3xf32>, tensor<6xf32>) -> tensor<6x6x4x1xf32>
// CHECK: neuron.slice %[[P]] offsets = [0, 1, 0, 0, 0] sizes = [2, 3, 4, 7, 5] strides = [1, 2, 1, 1, 1]
// CHECK: neuron.slice %arg1 offsets = [0, 0, 1, 0, 0]
// CHECK: %[[C1:.*]] = neuron.conv %{{.*}}, %{{.*}} strides = [2, 1] padding = [1, 0, 0, 0] dilations = [1, 2] groups = 2 : (tensor<6x4x7x5xf32>, tensor<6x2x2x3xf32>) -> tensor<6x6x4x1xf32>
// CHECK: %[[S1:.*]] = neuron.add %[[C0]], %[[C1]]
// CHECK: neuron.slice %[[P]] offsets = [0, 2, 0, 0, 0]
// CHECK: %[[C2:.*]] = neuron.conv
// CHECK: %[[S2:.*]] = neuron.add %[[S1]], %[[C2]]
// CHECK: %[[R:.*]] = neuron.reshape %[[S2]] : tensor<6x6x4x1xf32> -> tensor<2x3x6x4x1xf32>
// CHECK: %[[Y:.*]] = neuron.transpose %[[R]] perm = [0, 2, 1, 3, 4] : tensor<2x3x6x4x1xf32> -> tensor<2x6x3x4x1xf32>
// CHECK: return %[[Y]]
func.func @conv3d(%x: tensor<2x4x6x7x5xf32>, %w: tensor<6x2x3x2x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x4x1xf32> {
  %0 = neuron.conv %x, %w bias %b strides = [2, 2, 1] padding = [1, 1, 0, 1, 0, 0] dilations = [1, 1, 2] groups = 2 : (tensor<2x4x6x7x5xf32>, tensor<6x2x3x2x3xf32>, tensor<6xf32>) -> tensor<2x6x3x4x1xf32>
  return %0 : tensor<2x6x3x4x1xf32>
}

// -----

// Pooling is separable: the trailing dims of [N, C*D, ...], then depth with
// a [KD, 1] window. Four spatial dims take two rounds.
// CHECK-LABEL: func.func @pool4d
// CHECK: %[[A:.*]] = neuron.reshape %arg0 : tensor<1x2x4x5x4x6xf32> -> tensor<1x40x4x6xf32>
// CHECK: %[[B:.*]] = neuron.pool avg %[[A]] kernel = [2, 3] strides = [2, 2] padding = [0, 1, 1, 0] count_include_pad : tensor<1x40x4x6xf32> -> tensor<1x40x2x3xf32>
// CHECK: %[[C:.*]] = neuron.reshape %[[B]] : tensor<1x40x2x3xf32> -> tensor<1x8x5x6xf32>
// CHECK: %[[D:.*]] = neuron.pool avg %[[C]] kernel = [3, 1] strides = [1, 1] padding = [0, 0, 1, 0] count_include_pad : tensor<1x8x5x6xf32> -> tensor<1x8x4x6xf32>
// CHECK: %[[E:.*]] = neuron.reshape %[[D]] : tensor<1x8x4x6xf32> -> tensor<1x2x4x24xf32>
// CHECK: %[[F:.*]] = neuron.pool avg %[[E]] kernel = [2, 1] strides = [1, 1] padding = [1, 0, 0, 0] count_include_pad : tensor<1x2x4x24xf32> -> tensor<1x2x4x24xf32>
// CHECK: %[[G:.*]] = neuron.reshape %[[F]] : tensor<1x2x4x24xf32> -> tensor<1x2x4x4x2x3xf32>
// CHECK: return %[[G]]
func.func @pool4d(%x: tensor<1x2x4x5x4x6xf32>) -> tensor<1x2x4x4x2x3xf32> {
  %0 = neuron.pool avg %x kernel = [2, 3, 2, 3] strides = [1, 1, 2, 2] padding = [1, 0, 0, 1, 0, 1, 1, 0] count_include_pad : tensor<1x2x4x5x4x6xf32> -> tensor<1x2x4x4x2x3xf32>
  return %0 : tensor<1x2x4x4x2x3xf32>
}

// -----

// 2-D windows are the lowering's own; a dynamic dim is left for bucketing.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT: neuron.conv %arg0, %arg1 strides = [1, 1] padding
// CHECK-NEXT: neuron.pool max %arg2 kernel = [2, 2, 2]
// CHECK-NEXT: return
func.func @left_alone(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %v: tensor<?x2x4x4x4xf32>) -> (tensor<1x3x5x5xf32>, tensor<?x2x2x2x2xf32>) {
  %0 = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  %1 = neuron.pool max %v kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0, 0, 0, 0] : tensor<?x2x4x4x4xf32> -> tensor<?x2x2x2x2xf32>
  return %0, %1 : tensor<1x3x5x5xf32>, tensor<?x2x2x2x2xf32>
}
