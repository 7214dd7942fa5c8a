// An element-wise product at a Qwen/DeepSeek FFN width.
func.func @main(%a: tensor<1024x8960xf32>, %b: tensor<1024x8960xf32>) -> tensor<1024x8960xf32> {
  %s = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %s : (tensor<1024x8960xf32>, tensor<1024x8960xf32>, tensor<1xi8>) -> tensor<1024x8960xf32>
  return %0 : tensor<1024x8960xf32>
}
