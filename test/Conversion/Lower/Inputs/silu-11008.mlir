// Three kernels of 257 x 11008 f32 at -O0: their tiles fit SBUF packed, but
// placing each where the previous one ended left no hole of 44032 bytes
// (found by neuronc-soak).
func.func @main(%a0: tensor<257x11008xf32>, %a1: tensor<11008xf32>, %a2: tensor<11008xf32>) -> tensor<257x11008xf32> {
  %v0 = neuron.mul %a0, %a1 : tensor<257x11008xf32>, tensor<11008xf32> -> tensor<257x11008xf32>
  %v1 = neuron.sub %v0, %a2 : tensor<257x11008xf32>, tensor<11008xf32> -> tensor<257x11008xf32>
  %v2 = neuron.silu %v1 : tensor<257x11008xf32>
  return %v2 : tensor<257x11008xf32>
}
