// A matmul into an accumulator argument, C + A x B, with a wide N.
func.func @main(%a: tensor<256x64xf32>, %b: tensor<64x8200xf32>, %c: tensor<256x8200xf32>) -> tensor<256x8200xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x8200xf32>) outs(%c : tensor<256x8200xf32>) -> tensor<256x8200xf32>
  return %0 : tensor<256x8200xf32>
}
