// RUN: neuron-opt %s --neuron-convert-tosa | FileCheck %s
// RUN: neuron-opt %s --neuron-convert-tosa --neuron-legalize-types 2>/dev/null | FileCheck %s --check-prefix=NARROW
// RUN: neuron-opt %s --neuron-convert-tosa --neuron-legalize-types 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// CHECK-LABEL: func.func @bitwise
// CHECK: %[[ONES:.*]] = neuron.constant dense<-1> : tensor<i32>
// CHECK: neuron.bitwise_and %arg0, %arg1 : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
// CHECK: neuron.bitwise_or
// CHECK: neuron.bitwise_xor
// CHECK: neuron.bitwise_xor %arg0, %[[ONES]]
// CHECK: neuron.shift_left %arg0, %arg1
// CHECK: neuron.shift_right_logical %arg0, %arg1
// CHECK: neuron.shift_right %arg0, %arg1
// CHECK-NOT: neuron.add
// CHECK: return
func.func @bitwise(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = tosa.bitwise_and %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tosa.bitwise_or %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tosa.bitwise_xor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tosa.bitwise_not %a : (tensor<4xi32>) -> tensor<4xi32>
  %4 = tosa.logical_left_shift %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = tosa.logical_right_shift %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %6 = tosa.arithmetic_right_shift %a, %b {round = false} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// Rounding adds the last bit shifted out where the amount is positive.
// CHECK-LABEL: func.func @shift_round
// CHECK: %[[SHR:.*]] = neuron.shift_right %arg0, %arg1
// CHECK: %[[M1:.*]] = neuron.sub %arg1
// CHECK: %[[LAST:.*]] = neuron.shift_right %arg0, %[[M1]]
// CHECK: %[[BIT:.*]] = neuron.bitwise_and %[[LAST]]
// CHECK: %[[POS:.*]] = neuron.compare gt, %arg1
// CHECK: %[[SEL:.*]] = neuron.select %[[POS]], %[[BIT]]
// CHECK: neuron.add %[[SHR]], %[[SEL]]
func.func @shift_round(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.arithmetic_right_shift %a, %b {round = true} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @floor_ceil
// CHECK: neuron.floor %arg0 : tensor<4xf32>
// CHECK: neuron.ceil %arg0 : tensor<4xf32>
func.func @floor_ceil(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.floor %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.ceil %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// Logical ops on masks are the bitwise ops on i1.
// CHECK-LABEL: func.func @logical
// CHECK: %[[T:.*]] = neuron.constant dense<true> : tensor<i1>
// CHECK: neuron.bitwise_and %arg0, %arg1 : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
// CHECK: neuron.bitwise_xor {{.*}}, %[[T]]
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = tosa.logical_and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = tosa.logical_not %0 : (tensor<4xi1>) -> tensor<4xi1>
  return %1 : tensor<4xi1>
}

// i8 is computed in i32: the add may leave i8's range and wraps back
// ((x << 24) >> 24); max cannot and stays as it is; the logical right shift
// reads its operand zero-extended (& 255) and wraps its result.
// WARN: warning: 5 values of type i8 were converted to i32: the device computes integers in 32 bits (results wrap to 8 bits as before)
// NARROW-LABEL: func.func @narrow
// NARROW-SAME: (%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32>
// NARROW: %[[SUM:.*]] = neuron.add %arg0, %arg1
// NARROW: %[[K:.*]] = neuron.constant dense<24> : tensor<i32>
// NARROW: %[[UP:.*]] = neuron.shift_left %[[SUM]], %[[K]]
// NARROW: %[[WRAPPED:.*]] = neuron.shift_right %[[UP]], %[[K]]
// NARROW: %[[MAX:.*]] = neuron.max %[[WRAPPED]], %arg1
// NARROW-NEXT: %[[MASK:.*]] = neuron.constant dense<255> : tensor<i32>
// NARROW-NEXT: %[[Z:.*]] = neuron.bitwise_and %[[MAX]], %[[MASK]]
// NARROW-NEXT: %[[SHR:.*]] = neuron.shift_right_logical %[[Z]], %arg1
// NARROW: neuron.shift_left %[[SHR]]
// NARROW: neuron.shift_right
// NARROW: return
func.func @narrow(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.add %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %1 = tosa.maximum %0, %b {nan_mode = "PROPAGATE"} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %2 = tosa.logical_right_shift %1, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %2 : tensor<4xi8>
}
