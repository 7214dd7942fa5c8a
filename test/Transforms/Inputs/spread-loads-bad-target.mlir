// A program for an unknown target (test/Transforms/spread-loads.mlir).
nisa.program @badq target "trn9" {
  nisa.hbm @c const : tensor<64x64xf32> = dense<2.0> : tensor<64x64xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @w sbuf 64x64xf32
    nisa.dma_copy q0 @w[0:64, 0, [1,32]] = @c[0, [64,64], [1,32]]
    nisa.dma_copy q0 @w[0:64, 32, [1,32]] = @c[32, [64,64], [1,32]]
    nisa.activation exp @w[0:64, 0, [1,64]] = @w[0:64, 0, [1,64]]
  }
}
