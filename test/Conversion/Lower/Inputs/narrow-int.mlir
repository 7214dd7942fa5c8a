// i8 arithmetic computed in i32 must wrap as i8 does: a + b, a * b, a
// logical right shift (a's high bits are zero as i8) and a truncating cast.
func.func @narrow(%a: tensor<257x100xi8>, %b: tensor<257x100xi8>, %w: tensor<257x100xi32>) -> tensor<257x100xi8> {
  %z = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %s = "tosa.const"() {values = dense<3> : tensor<1x1xi8>} : () -> tensor<1x1xi8>
  %0 = tosa.add %a, %b : (tensor<257x100xi8>, tensor<257x100xi8>) -> tensor<257x100xi8>
  %1 = tosa.mul %a, %b, %z : (tensor<257x100xi8>, tensor<257x100xi8>, tensor<1xi8>) -> tensor<257x100xi8>
  %2 = tosa.logical_right_shift %a, %s : (tensor<257x100xi8>, tensor<1x1xi8>) -> tensor<257x100xi8>
  %3 = tosa.cast %w : (tensor<257x100xi32>) -> tensor<257x100xi8>
  %4 = tosa.bitwise_xor %0, %1 : (tensor<257x100xi8>, tensor<257x100xi8>) -> tensor<257x100xi8>
  %5 = tosa.add %4, %2 : (tensor<257x100xi8>, tensor<257x100xi8>) -> tensor<257x100xi8>
  %6 = tosa.sub %5, %3 : (tensor<257x100xi8>, tensor<257x100xi8>) -> tensor<257x100xi8>
  return %6 : tensor<257x100xi8>
}
