// A dynamic-batch NHWC convolution with bias, max pooling, and a sum over
// the batch (padded batch rows hold the bias, so the sum needs a mask).
func.func @batch(%x: tensor<?x8x8x3xf32> {neuron.dim_names = ["batch", "", "", ""]}, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<?x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x8x8x4xf32>
  %p = tosa.max_pool2d %y {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x8x8x4xf32>) -> tensor<?x4x4x4xf32>
  %s = tosa.reduce_sum %p {axis = 0 : i32} : (tensor<?x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %p, %s : tensor<?x4x4x4xf32>, tensor<1x4x4x4xf32>
}
