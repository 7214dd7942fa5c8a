// From iree-org/iree (commit b48a5955), Apache-2.0 WITH LLVM-exception. IREE test-only ops rewritten to arith.constant and generic-form check ops.
func.func @tensor_float() {
  %0 = arith.constant dense<[1.0, 0.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = arith.constant dense<[5.0, 6.0, -3.0, 8.0]> : tensor<4xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %result = tosa.mul %0, %1, %shift : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
  "check.expect_almost_eq_const"(%result) {expected = dense<[5.0, 0.0, -9.0, 32.0]> : tensor<4xf32>} : (tensor<4xf32>) -> ()
  return
}

func.func @tensor_int() {
  %0 = arith.constant dense<[1, 0, 3, 4]> : tensor<4xi32>
  %1 = arith.constant dense<[5, 6, -3, 8]> : tensor<4xi32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %result = tosa.mul %0, %1, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  "check.expect_eq_const"(%result) {expected = dense<[5, 0, -9, 32]> : tensor<4xi32>} : (tensor<4xi32>) -> ()
  return
}
