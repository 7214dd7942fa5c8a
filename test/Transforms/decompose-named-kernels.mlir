// RUN: neuron-opt %s --neuron-decompose-named-kernels | FileCheck %s
// The steps are what fusion recognizes: decomposing, then fusing, gives the
// named ops back.
// RUN: neuron-opt %s --neuron-decompose-named-kernels --canonicalize --cse --neuron-fuse-softmax --neuron-fuse-rmsnorm --neuron-fuse-layernorm | FileCheck %s --check-prefix=ROUND

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[M:.*]] = neuron.reduce_max %arg0 axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[D:.*]] = neuron.sub %arg0, %[[M]] : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = neuron.exp %[[D]] : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = neuron.reduce_sum %[[E]] axes = [1] keepdims
// CHECK-NEXT: %[[R:.*]] = neuron.reciprocal %[[S]] : tensor<4x1xf32>
// CHECK-NEXT: %[[Y:.*]] = neuron.mul %[[E]], %[[R]]
// CHECK-NEXT: return %[[Y]]
// ROUND-LABEL: func.func @softmax
// ROUND-NEXT: neuron.softmax %arg0 axis = 1 : tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = neuron.softmax %x axis = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[D:.*]] = neuron.sub %arg0
// CHECK: %[[L:.*]] = neuron.log
// CHECK-NEXT: %[[Y:.*]] = neuron.sub %[[D]], %[[L]]
// CHECK-NEXT: return %[[Y]]
// ROUND-LABEL: func.func @log_softmax
// ROUND-NEXT: neuron.softmax %arg0 axis = 0 log : tensor<4x8xf32>
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = neuron.softmax %x axis = 0 log : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// A 16-bit input is computed in f32 and the result cast back once.
// CHECK-LABEL: func.func @rmsnorm_bf16
// CHECK-DAG: %[[EPS:.*]] = neuron.constant dense<9.99999997E-7> : tensor<f32>
// CHECK-DAG: %[[INV:.*]] = neuron.constant dense<1.562500e-02> : tensor<f32>
// CHECK: %[[X:.*]] = neuron.cast %arg0 : tensor<2x4x64xbf16> -> tensor<2x4x64xf32>
// CHECK-NEXT: %[[SQ:.*]] = neuron.square %[[X]] : tensor<2x4x64xf32>
// CHECK-NEXT: %[[SS:.*]] = neuron.reduce_sum %[[SQ]] axes = [2] keepdims : tensor<2x4x64xf32> -> tensor<2x4x1xf32>
// CHECK-NEXT: %[[MS:.*]] = neuron.mul %[[SS]], %[[INV]] : tensor<2x4x1xf32>, tensor<f32> -> tensor<2x4x1xf32>
// CHECK-NEXT: %[[T:.*]] = neuron.add %[[MS]], %[[EPS]]
// CHECK-NEXT: %[[R:.*]] = neuron.rsqrt %[[T]]
// CHECK-NEXT: %[[N:.*]] = neuron.mul %[[X]], %[[R]] : tensor<2x4x64xf32>, tensor<2x4x1xf32> -> tensor<2x4x64xf32>
// CHECK-NEXT: %[[W:.*]] = neuron.cast %arg1 : tensor<64xbf16> -> tensor<64xf32>
// CHECK-NEXT: %[[Y:.*]] = neuron.mul %[[N]], %[[W]] : tensor<2x4x64xf32>, tensor<64xf32> -> tensor<2x4x64xf32>
// CHECK-NEXT: %[[O:.*]] = neuron.cast %[[Y]] : tensor<2x4x64xf32> -> tensor<2x4x64xbf16>
// CHECK-NEXT: return %[[O]]
// ROUND-LABEL: func.func @rmsnorm_bf16
// ROUND: neuron.rmsnorm %{{.*}} weight %{{.*}} axes = [2] epsilon = 9.99999997E-7 : (tensor<2x4x64xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
func.func @rmsnorm_bf16(%x: tensor<2x4x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x4x64xbf16> {
  %y = neuron.rmsnorm %x weight %w axes = [2] epsilon = 1.0e-06
      : (tensor<2x4x64xbf16>, tensor<64xbf16>) -> tensor<2x4x64xbf16>
  return %y : tensor<2x4x64xbf16>
}

// Mean and population variance by sums; the centred value is built again
// for the output (CSE merges the two).
// CHECK-LABEL: func.func @layernorm
// CHECK: %[[S:.*]] = neuron.reduce_sum %arg0 axes = [1] keepdims
// CHECK-NEXT: %[[MEAN:.*]] = neuron.mul %[[S]], %[[INV:.*]] :
// CHECK-NEXT: %[[D:.*]] = neuron.sub %arg0, %[[MEAN]]
// CHECK-NEXT: %[[SQ:.*]] = neuron.square %[[D]]
// CHECK-NEXT: %[[SS:.*]] = neuron.reduce_sum %[[SQ]]
// CHECK-NEXT: %[[VAR:.*]] = neuron.mul %[[SS]], %[[INV]]
// CHECK-NEXT: %[[C:.*]] = neuron.sub %arg0, %[[MEAN]]
// CHECK-NEXT: %[[T:.*]] = neuron.add %[[VAR]],
// CHECK-NEXT: %[[R:.*]] = neuron.rsqrt %[[T]]
// CHECK-NEXT: %[[N:.*]] = neuron.mul %[[C]], %[[R]]
// CHECK-NEXT: %[[Y:.*]] = neuron.mul %[[N]], %arg1
// CHECK-NEXT: %[[O:.*]] = neuron.add %[[Y]], %arg2
// CHECK-NEXT: return %[[O]]
// ROUND-LABEL: func.func @layernorm
// ROUND-NEXT: neuron.layernorm %arg0 weight %arg1 bias %arg2 axes = [1] epsilon = 9.99999974E-6
func.func @layernorm(%x: tensor<3x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<3x16xf32> {
  %y = neuron.layernorm %x weight %w bias %b axes = [1] epsilon = 1.0e-05
      : (tensor<3x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

// A dynamic shape has no element count to divide by: the named op stays
// (bucketing makes it static first).
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: neuron.softmax %arg0 axis = 1 : tensor<?x8xf32>
// CHECK-NEXT: return
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = neuron.softmax %x axis = 1 : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
