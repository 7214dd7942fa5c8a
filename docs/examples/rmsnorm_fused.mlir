// The same RMSNorm as rmsnorm_naive.mlir, as the single kernel the fusion
// pass will produce: one read of x and the weight, one write of y.
func.func @rmsnorm_fused(%x: tensor<1x128x2048xf32>, %w: tensor<2048xf32>) -> tensor<1x128x2048xf32> {
  %y = neuron.rmsnorm %x weight %w axes = [2] epsilon = 1.0e-06
      : (tensor<1x128x2048xf32>, tensor<2048xf32>) -> tensor<1x128x2048xf32>
  return %y : tensor<1x128x2048xf32>
}
