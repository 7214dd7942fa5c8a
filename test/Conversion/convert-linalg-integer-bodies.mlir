// RUN: neuron-opt %s --neuron-convert-linalg | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// Bitwise ops, shifts and floor map one to one; extui and uitofp read the
// narrow operand as unsigned (i32 masked to its width), fptoui converts as
// fptosi does where it is defined.
// CHECK-LABEL: func.func @bodies
// CHECK-DAG: %[[W:.*]] = neuron.cast %arg0 : tensor<4xi8> -> tensor<4xi32>
// CHECK-DAG: %[[M:.*]] = neuron.constant dense<255> : tensor<i32>
// CHECK: %[[Z:.*]] = neuron.bitwise_and %[[W]], %[[M]]
// CHECK: %[[A:.*]] = neuron.bitwise_and %[[Z]], %arg1
// CHECK: %[[S:.*]] = neuron.shift_left %[[A]], %arg1
// CHECK: %[[R:.*]] = neuron.shift_right_logical %[[S]], %arg1
// CHECK: %[[F:.*]] = neuron.cast %[[R]] : tensor<4xi32> -> tensor<4xf32>
// CHECK: %[[FL:.*]] = neuron.floor %[[F]]
// CHECK: neuron.cast %[[FL]] : tensor<4xf32> -> tensor<4xi4>
func.func @bodies(%a: tensor<4xi8>, %b: tensor<4xi32>) -> tensor<4xi4> {
  %e = tensor.empty() : tensor<4xi4>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xi8>, tensor<4xi32>) outs(%e : tensor<4xi4>) {
  ^bb0(%x: i8, %y: i32, %o: i4):
    %z = arith.extui %x : i8 to i32
    %and = arith.andi %z, %y : i32
    %shl = arith.shli %and, %y : i32
    %shr = arith.shrui %shl, %y : i32
    %f = arith.sitofp %shr : i32 to f32
    %fl = math.floor %f : f32
    %r = arith.fptoui %fl : f32 to i4
    linalg.yield %r : i4
  } -> tensor<4xi4>
  return %0 : tensor<4xi4>
}
