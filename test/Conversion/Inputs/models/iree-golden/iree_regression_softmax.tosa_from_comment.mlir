// From iree-org/iree (commit b48a5955), Apache-2.0 WITH LLVM-exception. Taken from the header comment of a regression test; updated to TOSA 1.0 syntax.
func.func @softmax() {
  %0 = arith.constant dense<5.0> : tensor<12x128x128xf32>
  %red = tosa.reduce_max %0 {axis = 2 : i32} : (tensor<12x128x128xf32>) -> tensor<12x128x1xf32>
  %sub = tosa.sub %0, %red : (tensor<12x128x128xf32>, tensor<12x128x1xf32>) -> tensor<12x128x128xf32>
  %exp = tosa.exp %sub : (tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<12x128x128xf32>) -> tensor<12x128x1xf32>
  %rec = tosa.reciprocal %sum : (tensor<12x128x1xf32>) -> tensor<12x128x1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %mul = tosa.mul %exp, %rec, %shift : (tensor<12x128x128xf32>, tensor<12x128x1xf32>, tensor<1xi8>) -> tensor<12x128x128xf32>
  "check.expect_almost_eq_const"(%mul) {expected = dense<0.0078125> : tensor<12x128x128xf32>} : (tensor<12x128x128xf32>) -> ()
  return
}
