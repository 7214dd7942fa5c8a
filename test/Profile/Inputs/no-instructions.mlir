// A program that runs no device instruction: it returns nothing.
func.func @nothing(%x: tensor<4xf32>) {
  return
}
