// RMSNorm over [128, 64] f32 twice on the same inputs: by the compiler
// (neuron.rmsnorm) and by a kernel written by hand as engine instructions
// (@rmsnorm_hand, the NKI-style version: load x and w, sum of squares on
// ScalarE, rsqrt(ss/64 + eps), (x * r) * w on VectorE, store).
func.func @compare(%x: tensor<128x64xf32>, %w: tensor<64xf32>)
    -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  %a = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06
      : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  %b = neuron.custom_kernel @rmsnorm_hand(%x, %w)
      : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  return %a, %b : tensor<128x64xf32>, tensor<128x64xf32>
}

nisa.program @rmsnorm_hand target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @w input 1 : tensor<64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "rmsnorm-hand" from "hand-written" {
    nisa.alloc @x0 sbuf 128x64xf32
    nisa.alloc @w0 sbuf 128x64xf32
    nisa.alloc @sq sbuf 128x64xf32 discard
    nisa.alloc @ss sbuf 128x1xf32
    nisa.alloc @r sbuf 128x1xf32
    nisa.alloc @y0 sbuf 128x64xf32
    nisa.dma_copy q0 @x0[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.dma_copy q1 @w0[0:128, 0, [1,64]] = @w[0, [0,128], [1,64]]
    nisa.activation square @sq[0:128, 0, [1,64]] = @x0[0:128, 0, [1,64]] accumulate @ss[0:128, 0, [1,1]]
    nisa.activation rsqrt @r[0:128, 0, [1,1]] = @ss[0:128, 0, [1,1]] scale 0.015625 bias 1.0e-6
    nisa.scalar_tensor_tensor vector @y0[0:128, 0, [1,64]] = (@x0[0:128, 0, [1,64]] multiply @r[0:128, 0, [1,1]]) multiply @w0[0:128, 0, [1,64]]
    nisa.dma_copy q2 @y[0, [64,128], [1,64]] = @y0[0:128, 0, [1,64]]
  }
}
