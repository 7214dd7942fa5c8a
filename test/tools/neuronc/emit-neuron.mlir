// RUN: neuronc %s --emit=neuron | FileCheck %s
// RUN: neuronc %s -o %t.mlir && FileCheck %s < %t.mlir
// RUN: cat %s | neuronc - -o - | FileCheck %s
// RUN: neuronc --version | FileCheck %s --check-prefix=VERSION

// VERSION: neuronc 0.1.0

// --emit=neuron verifies and canonicalizes: x*1 and the dead constant go.
// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[S:.*]] = neuron.sigmoid %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[S]]
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %0 = neuron.mul %x, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = neuron.sigmoid %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
