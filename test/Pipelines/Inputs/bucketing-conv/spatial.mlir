// A dynamic height through "same" windows (stride 1, pads adding up to the
// span): conv 3x3, max pool 3x3 and average pool 3x3 counting the padding,
// then a sum over the height.
func.func @spatial(%x: tensor<2x3x?x6xf32> {neuron.dim_names = ["", "", "h", ""]}, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<2x4x?x6xf32>, tensor<2x4x1x6xf32>) {
  %y = neuron.conv %x, %w bias %b strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<2x3x?x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x?x6xf32>
  %m = neuron.pool max %y kernel = [3, 3] strides = [1, 1] padding = [1, 1, 1, 1] : tensor<2x4x?x6xf32> -> tensor<2x4x?x6xf32>
  %a = neuron.pool avg %m kernel = [3, 3] strides = [1, 1] padding = [2, 1, 0, 1] count_include_pad : tensor<2x4x?x6xf32> -> tensor<2x4x?x6xf32>
  %s = neuron.reduce_sum %a axes = [2] keepdims : tensor<2x4x?x6xf32> -> tensor<2x4x1x6xf32>
  return %a, %s : tensor<2x4x?x6xf32>, tensor<2x4x1x6xf32>
}
