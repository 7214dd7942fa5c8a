// RMSNorm over 4096 rows of 4096 f32, written as the naive ops an exporter
// emits (TOSA): x * rsqrt(mean(x*x) + eps) * w. Fused, it is one kernel;
// at -O0 every op is its own kernel and round-trips HBM.
func.func @rmsnorm(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %x, %x, %shift : (tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<1xi8>) -> tensor<4096x4096xf32>
  %sum = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<4096x4096xf32>) -> tensor<4096x1xf32>
  %inv_n = "tosa.const"() <{values = dense<2.44140625e-04> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<4096x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4096x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-06> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %var = tosa.add %mean, %eps : (tensor<4096x1xf32>, tensor<1x1xf32>) -> tensor<4096x1xf32>
  %r = tosa.rsqrt %var : (tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %n = tosa.mul %x, %r, %shift : (tensor<4096x4096xf32>, tensor<4096x1xf32>, tensor<1xi8>) -> tensor<4096x4096xf32>
  %shape = tosa.const_shape {values = dense<[1, 4096]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %w2 = tosa.reshape %w, %shape : (tensor<4096xf32>, !tosa.shape<2>) -> tensor<1x4096xf32>
  %y = tosa.mul %n, %w2, %shift : (tensor<4096x4096xf32>, tensor<1x4096xf32>, tensor<1xi8>) -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
