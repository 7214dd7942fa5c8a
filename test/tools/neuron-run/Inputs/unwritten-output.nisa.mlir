// Writes rows 0..127 of the 256-row output and nothing else.
nisa.program @main target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<256x64xf32>
  nisa.kernel @k0 "copy" from "neuron.add" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    nisa.dma_copy q1 @y[0, [64,128], [1,64]] = @a[0:128, 0, [1,64]] wait(q0 >= 1)
  }
}
