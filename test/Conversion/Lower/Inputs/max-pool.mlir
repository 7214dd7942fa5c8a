// ResNet's stem pooling: 3x3, stride 2, padding 1 before (TOSA needs exact division), on 1x112x112x64 (NHWC).
func.func @pool(%x: tensor<1x112x112x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0, 1, 0>} : (tensor<1x112x112x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}
