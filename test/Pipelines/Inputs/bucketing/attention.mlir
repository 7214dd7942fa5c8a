// A self-attention block with a residual: the sequence length is both the
// query and the (padded, reduced) key length.
func.func @attention(%x: tensor<?x32xf32> {neuron.dim_names = ["seq", ""]}, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>) -> tensor<?x32xf32> {
  %q = neuron.matmul %x, %wq : tensor<?x32xf32>, tensor<32x32xf32> -> tensor<?x32xf32>
  %k = neuron.matmul %x, %wk : tensor<?x32xf32>, tensor<32x32xf32> -> tensor<?x32xf32>
  %v = neuron.matmul %x, %wv : tensor<?x32xf32>, tensor<32x32xf32> -> tensor<?x32xf32>
  %s = neuron.matmul %q, %k transpose_rhs : tensor<?x32xf32>, tensor<?x32xf32> -> tensor<?x?xf32>
  %scale = neuron.constant dense<0.17677669> : tensor<1x1xf32>
  %ss = neuron.mul %s, %scale : tensor<?x?xf32>, tensor<1x1xf32> -> tensor<?x?xf32>
  %m = neuron.reduce_max %ss axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
  %d = neuron.sub %ss, %m : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %e = neuron.exp %d : tensor<?x?xf32>
  %z = neuron.reduce_sum %e axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
  %p = neuron.div %e, %z : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %a = neuron.matmul %p, %v : tensor<?x?xf32>, tensor<?x32xf32> -> tensor<?x32xf32>
  %o = neuron.matmul %a, %wo : tensor<?x32xf32>, tensor<32x32xf32> -> tensor<?x32xf32>
  %r = neuron.add %o, %x : tensor<?x32xf32>, tensor<?x32xf32> -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
