// Transposes big enough to go through SBUF and TensorE: last two dims (a
// batched f32 one with partial row and column tiles, a bf16 one of 4100
// columns), and permutations that move the innermost dim elsewhere: the
// keys of a sequence-first attention ([S, H, D] to [H, D, S], one 2-D
// transpose once H and D merge), a batched head block ([B, S, H, D] to
// [B, H, D, S], rows strided by H·D), and a 4-D permutation that merges
// nothing ([3, 5, 130, 200] by [3, 1, 0, 2]: two batch dims, partial tiles).
func.func @t(%x: tensor<3x300x700xf32>, %y: tensor<129x4100xbf16>, %k: tensor<128x16x64xf32>,
             %h: tensor<2x64x2x64xbf16>, %w: tensor<3x5x130x200xf32>)
    -> (tensor<3x700x300xf32>, tensor<4100x129xbf16>, tensor<16x64x128xf32>,
        tensor<2x2x64x64xbf16>, tensor<200x5x3x130xf32>) {
  %a = neuron.transpose %x perm = [0, 2, 1] : tensor<3x300x700xf32> -> tensor<3x700x300xf32>
  %b = neuron.transpose %y perm = [1, 0] : tensor<129x4100xbf16> -> tensor<4100x129xbf16>
  %c = neuron.transpose %k perm = [1, 2, 0] : tensor<128x16x64xf32> -> tensor<16x64x128xf32>
  %d = neuron.transpose %h perm = [0, 2, 3, 1] : tensor<2x64x2x64xbf16> -> tensor<2x2x64x64xbf16>
  %e = neuron.transpose %w perm = [3, 1, 0, 2] : tensor<3x5x130x200xf32> -> tensor<200x5x3x130xf32>
  return %a, %b, %c, %d, %e : tensor<3x700x300xf32>, tensor<4100x129xbf16>, tensor<16x64x128xf32>,
                              tensor<2x2x64x64xbf16>, tensor<200x5x3x130xf32>
}
