"""Writes scaled dot-product attention as TOSA exporters emit it (rank-3
tosa.matmul over merged batch and heads, kᵀ by tosa.transpose, repeat_kv by
a broadcast add of zeros for grouped-query attention, softmax as
max/sub/exp/sum/reciprocal/mul), with its inputs and numpy's f64 reference.

usage: gen_attention.py DIR [--batch B] [--heads H] [--kv-heads G] [--q M]
       [--kv N] [--dim D] [--vdim DV]
       [--mask none|input|per-head|causal-const|key-padding|key-padding-bool|
               key-padding-shared]
       [--causal-offset C] [--scale-on scores|query] [--dtype f32|bf16] [--seed S]
       [--key-transposed] [--no-data]
Writes DIR/m.mlir, DIR/in*.npy (q, k, v[, mask]) and DIR/expected.npy. With
--dtype bf16, q/k/v are cast to bf16 in the program (f32 inputs) and the
reference uses the same bf16-rounded values. With --key-transposed the key
input is kᵀ, [B, G, D, N], as some exporters pass it. With --no-data only the
program is written (for timing runs at sizes numpy's reference would take
long to compute). The key-padding masks are one row per batch and head,
[B·H, 1, N], the same for every query: floats added to the scores, or booleans
that a select turns into -inf (padded key) and 0 (key 0 is never padded);
key-padding-shared is one float row [1, 1, N] for every batch and head.
"""
import argparse
import os

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--batch", type=int, default=1)
p.add_argument("--heads", type=int, default=2)
p.add_argument("--kv-heads", type=int, default=0)
p.add_argument("--q", type=int, default=128)
p.add_argument("--kv", type=int, default=0)
p.add_argument("--dim", type=int, default=64)
p.add_argument("--vdim", type=int, default=0)
p.add_argument("--mask", default="none")
p.add_argument("--causal-offset", type=int, default=None)
p.add_argument("--scale-on", default="scores")
p.add_argument("--dtype", default="f32")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--key-transposed", action="store_true")
p.add_argument("--no-data", action="store_true")
a = p.parse_args()
B, H, M, D = a.batch, a.heads, a.q, a.dim
G = a.kv_heads or H
N = a.kv or M
DV = a.vdim or D
R = H // G
C = a.causal_offset if a.causal_offset is not None else N - M
rng = np.random.default_rng(a.seed)
f = np.float32
scale = D ** -0.5
visible = np.arange(N)[None, :] <= np.arange(M)[:, None] + C
if a.mask == "causal-const":
    mask = np.where(visible, 0.0, -1e9).astype(f)
if not a.no_data:
    q = rng.standard_normal((B, H, M, D)).astype(f)
    k = rng.standard_normal((B, G, N, D)).astype(f)
    v = rng.standard_normal((B, G, N, DV)).astype(f)
    ins = [q, np.ascontiguousarray(k.transpose(0, 1, 3, 2)) if a.key_transposed else k, v]
    if a.mask == "input":
        mask = rng.uniform(-2, 0, (M, N)).astype(f)
        mask[~visible] = -1e4
        ins.append(mask)
    elif a.mask == "per-head":
        mask = rng.uniform(-2, 0, (B, H, M, N)).astype(f)
        ins.append(mask)
    elif a.mask in ("key-padding", "key-padding-shared"):
        mask = rng.uniform(-2, 0, (B * H if a.mask == "key-padding" else 1, 1, N)).astype(f)
        mask[:, :, rng.random(N) < 0.25] = -1e4
        ins.append(mask)
    elif a.mask == "key-padding-bool":
        pad = rng.random((B * H, 1, N)) < 0.3
        pad[:, :, 0] = False
        mask = np.where(pad, -np.inf, 0.0).astype(f)
        ins.append(pad)


def bf16(x):
    b = x.astype(np.float32).view(np.uint32)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return b.view(np.float32)


def reference():
    """Writes the inputs and numpy's f64 result."""
    qr, kr, vr = (bf16(x) if a.dtype == "bf16" else x for x in (q, k, v))
    kr = np.repeat(kr, R, axis=1).astype(np.float64)
    vr = np.repeat(vr, R, axis=1).astype(np.float64)
    s = np.einsum("bhmd,bhnd->bhmn", qr.astype(np.float64), kr) * scale
    if a.mask in ("input", "causal-const"):
        s = s + mask.astype(np.float64)[None, None]
    elif a.mask == "per-head":
        s = s + mask.astype(np.float64)
    elif a.mask in ("key-padding", "key-padding-bool"):
        s = s + mask.astype(np.float64).reshape(B, H, 1, N)
    elif a.mask == "key-padding-shared":
        s = s + mask.astype(np.float64)[None]
    s = s - s.max(axis=-1, keepdims=True)
    pr = np.exp(s)
    pr /= pr.sum(axis=-1, keepdims=True)
    want = np.einsum("bhmn,bhnd->bhmd", pr, vr).astype(f)
    for i, x in enumerate(ins):
        np.save(os.path.join(a.dir, "in%d.npy" % i), x)
    np.save(os.path.join(a.dir, "expected.npy"), want)


os.makedirs(a.dir, exist_ok=True)
if not a.no_data:
    reference()

E = a.dtype
lines = []
e = lines.append
n = [0]


def ty(*dims, el="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, dims)), el)


def new():
    n[0] += 1
    return "%%t%d" % n[0]


def reshape(x, src, *dims, el="f32"):
    s_, r = new(), new()
    e("  %s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
      % (s_, ", ".join(map(str, dims)), len(dims), len(dims)))
    e("  %s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s"
      % (r, x, s_, src, len(dims), ty(*dims, el=el)))
    return r


def cast(x, dims):
    if E == "f32":
        return x
    r = new()
    e("  %s = tosa.cast %s : (%s) -> %s" % (r, x, ty(*dims), ty(*dims, el=E)))
    return r


def repeat(x, dims):
    """[B, G, T, X] -> [B, H, T, X] by adding zeros to a [B, G, 1, T, X] view."""
    if R == 1:
        return x
    b_, g_, t_, x_ = dims
    x5 = reshape(x, ty(*dims, el=E), b_, g_, 1, t_, x_, el=E)
    z, r = new(), new()
    zt = ty(b_, g_, R, t_, x_, el=E)
    e('  %s = "tosa.const"() {values = dense<0.0> : %s} : () -> %s' % (z, zt, zt))
    e("  %s = tosa.add %s, %s : (%s, %s) -> %s" % (r, x5, z, ty(b_, g_, 1, t_, x_, el=E), zt, zt))
    return reshape(r, zt, b_, H, t_, x_, el=E)


KD = (B, G, D, N) if a.key_transposed else (B, G, N, D)
args = ["%%q: %s" % ty(B, H, M, D), "%%k: %s" % ty(*KD), "%%v: %s" % ty(B, G, N, DV)]
if a.mask == "input":
    args.append("%%mask: %s" % ty(M, N))
elif a.mask == "per-head":
    args.append("%%mask: %s" % ty(B, H, M, N))
elif a.mask == "key-padding":
    args.append("%%mask: %s" % ty(B * H, 1, N))
elif a.mask == "key-padding-shared":
    args.append("%%mask: %s" % ty(1, 1, N))
elif a.mask == "key-padding-bool":
    args.append("%%mask: %s" % ty(B * H, 1, N, el="i1"))
e("func.func @attention(%s) -> %s {" % (", ".join(args), ty(B, H, M, DV)))
e('  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>')
e('  %%zp = "tosa.const"() {values = dense<0.0> : tensor<1x%s>} : () -> tensor<1x%s>' % (E, E))
e('  %%scale = "tosa.const"() {values = dense<%r> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>'
  % scale)
qx = "%q"
if a.scale_on == "query":
    e('  %%qscale = "tosa.const"() {values = dense<%r> : tensor<1x1x1x1xf32>} : () -> '
      'tensor<1x1x1x1xf32>' % scale)
    qx = new()
    e("  %s = tosa.mul %%q, %%qscale, %%shift : (%s, tensor<1x1x1x1xf32>, tensor<1xi8>) -> %s"
      % (qx, ty(B, H, M, D), ty(B, H, M, D)))
qc = cast(qx, (B, H, M, D))
kc = repeat(cast("%k", KD), KD)
vc = repeat(cast("%v", (B, G, N, DV)), (B, G, N, DV))
q3 = reshape(qc, ty(B, H, M, D, el=E), B * H, M, D, el=E)
if a.key_transposed:
    kt = kc
else:
    kt = new()
    e("  %s = tosa.transpose %s {perms = array<i32: 0, 1, 3, 2>} : (%s) -> %s"
      % (kt, kc, ty(B, H, N, D, el=E), ty(B, H, D, N, el=E)))
k3 = reshape(kt, ty(B, H, D, N, el=E), B * H, D, N, el=E)
st = ty(B * H, M, N)
sc = new()
e("  %s = tosa.matmul %s, %s, %%zp, %%zp : (%s, %s, tensor<1x%s>, tensor<1x%s>) -> %s"
  % (sc, q3, k3, ty(B * H, M, D, el=E), ty(B * H, D, N, el=E), E, E, st))
if a.scale_on == "scores":
    s2 = new()
    e("  %s = tosa.mul %s, %%scale, %%shift : (%s, tensor<1x1x1xf32>, tensor<1xi8>) -> %s"
      % (s2, sc, st, st))
    sc = s2
if a.mask != "none":
    if a.mask == "causal-const":
        hexs = mask.astype("<f4").tobytes().hex().upper()
        e('  %%mask = "tosa.const"() {values = dense<"0x%s"> : %s} : () -> %s'
          % (hexs, ty(M, N), ty(M, N)))
    if a.mask == "per-head":
        m3 = reshape("%mask", ty(B, H, M, N), B * H, M, N)
        mt = st
    elif a.mask == "key-padding":
        m3, mt = "%mask", ty(B * H, 1, N)
    elif a.mask == "key-padding-shared":
        m3, mt = "%mask", ty(1, 1, N)
    elif a.mask == "key-padding-bool":
        one = ty(1, 1, 1)
        e('  %%ninf = "tosa.const"() {values = dense<0xFF800000> : %s} : () -> %s' % (one, one))
        e('  %%zero = "tosa.const"() {values = dense<0.0> : %s} : () -> %s' % (one, one))
        m3, mt = new(), ty(B * H, 1, N)
        e("  %s = tosa.select %%mask, %%ninf, %%zero : (%s, %s, %s) -> %s"
          % (m3, ty(B * H, 1, N, el="i1"), one, one, mt))
    else:
        m3 = reshape("%mask", ty(M, N), 1, M, N)
        mt = ty(1, M, N)
    s2 = new()
    e("  %s = tosa.add %s, %s : (%s, %s) -> %s" % (s2, sc, m3, st, mt, st))
    sc = s2
mx, sub, ex, sm, rc, pr_ = (new() for _ in range(6))
rt = ty(B * H, M, 1)
e("  %s = tosa.reduce_max %s {axis = 2 : i32} : (%s) -> %s" % (mx, sc, st, rt))
e("  %s = tosa.sub %s, %s : (%s, %s) -> %s" % (sub, sc, mx, st, rt, st))
e("  %s = tosa.exp %s : (%s) -> %s" % (ex, sub, st, st))
e("  %s = tosa.reduce_sum %s {axis = 2 : i32} : (%s) -> %s" % (sm, ex, st, rt))
e("  %s = tosa.reciprocal %s : (%s) -> %s" % (rc, sm, rt, rt))
e("  %s = tosa.mul %s, %s, %%shift : (%s, %s, tensor<1xi8>) -> %s" % (pr_, ex, rc, st, rt, st))
pc = pr_
if E != "f32":
    pc = new()
    e("  %s = tosa.cast %s : (%s) -> %s" % (pc, pr_, st, ty(B * H, M, N, el=E)))
v3 = reshape(vc, ty(B, H, N, DV, el=E), B * H, N, DV, el=E)
o = new()
e("  %s = tosa.matmul %s, %s, %%zp, %%zp : (%s, %s, tensor<1x%s>, tensor<1x%s>) -> %s"
  % (o, pc, v3, ty(B * H, M, N, el=E), ty(B * H, N, DV, el=E), E, E, ty(B * H, M, DV)))
o4 = reshape(o, ty(B * H, M, DV), B, H, M, DV)
e("  return %s : %s" % (o4, ty(B, H, M, DV)))
e("}")
with open(os.path.join(a.dir, "m.mlir"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
