// tosa.table in both forms: i8 (256 entries) and i16 (513 entries,
// interpolated to i32), on 130 x 300 inputs.
func.func @table8(%x: tensor<130x300xi8>, %t: tensor<256xi8>) -> tensor<130x300xi8> {
  %0 = tosa.table %x, %t : (tensor<130x300xi8>, tensor<256xi8>) -> tensor<130x300xi8>
  return %0 : tensor<130x300xi8>
}
func.func @table16(%x: tensor<130x300xi16>, %t: tensor<513xi16>) -> tensor<130x300xi32> {
  %0 = tosa.table %x, %t : (tensor<130x300xi16>, tensor<513xi16>) -> tensor<130x300xi32>
  return %0 : tensor<130x300xi32>
}
