// RUN: neuron-opt %s --split-input-file --neuron-convert-tosa | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: neuron-run %s --entry pad_values --sim --output %t/sim.npy > /dev/null
// RUN: %python -c "import numpy as np; print(np.load('%t/sim.npy').tolist())" | FileCheck %s --check-prefix=SIM

// Each padded dim is a concat of splat blocks around the tensor so far.
// CHECK-LABEL: func.func @pad_2d
// CHECK-DAG: %[[TOP:.*]] = neuron.constant dense<7.500000e-01> : tensor<1x3xf32>
// CHECK-DAG: %[[BOTTOM:.*]] = neuron.constant dense<7.500000e-01> : tensor<2x3xf32>
// CHECK-DAG: %[[LEFT:.*]] = neuron.constant dense<7.500000e-01> : tensor<5x4xf32>
// CHECK: %[[ROWS:.*]] = neuron.concat %[[TOP]], %arg0, %[[BOTTOM]] axis = 0 : {{.*}} -> tensor<5x3xf32>
// CHECK: neuron.concat %[[LEFT]], %[[ROWS]] axis = 1 : {{.*}} -> tensor<5x7xf32>
func.func @pad_2d(%x: tensor<2x3xf32>) -> tensor<5x7xf32> {
  %p = tosa.const_shape {values = dense<[1, 2, 4, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() {values = dense<0.75> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.pad %x, %p, %c : (tensor<2x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<5x7xf32>
  return %0 : tensor<5x7xf32>
}

// -----

// On the simulator:
// SIM: {{\[\[}}-1, -1, -1, -1], [-1, -1, 1, 2], [-1, -1, -1, -1]]
func.func @pad_values() -> tensor<3x4xi32> {
  %x = "tosa.const"() {values = dense<[[1, 2]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %p = tosa.const_shape {values = dense<[1, 1, 2, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() {values = dense<-1> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = tosa.pad %x, %p, %c : (tensor<1x2xi32>, !tosa.shape<4>, tensor<1xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}
