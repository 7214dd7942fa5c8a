// RUN: neuron-opt %s --split-input-file --neuron-import | FileCheck %s

// A zero-padded input (tensor.pad of 0) becomes the conv's padding; a zero
// fill init disappears.
// CHECK-LABEL: func.func @nchw_fchw
// CHECK-NEXT: neuron.conv %arg0, %arg1 strides = [2, 2] padding = [1, 0, 1, 2] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return
func.func @nchw_fchw(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 0] high[0, 0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// NHWC / HWCF with a broadcast 1-D bias as the init: the bias operand;
// the constant weight [KH, KW, C, F] is transposed at import.
// CHECK-LABEL: func.func @nhwc_hwcf_bias
// CHECK-DAG: %[[W:.*]] = neuron.constant dense<{{.*}}> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[X:.*]] = neuron.transpose %arg0 perm = [0, 3, 1, 2]
// CHECK: %[[Y:.*]] = neuron.conv %[[X]], %[[W]] bias %arg1 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<?x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x3x3xf32>
// CHECK: neuron.transpose %[[Y]] perm = [0, 2, 3, 1] : tensor<?x2x3x3xf32> -> tensor<?x3x3x2xf32>
func.func @nhwc_hwcf_bias(%x: tensor<?x3x3x1xf32>, %b: tensor<2xf32>) -> tensor<?x3x3x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x3x1xf32>
  %e = tensor.empty(%n) : tensor<?x3x3x2xf32>
  %bb = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<?x3x3x2xf32>) dimensions = [0, 1, 2]
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x3x3x1xf32>, tensor<1x1x1x2xf32>) outs(%bb : tensor<?x3x3x2xf32>) -> tensor<?x3x3x2xf32>
  return %y : tensor<?x3x3x2xf32>
}

// -----

// Any other init is added; FHWC weights; 1-D and 3-D convolutions.
// CHECK-LABEL: func.func @forms
// CHECK: %[[W:.*]] = neuron.transpose %arg1 perm = [0, 3, 1, 2] : tensor<4x3x3x2xf32> -> tensor<4x2x3x3xf32>
// CHECK: %[[Y:.*]] = neuron.conv %{{.*}}, %[[W]] strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1
// CHECK: %[[T:.*]] = neuron.transpose %[[Y]] perm = [0, 2, 3, 1]
// CHECK: neuron.add %[[T]], %arg2 : tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>
// CHECK: neuron.conv %arg3, %arg4 strides = [3] padding = [0, 0] dilations = [2] groups = 1 : (tensor<1x2x9xf32>, tensor<3x2x2xf32>) -> tensor<1x3x3xf32>
// CHECK: neuron.conv %arg5, %arg6 strides = [1, 1, 1] padding = [0, 0, 0, 0, 0, 0] dilations = [1, 1, 1] groups = 1 : (tensor<1x1x3x3x3xf32>, tensor<2x1x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
func.func @forms(%x: tensor<1x5x5x2xf32>, %w: tensor<4x3x3x2xf32>, %acc: tensor<1x3x3x4xf32>,
                 %x1: tensor<1x2x9xf32>, %w1: tensor<3x2x2xf32>,
                 %x3: tensor<1x1x3x3x3xf32>, %w3: tensor<2x1x2x2x2xf32>)
    -> (tensor<1x3x3x4xf32>, tensor<1x3x3xf32>, tensor<1x2x2x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x2xf32>, tensor<4x3x3x2xf32>) outs(%acc : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %e1 = tensor.empty() : tensor<1x3x3xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %y1 = linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<3> : tensor<1xi64>} ins(%x1, %w1 : tensor<1x2x9xf32>, tensor<3x2x2xf32>) outs(%f1 : tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %e3 = tensor.empty() : tensor<1x2x2x2x2xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  %y3 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x3, %w3 : tensor<1x1x3x3x3xf32>, tensor<2x1x2x2x2xf32>) outs(%f3 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  return %y, %y1, %y3 : tensor<1x3x3x4xf32>, tensor<1x3x3xf32>, tensor<1x2x2x2x2xf32>
}

// -----

// Depthwise (HWC and CHW weights) and grouped convolutions.
// CHECK-LABEL: func.func @depthwise_grouped
// CHECK: %[[DW:.*]] = neuron.transpose %arg1 perm = [2, 0, 1] : tensor<3x3x4xf32> -> tensor<4x3x3xf32>
// CHECK: %[[DW1:.*]] = neuron.reshape %[[DW]] : tensor<4x3x3xf32> -> tensor<4x1x3x3xf32>
// CHECK: neuron.conv %{{.*}}, %[[DW1]] strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 4 : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK: neuron.conv %arg2, %{{.*}} strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 4 : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK: %[[GX:.*]] = neuron.reshape %arg4 : tensor<1x2x3x5x5xf32> -> tensor<1x6x5x5xf32>
// CHECK: %[[GW:.*]] = neuron.transpose %arg5 perm = [1, 0, 2, 3, 4] : tensor<4x2x3x3x3xf32> -> tensor<2x4x3x3x3xf32>
// CHECK: %[[GW1:.*]] = neuron.reshape %[[GW]] : tensor<2x4x3x3x3xf32> -> tensor<8x3x3x3xf32>
// CHECK: %[[GY:.*]] = neuron.conv %[[GX]], %[[GW1]] strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 2 : (tensor<1x6x5x5xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x3x3xf32>
// CHECK: neuron.reshape %[[GY]] : tensor<1x8x3x3xf32> -> tensor<1x2x4x3x3xf32>
func.func @depthwise_grouped(%x: tensor<1x5x5x4xf32>, %w: tensor<3x3x4xf32>,
                             %xc: tensor<1x4x5x5xf32>, %wc: tensor<4x3x3xf32>,
                             %xg: tensor<1x2x3x5x5xf32>, %wg: tensor<4x2x3x3x3xf32>)
    -> (tensor<1x3x3x4xf32>, tensor<1x4x3x3xf32>, tensor<1x2x4x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x4xf32>, tensor<3x3x4xf32>) outs(%f : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %ec = tensor.empty() : tensor<1x4x3x3xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %yc = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xc, %wc : tensor<1x4x5x5xf32>, tensor<4x3x3xf32>) outs(%fc : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %eg = tensor.empty() : tensor<1x2x4x3x3xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%eg : tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32>
  %yg = linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x2x3x5x5xf32>, tensor<4x2x3x3x3xf32>) outs(%fg : tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32>
  return %y, %yc, %yg : tensor<1x3x3x4xf32>, tensor<1x4x3x3xf32>, tensor<1x2x4x3x3xf32>
}

// -----

// Pooling: a -inf pad and a -inf fill fold into neuron.pool max; a sum is an
// average counting the (zero) padding, times the window size; a max whose
// init is not -inf is max-ed with it.
// CHECK-LABEL: func.func @pools
// CHECK: neuron.pool max %{{.*}} kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
// CHECK: %[[S:.*]] = neuron.pool avg %arg0 kernel = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] count_include_pad : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
// CHECK: neuron.mul %[[S]], %{{.*}} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xf32>
// CHECK: %[[M:.*]] = neuron.pool max %arg0 kernel = [2, 2]
// CHECK: neuron.max %[[M]], %arg1
func.func @pools(%x: tensor<1x2x6x6xf32>, %init: tensor<1x2x3x3xf32>, %xh: tensor<1x6x6x2xf32>)
    -> (tensor<1x3x3x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %xh low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x6x6x2xf32> to tensor<1x8x8x2xf32>
  %w3 = tensor.empty() : tensor<3x3xf32>
  %eh = tensor.empty() : tensor<1x3x3x2xf32>
  %fh = linalg.fill ins(%ninf : f32) outs(%eh : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %mh = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w3 : tensor<1x8x8x2xf32>, tensor<3x3xf32>) outs(%fh : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %w2 = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w2 : tensor<1x2x6x6xf32>, tensor<2x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w2 : tensor<1x2x6x6xf32>, tensor<2x2xf32>) outs(%init : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %mh, %s, %m : tensor<1x3x3x2xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// A pad the window cannot take (pad value 1) stays a padded tensor: concats
// of splat blocks.
// CHECK-LABEL: func.func @pad_kept
// CHECK: neuron.concat
// CHECK: neuron.conv %{{.*}}, %arg1 strides = [1, 1] padding = [0, 0, 0, 0]
func.func @pad_kept(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x1x3x3xf32> to tensor<1x1x4x4xf32>
  %e = tensor.empty() : tensor<1x1x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) outs(%f : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}
