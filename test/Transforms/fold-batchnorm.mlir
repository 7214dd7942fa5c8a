// Per-channel multiplies and adds by constants after a convolution with a
// constant weight fold into the weight and bias; the chain an ONNX
// BatchNormalization or a TOSA export leaves ((y - mean) * a + b) becomes one
// neuron.conv. A per-pixel operand, a non-constant weight (for a multiply)
// and a convolution with another user are left alone.
// RUN: neuron-opt %s --neuron-fold-batchnorm | FileCheck %s

// CHECK-LABEL: func.func @bn_chain
// CHECK: %[[W:.*]] = neuron.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00]]], {{\[}}{{\[}}[-1.500000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[B:.*]] = neuron.constant dense<2.500000e-01> : tensor<2xf32>
// CHECK: %[[C:.*]] = neuron.conv %arg0, %[[W]] bias %[[B]] strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1
// CHECK-NEXT: return %[[C]]
func.func @bn_chain(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = neuron.constant dense<[[[[1.0]]], [[[0.5]]]]> : tensor<2x1x1x1xf32>
  %b = neuron.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %y = neuron.conv %x, %w bias %b strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %mean = neuron.constant dense<[[[0.5]], [[1.0]]]> : tensor<2x1x1xf32>
  %a = neuron.constant dense<[[[[2.0]], [[-3.0]]]]> : tensor<1x2x1x1xf32>
  %t = neuron.constant dense<0.25> : tensor<1x2x1x1xf32>
  %c = neuron.sub %y, %mean : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %d = neuron.mul %c, %a : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %e = neuron.add %t, %d : tensor<1x2x1x1xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %e : tensor<1x2x4x4xf32>
}

// An --auto-cast weight (a cast of an f32 constant, folded to a bf16
// constant) folds too; the bias takes the f32 result type.
// CHECK-LABEL: func.func @cast_weight
// CHECK: %[[W:.*]] = neuron.constant dense<5.000000e-01> : tensor<2x1x1x1xbf16>
// CHECK: %[[B:.*]] = neuron.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: neuron.conv %arg0, %[[W]] bias %[[B]]
func.func @cast_weight(%x: tensor<1x1x4x4xbf16>) -> tensor<1x2x4x4xf32> {
  %w = neuron.constant dense<0.25> : tensor<2x1x1x1xf32>
  %h = neuron.cast %w : tensor<2x1x1x1xf32> -> tensor<2x1x1x1xbf16>
  %y = neuron.conv %x, %h strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x1x4x4xbf16>, tensor<2x1x1x1xbf16>) -> tensor<1x2x4x4xf32>
  %s = neuron.constant dense<2.0> : tensor<f32>
  %d = neuron.mul %y, %s : tensor<1x2x4x4xf32>, tensor<f32> -> tensor<1x2x4x4xf32>
  return %d : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @not_folded
// CHECK: neuron.mul %{{.*}}, %arg2
// CHECK: neuron.mul %{{.*}}, %{{.*}} : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>
// CHECK: neuron.add
func.func @not_folded(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>, %p: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c = neuron.constant dense<[[[[1.0]]], [[[0.5]]]]> : tensor<2x1x1x1xf32>
  %y = neuron.conv %x, %c strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  // A per-pixel operand.
  %m = neuron.mul %y, %p : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  // A weight that is not a constant.
  %z = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = neuron.constant dense<[[[[2.0]], [[3.0]]]]> : tensor<1x2x1x1xf32>
  %n = neuron.mul %z, %s : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a = neuron.add %m, %n : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %a, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
