"""Writes reductions that keep the innermost dim (reduce_rows.mlir: over the
heads of [2, 8, 64, 64] attention weights the sum divided by the head count
as nn.MultiheadAttention averages its weights, the mean, the max of an exp;
the mean over the sequence of [4, 130, 768] hidden states, two row tiles)
and their inputs and numpy float64 results as .npy files into DIR.

usage: reduce_rows.py DIR
"""
import os
import sys

import numpy as np

PROGRAM = """
func.func @heads_avg(%x: tensor<2x8x64x64xf32>) -> tensor<2x64x64xf32> {
  %s = neuron.reduce_sum %x axes = [1] : tensor<2x8x64x64xf32> -> tensor<2x64x64xf32>
  %c = neuron.constant dense<8.0> : tensor<f32>
  %avg = neuron.div %s, %c : tensor<2x64x64xf32>, tensor<f32> -> tensor<2x64x64xf32>
  return %avg : tensor<2x64x64xf32>
}

func.func @heads_mean(%x: tensor<2x8x64x64xf32>) -> tensor<2x64x64xf32> {
  %m = neuron.reduce_mean %x axes = [1] : tensor<2x8x64x64xf32> -> tensor<2x64x64xf32>
  return %m : tensor<2x64x64xf32>
}

func.func @heads_max(%x: tensor<2x8x64x64xf32>) -> tensor<2x1x64x64xf32> {
  %e = neuron.exp %x : tensor<2x8x64x64xf32>
  %mx = neuron.reduce_max %e axes = [1] keepdims : tensor<2x8x64x64xf32> -> tensor<2x1x64x64xf32>
  return %mx : tensor<2x1x64x64xf32>
}

func.func @seq_mean(%x: tensor<4x130x768xf32>) -> tensor<4x768xf32> {
  %m = neuron.reduce_mean %x axes = [1] : tensor<4x130x768xf32> -> tensor<4x768xf32>
  return %m : tensor<4x768xf32>
}
"""


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "reduce_rows.mlir"), "w") as f:
        f.write(PROGRAM)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 8, 64, 64)).astype(np.float32)
    np.save(os.path.join(out, "heads_x.npy"), x)
    x64 = x.astype(np.float64)
    np.save(os.path.join(out, "heads_avg.npy"), (x64.sum(1) / 8).astype(np.float32))
    np.save(os.path.join(out, "heads_mean.npy"), x64.mean(1).astype(np.float32))
    np.save(os.path.join(out, "heads_max.npy"), np.exp(x64).max(1, keepdims=True).astype(np.float32))
    h = rng.standard_normal((4, 130, 768)).astype(np.float32)
    np.save(os.path.join(out, "seq_x.npy"), h)
    np.save(os.path.join(out, "seq_mean.npy"), h.astype(np.float64).mean(1).astype(np.float32))


if __name__ == "__main__":
    main()
