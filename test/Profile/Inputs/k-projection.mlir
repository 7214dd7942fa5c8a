// Llama-7B's K projection in prefill (512 tokens), bf16, the weight [out, in]
// transposed before the matmul as torch-mlir writes nn.Linear. Used by
// verdicts.test. The abs of one row after it keeps the projection from
// being the program's last kernel (whose last stores take every queue).
func.func @k_proj(%x: tensor<1x512x4096xbf16>, %w: tensor<1024x4096xbf16>) -> (tensor<1x512x1024xf32>, tensor<1x1x1024xf32>) {
  %t = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<1024x4096xbf16>) -> tensor<4096x1024xbf16>
  %s = tosa.const_shape {values = dense<[1, 4096, 1024]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %t, %s : (tensor<4096x1024xbf16>, !tosa.shape<3>) -> tensor<1x4096x1024xbf16>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
  %y = tosa.matmul %x, %r, %z, %z : (tensor<1x512x4096xbf16>, tensor<1x4096x1024xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x512x1024xf32>
  %start = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[1, 1, 1024]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %row = tosa.slice %y, %start, %size : (tensor<1x512x1024xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x1x1024xf32>
  %a = tosa.abs %row : (tensor<1x1x1024xf32>) -> tensor<1x1x1024xf32>
  return %y, %a : tensor<1x512x1024xf32>, tensor<1x1x1024xf32>
}
