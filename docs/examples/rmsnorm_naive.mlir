// RMSNorm written as naive ops, the way an exporter emits it op by op:
// y = x * rsqrt(mean(x^2) + eps) * weight, over the last axis.
func.func @rmsnorm_naive(%x: tensor<1x128x2048xf32>, %w: tensor<2048xf32>) -> tensor<1x128x2048xf32> {
  %sq = neuron.mul %x, %x : tensor<1x128x2048xf32>, tensor<1x128x2048xf32> -> tensor<1x128x2048xf32>
  %sum = neuron.reduce_sum %sq axes = [2] keepdims : tensor<1x128x2048xf32> -> tensor<1x128x1xf32>
  %n = neuron.constant dense<4.8828125e-04> : tensor<1xf32>
  %mean = neuron.mul %sum, %n : tensor<1x128x1xf32>, tensor<1xf32> -> tensor<1x128x1xf32>
  %eps = neuron.constant dense<1.0e-06> : tensor<1xf32>
  %var = neuron.add %mean, %eps : tensor<1x128x1xf32>, tensor<1xf32> -> tensor<1x128x1xf32>
  %r = neuron.rsqrt %var : tensor<1x128x1xf32>
  %xn = neuron.mul %x, %r : tensor<1x128x2048xf32>, tensor<1x128x1xf32> -> tensor<1x128x2048xf32>
  %y = neuron.mul %xn, %w : tensor<1x128x2048xf32>, tensor<2048xf32> -> tensor<1x128x2048xf32>
  return %y : tensor<1x128x2048xf32>
}
