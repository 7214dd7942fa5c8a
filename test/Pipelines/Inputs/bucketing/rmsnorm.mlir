// RMSNorm over hidden written as naive ops; the sequence length is dynamic.
func.func @rmsnorm(%x: tensor<?x64xf32> {neuron.dim_names = ["seq", ""]}, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %sq = neuron.mul %x, %x : tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  %s = neuron.reduce_sum %sq axes = [1] keepdims : tensor<?x64xf32> -> tensor<?x1xf32>
  %inv = neuron.constant dense<0.015625> : tensor<1x1xf32>
  %m = neuron.mul %s, %inv : tensor<?x1xf32>, tensor<1x1xf32> -> tensor<?x1xf32>
  %eps = neuron.constant dense<1.0e-06> : tensor<1x1xf32>
  %a = neuron.add %m, %eps : tensor<?x1xf32>, tensor<1x1xf32> -> tensor<?x1xf32>
  %r = neuron.rsqrt %a : tensor<?x1xf32>
  %y = neuron.mul %x, %r : tensor<?x64xf32>, tensor<?x1xf32> -> tensor<?x64xf32>
  %o = neuron.mul %y, %w : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}
