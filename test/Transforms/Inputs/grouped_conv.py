"""Writes grouped convolutions with constant weights (what
--neuron-merge-conv-groups rewrites) as one MLIR program, seeded inputs, and
numpy's float64 reference for each entry.

usage: grouped_conv.py DIR   -> DIR/grouped.mlir, DIR/<entry>_x.npy, DIR/<entry>_y.npy
"""
import os
import sys

import numpy as np

# entry: (input shape, weight shape, groups, stride, padding, bias, relu)
CASES = {
    # RegNet-like: 12 groups of 8, all merged into one.
    "regnet": ((2, 96, 9, 9), (96, 8, 3, 3), 12, 1, 1, True, True),
    # ResNeXt-like, stride 2: 32 groups of 4 into one.
    "resnext": ((1, 128, 14, 14), (128, 4, 3, 3), 32, 2, 1, False, False),
    # 55 groups of 8: 5 groups of 88 (11 merged each).
    "partial": ((1, 440, 4, 4), (440, 8, 3, 3), 55, 1, 1, True, False),
    # 6 groups of 16 in, 32 out each: merged in threes or pairs (k*Fg <= 128).
    "wide_out": ((1, 96, 6, 6), (192, 16, 1, 1), 6, 1, 0, False, True),
}


def T(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape))


def hexconst(v):
    return 'dense<"0x%s">' % v.astype(np.float32).tobytes().hex().upper()


def reference(x, w, b, groups, stride, pad):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    fg = f // groups
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, f, oh, ow))
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, g * fg:(g + 1) * fg] += np.einsum("nchw,fc->nfhw", patch,
                                                        w[g * fg:(g + 1) * fg, :, i, j])
    if b is not None:
        y += b[None, :, None, None]
    return y


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    funcs = []
    for name, (xs, ws, groups, stride, pad, bias, relu) in CASES.items():
        x = rng.standard_normal(xs).astype(np.float32)
        w = (rng.standard_normal(ws) / np.sqrt(ws[1] * ws[2] * ws[3])).astype(np.float32)
        b = rng.standard_normal(ws[0]).astype(np.float32) if bias else None
        y = reference(x.astype(np.float64), w.astype(np.float64),
                      None if b is None else b.astype(np.float64), groups, stride, pad)
        if relu:
            y = np.maximum(y, 0)
        np.save(os.path.join(out, name + "_x.npy"), x)
        np.save(os.path.join(out, name + "_y.npy"), y)
        ys = y.shape
        body = ["  %%w = neuron.constant %s : %s" % (hexconst(w), T(ws))]
        operands, types = "%x, %w", [T(xs), T(ws)]
        if bias:
            body.append("  %%b = neuron.constant %s : %s" % (hexconst(b), T([ws[0]])))
            operands += " bias %b"
            types.append(T([ws[0]]))
        body.append("  %%y = neuron.conv %s strides = [%d, %d] padding = [%d, %d, %d, %d] "
                    "dilations = [1, 1] groups = %d : (%s) -> %s"
                    % (operands, stride, stride, pad, pad, pad, pad, groups, ", ".join(types),
                       T(ys)))
        res = "%y"
        if relu:
            body.append("  %%z = neuron.relu %%y : %s" % T(ys))
            res = "%z"
        funcs.append("func.func @%s(%%x: %s) -> %s {\n%s\n  return %s : %s\n}"
                     % (name, T(xs), T(ys), "\n".join(body), res, T(ys)))
    with open(os.path.join(out, "grouped.mlir"), "w") as f:
        f.write("\n".join(funcs) + "\n")


if __name__ == "__main__":
    main()
