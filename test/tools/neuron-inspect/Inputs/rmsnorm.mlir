// RMSNorm over 256 rows of 64 with a weight (inputs of the inspect and corruption tests).
func.func @rmsnorm(%x: tensor<256x64xf32>, %w: tensor<64xf32>) -> tensor<256x64xf32> {
  %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06 : (tensor<256x64xf32>, tensor<64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
