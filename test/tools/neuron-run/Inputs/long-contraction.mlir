// A long f32 contraction (K = 14336) and tanh: end-to-end rounding beyond
// neuron-run --check's tolerance, every kernel right on its own inputs.
func.func @main(%a0: tensor<128x14336xf32>, %a1: tensor<64x14336xf32>, %a2: tensor<64xf32>) -> tensor<128x64xf32> {
  %v0 = neuron.matmul %a0, %a1 transpose_rhs : tensor<128x14336xf32>, tensor<64x14336xf32> -> tensor<128x64xf32>
  %v1 = neuron.add %v0, %a2 : tensor<128x64xf32>, tensor<64xf32> -> tensor<128x64xf32>
  %v2 = neuron.tanh %v1 : tensor<128x64xf32>
  return %v2 : tensor<128x64xf32>
}
