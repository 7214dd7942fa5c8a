// RUN: neuron-opt %s --split-input-file --neuron-legalize-types --verify-diagnostics | FileCheck %s
// RUN: neuron-opt %s --split-input-file --neuron-legalize-types=auto-cast=matmult 2>/dev/null | FileCheck %s --check-prefix=MATMULT
// RUN: neuron-opt %s --split-input-file --neuron-legalize-types="auto-cast=all auto-cast-type=f16" 2>/dev/null | FileCheck %s --check-prefix=ALL

// CHECK-LABEL: func.func @f64_to_f32
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK: neuron.constant dense<1.000000e-01> : tensor<4xf32>
// CHECK: neuron.add {{.*}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// expected-warning @+1 {{3 values of type f64 were converted to f32: the device has no fp64}}
func.func @f64_to_f32(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c = neuron.constant dense<0.1> : tensor<4xf64>
  %0 = neuron.add %x, %c : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @i64_to_i32
// CHECK-SAME: (%arg0: tensor<100x8xf32>, %arg1: tensor<1x5xi32>) -> tensor<1x5x8xf32>
// CHECK: neuron.gather %arg0[%arg1] axis = 0 : tensor<100x8xf32>, tensor<1x5xi32> -> tensor<1x5x8xf32>
// expected-warning @+1 {{1 value of type i64 was converted to i32: the device computes integers in 32 bits}}
func.func @i64_to_i32(%t: tensor<100x8xf32>, %ids: tensor<1x5xi64>) -> tensor<1x5x8xf32> {
  %0 = neuron.gather %t[%ids] axis = 0 : tensor<100x8xf32>, tensor<1x5xi64> -> tensor<1x5x8xf32>
  return %0 : tensor<1x5x8xf32>
}

// -----

// Matmul operands go to 16 bits, accumulation stays f32.
// MATMULT-LABEL: func.func @mm
// MATMULT: %[[A:.*]] = neuron.cast %arg0 : tensor<2x8xf32> -> tensor<2x8xbf16>
// MATMULT: %[[B:.*]] = neuron.cast %arg1 : tensor<8x4xf32> -> tensor<8x4xbf16>
// MATMULT: neuron.matmul %[[A]], %[[B]] : tensor<2x8xbf16>, tensor<8x4xbf16> -> tensor<2x4xf32>
// ALL-LABEL: func.func @mm
// ALL-SAME: (%arg0: tensor<2x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<2x4xf32>
// ALL: %[[A:.*]] = neuron.cast %arg0 : tensor<2x8xf32> -> tensor<2x8xf16>
// ALL: %[[B:.*]] = neuron.cast %arg1 : tensor<8x4xf32> -> tensor<8x4xf16>
// ALL: %[[M:.*]] = neuron.matmul %[[A]], %[[B]] : tensor<2x8xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// ALL: %[[R:.*]] = neuron.relu %[[M]] : tensor<2x4xf16>
// ALL: %[[C:.*]] = neuron.cast %[[R]] : tensor<2x4xf16> -> tensor<2x4xf32>
// ALL: return %[[C]]
func.func @mm(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = neuron.matmul %a, %b : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = neuron.relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
