func.func @strided(%x: tensor<1x3x?x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x3xf32> {
  %y = neuron.conv %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x3x?x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x3xf32>
  return %y : tensor<1x4x?x3xf32>
}
