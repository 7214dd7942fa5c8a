// A 4096x4096x4096 matmul with bf16 operands and an f32 result.
func.func @matmul(%a: tensor<1x4096x4096xbf16>, %b: tensor<1x4096x4096xbf16>) -> tensor<1x4096x4096xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4096x4096xbf16>, tensor<1x4096x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4096x4096xf32>
  return %0 : tensor<1x4096x4096xf32>
}
