// From iree-org/iree (commit b48a5955), Apache-2.0 WITH LLVM-exception. IREE test-only ops rewritten to arith.constant and generic-form check ops.
func.func @tensor_float() {
  %0 = arith.constant dense<[16.0, 4.0, 9.0, 1.0]> : tensor<4xf32>
  %result = tosa.rsqrt %0 : (tensor<4xf32>) -> tensor<4xf32>
  "check.expect_almost_eq_const"(%result) {expected = dense<[0.25, 0.5, 0.3333, 1.0]> : tensor<4xf32>} : (tensor<4xf32>) -> ()
  return
}
