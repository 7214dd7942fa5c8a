// Grouped convolutions with few channels per group run k adjacent groups as
// one, with a block-diagonal constant weight (zero where an input channel
// belongs to another group of the merged one) and groups / k groups.
// RUN: neuron-opt %s --neuron-merge-conv-groups --mlir-elide-elementsattrs-if-larger=64 | FileCheck %s

// Four groups of 2 channels, one output channel each: one group of 8, each
// output channel reading only its own two.
// CHECK-LABEL: func.func @merge
// CHECK: %[[W:.*]] = neuron.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]], {{\[}}[2.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]]], {{\[}}{{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[3.000000e+00]], {{\[}}[4.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]]], {{\[}}{{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[5.000000e+00]], {{\[}}[6.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]]], {{\[}}{{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[0.000000e+00]], {{\[}}[7.000000e+00]], {{\[}}[8.000000e+00]]]]> : tensor<4x8x1x1xf32>
// CHECK: neuron.conv %arg0, %[[W]] bias %arg1 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x8x5x5xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>)
func.func @merge(%x: tensor<1x8x5x5xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  %w = neuron.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<4x2x1x1xf32>
  %y = neuron.conv %x, %w bias %b strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 4 : (tensor<1x8x5x5xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// RegNetY-400MF's last stage: 55 groups of 8 channels become 5 of 88 (11 x 8
// <= 128; 55 = 5 x 11).
// CHECK-LABEL: func.func @regnet
// CHECK: neuron.constant dense_resource<__elided__> : tensor<440x88x3x3xf32>
// CHECK: groups = 5 : (tensor<1x440x7x7xf32>, tensor<440x88x3x3xf32>)
func.func @regnet(%x: tensor<1x440x7x7xf32>) -> tensor<1x440x7x7xf32> {
  %w = neuron.constant dense<0.125> : tensor<440x8x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 55 : (tensor<1x440x7x7xf32>, tensor<440x8x3x3xf32>) -> tensor<1x440x7x7xf32>
  return %y : tensor<1x440x7x7xf32>
}

// An --auto-cast weight (a cast of a constant): the wider constant is
// merged and cast again (which folds to a bf16 constant).
// CHECK-LABEL: func.func @cast_weight
// CHECK: %[[W:.*]] = neuron.constant dense_resource<__elided__> : tensor<64x32x3x3xbf16>
// CHECK: neuron.conv %arg0, %[[W]] {{.*}} groups = 1 : (tensor<1x32x6x6xbf16>, tensor<64x32x3x3xbf16>)
func.func @cast_weight(%x: tensor<1x32x6x6xbf16>) -> tensor<1x64x6x6xf32> {
  %wc = neuron.constant dense<0.25> : tensor<64x4x3x3xf32>
  %c = neuron.cast %wc : tensor<64x4x3x3xf32> -> tensor<64x4x3x3xbf16>
  %y = neuron.conv %x, %c strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 8 : (tensor<1x32x6x6xbf16>, tensor<64x4x3x3xbf16>) -> tensor<1x64x6x6xf32>
  return %y : tensor<1x64x6x6xf32>
}

// Left alone: a depthwise convolution (the vector engines run it), groups
// too wide to put two on the partitions, a weight that is not a constant.
// CHECK-LABEL: func.func @depthwise
// CHECK: groups = 32 : (tensor<1x32x6x6xf32>, tensor<32x1x3x3xf32>)
func.func @depthwise(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = neuron.constant dense<0.5> : tensor<32x1x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 32 : (tensor<1x32x6x6xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x6x6xf32>
  return %y : tensor<1x32x6x6xf32>
}
// CHECK-LABEL: func.func @wide
// CHECK: groups = 2 : (tensor<1x200x6x6xf32>, tensor<200x100x3x3xf32>)
func.func @wide(%x: tensor<1x200x6x6xf32>) -> tensor<1x200x6x6xf32> {
  %w = neuron.constant dense<0.5> : tensor<200x100x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 2 : (tensor<1x200x6x6xf32>, tensor<200x100x3x3xf32>) -> tensor<1x200x6x6xf32>
  return %y : tensor<1x200x6x6xf32>
}
// CHECK-LABEL: func.func @weight_argument
// CHECK: groups = 4 : (tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>)
func.func @weight_argument(%x: tensor<1x8x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 4 : (tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}
