// --return-printed: a tensor that was only printed becomes a result of the
// function that printed it (once, however often it was printed), and the
// calls of that function follow the new signature.
// RUN: neuron-opt %s --neuron-drop-host-calls=return-printed 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: neuron-opt %s --neuron-drop-host-calls=return-printed 2>/dev/null | FileCheck %s
// RUN: neuronc %s --return-printed --entry=kernel 2>&1 | FileCheck %s --check-prefix=DRIVER

func.func private @printMemrefF32(tensor<*xf32>)

// WARN: [[# @LINE + 5]]:3: warning: dropped host call to @printMemrefF32 (--drop-host-calls); it printed what is now result #0 of @kernel (--return-printed)
// WARN: [[# @LINE + 5]]:3: warning: dropped host call to @printMemrefF32 (--drop-host-calls); it printed what is now result #0 of @kernel (--return-printed)
func.func @kernel(%x: tensor<4xf32>) {
  %y = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %y : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @kernel(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[Y:.*]] = tosa.exp %arg0
// CHECK-NOT: call
// CHECK: return %[[Y]] : tensor<4xf32>

// A printed argument is returned as it is; results already there come first.
// WARN: [[# @LINE + 4]]:3: warning: dropped host call to @printMemrefF32 (--drop-host-calls); it printed what is now result #1 of @two
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return %y : tensor<4xf32>
}
// CHECK-LABEL: func.func @two(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: return %{{.*}}, %arg0 : tensor<4xf32>, tensor<4xf32>

// CHECK-LABEL: func.func @main
// CHECK: %{{.*}} = call @kernel(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[T:.*]]:2 = call @two(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: return %[[T]]#0
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  call @kernel(%x) : (tensor<4xf32>) -> ()
  %r = call @two(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// DRIVER: func.func @kernel(%arg0: tensor<4xf32>) -> tensor<4xf32>
// DRIVER-NEXT: %[[E:.*]] = neuron.exp %arg0 : tensor<4xf32>
// DRIVER-NEXT: return %[[E]]

// An assertion's operand is returned too; of the casts an exporter puts
// between the value and its printer, the most static type is kept.
// RUN: neuronc %S/Inputs/models/iree-golden/iree_linalg_softmax.mlir --return-printed 2>&1 | FileCheck %s --check-prefix=ASSERT
// ASSERT: warning: dropped host-side 'check.expect_almost_eq_const' (--drop-host-calls); it printed what is now result #0 of @softmax_static_10x256x256xf32 (--return-printed)
// ASSERT: warning: dropped host-side 'check.expect_almost_eq_const' (--drop-host-calls); it printed what is now result #0 of @softmax_dynamic_10x256x256xf32 (--return-printed)
// ASSERT: func.func @softmax_static_10x256x256xf32() -> tensor<10x256x256xf32>
// ASSERT: neuron.softmax
// ASSERT: func.func @softmax_dynamic_10x256x256xf32() -> tensor<10x256x256xf32>
// ASSERT: neuron.softmax
