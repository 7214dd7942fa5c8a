// RoPE's rotate-half written as a tensor.empty filled with two
// tensor.insert_slice pieces (written for neuronc's tests).
func.func @rotate_half(%x: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x16xf32> to tensor<1x2x8x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x16xf32> to tensor<1x2x8x8xf32>
  %e8 = tensor.empty() : tensor<1x2x8x8xf32>
  %neg = linalg.negf ins(%x2 : tensor<1x2x8x8xf32>) outs(%e8 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %e = tensor.empty() : tensor<1x2x8x16xf32>
  %a = tensor.insert_slice %neg into %e[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> into tensor<1x2x8x16xf32>
  %b = tensor.insert_slice %x1 into %a[0, 0, 0, 8] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> into tensor<1x2x8x16xf32>
  %r = arith.addf %b, %x : tensor<1x2x8x16xf32>
  return %r : tensor<1x2x8x16xf32>
}
