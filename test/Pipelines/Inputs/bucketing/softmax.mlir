// Softmax over a dynamic number of keys (the padded, reduced dim).
func.func @softmax(%s: tensor<8x?xf32> {neuron.dim_names = ["", "keys"]}) -> tensor<8x?xf32> {
  %m = neuron.reduce_max %s axes = [1] keepdims : tensor<8x?xf32> -> tensor<8x1xf32>
  %d = neuron.sub %s, %m : tensor<8x?xf32>, tensor<8x1xf32> -> tensor<8x?xf32>
  %e = neuron.exp %d : tensor<8x?xf32>
  %z = neuron.reduce_sum %e axes = [1] keepdims : tensor<8x?xf32> -> tensor<8x1xf32>
  %p = neuron.div %e, %z : tensor<8x?xf32>, tensor<8x1xf32> -> tensor<8x?xf32>
  return %p : tensor<8x?xf32>
}
