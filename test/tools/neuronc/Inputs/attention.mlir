// Attention as TOSA exporters write it (test/Conversion/Lower/Inputs/gen_attention.py --heads 2 --q 4 --kv 6 --dim 8 --mask input).
func.func @attention(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %mask: tensor<4x6xf32>) -> tensor<1x2x4x8xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %scale = "tosa.const"() {values = dense<0.3535533905932738> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %t1 = tosa.const_shape {values = dense<[2, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t2 = tosa.reshape %q, %t1 : (tensor<1x2x4x8xf32>, !tosa.shape<3>) -> tensor<2x4x8xf32>
  %t3 = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x6x8xf32>) -> tensor<1x2x8x6xf32>
  %t4 = tosa.const_shape {values = dense<[2, 8, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t5 = tosa.reshape %t3, %t4 : (tensor<1x2x8x6xf32>, !tosa.shape<3>) -> tensor<2x8x6xf32>
  %t6 = tosa.matmul %t2, %t5, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x6xf32>
  %t7 = tosa.mul %t6, %scale, %shift : (tensor<2x4x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x6xf32>
  %t8 = tosa.const_shape {values = dense<[1, 4, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t9 = tosa.reshape %mask, %t8 : (tensor<4x6xf32>, !tosa.shape<3>) -> tensor<1x4x6xf32>
  %t10 = tosa.add %t7, %t9 : (tensor<2x4x6xf32>, tensor<1x4x6xf32>) -> tensor<2x4x6xf32>
  %t11 = tosa.reduce_max %t10 {axis = 2 : i32} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %t12 = tosa.sub %t10, %t11 : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %t13 = tosa.exp %t12 : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %t14 = tosa.reduce_sum %t13 {axis = 2 : i32} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %t15 = tosa.reciprocal %t14 : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %t16 = tosa.mul %t13, %t15, %shift : (tensor<2x4x6xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x6xf32>
  %t17 = tosa.const_shape {values = dense<[2, 6, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t18 = tosa.reshape %v, %t17 : (tensor<1x2x6x8xf32>, !tosa.shape<3>) -> tensor<2x6x8xf32>
  %t19 = tosa.matmul %t16, %t18, %zp, %zp : (tensor<2x4x6xf32>, tensor<2x6x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  %t20 = tosa.const_shape {values = dense<[1, 2, 4, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t21 = tosa.reshape %t19, %t20 : (tensor<2x4x8xf32>, !tosa.shape<4>) -> tensor<1x2x4x8xf32>
  return %t21 : tensor<1x2x4x8xf32>
}
