#!/usr/bin/env python3
"""Writes one Llama-style decoder layer in TOSA 1.0 as torch-mlir exports it.

RMSNorm, Q/K/V projections with the weights [out, in] transposed before each
matmul (nn.Linear), RoPE (rotate-half with slice/negate/concat), grouped-query
attention (repeat_kv as a broadcast add of zeros, as buddy-mlir's exports
write it), an additive causal mask, softmax with reciprocal, the output
projection, residuals, and a SwiGLU FFN. Weights and the KV cache are
arguments, so the executable's size is code.

usage: gen_llama_layer.py [--seq S] [--cache C] [--hidden H] [--heads NH]
                          [--kv-heads KV] [--head-dim D] [--ffn F]
                          [--dtype f32|bf16]
  --cache C > 0 writes a decode step: S query tokens attend over C cached
  keys/values (inputs) plus their own. With --dtype bf16 the weights are
  bf16 arguments and each matmul casts its activation to bf16 and
  accumulates in f32, as a bf16 export does.
Defaults: Llama-2-7B's layer with 8 KV heads (hidden 4096, 32 heads, head dim
128, FFN 14336), seq 128, no cache, f32.

--reference DIR [--seed N] writes random inputs (DIR/in0.npy, ...) and the
layer's output computed by numpy in f64 (DIR/expected.npy), for f32 layers.
The script also prints, with --bound TARGET [--auto-cast] (f32 weights
computed in bf16), the layer's lower bound on that
target as JSON: FLOPs / TensorE peak and the bytes that must move once
(weights, inputs, outputs, the cache) / the memory roofline.
"""
import json
import sys

args = sys.argv[1:]


def opt(name, default, conv=int):
    return conv(args[args.index(name) + 1]) if name in args else default


S = opt("--seq", 128)
C = opt("--cache", 0)
H = opt("--hidden", 4096)
NH = opt("--heads", 32)
KV = opt("--kv-heads", 8)
D = opt("--head-dim", 128)
F = opt("--ffn", 14336)
WT = opt("--dtype", "f32", str)
T = C + S  # keys attended to
R = NH // KV
assert NH % KV == 0 and D % 2 == 0


def ty(*dims, e="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, dims)), e)


if "--reference" in args:
    # Inputs (in0.npy ...) and numpy's output (expected.npy) for an f32
    # layer, written into the directory given: an independent reference.
    import os
    import numpy as np
    assert WT == "f32", "--reference computes in f32 only"
    out_dir = opt("--reference", ".", str)
    rng = np.random.default_rng(opt("--seed", 1))
    f = np.float32
    x = rng.standard_normal((1, S, H)).astype(f)
    g1, g2 = (1 + 0.1 * rng.standard_normal(H)).astype(f), (1 + 0.1 * rng.standard_normal(H)).astype(f)
    w = lambda o, i: (rng.standard_normal((o, i)) / np.sqrt(i)).astype(f)
    wq, wk, wv, wo = w(NH * D, H), w(KV * D, H), w(KV * D, H), w(H, NH * D)
    wg, wu, wd = w(F, H), w(F, H), w(H, F)
    pos = np.arange(C, C + S)[:, None] / 10000 ** (np.arange(0, D, 2) / D)[None, :]
    ang = np.concatenate([pos, pos], axis=1)
    cos, sin = np.cos(ang).astype(f), np.sin(ang).astype(f)
    mask = np.where(np.arange(T)[None, :] <= np.arange(C, C + S)[:, None], 0.0, -1e4).astype(f)
    ins = [x, g1, g2, wq, wk, wv, wo, wg, wu, wd, cos, sin, mask]
    if C:
        ins += [rng.standard_normal((1, KV, C, D)).astype(f), rng.standard_normal((1, KV, C, D)).astype(f)]
    for i, a in enumerate(ins):
        np.save(os.path.join(out_dir, "in%d.npy" % i), a)
    d = np.float64
    rms = lambda v, g: v / np.sqrt((v * v).sum(-1, keepdims=True) / H + 1e-5) * g
    def rope(v):
        rot = np.concatenate([-v[..., D // 2:], v[..., :D // 2]], axis=-1)
        return v * cos.astype(d) + rot * sin.astype(d)
    split = lambda v, n: v.reshape(1, S, n, D).transpose(0, 2, 1, 3)
    h = rms(x.astype(d), g1)
    q, k, v = rope(split(h @ wq.T, NH)), rope(split(h @ wk.T, KV)), split(h @ wv.T, KV)
    if C:
        k = np.concatenate([ins[13], k], axis=2)
        v = np.concatenate([ins[14], v], axis=2)
    k, v = np.repeat(k, R, axis=1), np.repeat(v, R, axis=1)
    sc = q[0] @ k[0].transpose(0, 2, 1) * D ** -0.5 + mask[None]
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    att = (p @ v[0])[None].transpose(0, 2, 1, 3).reshape(1, S, NH * D)
    h1 = x + att @ wo.T
    h2 = rms(h1, g2)
    gate, up = h2 @ wg.T, h2 @ wu.T
    y = h1 + (gate / (1 + np.exp(-gate)) * up) @ wd.T
    np.save(os.path.join(out_dir, "expected.npy"), y.astype(f))
    print(len(ins))
    sys.exit(0)

if "--bound" in args:
    # Matmul FLOPs: projections, attention scores and values, FFN.
    flops = 2 * S * H * (NH * D + 2 * KV * D) + 2 * S * NH * D * H + 3 * 2 * S * H * F
    flops += 2 * 2 * NH * S * T * D
    wbytes = 2 if WT == "bf16" else 4
    weights = H * (NH * D + 2 * KV * D) + NH * D * H + 3 * H * F
    moved = weights * wbytes + 2 * S * H * 4 + 2 * H * 4 + 2 * S * D * 4 + S * T * 4
    moved += 2 * KV * C * D * 4
    from_table = {"trn1": (91.8e12, 272e9), "trn2": (78.6e12, 362e9)}
    peak, bw = from_table[opt("--bound", "trn1", str)]
    if WT == "f32" and "--auto-cast" not in args:
        peak /= 4  # fp32 matmuls run at a quarter of the bf16 peak
    print(json.dumps({"flops": flops, "bytes": moved, "compute_us": flops / peak * 1e6,
                      "memory_us": moved / bw * 1e6,
                      "bound_us": max(flops / peak, moved / bw) * 1e6}))
    sys.exit(0)

lines = []
e = lines.append
name_counter = [0]


def v(prefix="t"):
    name_counter[0] += 1
    return "%%%s%d" % (prefix, name_counter[0])


def shape(*dims):
    n = v("s")
    e("  %s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
      % (n, ", ".join(map(str, dims)), len(dims), len(dims)))
    return n


def reshape(x, src, *dims):
    n = v()
    e("  %s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s"
      % (n, x, shape(*dims), src, len(dims), ty(*dims)))
    return n


def binary(op, a, ta, b, tb, tout):
    n = v()
    if op == "mul":
        e("  %s = tosa.mul %s, %s, %%shift : (%s, %s, tensor<1xi8>) -> %s" % (n, a, b, ta, tb, tout))
    else:
        e("  %s = tosa.%s %s, %s : (%s, %s) -> %s" % (n, op, a, b, ta, tb, tout))
    return n


def unary(op, a, t):
    n = v()
    e("  %s = tosa.%s %s : (%s) -> %s" % (n, op, a, t, t))
    return n


def transpose(x, src_dims, perm, e_=None):
    n = v()
    out = [src_dims[p] for p in perm]
    el = e_ or "f32"
    e("  %s = tosa.transpose %s {perms = array<i32: %s>} : (%s) -> %s"
      % (n, x, ", ".join(map(str, perm)), ty(*src_dims, e=el), ty(*out, e=el)))
    return n


def rmsnorm(x, g):
    t3 = ty(1, S, H)
    sq = binary("mul", x, t3, x, t3, t3)
    ss = v()
    e("  %s = tosa.reduce_sum %s {axis = 2 : i32} : (%s) -> %s" % (ss, sq, t3, ty(1, S, 1)))
    ms = binary("mul", ss, ty(1, S, 1), "%invh", ty(1, 1, 1), ty(1, S, 1))
    va = binary("add", ms, ty(1, S, 1), "%eps", ty(1, 1, 1), ty(1, S, 1))
    rs = unary("rsqrt", va, ty(1, S, 1))
    nx = binary("mul", x, t3, rs, ty(1, S, 1), t3)
    g3 = reshape(g, ty(H), 1, 1, H)
    return binary("mul", nx, t3, g3, ty(1, 1, H), t3)


def linear(x, w, n_out, n_in):
    """x [1, S, n_in] @ w[n_out, n_in]^T -> [1, S, n_out] f32."""
    wt = transpose(w, [n_out, n_in], [1, 0], WT)
    n = v()
    w3 = v()
    e("  %s = tosa.reshape %s, %s : (%s, !tosa.shape<3>) -> %s"
      % (w3, wt, shape(1, n_in, n_out), ty(n_in, n_out, e=WT), ty(1, n_in, n_out, e=WT)))
    xin = x
    if WT != "f32":
        xin = v()
        e("  %s = tosa.cast %s : (%s) -> %s" % (xin, x, ty(1, S, n_in), ty(1, S, n_in, e=WT)))
    zp = "%zpw" if WT != "f32" else "%zp"
    e("  %s = tosa.matmul %s, %s, %s, %s : (%s, %s, %s, %s) -> %s"
      % (n, xin, w3, zp, zp, ty(1, S, n_in, e=WT), ty(1, n_in, n_out, e=WT),
         "tensor<1x%s>" % WT, "tensor<1x%s>" % WT, ty(1, S, n_out)))
    return n


def heads(x, n):
    """[1, S, n*D] -> [1, n, S, D]."""
    x4 = reshape(x, ty(1, S, n * D), 1, S, n, D)
    return transpose(x4, [1, S, n, D], [0, 2, 1, 3])


def rope(x, n):
    t4 = ty(1, n, S, D)
    half = ty(1, n, S, D // 2)
    lo, hi = v(), v()
    e("  %s = tosa.slice %s, %s, %s : (%s, !tosa.shape<4>, !tosa.shape<4>) -> %s"
      % (lo, x, shape(0, 0, 0, 0), shape(1, n, S, D // 2), t4, half))
    e("  %s = tosa.slice %s, %s, %s : (%s, !tosa.shape<4>, !tosa.shape<4>) -> %s"
      % (hi, x, shape(0, 0, 0, D // 2), shape(1, n, S, D // 2), t4, half))
    nh = v()
    e("  %s = tosa.negate %s, %%zp, %%zp : (%s, tensor<1xf32>, tensor<1xf32>) -> %s" % (nh, hi, half, half))
    rot = v()
    e("  %s = tosa.concat %s, %s {axis = 3 : i32} : (%s, %s) -> %s" % (rot, nh, lo, half, half, t4))
    a = binary("mul", x, t4, "%cos4", ty(1, 1, S, D), t4)
    b = binary("mul", rot, t4, "%sin4", ty(1, 1, S, D), t4)
    return binary("add", a, t4, b, t4, t4)


def repeat_kv(x):
    """[1, KV, T, D] -> [1, NH, T, D] by a broadcast add of zeros."""
    if R == 1:
        return x
    x5 = reshape(x, ty(1, KV, T, D), 1, KV, 1, T, D)
    z = v()
    e('  %s = "tosa.const"() {values = dense<0.0> : %s} : () -> %s' % (z, ty(1, KV, R, T, D), ty(1, KV, R, T, D)))
    b = binary("add", x5, ty(1, KV, 1, T, D), z, ty(1, KV, R, T, D), ty(1, KV, R, T, D))
    return reshape(b, ty(1, KV, R, T, D), 1, NH, T, D)


params = [("x", ty(1, S, H)), ("g1", ty(H)), ("g2", ty(H)),
          ("wq", ty(NH * D, H, e=WT)), ("wk", ty(KV * D, H, e=WT)), ("wv", ty(KV * D, H, e=WT)),
          ("wo", ty(H, NH * D, e=WT)), ("wg", ty(F, H, e=WT)), ("wu", ty(F, H, e=WT)),
          ("wd", ty(H, F, e=WT)), ("cos", ty(S, D)), ("sin", ty(S, D)), ("mask", ty(S, T))]
if C:
    params += [("kc", ty(1, KV, C, D)), ("vc", ty(1, KV, C, D))]
e("func.func @layer(%s) -> %s {" % (", ".join("%%%s: %s" % p for p in params), ty(1, S, H)))
e('  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>')
e('  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>')
if WT != "f32":
    e('  %%zpw = "tosa.const"() {values = dense<0.0> : tensor<1x%s>} : () -> tensor<1x%s>' % (WT, WT))
e('  %%invh = "tosa.const"() {values = dense<%r> : %s} : () -> %s' % (1.0 / H, ty(1, 1, 1), ty(1, 1, 1)))
e('  %%eps = "tosa.const"() {values = dense<1.0e-05> : %s} : () -> %s' % (ty(1, 1, 1), ty(1, 1, 1)))
e('  %%scale = "tosa.const"() {values = dense<%r> : %s} : () -> %s' % (D ** -0.5, ty(1, 1, 1), ty(1, 1, 1)))
n = v()
e("  %%cos4 = tosa.reshape %%cos, %s : (%s, !tosa.shape<4>) -> %s" % (shape(1, 1, S, D), ty(S, D), ty(1, 1, S, D)))
e("  %%sin4 = tosa.reshape %%sin, %s : (%s, !tosa.shape<4>) -> %s" % (shape(1, 1, S, D), ty(S, D), ty(1, 1, S, D)))

h = rmsnorm("%x", "%g1")
q = rope(heads(linear(h, "%wq", NH * D, H), NH), NH)
k = rope(heads(linear(h, "%wk", KV * D, H), KV), KV)
vv = heads(linear(h, "%wv", KV * D, H), KV)
if C:
    k2, v2 = v(), v()
    e("  %s = tosa.concat %%kc, %s {axis = 2 : i32} : (%s, %s) -> %s" % (k2, k, ty(1, KV, C, D), ty(1, KV, S, D), ty(1, KV, T, D)))
    e("  %s = tosa.concat %%vc, %s {axis = 2 : i32} : (%s, %s) -> %s" % (v2, vv, ty(1, KV, C, D), ty(1, KV, S, D), ty(1, KV, T, D)))
    k, vv = k2, v2
k = repeat_kv(k)
vv = repeat_kv(vv)
q3 = reshape(q, ty(1, NH, S, D), NH, S, D)
kt = transpose(k, [1, NH, T, D], [0, 1, 3, 2])
kt3 = reshape(kt, ty(1, NH, D, T), NH, D, T)
sc = v()
e("  %s = tosa.matmul %s, %s, %%zp, %%zp : (%s, %s, tensor<1xf32>, tensor<1xf32>) -> %s"
  % (sc, q3, kt3, ty(NH, S, D), ty(NH, D, T), ty(NH, S, T)))
sc2 = binary("mul", sc, ty(NH, S, T), "%scale", ty(1, 1, 1), ty(NH, S, T))
m3 = reshape("%mask", ty(S, T), 1, S, T)
sc3 = binary("add", sc2, ty(NH, S, T), m3, ty(1, S, T), ty(NH, S, T))
mx = v()
e("  %s = tosa.reduce_max %s {axis = 2 : i32} : (%s) -> %s" % (mx, sc3, ty(NH, S, T), ty(NH, S, 1)))
df = binary("sub", sc3, ty(NH, S, T), mx, ty(NH, S, 1), ty(NH, S, T))
ex = unary("exp", df, ty(NH, S, T))
sm = v()
e("  %s = tosa.reduce_sum %s {axis = 2 : i32} : (%s) -> %s" % (sm, ex, ty(NH, S, T), ty(NH, S, 1)))
rc = unary("reciprocal", sm, ty(NH, S, 1))
pr = binary("mul", ex, ty(NH, S, T), rc, ty(NH, S, 1), ty(NH, S, T))
v3 = reshape(vv, ty(1, NH, T, D), NH, T, D)
at = v()
e("  %s = tosa.matmul %s, %s, %%zp, %%zp : (%s, %s, tensor<1xf32>, tensor<1xf32>) -> %s"
  % (at, pr, v3, ty(NH, S, T), ty(NH, T, D), ty(NH, S, D)))
a4 = reshape(at, ty(NH, S, D), 1, NH, S, D)
a4t = transpose(a4, [1, NH, S, D], [0, 2, 1, 3])
a3 = reshape(a4t, ty(1, S, NH, D), 1, S, NH * D)
o = linear(a3, "%wo", H, NH * D)
h1 = binary("add", "%x", ty(1, S, H), o, ty(1, S, H), ty(1, S, H))
h2 = rmsnorm(h1, "%g2")
g = linear(h2, "%wg", F, H)
u = linear(h2, "%wu", F, H)
sg = unary("sigmoid", g, ty(1, S, F))
si = binary("mul", g, ty(1, S, F), sg, ty(1, S, F), ty(1, S, F))
gu = binary("mul", si, ty(1, S, F), u, ty(1, S, F), ty(1, S, F))
dn = linear(gu, "%wd", H, F)
out = binary("add", h1, ty(1, S, H), dn, ty(1, S, H), ty(1, S, H))
e("  return %s : %s" % (out, ty(1, S, H)))
e("}")
print("\n".join(lines))
