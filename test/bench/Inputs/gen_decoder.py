"""Writes N stacked Llama-style decoder layers in TOSA 1.0 (what exporters
emit): RMSNorm, 4-head self-attention with softmax, SwiGLU FFN, residuals;
seq 128, hidden 256, FFN 512; the weights are arguments (so the executable's
size is code, not constants).

usage: gen_decoder.py LAYERS > model.mlir
"""
import sys

S, H, NH, D, F = 128, 256, 4, 64, 512


def layer(i, x):
    p = "l%d_" % i
    t = lambda *d: "tensor<%sxf32>" % "x".join(map(str, d))
    out = []
    e = out.append
    # RMSNorm
    e(f"  %{p}sq = tosa.mul %{x}, %{x}, %shift : ({t(1,S,H)}, {t(1,S,H)}, tensor<1xi8>) -> {t(1,S,H)}")
    e(f"  %{p}ss = tosa.reduce_sum %{p}sq {{axis = 2 : i32}} : ({t(1,S,H)}) -> {t(1,S,1)}")
    e(f"  %{p}ms = tosa.mul %{p}ss, %invh, %shift : ({t(1,S,1)}, {t(1,1,1)}, tensor<1xi8>) -> {t(1,S,1)}")
    e(f"  %{p}va = tosa.add %{p}ms, %eps : ({t(1,S,1)}, {t(1,1,1)}) -> {t(1,S,1)}")
    e(f"  %{p}rs = tosa.rsqrt %{p}va : ({t(1,S,1)}) -> {t(1,S,1)}")
    e(f"  %{p}nx = tosa.mul %{x}, %{p}rs, %shift : ({t(1,S,H)}, {t(1,S,1)}, tensor<1xi8>) -> {t(1,S,H)}")
    e(f"  %{p}h = tosa.mul %{p}nx, %{p}g1, %shift : ({t(1,S,H)}, {t(1,1,H)}, tensor<1xi8>) -> {t(1,S,H)}")
    # projections
    for w in "qkv":
        e(f"  %{p}{w} = tosa.matmul %{p}h, %{p}w{w}, %zp, %zp : ({t(1,S,H)}, {t(1,H,H)}, tensor<1xf32>, tensor<1xf32>) -> {t(1,S,H)}")
        e(f"  %{p}{w}4 = tosa.reshape %{p}{w}, %shape4 : ({t(1,S,H)}, !tosa.shape<4>) -> {t(1,S,NH,D)}")
        e(f"  %{p}{w}t = tosa.transpose %{p}{w}4 {{perms = array<i32: 0, 2, 1, 3>}} : ({t(1,S,NH,D)}) -> {t(1,NH,S,D)}")
        e(f"  %{p}{w}3 = tosa.reshape %{p}{w}t, %shape3h : ({t(1,NH,S,D)}, !tosa.shape<3>) -> {t(NH,S,D)}")
    e(f"  %{p}kT = tosa.transpose %{p}k3 {{perms = array<i32: 0, 2, 1>}} : ({t(NH,S,D)}) -> {t(NH,D,S)}")
    e(f"  %{p}sc = tosa.matmul %{p}q3, %{p}kT, %zp, %zp : ({t(NH,S,D)}, {t(NH,D,S)}, tensor<1xf32>, tensor<1xf32>) -> {t(NH,S,S)}")
    e(f"  %{p}sc2 = tosa.mul %{p}sc, %scale, %shift : ({t(NH,S,S)}, {t(1,1,1)}, tensor<1xi8>) -> {t(NH,S,S)}")
    e(f"  %{p}mx = tosa.reduce_max %{p}sc2 {{axis = 2 : i32}} : ({t(NH,S,S)}) -> {t(NH,S,1)}")
    e(f"  %{p}df = tosa.sub %{p}sc2, %{p}mx : ({t(NH,S,S)}, {t(NH,S,1)}) -> {t(NH,S,S)}")
    e(f"  %{p}ex = tosa.exp %{p}df : ({t(NH,S,S)}) -> {t(NH,S,S)}")
    e(f"  %{p}sm = tosa.reduce_sum %{p}ex {{axis = 2 : i32}} : ({t(NH,S,S)}) -> {t(NH,S,1)}")
    e(f"  %{p}rc = tosa.reciprocal %{p}sm : ({t(NH,S,1)}) -> {t(NH,S,1)}")
    e(f"  %{p}pr = tosa.mul %{p}ex, %{p}rc, %shift : ({t(NH,S,S)}, {t(NH,S,1)}, tensor<1xi8>) -> {t(NH,S,S)}")
    e(f"  %{p}cx = tosa.matmul %{p}pr, %{p}v3, %zp, %zp : ({t(NH,S,S)}, {t(NH,S,D)}, tensor<1xf32>, tensor<1xf32>) -> {t(NH,S,D)}")
    e(f"  %{p}c4 = tosa.reshape %{p}cx, %shape4h : ({t(NH,S,D)}, !tosa.shape<4>) -> {t(1,NH,S,D)}")
    e(f"  %{p}ct = tosa.transpose %{p}c4 {{perms = array<i32: 0, 2, 1, 3>}} : ({t(1,NH,S,D)}) -> {t(1,S,NH,D)}")
    e(f"  %{p}c3 = tosa.reshape %{p}ct, %shape3 : ({t(1,S,NH,D)}, !tosa.shape<3>) -> {t(1,S,H)}")
    e(f"  %{p}o = tosa.matmul %{p}c3, %{p}wo, %zp, %zp : ({t(1,S,H)}, {t(1,H,H)}, tensor<1xf32>, tensor<1xf32>) -> {t(1,S,H)}")
    e(f"  %{p}x2 = tosa.add %{x}, %{p}o : ({t(1,S,H)}, {t(1,S,H)}) -> {t(1,S,H)}")
    # RMSNorm 2 + SwiGLU
    e(f"  %{p}sq2 = tosa.mul %{p}x2, %{p}x2, %shift : ({t(1,S,H)}, {t(1,S,H)}, tensor<1xi8>) -> {t(1,S,H)}")
    e(f"  %{p}ss2 = tosa.reduce_sum %{p}sq2 {{axis = 2 : i32}} : ({t(1,S,H)}) -> {t(1,S,1)}")
    e(f"  %{p}ms2 = tosa.mul %{p}ss2, %invh, %shift : ({t(1,S,1)}, {t(1,1,1)}, tensor<1xi8>) -> {t(1,S,1)}")
    e(f"  %{p}va2 = tosa.add %{p}ms2, %eps : ({t(1,S,1)}, {t(1,1,1)}) -> {t(1,S,1)}")
    e(f"  %{p}rs2 = tosa.rsqrt %{p}va2 : ({t(1,S,1)}) -> {t(1,S,1)}")
    e(f"  %{p}nx2 = tosa.mul %{p}x2, %{p}rs2, %shift : ({t(1,S,H)}, {t(1,S,1)}, tensor<1xi8>) -> {t(1,S,H)}")
    e(f"  %{p}h2 = tosa.mul %{p}nx2, %{p}g2, %shift : ({t(1,S,H)}, {t(1,1,H)}, tensor<1xi8>) -> {t(1,S,H)}")
    e(f"  %{p}gt = tosa.matmul %{p}h2, %{p}wg, %zp, %zp : ({t(1,S,H)}, {t(1,H,F)}, tensor<1xf32>, tensor<1xf32>) -> {t(1,S,F)}")
    e(f"  %{p}up = tosa.matmul %{p}h2, %{p}wu, %zp, %zp : ({t(1,S,H)}, {t(1,H,F)}, tensor<1xf32>, tensor<1xf32>) -> {t(1,S,F)}")
    e(f"  %{p}sg = tosa.sigmoid %{p}gt : ({t(1,S,F)}) -> {t(1,S,F)}")
    e(f"  %{p}si = tosa.mul %{p}gt, %{p}sg, %shift : ({t(1,S,F)}, {t(1,S,F)}, tensor<1xi8>) -> {t(1,S,F)}")
    e(f"  %{p}gu = tosa.mul %{p}si, %{p}up, %shift : ({t(1,S,F)}, {t(1,S,F)}, tensor<1xi8>) -> {t(1,S,F)}")
    e(f"  %{p}dn = tosa.matmul %{p}gu, %{p}wd, %zp, %zp : ({t(1,S,F)}, {t(1,F,H)}, tensor<1xf32>, tensor<1xf32>) -> {t(1,S,H)}")
    e(f"  %{p}y = tosa.add %{p}x2, %{p}dn : ({t(1,S,H)}, {t(1,S,H)}) -> {t(1,S,H)}")
    return out, p + "y"


def main():
    n = int(sys.argv[1])
    t = lambda *d: "tensor<%sxf32>" % "x".join(map(str, d))
    args = ["%%x: %s" % t(1, S, H)]
    for i in range(n):
        p = "l%d_" % i
        args += ["%%%sg1: %s" % (p, t(1, 1, H)), "%%%swq: %s" % (p, t(1, H, H)),
                 "%%%swk: %s" % (p, t(1, H, H)), "%%%swv: %s" % (p, t(1, H, H)),
                 "%%%swo: %s" % (p, t(1, H, H)), "%%%sg2: %s" % (p, t(1, 1, H)),
                 "%%%swg: %s" % (p, t(1, H, F)), "%%%swu: %s" % (p, t(1, H, F)),
                 "%%%swd: %s" % (p, t(1, F, H))]
    print("// %d stacked decoder layers (test/bench/Inputs/gen_decoder.py)" % n)
    print("func.func @decoder(%s) -> %s {" % (", ".join(args), t(1, S, H)))
    print('  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
    print('  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>')
    print('  %%invh = "tosa.const"() <{values = dense<%r> : %s}> : () -> %s' % (1.0 / H, t(1, 1, 1), t(1, 1, 1)))
    print('  %%eps = "tosa.const"() <{values = dense<1.0e-05> : %s}> : () -> %s' % (t(1, 1, 1), t(1, 1, 1)))
    print('  %%scale = "tosa.const"() <{values = dense<0.125> : %s}> : () -> %s' % (t(1, 1, 1), t(1, 1, 1)))
    print("  %%shape4 = tosa.const_shape {values = dense<[1, %d, %d, %d]> : tensor<4xindex>} : () -> !tosa.shape<4>" % (S, NH, D))
    print("  %%shape4h = tosa.const_shape {values = dense<[1, %d, %d, %d]> : tensor<4xindex>} : () -> !tosa.shape<4>" % (NH, S, D))
    print("  %%shape3h = tosa.const_shape {values = dense<[%d, %d, %d]> : tensor<3xindex>} : () -> !tosa.shape<3>" % (NH, S, D))
    print("  %%shape3 = tosa.const_shape {values = dense<[1, %d, %d]> : tensor<3xindex>} : () -> !tosa.shape<3>" % (S, H))
    x = "x"
    for i in range(n):
        lines, x = layer(i, x)
        print("\n".join(lines))
    print("  return %%%s : %s" % (x, t(1, S, H)))
    print("}")


main()
