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

else:
    sys.exit("unknown model " + name)
