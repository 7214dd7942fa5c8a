// Named elementwise linalg ops used directly (written for neuronc's tests).
func.func @named_elementwise(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %0 = linalg.negf ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = linalg.exp ins(%0 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = linalg.add ins(%1, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = linalg.square ins(%2 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %4 = linalg.reciprocal ins(%3 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<4x16xf32>) dimensions = [0]
  %5 = linalg.mul ins(%4, %bb : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %6 = linalg.max ins(%5, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %7 = linalg.tanh ins(%6 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %8 = linalg.sub ins(%7, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %8 : tensor<4x16xf32>
}
