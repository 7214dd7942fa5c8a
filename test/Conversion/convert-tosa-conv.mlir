// RUN: neuron-opt %s --split-input-file --neuron-convert-tosa --canonicalize | FileCheck %s

// NHWC conv2d: transposes to NCHW around neuron.conv; the constant weight
// [F, KH, KW, C] is transposed to [F, C, KH, KW] at import; TOSA's pads
// [top, bottom, left, right] become [top, left, bottom, right].
// CHECK-LABEL: func.func @conv2d
// CHECK-DAG: %[[W:.*]] = neuron.constant dense<{{.*}}> : tensor<2x3x1x2xf32>
// CHECK: %[[X:.*]] = neuron.transpose %arg0 perm = [0, 3, 1, 2] : tensor<1x5x5x3xf32> -> tensor<1x3x5x5xf32>
// CHECK: %[[Y:.*]] = neuron.conv %[[X]], %[[W]] bias %arg1 strides = [2, 1] padding = [0, 1, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x5x5xf32>, tensor<2x3x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x5xf32>
// CHECK: neuron.transpose %[[Y]] perm = [0, 2, 3, 1] : tensor<1x2x3x5xf32> -> tensor<1x3x5x2xf32>
func.func @conv2d(%x: tensor<1x5x5x3xf32>, %b: tensor<2xf32>) -> tensor<1x3x5x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], [[[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]]]> : tensor<2x1x2x3xf32>}> : () -> tensor<2x1x2x3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 1, 0>, stride = array<i64: 2, 1>} : (tensor<1x5x5x3xf32>, tensor<2x1x2x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x5x2xf32>
  return %y : tensor<1x3x5x2xf32>
}

// -----

// A weight argument is transposed at run time; a zero bias is dropped; a
// dynamic batch stays dynamic.
// CHECK-LABEL: func.func @conv2d_dynamic
// CHECK: %[[X:.*]] = neuron.transpose %arg0 perm = [0, 3, 1, 2] : tensor<?x6x6x4xf32> -> tensor<?x4x6x6xf32>
// CHECK: %[[W:.*]] = neuron.transpose %arg1 perm = [0, 3, 1, 2] : tensor<8x3x3x4xf32> -> tensor<8x4x3x3xf32>
// CHECK: neuron.conv %[[X]], %[[W]] strides = [1, 1] padding = [0, 0, 0, 0] dilations = [2, 2] groups = 1 : (tensor<?x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x2x2xf32>
func.func @conv2d_dynamic(%x: tensor<?x6x6x4xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<?x2x2x8xf32> {
  %b = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x6x6x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x2x2x8xf32>
  return %y : tensor<?x2x2x8xf32>
}

// -----

// Depthwise [KH, KW, C, M]: groups = C, weight [C·M, 1, KH, KW] with output
// channel c·M + m; a [1] bias is added after the transpose back.
// CHECK-LABEL: func.func @depthwise
// CHECK: neuron.conv %{{.*}}, %{{.*}} strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 2 : (tensor<1x2x4x4xf32>, tensor<6x1x2x2xf32>) -> tensor<1x6x3x3xf32>
// CHECK: neuron.transpose
// CHECK: neuron.add %{{.*}}, %{{.*}} : tensor<1x3x3x6xf32>, tensor<1xf32> -> tensor<1x3x3x6xf32>
func.func @depthwise(%x: tensor<1x4x4x2xf32>, %w: tensor<2x2x2x3xf32>, %b: tensor<1xf32>) -> tensor<1x3x3x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x6xf32>
  return %y : tensor<1x3x3x6xf32>
}

// -----

// CHECK-LABEL: func.func @conv3d
// CHECK: neuron.transpose %arg0 perm = [0, 4, 1, 2, 3]
// CHECK: neuron.conv %{{.*}}, %{{.*}} strides = [1, 1, 1] padding = [1, 0, 0, 1, 0, 0] dilations = [1, 1, 1] groups = 1 : (tensor<1x2x3x3x3xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x4x4x2x2xf32>
// CHECK: neuron.transpose %{{.*}} perm = [0, 2, 3, 4, 1]
func.func @conv3d(%x: tensor<1x3x3x3x2xf32>, %w: tensor<4x2x2x2x2xf32>) -> tensor<1x4x2x2x4xf32> {
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 1, 1, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x3x3x3x2xf32>, tensor<4x2x2x2x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2x2x4xf32>
  return %y : tensor<1x4x2x2x4xf32>
}

// -----

// transpose_conv2d, stride 2: zeros inserted between the input's rows and
// columns (reshape, concat with zeros, reshape, slice), padded by
// kernel - 1 + out_pad, convolved with the flipped constant weight.
// CHECK-LABEL: func.func @transpose_conv2d
// CHECK-DAG: neuron.constant dense<{{\[\[\[\[}}4.000000e+00, 3.000000e+00], [2.000000e+00, 1.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK: neuron.concat {{.*}} axis = 3 : tensor<1x1x2x1x2xf32>, tensor<1x1x2x1x2xf32> -> tensor<1x1x2x2x2xf32>
// CHECK: neuron.slice {{.*}} sizes = [1, 1, 3, 2]
// CHECK: neuron.concat {{.*}} axis = 4
// CHECK: neuron.slice {{.*}} sizes = [1, 1, 3, 3]
// CHECK: neuron.conv %{{.*}}, %{{.*}} strides = [1, 1] padding = [1, 1, 2, 1] dilations = [1, 1] groups = 1 : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x4xf32>
func.func @transpose_conv2d(%x: tensor<1x2x2x1xf32>) -> tensor<1x5x4x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>}> : () -> tensor<1x2x2x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 1, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x4x1xf32>
  return %y : tensor<1x5x4x1xf32>
}

// -----

// TOSA's average excludes the padding from the count: neuron.pool avg
// without count_include_pad. Max pooling of floats is neuron.pool max.
// CHECK-LABEL: func.func @pools
// CHECK: neuron.pool avg %{{.*}} kernel = [3, 3] strides = [1, 1] padding = [1, 1, 1, 1] : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
// CHECK: neuron.pool max %{{.*}} kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
func.func @pools(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  return %a, %m : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Integer max pooling stays a decomposition (neuron.pool is float-only).
// CHECK-LABEL: func.func @int_max_pool
// CHECK-NOT: neuron.pool
// CHECK-COUNT-4: neuron.slice
func.func @int_max_pool(%x: tensor<1x4x4x2xi32>) -> tensor<1x2x2x2xi32> {
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xi32>) -> tensor<1x2x2x2xi32>
  return %m : tensor<1x2x2x2xi32>
}
