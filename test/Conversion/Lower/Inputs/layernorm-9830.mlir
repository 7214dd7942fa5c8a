// LayerNorm spelled with keepdims reductions, at 9830 columns: five
// full-width tiles of a kernel fit SBUF by their sizes but not once each is
// aligned to 64 bytes (found by neuronc-soak).
func.func @main(%a0: tensor<300x9830xf32>, %a1: tensor<9830xf32>, %a2: tensor<9830xf32>) -> tensor<300x9830xf32> {
  %v0 = neuron.reduce_mean %a0 axes = [1] keepdims : tensor<300x9830xf32> -> tensor<300x1xf32>
  %v1 = neuron.sub %a0, %v0 : tensor<300x9830xf32>, tensor<300x1xf32> -> tensor<300x9830xf32>
  %v2 = neuron.mul %v1, %v1 : tensor<300x9830xf32>, tensor<300x9830xf32> -> tensor<300x9830xf32>
  %v3 = neuron.reduce_mean %v2 axes = [1] keepdims : tensor<300x9830xf32> -> tensor<300x1xf32>
  %v4 = neuron.constant dense<1.000000e-05> : tensor<f32>
  %v5 = neuron.add %v3, %v4 : tensor<300x1xf32>, tensor<f32> -> tensor<300x1xf32>
  %v6 = neuron.rsqrt %v5 : tensor<300x1xf32>
  %v7 = neuron.mul %v1, %v6 : tensor<300x9830xf32>, tensor<300x1xf32> -> tensor<300x9830xf32>
  %v8 = neuron.mul %v7, %a2 : tensor<300x9830xf32>, tensor<9830xf32> -> tensor<300x9830xf32>
  %v9 = neuron.add %v8, %a1 : tensor<300x9830xf32>, tensor<9830xf32> -> tensor<300x9830xf32>
  return %v9 : tensor<300x9830xf32>
}
