// A Llama-style decoder layer with a dynamic sequence length, assembled
// from the parts of the shared models (RMSNorm, multi-head self-attention
// with softmax, a SwiGLU feed-forward network): hidden 256, 4 heads of 64,
// FFN 512. The weights are arguments; `seq` is the bucketed dim.
func.func @decoder(%x: tensor<?x256xf32> {neuron.dim_names = ["seq", ""]},
                   %g1: tensor<256xf32>, %wq: tensor<256x256xf32>, %wk: tensor<256x256xf32>,
                   %wv: tensor<256x256xf32>, %wo: tensor<256x256xf32>, %g2: tensor<256xf32>,
                   %wg: tensor<256x512xf32>, %wu: tensor<256x512xf32>, %wd: tensor<512x256xf32>)
    -> tensor<?x256xf32> {
  // RMSNorm (as naive ops; fusion finds it).
  %sq = neuron.mul %x, %x : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc(#norm1)
  %ms = neuron.reduce_mean %sq axes = [1] keepdims : tensor<?x256xf32> -> tensor<?x1xf32> loc(#norm1)
  %eps = neuron.constant dense<1.0e-05> : tensor<1x1xf32>
  %v1 = neuron.add %ms, %eps : tensor<?x1xf32>, tensor<1x1xf32> -> tensor<?x1xf32> loc(#norm1)
  %r1 = neuron.rsqrt %v1 : tensor<?x1xf32> loc(#norm1)
  %n1 = neuron.mul %x, %r1 : tensor<?x256xf32>, tensor<?x1xf32> -> tensor<?x256xf32> loc(#norm1)
  %h1 = neuron.mul %n1, %g1 : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32> loc(#norm1)
  // Attention: 4 heads of 64.
  %q = neuron.matmul %h1, %wq : tensor<?x256xf32>, tensor<256x256xf32> -> tensor<?x256xf32> loc(#qproj)
  %k = neuron.matmul %h1, %wk : tensor<?x256xf32>, tensor<256x256xf32> -> tensor<?x256xf32> loc(#kproj)
  %v = neuron.matmul %h1, %wv : tensor<?x256xf32>, tensor<256x256xf32> -> tensor<?x256xf32> loc(#vproj)
  %q3 = neuron.reshape %q : tensor<?x256xf32> -> tensor<?x4x64xf32>
  %k3 = neuron.reshape %k : tensor<?x256xf32> -> tensor<?x4x64xf32>
  %v3 = neuron.reshape %v : tensor<?x256xf32> -> tensor<?x4x64xf32>
  %qh = neuron.transpose %q3 perm = [1, 0, 2] : tensor<?x4x64xf32> -> tensor<4x?x64xf32>
  %kh = neuron.transpose %k3 perm = [1, 0, 2] : tensor<?x4x64xf32> -> tensor<4x?x64xf32>
  %vh = neuron.transpose %v3 perm = [1, 0, 2] : tensor<?x4x64xf32> -> tensor<4x?x64xf32>
  %s = neuron.matmul %qh, %kh transpose_rhs : tensor<4x?x64xf32>, tensor<4x?x64xf32> -> tensor<4x?x?xf32> loc(#scores)
  %scale = neuron.constant dense<0.125> : tensor<1x1x1xf32>
  %ss = neuron.mul %s, %scale : tensor<4x?x?xf32>, tensor<1x1x1xf32> -> tensor<4x?x?xf32> loc(#scores)
  %mx = neuron.reduce_max %ss axes = [2] keepdims : tensor<4x?x?xf32> -> tensor<4x?x1xf32> loc(#softmax)
  %d = neuron.sub %ss, %mx : tensor<4x?x?xf32>, tensor<4x?x1xf32> -> tensor<4x?x?xf32> loc(#softmax)
  %e = neuron.exp %d : tensor<4x?x?xf32> loc(#softmax)
  %z = neuron.reduce_sum %e axes = [2] keepdims : tensor<4x?x?xf32> -> tensor<4x?x1xf32> loc(#softmax)
  %p = neuron.div %e, %z : tensor<4x?x?xf32>, tensor<4x?x1xf32> -> tensor<4x?x?xf32> loc(#softmax)
  %a = neuron.matmul %p, %vh : tensor<4x?x?xf32>, tensor<4x?x64xf32> -> tensor<4x?x64xf32> loc(#context)
  %at = neuron.transpose %a perm = [1, 0, 2] : tensor<4x?x64xf32> -> tensor<?x4x64xf32>
  %a2 = neuron.reshape %at : tensor<?x4x64xf32> -> tensor<?x256xf32>
  %o = neuron.matmul %a2, %wo : tensor<?x256xf32>, tensor<256x256xf32> -> tensor<?x256xf32> loc(#oproj)
  %x2 = neuron.add %x, %o : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc(#residual)
  // RMSNorm, then SwiGLU: down(silu(gate(h)) * up(h)).
  %sq2 = neuron.mul %x2, %x2 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc(#norm2)
  %ms2 = neuron.reduce_mean %sq2 axes = [1] keepdims : tensor<?x256xf32> -> tensor<?x1xf32> loc(#norm2)
  %v2 = neuron.add %ms2, %eps : tensor<?x1xf32>, tensor<1x1xf32> -> tensor<?x1xf32> loc(#norm2)
  %r2 = neuron.rsqrt %v2 : tensor<?x1xf32> loc(#norm2)
  %n2 = neuron.mul %x2, %r2 : tensor<?x256xf32>, tensor<?x1xf32> -> tensor<?x256xf32> loc(#norm2)
  %h2 = neuron.mul %n2, %g2 : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32> loc(#norm2)
  %gate = neuron.matmul %h2, %wg : tensor<?x256xf32>, tensor<256x512xf32> -> tensor<?x512xf32> loc(#gate)
  %up = neuron.matmul %h2, %wu : tensor<?x256xf32>, tensor<256x512xf32> -> tensor<?x512xf32> loc(#up)
  %sg = neuron.sigmoid %gate : tensor<?x512xf32> loc(#silu)
  %act = neuron.mul %gate, %sg : tensor<?x512xf32>, tensor<?x512xf32> -> tensor<?x512xf32> loc(#silu)
  %gu = neuron.mul %act, %up : tensor<?x512xf32>, tensor<?x512xf32> -> tensor<?x512xf32> loc(#swiglu)
  %dn = neuron.matmul %gu, %wd : tensor<?x512xf32>, tensor<512x256xf32> -> tensor<?x256xf32> loc(#down)
  %y = neuron.add %x2, %dn : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc(#residual)
  return %y : tensor<?x256xf32>
}
#norm1 = loc("input_layernorm"("decoder.py":20:8))
#qproj = loc("self_attn.q_proj"("decoder.py":24:12))
#kproj = loc("self_attn.k_proj"("decoder.py":25:12))
#vproj = loc("self_attn.v_proj"("decoder.py":26:12))
#scores = loc("self_attn.scores"("decoder.py":30:12))
#softmax = loc("self_attn.softmax"("decoder.py":31:12))
#context = loc("self_attn.context"("decoder.py":32:12))
#oproj = loc("self_attn.o_proj"("decoder.py":34:12))
#residual = loc("residual"("decoder.py":35:8))
#norm2 = loc("post_attention_layernorm"("decoder.py":37:8))
#gate = loc("mlp.gate_proj"("decoder.py":40:12))
#up = loc("mlp.up_proj"("decoder.py":41:12))
#silu = loc("mlp.act_fn"("decoder.py":42:12))
#swiglu = loc("mlp.mul"("decoder.py":42:30))
#down = loc("mlp.down_proj"("decoder.py":43:12))
