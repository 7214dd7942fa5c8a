// An all-reduce runs as a ring or, for small messages, a tree, whichever the
// hardware table's model says is faster; the lowering's remark names it.
// RUN: neuron-opt %s --neuron-lower=remarks=true -verify-diagnostics

// The remark names the algorithm: a 1 KiB sum over 8 cores of four trn1
// chips is a tree (6 steps against the ring's 14), 32 MiB a ring (each byte over a
// link 7/4 times, not twice).
func.func @algorithms(%s: tensor<256xf32>, %l: tensor<8388608xf32>) -> (tensor<256xf32>, tensor<8388608xf32>)
    attributes {neuron.tp = 8 : i64} {
  // expected-remark@+1 {{lowered as one all_reduce kernel: 1.0 KiB per core over 8 cores (over NeuronLink), tree estimate 9.0 us}}
  %a = neuron.all_reduce %s group = 8 : tensor<256xf32>
  // expected-remark@+1 {{lowered as one all_reduce kernel: 32.0 MiB per core over 8 cores (over NeuronLink), ring estimate 326.8 us}}
  %b = neuron.all_reduce %l group = 8 : tensor<8388608xf32>
  return %a, %b : tensor<256xf32>, tensor<8388608xf32>
}
