func.func @avg(%x: tensor<1x3x?x6xf32>) -> tensor<1x3x?x6xf32> {
  %y = neuron.pool avg %x kernel = [3, 3] strides = [1, 1] padding = [1, 1, 1, 1] : tensor<1x3x?x6xf32> -> tensor<1x3x?x6xf32>
  return %y : tensor<1x3x?x6xf32>
}
