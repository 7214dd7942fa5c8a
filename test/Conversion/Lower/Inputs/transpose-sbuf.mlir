// Last-two-dims transposes big enough to go through SBUF and TensorE (a
// batched f32 one with partial row and column tiles, a bf16 one of 4100 columns).
func.func @t(%x: tensor<3x300x700xf32>, %y: tensor<129x4100xbf16>) -> (tensor<3x700x300xf32>, tensor<4100x129xbf16>) {
  %a = neuron.transpose %x perm = [0, 2, 1] : tensor<3x300x700xf32> -> tensor<3x700x300xf32>
  %b = neuron.transpose %y perm = [1, 0] : tensor<129x4100xbf16> -> tensor<4100x129xbf16>
  return %a, %b : tensor<3x700x300xf32>, tensor<4100x129xbf16>
}
