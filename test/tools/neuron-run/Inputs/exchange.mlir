// Core r holds slab r of a 4x8x6 tensor (the runtime splits the caller's
// whole tensor). all_to_all: core j receives rows 2j, 2j+1 of every slab,
// slab r in columns 6r..6r+5; send_recv (cyclic): core j receives exp of
// the slab of core j-1 (core 0: core 3's).
func.func @exchange(%x: tensor<1x8x6xf32> {neuron.shard = array<i64: 0, 4>}) -> (tensor<1x2x24xf32>, tensor<1x8x6xf32>)
    attributes {neuron.tp = 4 : i64} {
  %y = neuron.all_to_all %x split = 1 concat = 2 group = 4 : tensor<1x8x6xf32> -> tensor<1x2x24xf32>
  %e = neuron.exp %x : tensor<1x8x6xf32>
  %z = neuron.send_recv %e shift = 1 group = 4 cyclic : tensor<1x8x6xf32>
  return %y, %z : tensor<1x2x24xf32>, tensor<1x8x6xf32>
}
