// RMSNorm as a PyTorch user writes it op by op, exported to TOSA:
//   y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
// on a [1, 2048, 4096] f32 activation. The locations carry the aten op
// names, as torch-mlir's exports do, so the profile speaks PyTorch.
func.func @rmsnorm(%x: tensor<1x2048x4096xf32>, %w: tensor<4096xf32>) -> tensor<1x2048x4096xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x2048x4096xf32>, tensor<1x2048x4096xf32>, tensor<1xi8>) -> tensor<1x2048x4096xf32> loc(#pow)
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2048x4096xf32>) -> tensor<1x2048x1xf32> loc(#mean)
  %inv = "tosa.const"() {values = dense<2.44140625e-04> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32> loc(#mean)
  %mean = tosa.mul %sum, %inv, %shift : (tensor<1x2048x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x2048x1xf32> loc(#mean)
  %eps = "tosa.const"() {values = dense<1.0e-06> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32> loc(#add)
  %var = tosa.add %mean, %eps : (tensor<1x2048x1xf32>, tensor<1x1x1xf32>) -> tensor<1x2048x1xf32> loc(#add)
  %r = tosa.rsqrt %var : (tensor<1x2048x1xf32>) -> tensor<1x2048x1xf32> loc(#rsqrt)
  %xn = tosa.mul %x, %r, %shift : (tensor<1x2048x4096xf32>, tensor<1x2048x1xf32>, tensor<1xi8>) -> tensor<1x2048x4096xf32> loc(#mul1)
  %shape = tosa.const_shape {values = dense<[1, 1, 4096]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %w, %shape : (tensor<4096xf32>, !tosa.shape<3>) -> tensor<1x1x4096xf32>
  %y = tosa.mul %xn, %w3, %shift : (tensor<1x2048x4096xf32>, tensor<1x1x4096xf32>, tensor<1xi8>) -> tensor<1x2048x4096xf32> loc(#mul2)
  return %y : tensor<1x2048x4096xf32>
}
#pow = loc("aten::pow"("model.py":12:16))
#mean = loc("aten::mean"("model.py":12:27))
#add = loc("aten::add"("model.py":12:45))
#rsqrt = loc("aten::rsqrt"("model.py":12:12))
#mul1 = loc("aten::mul"("model.py":12:8))
#mul2 = loc("aten::mul"("model.py":12:55))
