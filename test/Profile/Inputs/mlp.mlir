// A matmul with a GELU epilogue and a residual add: TensorE, ScalarE and
// VectorE all work, in one fused kernel and one separate one.
func.func @mlp(%x: tensor<256x512xbf16>, %w: tensor<512x384xbf16>, %r: tensor<256x384xf32>) -> tensor<256x384xf32> {
  %0 = neuron.matmul %x, %w : tensor<256x512xbf16>, tensor<512x384xbf16> -> tensor<256x384xf32>
  %1 = neuron.gelu %0 approximate = tanh : tensor<256x384xf32>
  %2 = neuron.add %1, %r : tensor<256x384xf32>, tensor<256x384xf32> -> tensor<256x384xf32>
  return %2 : tensor<256x384xf32>
}
