// Reads partitions 64..127 of @a, which nothing wrote.
nisa.program @main target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "exp" from "neuron.exp" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @b sbuf 128x64xf32 offset = 256
    nisa.dma_copy q0 @a[0:64, 0, [1,64]] = @x[0, [64,64], [1,64]] signal
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(q0 >= 1) signal
    nisa.dma_copy q1 @y[0, [64,128], [1,64]] = @b[0:128, 0, [1,64]] wait(scalar >= 1)
  }
}
