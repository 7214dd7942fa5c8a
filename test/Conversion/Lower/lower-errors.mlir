// What --neuron-lower refuses, with the reason.
// RUN: neuron-opt %s --neuron-lower -split-input-file -verify-diagnostics
// RUN: not neuron-opt %s --neuron-lower=target=trn3 -split-input-file 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown target 'trn3'; known targets: trn1, trn2

// expected-error@+1 {{argument #0 has type 'tensor<?x64xf32>'; the device needs statically shaped tensors (bucket dynamic dims first)}}
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = neuron.exp %x : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// A dynamic result of a function with static arguments.
// expected-error @+1 {{result #0 has type 'tensor<?xf32>'; the device needs statically shaped tensors}}
func.func @dynamic_result(%x: tensor<1xf32>) -> tensor<?xf32> {
  %d = neuron.broadcast_to %x : tensor<1xf32> -> tensor<?xf32>
  return %d : tensor<?xf32>
}

// -----

// A dynamic value inside the function.
func.func @dynamic_value(%x: tensor<1xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{has type 'tensor<?xf32>'; the device needs statically shaped tensors (bucket dynamic dims first)}}
  %d = neuron.broadcast_to %x : tensor<1xf32> -> tensor<?xf32>
  return %x : tensor<1xf32>
}

// -----

// An op that is not a neuron op.
func.func @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{neuron-lower has no lowering for 'math.atan'}}
  %d = math.atan %x : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A kernel body op no row kernel computes (math.atan has no neuron op).
func.func @atan_kernel(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'neuron.kernel': 'math.atan' cannot be part of a row kernel}}
  %r = neuron.kernel "elementwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %s = math.atan %x : tensor<4xf32>
    neuron.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// An empty tensor is an error, not a crash (ONNX node tests have them).
func.func @empty_slice(%a: tensor<20x10x5xf32>) -> tensor<20x10x5xf32> {
  // expected-error @+1 {{has type 'tensor<20x0x5xf32>' with no elements; the device has no empty tensors}}
  %0 = neuron.slice %a offsets = [0, 10, 0] sizes = [20, 0, 5] strides = [1, 1, 1] : tensor<20x10x5xf32> -> tensor<20x0x5xf32>
  %1 = neuron.concat %a, %0 axis = 1 : tensor<20x10x5xf32>, tensor<20x0x5xf32> -> tensor<20x10x5xf32>
  return %1 : tensor<20x10x5xf32>
}

// -----

// expected-error @+1 {{takes or returns 'tensor<0xf32>', which has no elements; the device has no empty tensors}}
func.func @empty_argument(%a: tensor<0xf32>) -> tensor<0xf32> {
  return %a : tensor<0xf32>
}

// -----

// 3-D convolutions and pooling reach the lowering only through neuron-decompose-windows.
func.func @conv3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32> {
  // expected-error@+1 {{cannot lower the convolution: 3-D convolutions are tiled as 2-D ones: run --neuron-decompose-windows first (neuronc does)}}
  %0 = neuron.conv %x, %w strides = [1, 1, 1] padding = [0, 0, 0, 0, 0, 0] dilations = [1, 1, 1] groups = 1 : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32>
  return %0 : tensor<1x3x3x3x3xf32>
}

// -----

func.func @pool3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  // expected-error@+1 {{cannot lower the pooling: 3-D windows are tiled as 2-D ones: run --neuron-decompose-windows first (neuronc does)}}
  %0 = neuron.pool max %x kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0, 0, 0, 0] : tensor<1x2x4x4x4xf32> -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}
