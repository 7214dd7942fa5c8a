// Every bitwise and shift op on i32, combined with wrapping adds so one
// output checks them all (rows span 2 partition tiles + 2, columns 2049).
func.func @bits(%a: tensor<258x2049xi32>, %b: tensor<258x2049xi32>, %s: tensor<258x2049xi32>) -> tensor<258x2049xi32> {
  %0 = tosa.bitwise_and %a, %b : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %1 = tosa.bitwise_or %a, %b : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %2 = tosa.bitwise_xor %0, %1 : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %3 = tosa.logical_left_shift %a, %s : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %4 = tosa.logical_right_shift %b, %s : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %5 = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %6 = tosa.bitwise_not %5 : (tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %7 = tosa.add %2, %3 : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %8 = tosa.add %4, %6 : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  %9 = tosa.sub %7, %8 : (tensor<258x2049xi32>, tensor<258x2049xi32>) -> tensor<258x2049xi32>
  return %9 : tensor<258x2049xi32>
}
