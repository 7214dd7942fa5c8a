// RUN: not neuron-opt %s --neuron-bucket-shapes="buckets=seq:4;arg1.0:4" 2>&1 | FileCheck %s

// A dim tied by the ops to a static size needs no buckets.
// CHECK: error: bucket spec names 'arg1.0', but that dim is tied to the static size 4 by the ops; it needs no buckets
func.func @tied_static(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}, %y: tensor<?x4xf32>, %z: tensor<4x4xf32>) -> tensor<?x4xf32> {
  %a = neuron.add %y, %z : tensor<?x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %b = neuron.exp %x : tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

