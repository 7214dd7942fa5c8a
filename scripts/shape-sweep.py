#!/usr/bin/python3
"""shape-sweep.py: every kernel kind across its shape space, on the simulator,
against the interpreter.

  scripts/shape-sweep.py [--mode ci|long] [--kinds matmul,conv,...] [--count N]
                         [--seed S] [--targets trn1,trn2] [--bin DIR]
                         [--workdir DIR] [--jobs 1] [--list] [--max-work W]

No lowering may fail on a legal shape, and what it computes must be right. For
each case this writes a small neuron-dialect program (or, for the transposed
convolution, an ONNX model: the importer rewrites it) and runs
`neuron-run PROGRAM --check --random-inputs --target T [--fuse]`: it compiles
the program for the target, runs it on the simulator (reads of unwritten memory
are errors) and on the reference interpreter, and compares the outputs. A case
fails when the compile fails (an allocation failure after planning is a
compiler bug), the simulator fails, or the outputs differ.

The kinds and the dims they draw (the thresholds of our own lowering: one
below, at and one above each tile of 128 partitions, each PSUM bank of 512 f32
columns and the 768/1536/2304/3072/5120 columns of real projections):
  matmul     batch 1-64 (rhs shared or per batch), M 1-4097, K 1-8960,
             N 1-5120, transposed lhs/rhs, f32/bf16, with or without a
             bias + ReLU epilogue (fused with --fuse)
  conv       strides 1-4, dilations 1-2, groups (1, 2, depthwise), maps 1-224,
             channels 1-2048, kernels 1-7, padding, f32/bf16
  convt      ONNX ConvTranspose: strides 1-4, kernels 1-4, channels 1-512,
             maps 1-64, pads and output_padding
  pool       max/avg, kernels 1-3, strides 1-3, padding, maps 1-112
  attention  heads 1-32 (GQA groups), head dims 32/64/80/96/128, q/kv seq
             1-4096, no mask / a mask input / causal, f32/bf16
  rows       softmax, layernorm, rmsnorm over rows 1-16385 wide

--mode ci (the default, run by test/Conversion/Lower/shape-sweep.test) runs
the fixed threshold cases of every kind plus --count (default 24) seeded
random ones per kind, each bounded by --max-work multiply-adds or elements so
that the whole sweep takes a few minutes on 2 cores; --mode long draws --count
(default 400) per kind with a 16x larger bound (scripts/shape-sweep.py --mode
long, about an hour). The same --seed draws the same cases. Prints PASS/FAIL per
case (FAIL with the first error line), then `shape-sweep: N cases, M failed`;
exits 1 when a case failed, 2 on a usage error.
"""
import argparse
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Dims at the lowering's thresholds (partition tiles, PSUM banks) and at
# the widths of real projections.
EDGE = [1, 2, 127, 128, 129, 255, 256, 257, 511, 512, 513, 768, 1024, 1536, 2304, 3072, 4096,
        4097, 5120, 8960]


def T(shape, ty):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [ty])


def L(v):
    return "[" + ", ".join(map(str, v)) + "]"


def prod(v):
    n = 1
    for d in v:
        n *= d
    return n


class Case:
    """One program to check: a name, its text, its file suffix, whether to
    fuse, the work it represents (for the bound), and the dtype."""

    def __init__(self, name, text, work, fuse=False, suffix=".mlir", dtype="f32"):
        self.name, self.text, self.work = name, text, work
        self.fuse, self.suffix, self.dtype = fuse, suffix, dtype


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------

def matmul(batch, M, K, N, ta=False, tb=False, shared_rhs=True, ty="f32", epilogue=False):
    bt = [batch] if batch > 1 else []
    ashape = bt + ([K, M] if ta else [M, K])
    bshape = ([] if shared_rhs else bt) + ([N, K] if tb else [K, N])
    oty = "f32"
    y = bt + [M, N]
    args = ["%%a: %s" % T(ashape, ty), "%%b: %s" % T(bshape, ty)]
    flags = (" transpose_lhs" if ta else "") + (" transpose_rhs" if tb else "")
    body = ["%%y = neuron.matmul %%a, %%b%s : %s, %s -> %s" % (
        flags, T(ashape, ty), T(bshape, ty), T(y, oty))]
    res = "%y"
    if epilogue:
        args.append("%%c: %s" % T([N], oty))
        body.append("%%s = neuron.add %%y, %%c : %s, %s -> %s" % (T(y, oty), T([N], oty), T(y, oty)))
        body.append("%%r = neuron.relu %%s : %s" % T(y, oty))
        res = "%r"
    text = "func.func @main(%s) -> %s {\n  %s\n  return %s : %s\n}\n" % (
        ", ".join(args), T(y, oty), "\n  ".join(body), res, T(y, oty))
    name = "matmul_b%d_%dx%dx%d%s%s%s_%s%s" % (batch, M, K, N, "_ta" if ta else "", "_tb" if tb else "",
                                            "" if shared_rhs else "_pb", ty, "_epi" if epilogue else "")
    return Case(name, text, batch * M * K * N, fuse=epilogue, dtype=ty)


def matmul_cases(rng, count, bound):
    fixed = [
        matmul(8, 1, 256, 768),        # nn.MultiheadAttention's in-projection, seq-first
        matmul(8, 1, 256, 768, ty="bf16"),
        matmul(64, 1, 256, 512),
        matmul(1, 64, 256, 768),
        matmul(8, 1, 768, 2304, tb=True),  # ViT-B's qkv, seq-first
        matmul(4, 1, 512, 1536, epilogue=True),
        matmul(2, 3, 1536, 5120, tb=True, ty="bf16"),
        matmul(1, 129, 129, 513, ta=True),
        matmul(3, 130, 64, 1030, shared_rhs=False),
        matmul(1, 1024, 1536, 8960, tb=True, ty="bf16"),  # Qwen-1.5B's MLP (round 2's silent bug)
    ]
    out = [c for c in fixed if c.work <= bound * 4]
    tries = 0
    while len(out) < len(fixed) + count and tries < 100000:
        tries += 1
        batch = rng.choice([1, 1, 1, 2, 3, 8, 16, 64])
        M = rng.choice(EDGE[:16] + [rng.randint(1, 4097)])
        K = rng.choice(EDGE + [rng.randint(1, 8960)])
        N = rng.choice(EDGE[:19] + [rng.randint(1, 5120)])
        if batch * M * K * N > bound:
            continue
        ty = rng.choice(["f32", "bf16"])
        out.append(matmul(batch, M, K, N, ta=rng.random() < 0.2, tb=rng.random() < 0.4,
                          shared_rhs=rng.random() < 0.6, ty=ty, epilogue=rng.random() < 0.3))
    return out


# ---------------------------------------------------------------------------
# convolution and pooling
# ---------------------------------------------------------------------------

def window_out(x, k, st, pad, dil):
    n = len(k)
    return [(x[d] + pad[d] + pad[n + d] - dil[d] * (k[d] - 1) - 1) // st[d] + 1 for d in range(n)]


def conv(n, c, hw, f, k, st, pad, dil, g, ty="f32", bias=True, fuse=False):
    x = [n, c] + hw
    w = [f, c // g] + k
    o = window_out(hw, k, st, pad, dil)
    if min(o) < 1:
        return None
    y = [n, f] + o
    args = ["%%x: %s" % T(x, ty), "%%w: %s" % T(w, ty)] + (["%%b: %s" % T([f], ty)] if bias else [])
    types = [T(x, ty), T(w, ty)] + ([T([f], ty)] if bias else [])
    body = ["%%y = neuron.conv %%x, %%w%s strides = %s padding = %s dilations = %s groups = %d"
            " : (%s) -> %s" % (" bias %b" if bias else "", L(st), L(pad), L(dil), g,
                               ", ".join(types), T(y, ty))]
    res = "%y"
    if fuse:
        body.append("%%r = neuron.relu %%y : %s" % T(y, ty))
        res = "%r"
    text = "func.func @main(%s) -> %s {\n  %s\n  return %s : %s\n}\n" % (
        ", ".join(args), T(y, ty), "\n  ".join(body), res, T(y, ty))
    name = "conv_n%d_c%d_%s_f%d_k%s_s%s_p%s_d%s_g%d_%s%s" % (
        n, c, "x".join(map(str, hw)), f, "x".join(map(str, k)), "x".join(map(str, st)),
        "x".join(map(str, pad)), "x".join(map(str, dil)), g, ty, "_relu" if fuse else "")
    return Case(name, text, n * f * prod(o) * (c // g) * prod(k), fuse=fuse, dtype=ty)


def conv_cases(rng, count, bound):
    fixed = [
        conv(1, 64, [56, 56], 64, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, fuse=True),
        conv(1, 3, [64, 64], 64, [7, 7], [2, 2], [3, 3, 3, 3], [1, 1], 1),
        conv(1, 32, [28, 28], 32, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 32),   # depthwise
        conv(1, 512, [7, 7], 512, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, ty="bf16"),
        conv(2, 129, [9, 9], 130, [3, 3], [2, 2], [1, 1, 1, 1], [2, 2], 1),
        conv(1, 64, [16, 16], 128, [1, 1], [1, 1], [0, 0, 0, 0], [1, 1], 2),
        conv(1, 80, [100], 80, [3], [1], [1, 1], [1], 1, ty="bf16"),           # Conv1d stem
        conv(1, 4, [224, 224], 8, [4, 4], [4, 4], [0, 0, 0, 0], [1, 1], 1),    # patchify
    ]
    out = [c for c in fixed if c is not None and c.work <= bound * 4]
    tries = 0
    while len(out) < len(fixed) + count and tries < 100000:
        tries += 1
        nd = rng.choice([1, 2, 2, 2])
        k = rng.choice([1, 1, 2, 3, 3, 3, 5, 7])
        st = rng.choice([1, 1, 1, 2, 2, 3, 4])
        dil = rng.choice([1, 1, 1, 2])
        size = rng.choice([1, 2, 7, 8, 14, 15, 28, 31, 56, 64, 112, 224])
        hw = [size] * nd if rng.random() < 0.7 else [size, rng.choice([3, 7, 17, 33])][:nd]
        c = rng.choice([1, 3, 8, 32, 64, 127, 128, 129, 256, 512, 1024, 2048])
        f = rng.choice([1, 8, 32, 64, 127, 128, 129, 256, 512, 1024, 2048])
        g = 1
        r = rng.random()
        if r < 0.2:
            g, f = c, c  # depthwise
        elif r < 0.3 and c % 2 == 0 and f % 2 == 0:
            g = 2
        p = rng.choice([0, 0, (k - 1) * dil // 2, 1])
        pad = [p] * nd + [p] * nd
        case = conv(rng.choice([1, 1, 2, 4]), c, hw, f, [k] * nd, [st] * nd, pad, [dil] * nd, g,
                    ty=rng.choice(["f32", "bf16"]), bias=rng.random() < 0.7,
                    fuse=rng.random() < 0.3)
        if case is not None and case.work <= bound:
            out.append(case)
    return out


def pool(kind, n, c, hw, k, st, pad, count_pad=False):
    x = [n, c] + hw
    o = window_out(hw, k, st, pad, [1] * len(k))
    if min(o) < 1 or any(p >= kk for p, kk in zip(pad, k + k)):
        return None
    y = [n, c] + o
    text = ("func.func @main(%%x: %s) -> %s {\n  %%y = neuron.pool %s %%x kernel = %s strides = %s "
            "padding = %s%s : %s -> %s\n  return %%y : %s\n}\n" % (
                T(x, "f32"), T(y, "f32"), kind, L(k), L(st), L(pad),
                " count_include_pad" if count_pad else "", T(x, "f32"), T(y, "f32"), T(y, "f32")))
    name = "pool_%s_n%d_c%d_%s_k%s_s%s_p%s%s" % (kind, n, c, "x".join(map(str, hw)),
                                               "x".join(map(str, k)), "x".join(map(str, st)),
                                               "x".join(map(str, pad)), "_cip" if count_pad else "")
    return Case(name, text, prod(x) * prod(k))


def pool_cases(rng, count, bound):
    fixed = [pool("max", 1, 64, [112, 112], [3, 3], [2, 2], [1, 1, 1, 1]),
             pool("avg", 2, 129, [7, 7], [7, 7], [1, 1], [0, 0, 0, 0]),
             pool("max", 1, 3, [15, 15], [2, 2], [2, 2], [0, 0, 0, 0]),
             pool("avg", 1, 16, [9, 9], [3, 3], [2, 2], [1, 1, 1, 1], count_pad=True)]
    out = [c for c in fixed if c is not None]
    tries = 0
    while len(out) < len(fixed) + count and tries < 100000:
        tries += 1
        k = rng.choice([1, 2, 3])
        st = rng.choice([1, 2, 3])
        p = rng.choice([0, 0, k // 2])
        size = rng.choice([1, 2, 7, 14, 15, 28, 56, 112])
        case = pool(rng.choice(["max", "avg"]), rng.choice([1, 2]), rng.choice([1, 3, 64, 128, 129, 512]),
                    [size, size], [k, k], [st, st], [p] * 4, count_pad=rng.random() < 0.2)
        if case is not None and case.work <= bound:
            out.append(case)
    return out


# ---------------------------------------------------------------------------
# attention and row kernels
# ---------------------------------------------------------------------------

def attention(b, h, g, m, n, d, dv=None, mask="none", ty="f32"):
    dv = dv or d
    q, k, v = [b, h, m, d], [b, g, n, d], [b, g, n, dv]
    y = [b, h, m, dv]
    args = ["%%q: %s" % T(q, ty), "%%k: %s" % T(k, ty), "%%v: %s" % T(v, ty)]
    types = [T(q, ty), T(k, ty), T(v, ty)]
    extra = ""
    if mask == "input":
        args.append("%%m: %s" % T([m, n], "f32"))
        types.append(T([m, n], "f32"))
        extra = " mask %m"
    causal = " causal_offset = %d" % (n - m) if mask == "causal" else ""
    text = ("func.func @main(%s) -> %s {\n  %%y = neuron.attention %%q, %%k, %%v%s scale = %s%s : "
            "(%s) -> %s\n  return %%y : %s\n}\n" % (
                ", ".join(args), T(y, ty), extra, repr(float(d) ** -0.5), causal,
                ", ".join(types), T(y, ty), T(y, ty)))
    name = "attention_b%d_h%d_g%d_m%d_n%d_d%d_dv%d_%s_%s" % (b, h, g, m, n, d, dv, mask, ty)
    return Case(name, text, b * h * m * n * (d + dv), dtype=ty)


def attention_cases(rng, count, bound):
    fixed = [attention(1, 8, 8, 128, 128, 64, mask="causal"),
             attention(1, 8, 2, 1, 257, 128, mask="causal", ty="bf16"),  # GQA decode
             attention(2, 12, 12, 197, 197, 64),                         # ViT-B
             attention(1, 4, 4, 7, 13, 80, mask="input"),
             attention(1, 2, 1, 129, 513, 96, ty="bf16"),
             attention(1, 1, 1, 4, 6, 8, dv=600)]                       # wide values
    out = [c for c in fixed if c.work <= bound * 4]
    tries = 0
    while len(out) < len(fixed) + count and tries < 100000:
        tries += 1
        h = rng.choice([1, 2, 4, 8, 12, 16, 32])
        g = rng.choice([x for x in [1, 2, 4, 8, h] if h % x == 0])
        d = rng.choice([32, 64, 80, 96, 128])
        m = rng.choice([1, 2, 7, 127, 128, 129, 197, 512, 513, 1024, 4096])
        n = rng.choice([m, m, 1, 128, 129, 257, 1024, 4096]) if m > 1 else rng.choice([1, 17, 128, 129, 2048, 4096])
        mask = rng.choice(["none", "input", "causal"])
        if mask == "causal" and n < m:
            mask = "none"
        case = attention(rng.choice([1, 1, 2]), h, g, m, n, d, mask=mask, ty=rng.choice(["f32", "bf16"]))
        if case.work <= bound:
            out.append(case)
    return out


def row(kind, shape, ty="f32"):
    t = T(shape, ty)
    ax = len(shape) - 1
    if kind == "softmax":
        body = "%%y = neuron.softmax %%x axis = %d : %s" % (ax, t)
        args = "%%x: %s" % t
    elif kind == "layernorm":
        wt = T([shape[-1]], ty)
        body = ("%%y = neuron.layernorm %%x weight %%w bias %%b axes = [%d] epsilon = 1.0e-05 : (%s, %s, %s) -> %s"
                % (ax, t, wt, wt, t))
        args = "%%x: %s, %%w: %s, %%b: %s" % (t, wt, wt)
    else:
        wt = T([shape[-1]], ty)
        body = "%%y = neuron.rmsnorm %%x weight %%w axes = [%d] epsilon = 1.0e-06 : (%s, %s) -> %s" % (ax, t, wt, t)
        args = "%%x: %s, %%w: %s" % (t, wt)
    text = "func.func @main(%s) -> %s {\n  %s\n  return %%y : %s\n}\n" % (args, t, body, t)
    return Case("%s_%s_%s" % (kind, "x".join(map(str, shape)), ty), text, prod(shape), dtype=ty)


def row_cases(rng, count, bound):
    fixed = [row("softmax", [1, 8, 128, 128]), row("layernorm", [1, 197, 768]),
             row("rmsnorm", [1, 129, 4096], "bf16"), row("softmax", [2, 16385]),
             row("layernorm", [3, 1, 8960])]
    out = list(fixed)
    tries = 0
    while len(out) < len(fixed) + count and tries < 100000:
        tries += 1
        rows = rng.choice([1, 2, 127, 128, 129, 197, 512, 1024])
        width = rng.choice(EDGE + [rng.randint(1, 16385)])
        case = row(rng.choice(["softmax", "layernorm", "rmsnorm"]), [rows, width],
                   rng.choice(["f32", "bf16"]))
        if case.work <= bound:
            out.append(case)
    return out


# ---------------------------------------------------------------------------
# transposed convolution (ONNX ConvTranspose)
# ---------------------------------------------------------------------------

def convt(n, c, hw, f, k, st, pad=0, outpad=0, g=1):
    o = [(d - 1) * st - 2 * pad + k + outpad for d in hw]
    if min(o) < 1 or outpad >= st:
        return None
    name = "convt_n%d_c%d_%s_f%d_k%d_s%d_p%d_op%d_g%d" % (n, c, "x".join(map(str, hw)), f, k, st, pad,
                                                       outpad, g)
    spec = dict(n=n, c=c, hw=hw, f=f, k=k, st=st, pad=pad, outpad=outpad, g=g)
    return Case(name, spec, n * f * prod(o) * (c // g) * k * k, suffix=".onnx")


def write_convt(path, s):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    nd = len(s["hw"])
    rng = np.random.default_rng(7)
    w = rng.standard_normal([s["c"], s["f"] // s["g"]] + [s["k"]] * nd).astype(np.float32)
    b = rng.standard_normal([s["f"]]).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="/up/ConvTranspose",
                            kernel_shape=[s["k"]] * nd, strides=[s["st"]] * nd,
                            pads=[s["pad"]] * (2 * nd), output_padding=[s["outpad"]] * nd,
                            group=s["g"])
    o = [(d - 1) * s["st"] - 2 * s["pad"] + s["k"] + s["outpad"] for d in s["hw"]]
    graph = helper.make_graph(
        [node], "convt",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [s["n"], s["c"]] + s["hw"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [s["n"], s["f"]] + o)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def convt_cases(rng, count, bound):
    fixed = [convt(1, 64, [32, 32], 32, 2, 2),   # the UNet decoder's up-convolution
             convt(1, 16, [7, 7], 8, 3, 2, pad=1, outpad=1),
             convt(2, 3, [5, 5], 4, 4, 4),
             convt(1, 8, [9], 8, 3, 3, pad=1),
             convt(1, 4, [6, 6], 4, 3, 1, pad=1, g=2)]
    out = [c for c in fixed if c is not None]
    tries = 0
    while len(out) < len(fixed) + count and tries < 100000:
        tries += 1
        k = rng.choice([1, 2, 3, 4])
        st = rng.choice([1, 2, 2, 3, 4])
        pad = rng.choice([0, 0, (k - 1) // 2])
        size = rng.choice([1, 2, 7, 8, 16, 32, 64])
        case = convt(rng.choice([1, 2]), rng.choice([1, 3, 32, 64, 128, 129, 256, 512]), [size, size],
                     rng.choice([1, 8, 32, 64, 128, 256]), k, st, pad,
                     rng.choice([0, 0, st - 1]) if st > 1 else 0)
        if case is not None and case.work <= bound:
            out.append(case)
    return out


KINDS = {"matmul": matmul_cases, "conv": conv_cases, "convt": convt_cases, "pool": pool_cases,
         "attention": attention_cases, "rows": row_cases}


def run_case(case, target, bindir, workdir, timeout):
    path = os.path.join(workdir, case.name + case.suffix)
    if case.suffix == ".onnx":
        write_convt(path, case.text)
    else:
        with open(path, "w") as f:
            f.write(case.text)
    cmd = [os.path.join(bindir, "neuron-run"), path, "--check", "--random-inputs", "--seed", "1",
           "--target=" + target]
    if case.fuse:
        cmd.append("--fuse")
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "timed out after %d s" % timeout
    except OSError as e:
        return False, "cannot run %s: %s" % (cmd[0], e)
    if p.returncode == 0 and "check: ok" in p.stdout:
        return True, ""
    lines = [l for l in p.stdout.splitlines() if "error" in l or "differ" in l or "FAIL" in l]
    last = p.stdout.strip().splitlines()[-1:] or ["no output (exit %d)" % p.returncode]
    return False, (lines or last)[0][:400]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["ci", "long"], default="ci")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--targets", default="trn1,trn2")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "shape-sweep-out"),
                    help="where the cases are written (default: build/shape-sweep-out)")
    ap.add_argument("--max-work", type=float, default=None)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--list", action="store_true", help="print the cases without running them")
    a = ap.parse_args()
    count = a.count if a.count is not None else (24 if a.mode == "ci" else 400)
    bound = a.max_work or (2 ** 26 if a.mode == "ci" else 2 ** 30)
    kinds = a.kinds.split(",")
    for k in kinds:
        if k not in KINDS:
            print("shape-sweep: error: unknown kind '%s' (one of %s)" % (k, ", ".join(KINDS)),
                  file=sys.stderr)
            return 2
    targets = a.targets.split(",")
    os.makedirs(a.workdir, exist_ok=True)
    cases = []
    for k in kinds:
        rng = random.Random("%s-%d" % (k, a.seed))
        cases += KINDS[k](rng, count, bound)
    if a.list:
        for c in cases:
            print(c.name)
        print("shape-sweep: %d cases" % len(cases))
        return 0
    failed = 0
    n = 0
    for i, case in enumerate(cases):
        # Each case on one target, alternating, and the fixed ones on both.
        for t in targets:
            n += 1
            ok, why = run_case(case, t, a.bin, a.workdir, a.timeout)
            print("%s %s %s%s" % ("PASS" if ok else "FAIL", case.name, t, "" if ok else ": " + why),
                  flush=True)
            failed += not ok
    print("shape-sweep: %d cases, %d failed" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
