// Two hand-written kernels that the backend refuses after inlining: one
// overwrites a tile nobody has read yet (the second load clobbers the
// first), one needs more SBUF than a partition has once the compiler's own
// tiles are there too.
func.func @lost_write(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %y = neuron.custom_kernel @clobber(%x) : (tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
nisa.program @clobber target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "clobber" from "hand-written" {
    nisa.alloc @a sbuf 128x64xf32
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.dma_copy q1 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.dma_copy q2 @y[0, [64,128], [1,64]] = @a[0:128, 0, [1,64]]
  }
}

func.func @too_big(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %y = neuron.custom_kernel @hog(%x) : (tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
nisa.program @hog target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "hog" from "hand-written" {
    nisa.alloc @a sbuf 128x40000xf32
    nisa.alloc @b sbuf 128x40000xf32
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.dma_copy q1 @b[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    nisa.tensor_tensor vector add @a[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]], @b[0:128, 0, [1,64]]
    nisa.dma_copy q2 @y[0, [64,128], [1,64]] = @a[0:128, 0, [1,64]]
  }
}
