// The grouped-query-attention repeat_kv pattern: reshape, broadcast add of
// a zero constant, reshape back.
func.func @main(%x: tensor<1x2x40x128xf32>) -> tensor<1x12x40x128xf32> {
  %s1 = tosa.const_shape {values = dense<[1, 2, 1, 40, 128]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %0 = tosa.reshape %x, %s1 : (tensor<1x2x40x128xf32>, !tosa.shape<5>) -> tensor<1x2x1x40x128xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1x2x6x40x128xf32>} : () -> tensor<1x2x6x40x128xf32>
  %1 = tosa.add %0, %z : (tensor<1x2x1x40x128xf32>, tensor<1x2x6x40x128xf32>) -> tensor<1x2x6x40x128xf32>
  %s2 = tosa.const_shape {values = dense<[1, 12, 40, 128]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %2 = tosa.reshape %1, %s2 : (tensor<1x2x6x40x128xf32>, !tosa.shape<4>) -> tensor<1x12x40x128xf32>
  return %2 : tensor<1x12x40x128xf32>
}
