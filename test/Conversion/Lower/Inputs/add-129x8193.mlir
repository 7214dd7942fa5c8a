// The smallest form of a wide element-wise op over two row tiles: the
// second row tile does not fit beside the first in SBUF.
func.func @main(%a: tensor<129x8193xf32>, %b: tensor<129x8193xf32>) -> tensor<129x8193xf32> {
  %0 = tosa.add %a, %b : (tensor<129x8193xf32>, tensor<129x8193xf32>) -> tensor<129x8193xf32>
  return %0 : tensor<129x8193xf32>
}
