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
    # A general convolution (stride 1, padding 1): refused with what is taken.
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="/conv/Conv", pads=[1, 1, 1, 1],
                              strides=[1, 1])]
    g = helper.make_graph(
        nodes, "conv3x3", [helper.make_tensor_value_info("x", F, [1, 1, 8, 8])],
        [helper.make_tensor_value_info("y", F, [1, 1, 8, 8])],
        [init("w", rng.standard_normal((1, 1, 3, 3)).astype(np.float32))])
    save(g, [], [])

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

else:
    sys.exit("unknown model " + name)
