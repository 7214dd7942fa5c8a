"""Writes the small ONNX models (and reference values) of the ONNX import tests.

  make_onnx.py NAME OUT_DIR

Each model is built with onnx.helper, checked with onnx.checker, and saved as
OUT_DIR/NAME.onnx; NAME.in<i>.npy are seeded inputs and NAME.ref<i>.npy the
expected outputs, computed with numpy in float64.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

name, out = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
F = TensorProto.FLOAT


def init(n, a):
    return numpy_helper.from_array(np.asarray(a), n)


def save(graph, inputs, refs, opset=17, **kw):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="make_onnx")
    onnx.checker.check_model(model)
    path = os.path.join(out, name + ".onnx")
    onnx.save(model, path, **kw)
    for i, a in enumerate(inputs):
        np.save(os.path.join(out, "%s.in%d.npy" % (name, i)), a)
    for i, a in enumerate(refs):
        np.save(os.path.join(out, "%s.ref%d.npy" % (name, i)), a)


def save_torch(module, x):
    """Exports a PyTorch module of one input `x` (opset 17, constants folded)
    with PyTorch's outputs as the references."""
    import torch
    with torch.no_grad():
        ys = module(x)
    ys = ys if isinstance(ys, tuple) else (ys,)
    torch.onnx.export(module, (x,), os.path.join(out, name + ".onnx"), opset_version=17,
                      input_names=["x"], do_constant_folding=True)
    np.save(os.path.join(out, name + ".in0.npy"), x.numpy())
    for i, y in enumerate(ys):
        np.save(os.path.join(out, "%s.ref%d.npy" % (name, i)), y.numpy())


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv_ref(x, w, b, strides, pads, dilations=None, groups=1):
    """Direct N-D convolution in float64: x [N, C, ...], w [F, C/g, k...],
    pads leading then trailing."""
    k = x.ndim - 2
    dilations = dilations or [1] * k
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[d], pads[k + d]) for d in range(k)])
    f, cg = w.shape[0], w.shape[1]
    span = [dilations[d] * (w.shape[2 + d] - 1) + 1 for d in range(k)]
    out = [(xp.shape[2 + d] - span[d]) // strides[d] + 1 for d in range(k)]
    y = np.zeros([x.shape[0], f] + out)
    for o in range(f):
        g = o // (f // groups)
        for t in np.ndindex(*w.shape[2:]):
            sl = tuple(slice(t[d] * dilations[d], t[d] * dilations[d] + (out[d] - 1) * strides[d] + 1,
                             strides[d]) for d in range(k))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            y[:, o] += np.tensordot(patch, w[o][(slice(None),) + t].astype(np.float64), ([1], [0]))
        if b is not None:
            y[:, o] += b[o]
    return y


def pool_ref(x, kernel, strides, pads, kind, divisor_end=None):
    """2-D max or average pooling in float64 over windows that may reach
    past the padded input (ceil_mode); averages divide by the positions
    inside the input, or inside [-pad, in + pad) with divisor_end."""
    n, c, h, w = x.shape
    oh = -(-(h + pads[0] + pads[2] - kernel[0]) // strides[0]) + 1
    ow = -(-(w + pads[1] + pads[3] - kernel[1]) // strides[1]) + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * strides[0] - pads[0], j * strides[1] - pads[1]
            win = x[:, :, max(h0, 0):min(h0 + kernel[0], h), max(w0, 0):min(w0 + kernel[1], w)]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            elif divisor_end:
                cnt = (min(h0 + kernel[0], h + pads[2]) - h0) * (min(w0 + kernel[1], w + pads[3]) - w0)
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
            else:
                y[:, :, i, j] = win.mean(axis=(2, 3))
    return y


# The activations of ONNX's recurrent ops, with how many of activation_alpha
# and activation_beta each consumes (in list order, as onnxruntime reads
# them) and their defaults.
RNN_ACTS = {
    "relu": (0, 0, lambda x, a, b: np.maximum(x, 0)),
    "tanh": (0, 0, lambda x, a, b: np.tanh(x)),
    "sigmoid": (0, 0, lambda x, a, b: 1 / (1 + np.exp(-x))),
    "affine": ((1.0,), (0.0,), lambda x, a, b: a * x + b),
    "leakyrelu": ((0.01,), 0, lambda x, a, b: np.where(x < 0, a * x, x)),
    "thresholdedrelu": ((1.0,), 0, lambda x, a, b: np.where(x > a, x, 0)),
    "scaledtanh": ((1.0,), (1.0,), lambda x, a, b: a * np.tanh(b * x)),
    "hardsigmoid": ((0.2,), (0.5,), lambda x, a, b: np.clip(a * x + b, 0, 1)),
    "elu": ((1.0,), 0, lambda x, a, b: np.where(x < 0, a * (np.exp(x) - 1), x)),
    "softsign": (0, 0, lambda x, a, b: x / (1 + np.abs(x))),
    "softplus": (0, 0, lambda x, a, b: np.log1p(np.exp(x))),
}


def rnn_acts(names, alphas=(), betas=()):
    """The activation functions of `names` with their alphas and betas."""
    alphas, betas, out = list(alphas), list(betas), []
    for n in names:
        takes_a, takes_b, f = RNN_ACTS[n.lower()]
        a = (alphas.pop(0) if alphas else takes_a[0]) if takes_a else 0.0
        b = (betas.pop(0) if betas else takes_b[0]) if takes_b else 0.0
        out.append(lambda x, f=f, a=a, b=b: f(x, a, b))
    return out


def recurrent_ref(kind, x, w, r, b=None, lens=None, h0=None, c0=None, p=None,
                  direction="forward", acts=None, alphas=(), betas=(), clip=None, lbr=0,
                  input_forget=0, layout=0):
    """ONNX's LSTM, GRU or RNN in float64, straight from the operator's
    equations, one batch entry at a time: each entry's first lens[b] steps
    (backwards for a reverse direction), zero outputs past them, the final
    states at the last valid step. Returns Y, Y_h (and Y_c for an LSTM) in
    the layout asked."""
    x = x.astype(np.float64)
    if layout:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    seq, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    hid = r.shape[2]
    per = {"LSTM": 3, "GRU": 2, "RNN": 1}[kind]
    if acts is None:
        acts = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"],
                "RNN": ["Tanh"]}[kind] * dirs
    fns = rnn_acts(acts, alphas, betas)
    lens = np.full(batch, seq) if lens is None else lens
    b = np.zeros((dirs, 2 * gates * hid)) if b is None else b.astype(np.float64)
    h0 = np.zeros((dirs, batch, hid)) if h0 is None else h0.astype(np.float64)
    c0 = np.zeros((dirs, batch, hid)) if c0 is None else c0.astype(np.float64)
    p = np.zeros((dirs, 3 * hid)) if p is None else p.astype(np.float64)
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    y = np.zeros((seq, dirs, batch, hid))
    yh = np.zeros((dirs, batch, hid))
    yc = np.zeros((dirs, batch, hid))
    for d in range(dirs):
        rev = direction == "reverse" or d == 1
        f, g, h_ = fns[d * per], fns[d * per + min(1, per - 1)], fns[d * per + min(2, per - 1)]
        W, R = w[d].astype(np.float64), r[d].astype(np.float64)
        Wb, Rb = b[d, :gates * hid], b[d, gates * hid:]
        for e in range(batch):
            h, c = h0[d, e], c0[d, e]
            steps = range(lens[e] - 1, -1, -1) if rev else range(lens[e])
            for t in steps:
                xt = x[t, e]
                if kind == "LSTM":
                    gi = xt @ W.T + h @ R.T + Wb + Rb
                    i_, o_, f_, c_ = np.split(gi, 4)
                    pi, po, pf = np.split(p[d], 3)
                    i = f(cl(i_ + pi * c))
                    fg = 1 - i if input_forget else f(cl(f_ + pf * c))
                    c = fg * c + i * g(cl(c_))
                    o = f(cl(o_ + po * c))
                    h = o * h_(c)
                elif kind == "GRU":
                    wz, wr, wh = np.split(W, 3)
                    rz, rr, rh = np.split(R, 3)
                    wbz, wbr, wbh = np.split(Wb, 3)
                    rbz, rbr, rbh = np.split(Rb, 3)
                    z = f(cl(xt @ wz.T + h @ rz.T + wbz + rbz))
                    rg = f(cl(xt @ wr.T + h @ rr.T + wbr + rbr))
                    if lbr:
                        hh = g(cl(xt @ wh.T + rg * (h @ rh.T + rbh) + wbh))
                    else:
                        hh = g(cl(xt @ wh.T + (rg * h) @ rh.T + rbh + wbh))
                    h = (1 - z) * hh + z * h
                else:
                    h = f(cl(xt @ W.T + h @ R.T + Wb + Rb))
                y[t, d, e] = h
            yh[d, e], yc[d, e] = h, c
    if layout:
        y, yh, yc = y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), yc.transpose(1, 0, 2)
    return (y, yh, yc) if kind == "LSTM" else (y, yh)


def recurrent_weights(kind, dirs, hid, inp, bias=True, peep=False, scale=0.3):
    """Seeded W, R (and B, P) of a recurrent layer."""
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    w = (rng.standard_normal((dirs, gates * hid, inp)) * scale).astype(np.float32)
    r = (rng.standard_normal((dirs, gates * hid, hid)) * scale).astype(np.float32)
    b = (rng.standard_normal((dirs, 2 * gates * hid)) * scale).astype(np.float32) if bias else None
    p = (rng.standard_normal((dirs, 3 * hid)) * scale).astype(np.float32) if peep else None
    return w, r, b, p



if name == "mlp":
    # x -> MatMul + bias -> Relu -> Gemm(transB) -> reshape by a Shape-derived
    # shape -> Softmax, as torch.onnx.export writes a classifier head.
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w1 = rng.standard_normal((8, 16)).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    w2 = rng.standard_normal((6, 16)).astype(np.float32)
    b2 = rng.standard_normal(6).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"], name="/fc1/MatMul"),
        helper.make_node("Add", ["h0", "b1"], ["h1"], name="/fc1/Add"),
        helper.make_node("Relu", ["h1"], ["h2"], name="/act/Relu"),
        helper.make_node("Gemm", ["h2", "w2", "b2"], ["h3"], name="/fc2/Gemm", transB=1),
        helper.make_node("Shape", ["x"], ["s"], name="/Shape"),
        helper.make_node("Gather", ["s", "zero"], ["batch"], name="/Gather", axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="/Unsqueeze"),
        helper.make_node("Concat", ["batch1", "two", "three"], ["shape"], name="/Concat", axis=0),
        helper.make_node("Reshape", ["h3", "shape"], ["h4"], name="/Reshape"),
        helper.make_node("Softmax", ["h4"], ["y"], name="/Softmax", axis=-1),
    ]
    g = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", F, [4, 8])],
        [helper.make_tensor_value_info("y", F, [4, 2, 3])],
        [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2),
         init("zero", np.array(0, np.int64)), init("axes0", np.array([0], np.int64)),
         init("two", np.array([2], np.int64)), init("three", np.array([3], np.int64))])
    h = np.maximum(x.astype(np.float64) @ w1 + b1, 0) @ w2.T.astype(np.float64) + b2
    save(g, [x], [softmax(h.reshape(4, 2, 3))])

elif name == "rmsnorm":
    # RMSNorm the way Hugging Face's Llama writes it, then exported: Pow,
    # ReduceMean, Add eps, Sqrt, Div (torch.rsqrt exports as 1/Sqrt), Mul.
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w = rng.standard_normal(64).astype(np.float32)
    nodes = [
        helper.make_node("Pow", ["x", "p2"], ["sq"], name="/norm/Pow"),
        helper.make_node("ReduceMean", ["sq"], ["ms"], name="/norm/ReduceMean", axes=[-1],
                         keepdims=1),
        helper.make_node("Add", ["ms", "eps"], ["mse"], name="/norm/Add"),
        helper.make_node("Sqrt", ["mse"], ["rms"], name="/norm/Sqrt"),
        helper.make_node("Div", ["one", "rms"], ["inv"], name="/norm/Div"),
        helper.make_node("Mul", ["x", "inv"], ["xn"], name="/norm/Mul"),
        helper.make_node("Mul", ["w", "xn"], ["y"], name="/norm/Mul_1"),
    ]
    g = helper.make_graph(
        nodes, "rmsnorm", [helper.make_tensor_value_info("x", F, [8, 64])],
        [helper.make_tensor_value_info("y", F, [8, 64])],
        [init("w", w), init("p2", np.array(2.0, np.float32)),
         init("eps", np.array(1e-6, np.float32)), init("one", np.array(1.0, np.float32))])
    xd = x.astype(np.float64)
    save(g, [x], [w * (xd / np.sqrt((xd * xd).mean(-1, keepdims=True) + 1e-6))])

elif name == "encoder_bits":
    # Embedding Gather with int64 ids, LayerNormalization, a Where mask,
    # Transpose, Split/Slice/Concat, Erf-GELU; weights in external data.
    ids = rng.integers(0, 32, (2, 5)).astype(np.int64)
    table = rng.standard_normal((32, 16)).astype(np.float32)
    g_ = rng.standard_normal(16).astype(np.float32)
    b_ = rng.standard_normal(16).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["e"], name="/embed/Gather", axis=0),
        helper.make_node("LayerNormalization", ["e", "g", "b"], ["n"], name="/ln/LayerNorm",
                         axis=-1, epsilon=1e-5),
        helper.make_node("Div", ["n", "sqrt2"], ["d"], name="/gelu/Div"),
        helper.make_node("Erf", ["d"], ["er"], name="/gelu/Erf"),
        helper.make_node("Add", ["er", "one"], ["er1"], name="/gelu/Add"),
        helper.make_node("Mul", ["n", "er1"], ["m"], name="/gelu/Mul"),
        helper.make_node("Mul", ["m", "half"], ["gl"], name="/gelu/Mul_1"),
        helper.make_node("Split", ["gl", "halves"], ["lo", "hi"], name="/Split", axis=-1),
        helper.make_node("Neg", ["hi"], ["nhi"], name="/rot/Neg"),
        helper.make_node("Concat", ["nhi", "lo"], ["rot"], name="/rot/Concat", axis=-1),
        helper.make_node("Greater", ["rot", "zerof"], ["pos"], name="/mask/Greater"),
        helper.make_node("Where", ["pos", "rot", "zerof"], ["r"], name="/mask/Where"),
        helper.make_node("Transpose", ["r"], ["t"], name="/Transpose", perm=[1, 0, 2]),
        helper.make_node("Slice", ["t", "st", "en", "ax"], ["y"], name="/Slice"),
    ]
    g = helper.make_graph(
        nodes, "encoder_bits", [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 5])],
        [helper.make_tensor_value_info("y", F, [4, 2, 14])],
        [init("table", table), init("g", g_), init("b", b_),
         init("sqrt2", np.array(np.sqrt(2.0), np.float32)), init("one", np.array(1.0, np.float32)),
         init("half", np.array(0.5, np.float32)), init("halves", np.array([8, 8], np.int64)),
         init("zerof", np.array(0.0, np.float32)), init("st", np.array([1, 2], np.int64)),
         init("en", np.array([5, 16], np.int64)), init("ax", np.array([0, 2], np.int64))])
    from math import erf
    e = table[ids].astype(np.float64)
    n = (e - e.mean(-1, keepdims=True)) / np.sqrt(e.var(-1, keepdims=True) + 1e-5) * g_ + b_
    gl = 0.5 * n * (1 + np.vectorize(erf)(n / np.sqrt(2.0)))
    rot = np.concatenate([-gl[..., 8:], gl[..., :8]], -1)
    r = np.where(rot > 0, rot, 0)
    save(g, [ids], [r.transpose(1, 0, 2)[1:5, :, 2:16]], save_as_external_data=True,
         all_tensors_to_one_file=True, location=name + ".weights", size_threshold=64)

elif name == "dynamic":
    # A symbolic sequence length: x [seq, 64] @ w [64, 32].
    w = rng.standard_normal((64, 32)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="/proj/MatMul")]
    g = helper.make_graph(nodes, "dynamic", [helper.make_tensor_value_info("x", F, ["seq", 64])],
                          [helper.make_tensor_value_info("y", F, ["seq", 32])], [init("w", w)])
    x = rng.standard_normal((5, 64)).astype(np.float32)
    save(g, [x], [x.astype(np.float64) @ w])

elif name == "unsupported":
    axis = helper.make_tensor("axis", onnx.TensorProto.INT64, [], [0])
    nodes = [helper.make_node("CumSum", ["x", "axis"], ["f"], name="/cumsum1/CumSum"),
             helper.make_node("CumSum", ["f", "axis"], ["f2"], name="/cumsum2/CumSum"),
             helper.make_node("Einsum", ["f2", "f2"], ["y"], name="/Einsum", equation="ij,jk->ik")]
    g = helper.make_graph(
        nodes, "unsupported", [helper.make_tensor_value_info("x", F, [8, 8])],
        [helper.make_tensor_value_info("y", F, [8, 8])], [axis])
    save(g, [], [])

elif name == "conv3x3":
    # A general convolution (stride 1, padding 1): a neuron.conv.
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="/conv/Conv", pads=[1, 1, 1, 1],
                              strides=[1, 1])]
    g = helper.make_graph(
        nodes, "conv3x3", [helper.make_tensor_value_info("x", F, [1, 1, 8, 8])],
        [helper.make_tensor_value_info("y", F, [1, 1, 8, 8])],
        [init("w", rng.standard_normal((1, 1, 3, 3)).astype(np.float32))])
    save(g, [], [])

elif name == "conv1x1":
    # A pointwise (1x1, stride 1) convolution with a bias, as ResNet's
    # bottlenecks and MobileNet's expansions have: a neuron.conv, not the
    # patch-embedding matmul (its stride is its kernel too).
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    w = rng.standard_normal((4, 6, 1, 1)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="/conv/Conv",
                              kernel_shape=[1, 1], strides=[1, 1])]
    g = helper.make_graph(
        nodes, "conv1x1", [helper.make_tensor_value_info("x", F, [2, 6, 5, 3])],
        [helper.make_tensor_value_info("y", F, [2, 4, 5, 3])], [init("w", w), init("b", bias)])
    save(g, [x], [conv_ref(x, w, bias, [1, 1], [0, 0, 0, 0])])

elif name == "patches":
    # A patch embedding: Conv with stride == kernel (4x4 patches of 3 channels).
    x = rng.standard_normal((2, 3, 16, 8)).astype(np.float32)
    w = rng.standard_normal((12, 3, 4, 4)).astype(np.float32)
    bias = rng.standard_normal(12).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="/patch/Conv",
                              kernel_shape=[4, 4], strides=[4, 4])]
    g = helper.make_graph(
        nodes, "patches", [helper.make_tensor_value_info("x", F, [2, 3, 16, 8])],
        [helper.make_tensor_value_info("y", F, [2, 12, 4, 2])], [init("w", w), init("b", bias)])
    p = x.reshape(2, 3, 4, 4, 2, 4).transpose(0, 2, 4, 1, 3, 5).reshape(2, 4, 2, 48)
    ref = p.astype(np.float64) @ w.reshape(12, 48).T.astype(np.float64) + bias
    save(g, [x], [ref.transpose(0, 3, 1, 2)])

elif name == "conv_same":
    # Conv with auto_pad SAME_UPPER, stride 2 and a 4x4 kernel: 3 rows and
    # columns of padding, 1 before and 2 after; a bias.
    x = rng.standard_normal((1, 2, 7, 7)).astype(np.float32)
    w = rng.standard_normal((4, 2, 4, 4)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="/conv/Conv",
                              auto_pad="SAME_UPPER", strides=[2, 2])]
    g = helper.make_graph(
        nodes, "conv_same", [helper.make_tensor_value_info("x", F, [1, 2, 7, 7])],
        [helper.make_tensor_value_info("y", F, [1, 4, 4, 4])], [init("w", w), init("b", bias)])
    save(g, [x], [conv_ref(x, w, bias, [2, 2], [1, 1, 2, 2])])

elif name == "pool_ceil":
    # MaxPool and AveragePool (count_include_pad) with ceil_mode: the last
    # window reaches past the input.
    x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], name="/pool/MaxPool", kernel_shape=[3, 3],
                              strides=[2, 2], ceil_mode=1),
             helper.make_node("AveragePool", ["x"], ["a"], name="/pool/AveragePool",
                              kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
                              count_include_pad=1)]
    g = helper.make_graph(
        nodes, "pool_ceil", [helper.make_tensor_value_info("x", F, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("m", F, [1, 3, 3, 3]),
         helper.make_tensor_value_info("a", F, [1, 3, 4, 4])])
    save(g, [x], [pool_ref(x, [3, 3], [2, 2], [0, 0, 0, 0], "max"),
                  pool_ref(x, [3, 3], [2, 2], [1, 1, 1, 1], "avg", divisor_end=True)])

elif name == "conv_bn":
    # Conv -> BatchNormalization (inference, constant statistics) -> Relu ->
    # GlobalAveragePool, as a ResNet stem exports.
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    scale = rng.uniform(0.5, 2, 4).astype(np.float32)
    shift = rng.standard_normal(4).astype(np.float32)
    mean = rng.standard_normal(4).astype(np.float32)
    var = rng.uniform(0.5, 2, 4).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="/conv1/Conv", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"],
                              name="/bn1/BatchNormalization", epsilon=1e-3),
             helper.make_node("Relu", ["n"], ["r"], name="/relu/Relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["y"], name="/pool/GlobalAveragePool")]
    g = helper.make_graph(
        nodes, "conv_bn", [helper.make_tensor_value_info("x", F, [2, 3, 8, 8])],
        [helper.make_tensor_value_info("y", F, [2, 4, 1, 1])],
        [init("w", w), init("s", scale), init("bb", shift), init("m", mean), init("v", var)])
    c = conv_ref(x, w, None, [1, 1], [1, 1, 1, 1])
    ch = lambda a: a.astype(np.float64).reshape(1, 4, 1, 1)
    n = (c - ch(mean)) * ch(scale) / np.sqrt(ch(var) + 1e-3) + ch(shift)
    save(g, [x], [np.maximum(n, 0).mean(axis=(2, 3), keepdims=True)])

elif name == "convtranspose":
    # ConvTranspose with groups, stride, pads and output_padding: the
    # constant weight is flipped and regrouped at import.
    x = rng.standard_normal((1, 4, 3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)  # [C, F/group, kh, kw], group 2
    nodes = [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="/up/ConvTranspose",
                              group=2, strides=[2, 3], pads=[1, 0, 0, 1], output_padding=[1, 0])]
    oh, ow = 2 * 2 + 1 + 3 - 1 - 0, 3 * 3 + 0 + 2 - 0 - 1
    g = helper.make_graph(
        nodes, "convtranspose", [helper.make_tensor_value_info("x", F, [1, 4, 3, 4])],
        [helper.make_tensor_value_info("y", F, [1, 6, oh, ow])], [init("w", w)])
    # Scatter form: every input pixel adds the kernel times it at stride.
    full = np.zeros((1, 6, 2 * 2 + 3 + 1, 3 * 3 + 2))
    for gi in range(2):
        for ci in range(2):
            for fo in range(3):
                for i in range(3):
                    for j in range(4):
                        full[0, gi * 3 + fo, 2 * i:2 * i + 3, 3 * j:3 * j + 2] += \
                            x[0, gi * 2 + ci, i, j] * w[gi * 2 + ci, fo].astype(np.float64)
    save(g, [x], [full[:, :, 1:1 + oh, 0:ow]])

elif name == "matmul_seq_first":
    # nn.MultiheadAttention's in-projection as the exporter writes it with
    # the sequence first: [8, 1, 256] x a constant [256, 768], one row per
    # batch (its 768-column accumulators are 1.5 PSUM banks each).
    x = rng.standard_normal((8, 1, 256)).astype(np.float32)
    w = (rng.standard_normal((256, 768)) / 16).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="/attn/MatMul")], "matmul_seq_first",
        [helper.make_tensor_value_info("x", F, [8, 1, 256])],
        [helper.make_tensor_value_info("y", F, [8, 1, 768])], [init("w", w)])
    save(g, [x], [x.astype(np.float64) @ w.astype(np.float64)])

elif name == "convtranspose_unet":
    # A UNet decoder's up-convolution, nn.ConvTranspose2d(64, 32, 2,
    # stride=2) on 1x64x32x32: the zero insertion interleaves millions of
    # 4-byte runs.
    x = rng.standard_normal((1, 64, 32, 32)).astype(np.float32)
    w = (rng.standard_normal((64, 32, 2, 2)) / 8).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="/up/ConvTranspose",
                          kernel_shape=[2, 2], strides=[2, 2])], "convtranspose_unet",
        [helper.make_tensor_value_info("x", F, [1, 64, 32, 32])],
        [helper.make_tensor_value_info("y", F, [1, 32, 64, 64])], [init("w", w), init("b", b)])
    # Kernel = stride: every output pixel takes one tap of one input pixel.
    y = np.einsum("nchw,cfij->nfhiwj", x.astype(np.float64), w.astype(np.float64))
    y = y.reshape(1, 32, 64, 64) + b.astype(np.float64)[None, :, None, None]
    save(g, [x], [y])

elif name == "conv_upsample":
    # A UNet decoder step: a 3x3 convolution + ReLU over 256 channels at
    # 32x32, then bilinear 2x upsampling (gathers of rows and columns with
    # constant indices). The gathers read rows of the convolution's output
    # that only its second half of stores writes.
    x = rng.standard_normal((1, 256, 32, 32)).astype(np.float32)
    w = (rng.standard_normal((256, 256, 3, 3)) / 48).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)
    scales = np.array([1, 1, 2, 2], dtype=np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="/inc/Conv", pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"], name="/inc/Relu"),
         helper.make_node("Resize", ["r", "", "s"], ["y"], name="/up/Resize", mode="linear",
                          coordinate_transformation_mode="half_pixel")],
        "conv_upsample", [helper.make_tensor_value_info("x", F, [1, 256, 32, 32])],
        [helper.make_tensor_value_info("y", F, [1, 256, 64, 64])],
        [init("w", w), init("b", b), init("s", scales)])
    r = np.maximum(conv_ref(x, w, b, [1, 1], [1, 1, 1, 1]), 0)

    def up(a, axis):
        # half_pixel: source coordinate (i + 0.5) / 2 - 0.5, clamped at the edges.
        n = a.shape[axis]
        src = np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, n - 1)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        f = src - lo
        shape = [1] * a.ndim
        shape[axis] = 2 * n
        return (np.take(a, lo, axis) * (1 - f).reshape(shape) + np.take(a, hi, axis) *
                f.reshape(shape))
    save(g, [x], [up(up(r, 2), 3)])

elif name == "conv_layer4":
    # ResNet-50's layer4 3x3 convolution at batch 8 (512 channels, 7x7) with
    # its ReLU; compiled with --auto-cast=matmult its weight (2.4 M values)
    # is cast at compile time, not by a kernel on every run.
    x = rng.standard_normal((8, 512, 7, 7)).astype(np.float32)
    w = (rng.standard_normal((512, 512, 3, 3)) / 64).astype(np.float32)
    b = rng.standard_normal(512).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="/layer4/conv2/Conv",
                          pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"], name="/layer4/relu/Relu")],
        "conv_layer4", [helper.make_tensor_value_info("x", F, [8, 512, 7, 7])],
        [helper.make_tensor_value_info("y", F, [8, 512, 7, 7])], [init("w", w), init("b", b)])
    save(g, [x], [np.maximum(conv_ref(x, w, b, [1, 1], [1, 1, 1, 1]), 0)])

elif name == "hard_activations":
    # MobileNetV3's activations: HardSwish and HardSigmoid (alpha 0.3, beta 0.4).
    x = (rng.standard_normal((4, 96)) * 4).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("HardSwish", ["x"], ["a"], name="/act/HardSwish"),
         helper.make_node("HardSigmoid", ["x"], ["b"], name="/gate/HardSigmoid", alpha=0.3,
                          beta=0.4)],
        "hard_activations", [helper.make_tensor_value_info("x", F, [4, 96])],
        [helper.make_tensor_value_info("a", F, [4, 96]),
         helper.make_tensor_value_info("b", F, [4, 96])])
    xd = x.astype(np.float64)
    save(g, [x], [xd * np.clip(xd / 6 + 0.5, 0, 1), np.clip(0.3 * xd + 0.4, 0, 1)])

elif name == "empty_slice":
    # An error after import (the lowering's): it names the ONNX node.
    x = rng.standard_normal((20, 10, 5)).astype(np.float32)
    ints = lambda n, v: numpy_helper.from_array(np.array(v, dtype=np.int64), n)
    g = helper.make_graph(
        [helper.make_node("Slice", ["x", "s", "e", "a"], ["t"], name="/head/Slice"),
         helper.make_node("Concat", ["x", "t"], ["y"], name="/head/Concat", axis=1)],
        "empty_slice", [helper.make_tensor_value_info("x", F, [20, 10, 5])],
        [helper.make_tensor_value_info("y", F, [20, 10, 5])],
        [ints("s", [10]), ints("e", [10]), ints("a", [1])])
    save(g, [x], [x])

elif name == "window_errors":
    # What the importer refuses, one model per case (window_errors_<case>).
    F1 = lambda n, s: helper.make_tensor_value_info(n, F, s)
    cases = {
        "indices": (helper.make_node("MaxPool", ["x"], ["y", "i"], name="/pool/MaxPool",
                                     kernel_shape=[2, 2], strides=[2, 2]),
                    [F1("x", [1, 1, 4, 4])],
                    [F1("y", [1, 1, 2, 2]),
                     helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 2, 2])], [], 17),
        "ceil": (helper.make_node("MaxPool", ["x"], ["y"], name="/pool/MaxPool",
                                  kernel_shape=[2, 2], strides=[3, 3], pads=[1, 1, 1, 1],
                                  ceil_mode=1),
                 [F1("x", [1, 1, 11, 11])], [F1("y", [1, 1, 5, 5])], [], 17),
        "scales": (helper.make_node("Resize", ["x", "", "s"], ["y"], name="/up/Resize",
                                    mode="nearest"),
                   [F1("x", [1, 1, 2, 2]), F1("s", [4])], [F1("y", [1, 1, 4, 4])], [], 17),
        "pads": (helper.make_node("Pad", ["x", "p"], ["y"], name="/pad/Pad"),
                 [F1("x", [1, 1, 2, 2]),
                  helper.make_tensor_value_info("p", TensorProto.INT64, [8])],
                 [F1("y", [1, 1, 4, 4])], [], 17),
        "bntrain": (helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                                     ["y", "rm", "rv", "sm", "sv"], name="/bn/BatchNormalization"),
                    [F1("x", [2, 3, 4, 4])],
                    [F1("y", [2, 3, 4, 4]), F1("rm", [3]), F1("rv", [3])],
                    [init(n, np.ones(3, np.float32)) for n in "sbmv"], 12),
    }
    for case, (node, ins, outs, inits, opset) in cases.items():
        model = helper.make_model(helper.make_graph([node], case, ins, outs, inits),
                                  opset_imports=[helper.make_opsetid("", opset)])
        onnx.save(model, os.path.join(out, "window_errors_%s.onnx" % case))

elif name in ("lstm_forward", "lstm_reverse_peep", "lstm_bidir_lens", "gru_bidir",
              "gru_reverse_lens", "rnn_forward"):
    # ONNX recurrent layers, one option set each, against recurrent_ref:
    # inputs X (and initial states, run-time sequence_lens), weights as
    # initializers.
    I32 = TensorProto.INT32
    V = lambda n, shape, t=F: helper.make_tensor_value_info(n, t, shape)
    kind = {"lstm": "LSTM", "gru": "GRU", "rnn": "RNN"}[name.split("_")[0]]
    cfg = {
        # seq, batch, input, hidden, direction, layout, options
        "lstm_forward": (7, 3, 16, 32, "forward", 0, {}),
        "lstm_reverse_peep": (6, 3, 8, 16, "reverse", 0,
                              dict(peep=True, h0=True, c0=True, lens=[6, 4, 1], clip=2.5,
                                   outs=["", "y_h", "y_c"])),
        "lstm_bidir_lens": (7, 3, 8, 16, "bidirectional", 1,
                            dict(bias=False, h0=True, lens_input=[5, 7, 2],
                                 outs=["y", "y_h"])),
        "gru_bidir": (5, 2, 12, 24, "bidirectional", 0, dict(h0=True, lbr=1)),
        "gru_reverse_lens": (7, 3, 8, 16, "reverse", 0,
                             dict(lbr=0, lens=[3, 7, 5], clip=3.0, outs=["y"])),
        "rnn_forward": (9, 2, 8, 16, "forward", 0, dict(h0=True)),
    }[name]
    seq, batch, inp, hid, direction, layout, opt = cfg
    dirs = 2 if direction == "bidirectional" else 1
    w, r, b, p = recurrent_weights(kind, dirs, hid, inp, bias=opt.get("bias", True),
                                   peep=opt.get("peep", False))
    xs = (batch, seq, inp) if layout else (seq, batch, inp)
    hs = (batch, dirs, hid) if layout else (dirs, batch, hid)
    x = rng.standard_normal(xs).astype(np.float32)
    inputs, vis, inits = [x], [V("x", list(xs))], [init("w", w), init("r", r)]
    names = ["x", "w", "r", "b" if b is not None else ""]
    if b is not None:
        inits.append(init("b", b))
    lens = None
    if "lens" in opt:
        lens = np.array(opt["lens"], np.int32)
        inits.append(init("lens", lens))
        names.append("lens")
    elif "lens_input" in opt:
        lens = np.array(opt["lens_input"], np.int32)
        inputs.append(lens)
        vis.append(V("lens", [batch], I32))
        names.append("lens")
    else:
        names.append("")
    h0 = c0 = None
    if opt.get("h0"):
        h0 = (rng.standard_normal(hs) * 0.5).astype(np.float32)
        inputs.append(h0)
        vis.append(V("h0", list(hs)))
    names.append("h0" if h0 is not None else "")
    if kind == "LSTM":
        if opt.get("c0"):
            c0 = (rng.standard_normal(hs) * 0.5).astype(np.float32)
            inputs.append(c0)
            vis.append(V("c0", list(hs)))
        names.append("c0" if c0 is not None else "")
        if p is not None:
            inits.append(init("p", p))
        names.append("p" if p is not None else "")
    while names and names[-1] == "":
        names.pop()
    outs = opt.get("outs", ["y", "y_h", "y_c"] if kind == "LSTM" else ["y", "y_h"])
    attrs = dict(hidden_size=hid, direction=direction)
    if layout:
        attrs["layout"] = 1
    if "clip" in opt:
        attrs["clip"] = opt["clip"]
    if kind == "GRU":
        attrs["linear_before_reset"] = opt.get("lbr", 0)
    node = helper.make_node(kind, names, outs, name="/rnn/" + kind, **attrs)
    refs = recurrent_ref(kind, x, w, r, b, lens, h0, c0, p, direction, clip=opt.get("clip"),
                         lbr=opt.get("lbr", 0), layout=layout)
    shapes = {"y": list(refs[0].shape), "y_h": list(refs[1].shape)}
    if kind == "LSTM":
        shapes["y_c"] = list(refs[2].shape)
    kept = [o for o in outs if o]
    g = helper.make_graph([node], name, vis, [V(o, shapes[o]) for o in kept], inits)
    save(g, inputs, [refs[["y", "y_h", "y_c"].index(o)] for o in kept])

elif name == "recurrent_activations":
    # The activations attribute: an RNN with Relu forward and LeakyRelu
    # (alpha 0.1) reverse; an LSTM with HardSigmoid (0.3, 0.6), ScaledTanh
    # (1.5, 0.5) and Softsign; a GRU with Sigmoid and Elu (0.8); an RNN
    # with Affine (0.7, 0.1) forward and Softplus reverse.
    x = rng.standard_normal((5, 2, 8)).astype(np.float32)
    V = lambda n, shape: helper.make_tensor_value_info(n, F, shape)
    specs = [
        ("RNN", "bidirectional", ["Relu", "LeakyRelu"], [0.1], []),
        ("LSTM", "forward", ["HardSigmoid", "ScaledTanh", "Softsign"], [0.3, 1.5], [0.6, 0.5]),
        ("GRU", "forward", ["Sigmoid", "Elu"], [0.8], []),
        ("RNN", "bidirectional", ["Affine", "Softplus"], [0.7], [0.1]),
    ]
    nodes, inits, outs, refs = [], [], [], []
    for k, (kind, direction, acts, alphas, betas) in enumerate(specs):
        dirs = 2 if direction == "bidirectional" else 1
        w, r, b, _ = recurrent_weights(kind, dirs, 12, 8)
        inits += [init("w%d" % k, w), init("r%d" % k, r), init("b%d" % k, b)]
        attrs = dict(hidden_size=12, direction=direction, activations=acts)
        if alphas:
            attrs["activation_alpha"] = alphas
        if betas:
            attrs["activation_beta"] = betas
        nodes.append(helper.make_node(kind, ["x", "w%d" % k, "r%d" % k, "b%d" % k], ["y%d" % k],
                                      name="/rnn%d/%s" % (k, kind), **attrs))
        y = recurrent_ref(kind, x, w, r, b, direction=direction, acts=acts, alphas=alphas,
                          betas=betas)[0]
        outs.append(V("y%d" % k, list(y.shape)))
        refs.append(y)
    g = helper.make_graph(nodes, name, [V("x", [5, 2, 8])], outs, inits)
    save(g, [x], refs)

elif name in ("torch_lstm", "torch_gru", "torch_rnn"):
    # PyTorch's own layers through torch.onnx.export (opset 17), against
    # PyTorch's outputs: nn.LSTM and nn.GRU with 2 layers, bidirectional,
    # batch_first (the exporter writes GRU with linear_before_reset=1 and
    # zero initial states as Expand of a constant); nn.RNN with ReLU, 2
    # layers, sequence first.
    import torch
    torch.manual_seed(0)
    if name == "torch_lstm":
        m = torch.nn.LSTM(16, 32, num_layers=2, bidirectional=True, batch_first=True)
        x = torch.randn(2, 9, 16)
    elif name == "torch_gru":
        m = torch.nn.GRU(16, 32, num_layers=2, bidirectional=True, batch_first=True)
        x = torch.randn(2, 9, 16)
    else:
        m = torch.nn.RNN(16, 32, num_layers=2, nonlinearity="relu")
        x = torch.randn(9, 2, 16)

    class Flat(torch.nn.Module):
        """The layer's output and final states as a flat tuple."""

        def __init__(self, layer):
            super().__init__()
            self.layer = layer

        def forward(self, x):
            y, state = self.layer(x)
            return (y,) + (tuple(state) if isinstance(state, tuple) else (state,))

    save_torch(Flat(m).eval(), x)

elif name == "torch_groupnorm":
    # nn.GroupNorm with one group per channel (wav2vec2's feature
    # extractor): torch.onnx.export writes InstanceNormalization with unit
    # scale and zero bias, then the affine as Mul and Add.
    import torch
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv1d(4, 16, 5, stride=2), torch.nn.GroupNorm(16, 16),
                            torch.nn.GELU())
    with torch.no_grad():
        m[1].weight.normal_()
        m[1].bias.normal_()
    save_torch(m.eval(), torch.randn(1, 4, 300))

elif name == "torch_swin":
    # torchvision's swin_t (random weights) at 1x3x64x64: its shifted-window
    # attention masks are built from the input's shape with Mod, ScatterND,
    # Range, Expand, Equal and Where, all folded at import.
    import torch
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.swin_t(weights=None).eval()
    save_torch(m, torch.randn(1, 3, 64, 64))

elif name == "instancenorm":
    # InstanceNormalization over [N, C, H, W] with a per-channel scale and
    # bias, and over [N, C, L] with unit scale and zero bias (the GroupNorm
    # export's form).
    x = (rng.standard_normal((2, 6, 5, 7)) * 3 + 1).astype(np.float32)
    x2 = rng.standard_normal((1, 8, 50)).astype(np.float32)
    sc = rng.standard_normal(6).astype(np.float32)
    bi = rng.standard_normal(6).astype(np.float32)
    V = lambda n, shape: helper.make_tensor_value_info(n, F, shape)
    g = helper.make_graph(
        [helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], name="/norm/In",
                          epsilon=1e-3),
         helper.make_node("InstanceNormalization", ["x2", "ones", "zeros"], ["y2"],
                          name="/norm0/InstanceNormalization", epsilon=1e-5)],
        name, [V("x", [2, 6, 5, 7]), V("x2", [1, 8, 50])], [V("y", [2, 6, 5, 7]), V("y2", [1, 8, 50])],
        [init("s", sc), init("b", bi), init("ones", np.ones(8, np.float32)),
         init("zeros", np.zeros(8, np.float32))])

    def inorm(a, eps):
        a = a.astype(np.float64)
        axes = tuple(range(2, a.ndim))
        return (a - a.mean(axes, keepdims=True)) / np.sqrt(a.var(axes, keepdims=True) + eps)
    save(g, [x, x2], [inorm(x, 1e-3) * sc[:, None, None] + bi[:, None, None], inorm(x2, 1e-5)])

elif name == "swin_mask":
    # torchvision's shifted-window attention mask, written as
    # torch.onnx.export writes it: the padded size from the input's Shape
    # with Mod, a zero ConstantOfShape, one ScatterND per region of indices
    # built with Range, Unsqueeze, Expand and Concat, window partition,
    # differences, Equal, Not and Where; added to the run-time attention
    # scores before a Softmax. Only the scores are run-time values.
    ws, shift, hw = 4, 2, 8
    nodes, inits = [], []
    cnt = [0]

    def c(v, dtype=np.int64):
        cnt[0] += 1
        n = "c%d" % cnt[0]
        inits.append(init(n, np.array(v, dtype)))
        return n

    def nd(op, ins, **kw):
        cnt[0] += 1
        o = "t%d" % cnt[0]
        nodes.append(helper.make_node(op, ins, [o], name="/attn/%s_%d" % (op, cnt[0]), **kw))
        return o
    shp = nd("Shape", ["x"])
    dims = []
    for axis in (1, 2):
        d = nd("Gather", [shp, c(axis)], axis=0)
        pad = nd("Mod", [nd("Sub", [c(ws), nd("Mod", [d, c(ws)], fmod=0)]), c(ws)], fmod=0)
        dims.append(nd("Add", [d, pad]))
    hw_shape = nd("Concat", [nd("Unsqueeze", [d, c([0])]) for d in dims], axis=0)
    img = nd("ConstantOfShape", [hw_shape],
             value=numpy_helper.from_array(np.array([0.0], np.float32)))
    bounds = lambda d: [(c(0), nd("Sub", [d, c(ws)])), (nd("Sub", [d, c(ws)]),
                                                        nd("Sub", [d, c(shift)])),
                        (nd("Sub", [d, c(shift)]), d)]
    count = 0
    for h0, h1 in bounds(dims[0]):
        for w0, w1 in bounds(dims[1]):
            rh, rw = nd("Range", [h0, h1, c(1)]), nd("Range", [w0, w1, c(1)])
            grid = nd("Concat", [nd("Shape", [rh]), nd("Shape", [rw])], axis=0)
            gh = nd("Expand", [nd("Unsqueeze", [rh, c([1])]), grid])
            gw = nd("Expand", [nd("Unsqueeze", [rw, c([0])]), grid])
            idx = nd("Concat", [nd("Unsqueeze", [gh, c([2])]), nd("Unsqueeze", [gw, c([2])])],
                     axis=2)
            upd = nd("Expand", [c(float(count), np.float32), grid])
            img = nd("ScatterND", [img, idx, upd])
            count += 1
    win = nd("Reshape", [img, c([hw // ws, ws, hw // ws, ws])])
    win = nd("Reshape", [nd("Transpose", [win], perm=[0, 2, 1, 3]), c([-1, ws * ws])])
    diff = nd("Sub", [nd("Unsqueeze", [win, c([1])]), nd("Unsqueeze", [win, c([2])])])
    differ = nd("Not", [nd("Equal", [diff, c(0.0, np.float32)])])
    mask = nd("Where", [differ, c(-100.0, np.float32), c(0.0, np.float32)])
    scores = nd("Add", ["scores", nd("Unsqueeze", [mask, c([1])])])
    nodes.append(helper.make_node("Softmax", [scores], ["y"], name="/attn/Softmax", axis=-1))
    nw, n = (hw // ws) ** 2, ws * ws
    V = lambda nm, shape: helper.make_tensor_value_info(nm, F, shape)
    g = helper.make_graph(nodes, name, [V("x", [1, hw, hw, 16]), V("scores", [nw, 2, n, n])],
                          [V("y", [nw, 2, n, n])], inits)
    x = rng.standard_normal((1, hw, hw, 16)).astype(np.float32)
    sc = rng.standard_normal((nw, 2, n, n)).astype(np.float32)
    # torchvision.models.swin_transformer.shifted_window_attention's mask.
    ref_img = np.zeros((hw, hw))
    sl = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
    count = 0
    for hs in sl:
        for wsl in sl:
            ref_img[hs, wsl] = count
            count += 1
    m = ref_img.reshape(hw // ws, ws, hw // ws, ws).transpose(0, 2, 1, 3).reshape(nw, n)
    m = m[:, None, :] - m[:, :, None]
    m = np.where(m != 0, -100.0, 0.0)
    save(g, [x, sc], [softmax(sc.astype(np.float64) + m[:, None])])

elif name == "runtime_mod_scatter":
    # Mod, ScatterND and Tile on run-time values: float Mod (fmod=1),
    # integer Mod with Python's sign (fmod=0) and C's (fmod=1), ScatterND of
    # run-time updates at constant indices (rows of a [5, 4, 3] tensor and
    # single vectors of it; with reduction add and mul, indices repeated),
    # Tile.
    I32 = TensorProto.INT32
    a = (rng.standard_normal((4, 6)) * 10).astype(np.float32)
    bd = (rng.uniform(0.5, 3, 6) * rng.choice([-1, 1], 6)).astype(np.float32)
    ia = rng.integers(-20, 21, (4, 6)).astype(np.int32)
    ib = (rng.integers(1, 8, 6) * rng.choice([-1, 1], 6)).astype(np.int32)
    data = rng.standard_normal((5, 4, 3)).astype(np.float32)
    u1 = rng.standard_normal((2, 3)).astype(np.float32)
    u2 = rng.standard_normal((2, 4, 3)).astype(np.float32)
    t = rng.standard_normal((2, 3)).astype(np.float32)
    i1 = np.array([[1, 2], [4, -1]], np.int64)
    i2 = np.array([[3], [0]], np.int64)
    i3 = np.array([[2, 1], [0, 3], [2, 1], [2, 1]], np.int64)
    u3 = rng.standard_normal((4, 3)).astype(np.float32)
    V = lambda n, shape, ty=F: helper.make_tensor_value_info(n, ty, shape)
    g = helper.make_graph(
        [helper.make_node("Mod", ["a", "bd"], ["fm"], name="/fmod/Mod", fmod=1),
         helper.make_node("Mod", ["ia", "ib"], ["im"], name="/mod/Mod", fmod=0),
         helper.make_node("Mod", ["ia", "ib"], ["imc"], name="/cmod/Mod", fmod=1),
         helper.make_node("ScatterND", ["data", "i1", "u1"], ["s1"], name="/scatter/ScatterND"),
         helper.make_node("ScatterND", ["s1", "i2", "u2"], ["s2"], name="/scatter/ScatterND_1"),
         helper.make_node("Tile", ["t", "reps"], ["tl"], name="/tile/Tile"),
         helper.make_node("ScatterND", ["data", "i3", "u3"], ["s3"], name="/scatter/add",
                          reduction="add"),
         helper.make_node("ScatterND", ["data", "i3", "u3"], ["s4"], name="/scatter/mul",
                          reduction="mul")],
        name, [V("a", [4, 6]), V("bd", [6]), V("ia", [4, 6], I32), V("ib", [6], I32),
               V("data", [5, 4, 3]), V("u1", [2, 3]), V("u2", [2, 4, 3]), V("t", [2, 3]),
               V("u3", [4, 3])],
        [V("fm", [4, 6]), V("im", [4, 6], I32), V("imc", [4, 6], I32), V("s2", [5, 4, 3]),
         V("tl", [4, 9]), V("s3", [5, 4, 3]), V("s4", [5, 4, 3])],
        [init("i1", i1), init("i2", i2), init("reps", np.array([2, 3], np.int64)),
         init("i3", i3)])
    s = data.astype(np.float64).copy()
    s[1, 2], s[4, 3] = u1[0], u1[1]
    s[3], s[0] = u2[0], u2[1]
    s3, s4 = data.astype(np.float64).copy(), data.astype(np.float64).copy()
    for (j, k), u in zip(i3, u3.astype(np.float64)):
        s3[j, k] += u
        s4[j, k] *= u
    save(g, [a, bd, ia, ib, data, u1, u2, t, u3],
         [np.fmod(a.astype(np.float64), bd), np.mod(ia, ib), np.fmod(ia, ib), s,
          np.tile(t.astype(np.float64), (2, 3)), s3, s4])

elif name == "einsum":
    # The equations exporters write: MaxViT's attention (spaces, capital
    # labels), implicit output, three operands, a transpose, an ellipsis, an
    # outer product, a sum over a label only one operand has.
    shapes = {"q": (2, 3, 4, 5, 8), "k": (2, 3, 4, 6, 8), "v": (2, 3, 4, 6, 8), "a": (3, 4),
              "b": (4, 5), "c": (5,), "m": (2, 3, 4), "n": (2, 4, 5), "u": (3,), "w": (4,)}
    vals = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    eqs = [("B G H I D, B G H J D -> B G H I J", ["q", "k"]),
           ("B G H I J, B G H J D -> B G H I D", ["s0", "v"]),
           ("ij,jk", ["a", "b"]),
           ("ij,jk,k->i", ["a", "b", "c"]),
           ("bij->bji", ["m"]),
           ("...ij,...jk->...ik", ["m", "n"]),
           ("i,j->ij", ["u", "w"]),
           ("bij,bjk->bj", ["m", "n"])]
    nodes, outs, refs, env = [], [], [], dict(vals)
    for k, (eq, ins) in enumerate(eqs):
        r = np.einsum(eq.replace(" ", "").lower(), *[env[i].astype(np.float64) for i in ins])
        env["s%d" % k] = r.astype(np.float32)
        nodes.append(helper.make_node("Einsum", ins, ["s%d" % k], name="/einsum%d/Einsum" % k,
                                      equation=eq))
        outs.append(helper.make_tensor_value_info("s%d" % k, F, list(r.shape)))
        refs.append(r)
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info(k, F, list(s)) for k, s in shapes.items()],
                          outs)
    save(g, [vals[k] for k in shapes], refs)

elif name == "constant_subgraph":
    # Nodes whose inputs are all constants, evaluated at import: integer
    # and float arithmetic (Div truncating integers, Sqrt, Pow, Clip, Neg,
    # Abs), Cast both ways, Tile, Gather along axis 1 by a 2-D index, a
    # reversing Slice, Split, ReduceSum and ReduceMax, a float Range,
    # comparisons with And/Or, Where and Expand; the result is added to the
    # run-time input, the only neuron op left besides the constant.
    nodes, inits = [], []
    cnt = [0]

    def c(v, dtype=np.int64):
        cnt[0] += 1
        n = "k%d" % cnt[0]
        inits.append(init(n, np.array(v, dtype)))
        return n

    def nd(op, ins, n_out=1, **kw):
        cnt[0] += 1
        outs = ["v%d_%d" % (cnt[0], i) for i in range(n_out)]
        nodes.append(helper.make_node(op, ins, outs, name="/fold/%s_%d" % (op, cnt[0]), **kw))
        return outs[0] if n_out == 1 else outs
    base = np.arange(-6, 6, dtype=np.int64).reshape(3, 4)
    q = nd("Div", [c(base), c(4)])                                    # [3, 4] truncating
    f = nd("Cast", [q], to=TensorProto.FLOAT)
    f = nd("Add", [nd("Sqrt", [nd("Abs", [nd("Cast", [c(base)], to=TensorProto.FLOAT)])]), f])
    f = nd("Pow", [f, c(2.0, np.float32)])
    f = nd("Clip", [nd("Neg", [f]), c(-5.0, np.float32), c(3.0, np.float32)])
    t = nd("Tile", [f, c([1, 2])])                                     # [3, 8]
    g = nd("Gather", [t, c([[7, 0], [3, 3]])], axis=1)                 # [3, 2, 2]
    g = nd("Reshape", [g, c([3, 4])])
    rev = nd("Slice", [g, c([-1]), c([-100]), c([0]), c([-1])])        # rows reversed
    lo, hi = nd("Split", [rev, c([1, 3])], n_out=2, axis=1)
    s = nd("ReduceSum", [hi, c([1])], keepdims=1)                      # [3, 1]
    mx = nd("ReduceMax", [hi], axes=[1], keepdims=1)
    rg = nd("Range", [c(0.5, np.float32), c(2.0, np.float32), c(0.5, np.float32)])  # [3]
    rg = nd("Unsqueeze", [rg, c([1])])
    cond = nd("Or", [nd("Less", [s, rg]), nd("And", [nd("Greater", [mx, c(0.0, np.float32)]),
                                                     nd("Equal", [lo, lo])])])
    w = nd("Where", [cond, nd("Mul", [s, lo]), nd("Sub", [mx, rg])])    # [3, 1]
    w = nd("Expand", [w, c([3, 5])])
    nodes.append(helper.make_node("Add", ["x", w], ["y"], name="/out/Add"))
    V = lambda n, shape: helper.make_tensor_value_info(n, F, shape)
    gr = helper.make_graph(nodes, name, [V("x", [3, 5])], [V("y", [3, 5])], inits)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    qn = np.trunc(base / 4)
    fn = np.sqrt(np.abs(base)) + qn
    fn = np.clip(-(fn ** 2), -5, 3)
    tn = np.tile(fn, (1, 2))
    gn = tn[:, [[7, 0], [3, 3]]].reshape(3, 4)[::-1]
    lon, hin = gn[:, :1], gn[:, 1:]
    sn, mxn = hin.sum(1, keepdims=True), hin.max(1, keepdims=True)
    rgn = np.arange(0.5, 2.0, 0.5)[:, None]
    condn = (sn < rgn) | ((mxn > 0) & (lon == lon))
    wn = np.where(condn, sn * lon, mxn - rgn)
    save(gr, [x], [x.astype(np.float64) + np.broadcast_to(wn, (3, 5))])

elif name == "resize_interp":
    # F.interpolate as models call it: nearest 2x, bilinear with aligned
    # corners down one axis and up the other, bicubic along W only, a 1-D
    # linear of a rank-3 tensor (matrices on TensorE), and one wide enough
    # that its interpolation matrix would be too large (gathers).
    import torch
    import torch.nn.functional as Fn

    class Interp(torch.nn.Module):
        def forward(self, x):
            wide = torch.cat([x] * 100, -1)
            return (Fn.interpolate(x, scale_factor=2, mode="nearest"),
                    Fn.interpolate(x, size=(9, 4), mode="bilinear", align_corners=True),
                    Fn.interpolate(x, size=(5, 16), mode="bicubic", align_corners=False),
                    Fn.interpolate(x.reshape(1, 3, 35), size=70, mode="linear"),
                    Fn.interpolate(wide, size=(5, 1400), mode="bilinear"))
    torch.manual_seed(0)
    save_torch(Interp(), torch.randn(1, 3, 5, 7))

elif name == "resize_shape_sizes":
    # torchvision LRASPP's F.interpolate(size=x.shape[-2:]): Resize's sizes
    # concatenate a Slice of an intermediate's Shape with constants, which
    # ONNX shape inference does not see through (the output stays
    # [?, ?, ?, ?]); the sizes known at import give the result.
    V = lambda n, shape: helper.make_tensor_value_info(n, F, shape)
    I = lambda n, v: init(n, np.array(v, np.int64))
    g = helper.make_graph(
        [helper.make_node("Mul", ["x", "s"], ["m"], name="/classifier/Mul"),
         helper.make_node("Shape", ["m"], ["sh"], name="/classifier/Shape"),
         helper.make_node("Slice", ["sh", "st", "en", "ax"], ["nc"], name="/classifier/Slice"),
         helper.make_node("Concat", ["nc", "hw"], ["sizes"], name="/classifier/Concat", axis=0),
         helper.make_node("Resize", ["m", "", "", "sizes"], ["r"], name="/classifier/Resize",
                          mode="linear", coordinate_transformation_mode="half_pixel"),
         helper.make_node("Relu", ["r"], ["y"], name="/classifier/Relu")],
        name, [V("x", [1, 4, 4, 4]), V("s", [1, 4, 1, 1])], [V("y", [1, 4, 8, 8])],
        [I("st", [0]), I("en", [2]), I("ax", [0]), I("hw", [8, 8])])
    x = rng.standard_normal((1, 4, 4, 4)).astype(np.float32)
    sc = rng.standard_normal((1, 4, 1, 1)).astype(np.float32)
    m = x.astype(np.float64) * sc

    def up2(a, axis):
        # half_pixel: source coordinate (i + 0.5) / 2 - 0.5, clamped.
        n = a.shape[axis]
        src = np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, n - 1)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        f = (src - lo).reshape([-1 if d == axis else 1 for d in range(a.ndim)])
        return np.take(a, lo, axis) * (1 - f) + np.take(a, hi, axis) * f
    save(g, [x, sc], [np.maximum(up2(up2(m, 2), 3), 0)])

elif name == "import_errors":
    # What the ONNX import refuses among the ops of this change, one model
    # per case (import_errors_<case>).
    I64 = TensorProto.INT64
    V = lambda n, shape, ty=F: helper.make_tensor_value_info(n, ty, shape)
    w, r, b, _ = recurrent_weights("RNN", 1, 4, 3)
    cases = {
        "activation": (helper.make_node("RNN", ["x", "w", "r"], ["y"], name="/rnn/RNN",
                                        hidden_size=4, activations=["Gelu"]),
                       [V("x", [2, 1, 3])], [V("y", [2, 1, 1, 4])], [init("w", w), init("r", r)]),
        "scatter": (helper.make_node("ScatterND", ["d", "i", "u"], ["y"],
                                     name="/scatter/ScatterND"),
                    [V("d", [4, 3]), V("i", [2, 1], I64), V("u", [2, 3])], [V("y", [4, 3])], []),
        "range": (helper.make_node("Range", ["s", "l", "d"], ["y"], name="/pos/Range"),
                  [V("s", [], I64), V("l", [], I64), V("d", [], I64)], [V("y", [5], I64)], []),
        "einsum": (helper.make_node("Einsum", ["a", "c"], ["y"], name="/proj/Einsum",
                                    equation="ij,jk->ik"),
                   [V("a", [3, 4]), V("c", [1, 5])], [V("y", [3, 5])], []),
    }
    for case, (node, ins, outs, inits) in cases.items():
        model = helper.make_model(helper.make_graph([node], case, ins, outs, inits),
                                  opset_imports=[helper.make_opsetid("", 17)])
        onnx.save(model, os.path.join(out, "import_errors_%s.onnx" % case))

else:
    sys.exit("unknown model " + name)
