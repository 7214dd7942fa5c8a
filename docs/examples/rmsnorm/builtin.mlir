// The same RMSNorm through the built-in op: one kernel by construction.
func.func @rmsnorm(%x: tensor<1x2048x4096xf32>, %w: tensor<4096xf32>) -> tensor<1x2048x4096xf32> {
  %y = neuron.rmsnorm %x weight %w axes = [2] epsilon = 1.0e-06 : (tensor<1x2048x4096xf32>, tensor<4096xf32>) -> tensor<1x2048x4096xf32> loc(#rms)
  return %y : tensor<1x2048x4096xf32>
}
#rms = loc("aten::rms_norm"("model.py":20:12))
