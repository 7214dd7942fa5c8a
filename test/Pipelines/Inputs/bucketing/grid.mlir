// Batch x sequence both dynamic: a SiLU per element, then the mean over
// the (padded) sequence per batch row, and the max over it.
func.func @pool(%x: tensor<?x?x16xf32> {neuron.dim_names = ["batch", "seq", ""]}) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %s = neuron.sigmoid %x : tensor<?x?x16xf32>
  %y = neuron.mul %x, %s : tensor<?x?x16xf32>, tensor<?x?x16xf32> -> tensor<?x?x16xf32>
  %mean = neuron.reduce_mean %y axes = [1] : tensor<?x?x16xf32> -> tensor<?x16xf32>
  %max = neuron.reduce_max %y axes = [1] : tensor<?x?x16xf32> -> tensor<?x16xf32>
  return %mean, %max : tensor<?x16xf32>, tensor<?x16xf32>
}
