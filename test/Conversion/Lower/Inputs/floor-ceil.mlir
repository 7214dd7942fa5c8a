// floor and ceil on ScalarE: floor(x) * 3 + ceil(x), rows 129, columns 513.
func.func @fc(%x: tensor<129x513xf32>) -> tensor<129x513xf32> {
  %0 = tosa.floor %x : (tensor<129x513xf32>) -> tensor<129x513xf32>
  %1 = tosa.ceil %x : (tensor<129x513xf32>) -> tensor<129x513xf32>
  %2 = tosa.add %0, %0 : (tensor<129x513xf32>, tensor<129x513xf32>) -> tensor<129x513xf32>
  %3 = tosa.add %2, %0 : (tensor<129x513xf32>, tensor<129x513xf32>) -> tensor<129x513xf32>
  %4 = tosa.add %3, %1 : (tensor<129x513xf32>, tensor<129x513xf32>) -> tensor<129x513xf32>
  return %4 : tensor<129x513xf32>
}
