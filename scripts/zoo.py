#!/usr/bin/python3
"""zoo.py: the model zoo (test/zoo/models.py) through neuronc, checked against PyTorch.

  scripts/zoo.py [--models a,b | --family F[,G] | --sample | --tags small]
                 [--dtypes f32,bf16] [--targets trn1,trn2] [-O 0,2]
                 [--bin DIR] [--out DIR] [--jobs 1] [--timeout 900]
                 [--markdown] [--write-doc docs/zoo.md] [--profile] [--check]
                 [--export-only] [--rebuild] [--list] [--use-cache] [--keep-neff]
                 [--neuronc-flag=FLAG]

Per model (the registry: name, family, builder, example inputs, tags; see
test/zoo/models.py for how to add one): build it (random weights,
torch.manual_seed(0), eval mode; no download), draw its inputs (seeded), run
it eagerly and export it with torch.onnx.export (opset 17, constants folded),
in a child process. The ONNX file, the inputs and PyTorch's outputs are
cached as OUT/MODEL/{model.onnx,input*.npy,ref*.npy,meta.json} and reused
while the model's own add(...) entry, the code test/zoo/models.py shares
among models, torch, torchvision, onnx and the opset are unchanged
(--rebuild forces a new export). An export that holds a custom or ATen op (a torch
fast path) is an export error.

The export also runs the model with its matmul and convolution operands
rounded to bf16 (test/zoo/models.py's bf16_operands, what --auto-cast=matmult
does) and keeps those outputs (refbf16_*.npy): a bf16 cell that differs
says how far PyTorch itself moved with bf16 operands and how far the device
is from that, which tells bf16's own error from a compiler's. An f32 cell
that differs runs the model once more in f64 (reff64_*.npy, made when first
needed): how far PyTorch's own f32 is from the exact result. A cell that
PyTorch itself moves beyond the tolerance at its precision passes (ok†)
within twice PyTorch's distance when neuron-run --check finds no kernel that
diverges from the interpreter (rounding accumulated along the program, or
moved by fusion, is not a wrong kernel). With --check,
a cell that differs or fails to run is run again with `neuron-run model.onnx
--check` (simulator against interpreter; the first kernel that diverges or
reads unwritten memory) and its finding is recorded.

Then per cell, dtype x target x -O level (a cell is named like trn1-f32-O2):
compile with `neuronc model.onnx -o model.neff -O LEVEL --target TARGET
--no-cache` (bf16: --auto-cast=matmult, bf16 matmul operands with f32
accumulation; --use-cache lets neuronc use its compile cache),
run with `neuron-run model.neff --input ... --output ...` on the simulator
with the same inputs, parse its `device time X us`, and compare with
PyTorch: max|y - ref| / max|ref| over the outputs must be <= 1e-4 (f32) or
2e-2 (bf16). A model that does not compile or run is listed with the first
line of the error, never skipped. Files: OUT/MODEL/CELL/{out*.npy,
neuronc.log, neuron-run.log} (and model.neff with --keep-neff: executables
carry the constants, ~15 GB for the whole zoo); OUT/results.json holds every
row with the compiler's identity (version, build time, hash of the binary).

The bound is the model's lower bound from its ONNX graph, not from measured
traffic: compute = 2 x MACs of MatMul, Gemm, Conv, ConvTranspose, Einsum
(and the gate matmuls of LSTM/GRU/RNN) at TensorE's peak for the dtype the
cell runs them in (bf16: the bf16 peak; f32: the bf16 peak x the fp32
fraction); memory = compulsory bytes (graph inputs, outputs, initializers
and Constant tensors at their compiled dtype: f32, int64 as i32; in bf16
cells the weights of matmuls/convolutions count 2 bytes; an embedding table
read only by Gather counts the rows it gathers; scalars and shape operands
none) over the memory roofline; bound = max(compute, memory). The ratio
device / bound is printed at `memoryGBps()` (min of the HBM share and the
DMA engines: 272 GB/s trn1, 362 GB/s trn2) and at the HBM share `hbmGBps`
(410 GB/s trn1, 362 GB/s trn2). The hardware numbers are read from the
hardware table, lib/ISA/HardwareModel.cpp (the one every tool reads; no tool
prints all of them), else from docs/hardware-model.md's table; with
--profile they are checked against the profile's summary.json.

--sample runs the fixed CI sample (one model per family, tagged `sample`);
--tags small the small-input variants. --markdown prints the table;
--write-doc FILE writes it with a header giving the command that produced
it. --jobs N runs N cells (and exports) at once. --timeout bounds each
export, neuronc and neuron-run (seconds). --list prints the registry.
Exit 0 when every cell compiled, ran and matched, 1 otherwise, 2 on a usage
error.

Examples:

  scripts/zoo.py --sample --dtypes f32 --targets trn1 -O 2
  scripts/zoo.py --family cnn --tags small --dtypes f32,bf16 --markdown
  scripts/zoo.py --models resnet50,llama_512 --targets trn1,trn2 -O 0,2
  scripts/zoo.py --export-only            # build, run and export every model (no compiler)
"""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from collections import defaultdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = os.path.join(ROOT, "test", "zoo")
OPSET = 17
RTOL = {"f32": 1e-4, "bf16": 2e-2}
# Bumped when graph_stats changes: cached exports get their bound recomputed.
STATS_VERSION = 3


def fail(msg):
    print("zoo: error: " + msg, file=sys.stderr)
    sys.exit(2)


def registry():
    sys.path.insert(0, ZOO)
    import models
    return models


# ---------------------------------------------------------------------------
# Hardware numbers
# ---------------------------------------------------------------------------

HW_FIELDS = ("tensorBf16Tflops", "tensorFp32Fraction", "hbmGBps", "dmaEngines",
             "dmaBytesPerNsPerEngine")


def _hw_from_table(path):
    """The fields of each profile in lib/ISA/HardwareModel.cpp's kModels, written
    `/*field=*/value`."""
    text = open(path).read()
    out = {}
    for block in re.findall(r"\{\s*/\*name=\*/\"(\w+)\"(.*?)\}", text, re.S):
        name, body = block
        vals = dict(re.findall(r"/\*(\w+)=\*/\s*([-+0-9.eE]+)\s*[,}\n]", body + "\n"))
        if all(f in vals for f in HW_FIELDS):
            out[name] = {f: float(vals[f]) for f in HW_FIELDS}
    return out


def _hw_from_doc(path):
    """The same numbers from docs/hardware-model.md's table rows."""
    text = open(path).read()

    def row(field):
        m = re.search(r"^\|\s*`%s`[^|]*\|([^|]*)\|([^|]*)\|" % re.escape(field), text, re.M)
        if not m:
            raise ValueError("no row %s" % field)
        return m.group(1), m.group(2)

    def nums(cell):
        return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", cell)]

    out = {"trn1": {}, "trn2": {}}
    t = row("tensorClockGHz")
    hb = row("hbmGBps")
    dm = row("dmaEngines")
    for i, tgt in enumerate(("trn1", "trn2")):
        clock, tflops = nums(t[i])[:2]
        fracs = {"¼": 0.25, "½": 0.5, "1/4": 0.25, "1/2": 0.5}
        frac = next((v for k, v in fracs.items() if k in t[i]), None)
        if frac is None:
            frac = float(t[i].split(",")[-1])
        out[tgt]["tensorBf16Tflops"] = tflops
        out[tgt]["tensorFp32Fraction"] = frac
        v = nums(hb[i])[0]
        out[tgt]["hbmGBps"] = v * 1000 if "TB/s" in hb[i] else v
        n = nums(dm[i])
        out[tgt]["dmaEngines"], out[tgt]["dmaBytesPerNsPerEngine"] = n[0], n[1]
    return out


def hardware_numbers():
    table = os.path.join(ROOT, "lib", "ISA", "HardwareModel.cpp")
    doc = os.path.join(ROOT, "docs", "hardware-model.md")
    hw, source = {}, None
    try:
        hw = _hw_from_table(table)
        source = "lib/ISA/HardwareModel.cpp (the hardware table)"
    except OSError:
        pass
    if not hw:
        try:
            hw = _hw_from_doc(doc)
            source = "docs/hardware-model.md (the table's rows)"
        except (OSError, ValueError, AttributeError, IndexError):
            fail("cannot read the hardware numbers from %s or %s" % (table, doc))
    if source.startswith("lib/"):
        try:
            doc_hw = _hw_from_doc(doc)
            for t, v in hw.items():
                diff = [f for f in HW_FIELDS if t in doc_hw and abs(doc_hw[t][f] - v[f]) > 1e-9]
                if diff:
                    print("zoo: warning: docs/hardware-model.md disagrees with the hardware table "
                          "on %s %s; using the table" % (t, ", ".join(diff)), file=sys.stderr)
        except (OSError, ValueError, AttributeError, IndexError):
            pass
    for v in hw.values():
        # HardwareModel::dmaGBps() and memoryGBps() (include/neuronc/ISA/HardwareModel.h).
        v["dmaGBps"] = v["dmaEngines"] * v["dmaBytesPerNsPerEngine"]
        v["memoryGBps"] = min(v["hbmGBps"], v["dmaGBps"])
    return hw, source


# ---------------------------------------------------------------------------
# The lower bound from the ONNX graph
# ---------------------------------------------------------------------------

# ONNX element type -> bytes on the device (f64 -> f32, int64 -> i32, int16 in i32).
ESIZE = {1: 4, 2: 1, 3: 1, 4: 4, 5: 4, 6: 4, 7: 4, 9: 1, 10: 2, 11: 4, 12: 4, 13: 4, 16: 2}
# Inputs that only give shapes, axes or indices folded at import (never moved as data).
SHAPE_INPUTS = {"Reshape": {1}, "Expand": {1}, "Tile": {1}, "Slice": {1, 2, 3, 4},
                "Unsqueeze": {1}, "Squeeze": {1}, "ConstantOfShape": {0}, "Resize": {1, 2, 3},
                "Pad": {1, 3}, "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1},
                "ReduceMin": {1}, "ReduceProd": {1}, "ReduceL2": {1}, "ReduceSumSquare": {1},
                "Split": {1}, "Range": {0, 1, 2}, "TopK": {1}, "OneHot": {1}, "Trilu": {1},
                "CumSum": {1}, "Shape": {0}, "Size": {0}}
# (op, input index) pairs that are the weights of a TensorE op.
WEIGHT_INPUTS = {"MatMul": {0, 1}, "Gemm": {0, 1}, "Conv": {1}, "ConvTranspose": {1},
                 "Einsum": set(range(16)), "LSTM": {1, 2}, "GRU": {1, 2}, "RNN": {1, 2}}


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _static_shapes(g):
    shapes = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        t = vi.type.tensor_type
        if t.HasField("shape"):
            shapes[vi.name] = ([d.dim_value if d.HasField("dim_value") else None
                                for d in t.shape.dim], t.elem_type)
    for t in g.initializer:
        shapes[t.name] = (list(t.dims), t.data_type)
    return shapes


def _eval_node(n, vals, shapes):
    """The value of a node of the shape arithmetic torch.onnx.export writes (Shape, Gather,
    Concat, Where, Expand, ...), from known input values; None when unknown."""
    import onnx
    from onnx import numpy_helper
    op = n.op_type
    at = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
    if op == "Constant":
        if "value" in at:
            return numpy_helper.to_array(at["value"])
        if "value_int" in at:
            return np.array(at["value_int"], np.int64)
        if "value_ints" in at:
            return np.array(at["value_ints"], np.int64)
        return None
    if op in ("Shape", "Size"):
        s = shapes.get(n.input[0])
        if s is None or any(d is None for d in s[0]):
            return None
        if op == "Size":
            return np.array(_prod(s[0]), np.int64)
        dims = s[0][at.get("start", 0):at.get("end", len(s[0]))]
        return np.array(dims, np.int64)
    x = [vals.get(i) if i else None for i in n.input]
    if not x or x[0] is None:
        return None
    if op in ("Identity", "Neg", "Abs", "Not", "Cast", "Squeeze", "Unsqueeze", "ConstantOfShape"):
        a = x[0]
        if op == "Identity":
            return a
        if op == "Neg":
            return -a
        if op == "Abs":
            return np.abs(a)
        if op == "Not":
            return ~a
        if op == "Cast":
            return a.astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[at["to"]])
        if op == "ConstantOfShape":
            v = numpy_helper.to_array(at["value"]) if "value" in at else np.zeros(1, np.float32)
            return np.full([int(d) for d in a], v.reshape(-1)[0], dtype=v.dtype)
        axes = [int(v) for v in x[1]] if len(x) > 1 and x[1] is not None else None
        if op == "Squeeze":
            return np.squeeze(a, axis=tuple(axes)) if axes else np.squeeze(a)
        r = a
        for ax in sorted(v % (a.ndim + len(axes)) for v in axes):
            r = np.expand_dims(r, ax)
        return r
    if any(v is None for v in x):
        return None
    if op == "Gather":
        return np.take(x[0], x[1], axis=at.get("axis", 0))
    if op == "Concat":
        return np.concatenate(x, axis=at["axis"])
    if op == "Slice":
        a = x[0]
        axes = list(x[3]) if len(x) > 3 else list(range(len(x[1])))
        steps = list(x[4]) if len(x) > 4 else [1] * len(x[1])
        idx = [slice(None)] * a.ndim
        for s, e, ax, st in zip(x[1], x[2], axes, steps):
            big = np.iinfo(np.int64).max // 2
            s, e = int(np.clip(s, -big, big)), int(np.clip(e, -big, big))
            idx[int(ax)] = slice(s, e, int(st))
        return a[tuple(idx)]
    if op in ("Add", "Sub", "Mul", "Div", "Equal", "Less", "Greater", "LessOrEqual",
              "GreaterOrEqual", "Min", "Max", "And", "Or", "Pow"):
        a, b = x[0], x[1]
        if op == "Div":
            if np.issubdtype(a.dtype, np.integer):
                return np.trunc(a / b).astype(a.dtype)
            return a / b
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Equal": np.equal,
             "Less": np.less, "Greater": np.greater, "LessOrEqual": np.less_equal,
             "GreaterOrEqual": np.greater_equal, "Min": np.minimum, "Max": np.maximum,
             "And": np.logical_and, "Or": np.logical_or, "Pow": np.power}[op]
        return f(a, b)
    if op == "Where":
        return np.where(x[0], x[1], x[2])
    if op == "Transpose":
        return np.transpose(x[0], at.get("perm"))
    if op == "Mod":
        return np.fmod(x[0], x[1]) if at.get("fmod", 0) else np.mod(x[0], x[1])
    if op == "Range":
        return np.arange(x[0], x[1], x[2]).astype(x[0].dtype)
    if op == "Reshape":
        a, s = x[0], [int(v) for v in x[1]]
        s = [a.shape[i] if v == 0 and not at.get("allowzero", 0) else v for i, v in enumerate(s)]
        return a.reshape(s)
    if op == "Expand":
        return x[0] * np.ones([int(d) for d in x[1]], dtype=x[0].dtype)
    return None


def _einsum_types(g, shapes):
    """Adds the output type of each Einsum whose inputs are typed (onnx 1.12's shape
    inference does not type Einsum); returns how many it added."""
    from onnx import helper
    added = 0
    for n in g.node:
        known = shapes.get(n.output[0])
        if n.op_type != "Einsum" or (known and all(d is not None for d in known[0])):
            continue
        eq = next((a.s.decode() for a in n.attribute if a.name == "equation"), "")
        eq = eq.replace(" ", "")
        if "->" not in eq or "..." in eq:
            continue
        ins = [shapes.get(i) for i in n.input]
        if any(s is None or any(d is None for d in s[0]) for s in ins):
            continue
        sizes = {}
        for term, s in zip(eq.split("->")[0].split(","), ins):
            sizes.update(zip(term, s[0]))
        dims = [sizes[c] for c in eq.split("->")[1]]
        g.value_info.append(helper.make_tensor_value_info(n.output[0], ins[0][1], dims))
        added += 1
    return added


def _fold_shape_arithmetic(model, rounds=64):
    """The model with its integer shape arithmetic replaced by initializers, so that ONNX
    shape inference types every tensor (torch.onnx.export writes Expand's shape through
    ConstantOfShape/Equal/Where, which onnx's data propagation does not follow)."""
    from onnx import numpy_helper, shape_inference
    for _ in range(rounds):
        try:
            model = shape_inference.infer_shapes(model, data_prop=True)
        except Exception:  # noqa: BLE001 - keep what the exporter typed
            return model
        g = model.graph
        shapes = _static_shapes(g)
        vals = {t.name: numpy_helper.to_array(t) for t in g.initializer
                if _prod(t.dims) <= 1 << 16 and t.data_type in (6, 7, 9)}
        outputs = {o.name for o in g.output}
        folded = {}
        for n in g.node:
            try:
                v = _eval_node(n, vals, shapes)
            except Exception:  # noqa: BLE001 - not foldable, left alone
                v = None
            if v is None or len(n.output) != 1:
                continue
            v = np.asarray(v)
            vals[n.output[0]] = v
            if v.size <= 1 << 16 and (np.issubdtype(v.dtype, np.integer) or v.dtype == bool) \
                    and n.output[0] not in outputs:
                folded[n.output[0]] = v
        typed = _einsum_types(g, shapes)
        if not folded and not typed:
            return model
        keep = [n for n in g.node if not (len(n.output) == 1 and n.output[0] in folded)]
        del g.node[:]
        g.node.extend(keep)
        g.initializer.extend(numpy_helper.from_array(v, name) for name, v in folded.items())
        vi = [v for v in g.value_info if v.name not in folded]
        del g.value_info[:]
        g.value_info.extend(vi)
    return model


def graph_stats(path):
    """FLOPs of the TensorE ops and the compulsory bytes of an ONNX model."""
    import onnx
    model = onnx.load(path)
    g = model.graph
    typed = onnx.ModelProto()
    typed.CopyFrom(model)
    shapes = _static_shapes(_fold_shape_arithmetic(typed).graph)
    consts = {}
    for t in g.initializer:
        consts[t.name] = t
        shapes[t.name] = (list(t.dims), t.data_type)
    for n in g.node:
        if n.op_type == "Constant":
            for at in n.attribute:
                if at.name == "value":
                    consts[n.output[0]] = at.t
                    shapes[n.output[0]] = (list(at.t.dims), at.t.data_type)
    uses = defaultdict(list)
    for n in g.node:
        for i, x in enumerate(n.input):
            if x:
                uses[x].append((n, i))

    def shape(name):
        s = shapes.get(name)
        if s is None or any(d is None for d in s[0]):
            return None
        return s[0]

    def attr(n, name, default):
        for at in n.attribute:
            if at.name == name:
                return onnx.helper.get_attribute_value(at)
        return default

    flops = defaultdict(int)
    unknown = []
    for n in g.node:
        op = n.op_type
        try:
            if op == "MatMul":
                a, b, y = shape(n.input[0]), shape(n.input[1]), shape(n.output[0])
                flops[op] += 2 * _prod(y) * a[-1]
            elif op == "Gemm":
                a, y = shape(n.input[0]), shape(n.output[0])
                k = a[0] if attr(n, "transA", 0) else a[1]
                flops[op] += 2 * _prod(y) * k
            elif op == "Conv":
                w, y = shape(n.input[1]), shape(n.output[0])
                flops[op] += 2 * _prod(y) * _prod(w[1:])
            elif op == "ConvTranspose":
                x, w = shape(n.input[0]), shape(n.input[1])
                flops[op] += 2 * _prod(x) * _prod(w[1:])
            elif op == "Einsum":
                eq = attr(n, "equation", b"").decode().replace(" ", "")
                lhs = eq.split("->")[0].split(",")
                if "..." in eq:
                    raise TypeError("ellipsis")
                sizes = {}
                for term, name in zip(lhs, n.input):
                    for ch, d in zip(term, shape(name)):
                        sizes[ch] = d
                flops[op] += 2 * _prod(sizes.values())
            elif op in ("LSTM", "GRU", "RNN"):
                x, w, r = shape(n.input[0]), shape(n.input[1]), shape(n.input[2])
                steps_batch = x[0] * x[1]
                flops[op] += 2 * steps_batch * w[0] * (w[1] * w[2] + r[1] * r[2])
        except (TypeError, IndexError, AttributeError):
            unknown.append(n.name or op)

    def nbytes(name):
        s = shapes.get(name)
        if s is None or any(d is None for d in s[0]):
            return None
        return _prod(s[0]) * ESIZE.get(s[1], 4)

    io = 0
    for vi in list(g.input) + list(g.output):
        if vi.name in consts:
            continue
        b = nbytes(vi.name)
        if b is None:
            unknown.append(vi.name)
        else:
            io += b
    weights = other = gathered = 0
    for name, t in consts.items():
        u = uses.get(name, [])
        numel = _prod(t.dims)
        if not u or numel <= 1:
            continue  # unused, or a scalar operand (an immediate)
        if all(i in SHAPE_INPUTS.get(n.op_type, ()) for n, i in u):
            continue
        size = numel * ESIZE.get(t.data_type, 4)
        if all(n.op_type == "Gather" and i == 0 and attr(n, "axis", 0) == 0 for n, i in u):
            rows = 0
            for n, _ in u:
                idx = shape(n.input[1])
                rows += _prod(idx) if idx is not None else t.dims[0]
            gathered += min(size, rows * size // max(t.dims[0], 1))
        elif all(i in WEIGHT_INPUTS.get(n.op_type, ()) for n, i in u):
            weights += size
        else:
            other += size
    return {"flops": int(sum(flops.values())), "flops_by_op": dict(flops),
            "io_bytes": io, "weight_bytes": weights, "const_bytes": other,
            "gathered_bytes": gathered, "unknown": unknown[:10],
            "ops": dict(sorted(_count(n.op_type for n in g.node).items()))}


def _count(xs):
    d = defaultdict(int)
    for x in xs:
        d[x] += 1
    return d


def compulsory_bytes(stats, dtype):
    w = stats["weight_bytes"] // 2 if dtype == "bf16" else stats["weight_bytes"]
    return stats["io_bytes"] + stats["const_bytes"] + stats["gathered_bytes"] + w


def bound(stats, dtype, hw):
    """(compute us, memory us at memoryGBps, memory us at hbmGBps)."""
    peak = hw["tensorBf16Tflops"] * 1e12 * (1.0 if dtype == "bf16" else hw["tensorFp32Fraction"])
    b = compulsory_bytes(stats, dtype)
    return (stats["flops"] / peak * 1e6, b / (hw["memoryGBps"] * 1e9) * 1e6,
            b / (hw["hbmGBps"] * 1e9) * 1e6)


# ---------------------------------------------------------------------------
# Export (in a child process: isolates torch's memory and crashes)
# ---------------------------------------------------------------------------


_SOURCES = {}


def _registry_sources():
    """models.py split into the code every model shares (the file without its top-level
    add(...) statements) and each model's own add(...) statement, by name."""
    if not _SOURCES:
        import ast
        text = open(os.path.join(ZOO, "models.py")).read()
        lines = text.splitlines(keepends=True)
        own, drop = {}, set()
        for node in ast.parse(text).body:
            call = node.value if isinstance(node, ast.Expr) else None
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "add" and \
                    call.args and isinstance(call.args[0], ast.Constant):
                own[call.args[0].value] = ast.get_source_segment(text, node)
                drop.update(range(node.lineno - 1, node.end_lineno))
        _SOURCES["shared"] = "".join(l for i, l in enumerate(lines) if i not in drop)
        _SOURCES["own"] = own
    return _SOURCES


def fingerprint(name):
    """What an export depends on: the shared code of models.py, the model's own entry,
    torch, torchvision and onnx versions, the opset. Adding or editing one entry re-exports
    that model only; editing a builder or helper re-exports all."""
    import importlib.metadata as md
    h = hashlib.sha256()
    src = _registry_sources()
    h.update(src["shared"].encode())
    h.update(src["own"].get(name, "").encode())
    vers = []
    for pkg in ("torch", "torchvision", "onnx"):
        try:
            vers.append(md.version(pkg))
        except md.PackageNotFoundError:
            vers.append("?")
    h.update(("%s|%s|%d" % (name, "|".join(vers), OPSET)).encode())
    return h.hexdigest()[:16]


def _flatten(out):
    if isinstance(out, (tuple, list)):
        r = []
        for o in out:
            r += _flatten(o)
        return r
    if isinstance(out, dict):
        return _flatten(list(out.values()))
    return [out]


def max_rel_error(ys, refs):
    """max over the outputs of max|y - ref| / max|ref| (NaN when any is)."""
    err = 0.0
    for y, ref in zip(ys, refs):
        if ref.size == 0:
            continue
        d = np.abs(y.astype(np.float64) - ref.astype(np.float64)).max()
        e = float(d / max(float(np.abs(ref.astype(np.float64)).max()), 1e-30))
        err = e if not (e <= err) else err  # NaN sticks
    return err


def export_child(name, mdir):
    """Builds, runs and exports one model; writes meta.json (with "error" on failure)."""
    import torch
    models = registry()
    spec = models.get(name)
    os.makedirs(mdir, exist_ok=True)
    meta = {"name": name, "family": spec.family, "fingerprint": fingerprint(name),
            "inputs": [{"name": i.name, "shape": list(i.shape), "dtype": i.dtype}
                       for i in spec.inputs], "warnings": []}
    t0 = time.time()
    stage = "build"
    try:
        model = spec.instantiate()
        inputs = spec.make_inputs(0)
        tensors = [torch.from_numpy(x) for x in inputs]
        stage = "eager run"
        # Autograd stays on (as in export): torch.nn's fast paths are off in both.
        outs = [o.detach().numpy() for o in _flatten(model(*tensors))]
        stage = "bf16 emulation"
        with models.bf16_operands():  # autograd on: no fast path here either
            emu = [o.detach().numpy() for o in _flatten(model(*tensors))]
        stage = "export"
        path = os.path.join(mdir, "model.onnx")
        torch.onnx.export(model, tuple(tensors), path, opset_version=OPSET,
                          do_constant_folding=True, input_names=[i.name for i in spec.inputs],
                          output_names=["output%d" % k for k in range(len(outs))])
        stage = "check"
        import onnx
        m = onnx.load(path, load_external_data=False)
        custom = sorted({("%s:%s" % (n.domain, n.op_type)) if n.domain not in ("", "ai.onnx")
                         else n.op_type for n in m.graph.node
                         if n.domain not in ("", "ai.onnx") or n.op_type.startswith("ATen")})
        if custom:
            raise RuntimeError("the ONNX graph holds custom ops: %s" % ", ".join(custom))
        for k, x in enumerate(inputs):
            np.save(os.path.join(mdir, "input%d.npy" % k), x)
        for k, y in enumerate(outs):
            np.save(os.path.join(mdir, "ref%d.npy" % k), y)
        for k, y in enumerate(emu):
            np.save(os.path.join(mdir, "refbf16_%d.npy" % k), y)
        meta["bf16_emulation_err"] = max_rel_error(emu, outs)
        meta["outputs"] = [{"shape": list(y.shape), "dtype": str(y.dtype),
                            "max_abs": float(np.abs(y).max()) if y.size else 0.0} for y in outs]
        for k, o in enumerate(meta["outputs"]):
            if o["max_abs"] == 0.0 or not np.isfinite(o["max_abs"]):
                meta["warnings"].append("output %d of PyTorch is %s" %
                                        (k, "all zeros" if o["max_abs"] == 0 else "not finite"))
        _set_stats(meta, path)
    except Exception as e:  # noqa: BLE001 - reported, never skipped
        msg = str(e).strip().splitlines()
        meta["error"] = "%s: %s: %s" % (stage, type(e).__name__, msg[0] if msg else "")
    meta["export_s"] = time.time() - t0
    with open(os.path.join(mdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return 0 if "error" not in meta else 1


def f64_child(name, mdir):
    """Runs the model in f64 (weights and floating inputs) and keeps its outputs as
    reff64_*.npy, with PyTorch f32's distance from them in f64.json."""
    import copy
    import torch
    spec = registry().get(name)
    res = {}
    try:
        model = spec.instantiate()
        tensors = [torch.from_numpy(x) for x in spec.make_inputs(0)]
        with torch.no_grad():
            outs = [o.numpy() for o in _flatten(model(*tensors))]
            m64 = copy.deepcopy(model).double()
            t64 = [t.double() if t.is_floating_point() else t for t in tensors]
            exact = [o.numpy() for o in _flatten(m64(*t64))]
        for k, y in enumerate(exact):
            np.save(os.path.join(mdir, "reff64_%d.npy" % k), y)
        res["f32_err_vs_f64"] = max_rel_error(outs, exact)
    except Exception as e:  # noqa: BLE001 - a model that cannot run in f64 has no such bound
        msg = str(e).strip().splitlines()
        res["error"] = "%s: %s" % (type(e).__name__, msg[0] if msg else "")
    with open(os.path.join(mdir, "f64.json"), "w") as f:
        json.dump(dict(res, fingerprint=fingerprint(name)), f, indent=1)
    return 0 if "error" not in res else 1


def ensure_f64_reference(spec, a):
    """The model's f64 outputs (made once per export, in a child process, when an f32 cell
    first differs): {"f32_err_vs_f64": ...} or {"error": ...}."""
    mdir = os.path.join(a.out, spec.name)
    path = os.path.join(mdir, "f64.json")
    try:
        res = json.load(open(path))
        if res.get("fingerprint") == fingerprint(spec.name):
            return res
    except (OSError, ValueError):
        pass
    cmd = [sys.executable, os.path.abspath(__file__), "--_f64", spec.name, "--out", a.out]
    try:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=a.timeout)
        return json.load(open(path))
    except (subprocess.TimeoutExpired, OSError, ValueError) as e:
        return {"error": "f64 reference: %s" % e}


def _set_stats(meta, path):
    meta["stats"] = graph_stats(path)
    meta["stats_version"] = STATS_VERSION
    meta["warnings"] = [w for w in meta.get("warnings", []) if not w.startswith("bound:")]
    if meta["stats"]["unknown"]:
        meta["warnings"].append("bound: shapes unknown at " + ", ".join(meta["stats"]["unknown"]))


def ensure_exported(spec, a):
    mdir = os.path.join(a.out, spec.name)
    mp = os.path.join(mdir, "meta.json")
    if not a.rebuild and os.path.exists(mp):
        try:
            meta = json.load(open(mp))
            if meta.get("fingerprint") == fingerprint(spec.name) and "error" not in meta and \
                    os.path.exists(os.path.join(mdir, "model.onnx")):
                if meta.get("stats_version") != STATS_VERSION:
                    _set_stats(meta, os.path.join(mdir, "model.onnx"))
                    with open(mp, "w") as f:
                        json.dump(meta, f, indent=1)
                meta["cached"] = True
                return meta
        except (OSError, ValueError):
            pass
    if os.path.exists(mp):
        os.remove(mp)
    cmd = [sys.executable, os.path.abspath(__file__), "--_export", spec.name, "--out", a.out]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=a.timeout)
        log = r.stdout
    except subprocess.TimeoutExpired as e:
        log = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        r = None
    os.makedirs(mdir, exist_ok=True)
    with open(os.path.join(mdir, "export.log"), "w") as f:
        f.write(log)
    if os.path.exists(mp):
        meta = json.load(open(mp))
    else:
        why = ("timeout after %d s" % a.timeout if r is None else
               "the export process died (%s)" % _exit_text(r.returncode))
        meta = {"name": spec.name, "error": "export: " + why, "export_s": time.time() - t0}
    meta["cached"] = False
    return meta


# ---------------------------------------------------------------------------
# Cells: compile, run, compare
# ---------------------------------------------------------------------------


def _exit_text(code):
    return "killed by signal %d" % -code if code < 0 else "exit code %d" % code


def first_error(text, onnx_path, code):
    lines = [l.strip() for l in text.replace(onnx_path, "model.onnx").splitlines() if l.strip()]
    for l in lines:
        if re.search(r"\berror\b", l, re.I):
            return l
    for l in lines:
        if not re.search(r"\bwarning\b", l, re.I):
            return l
    return _exit_text(code)


def run_tool(cmd, log, timeout):
    t0 = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        out, code = r.stdout, r.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += "\nerror: timeout after %d s" % timeout
        code = 124
    with open(log, "w") as f:
        f.write("$ " + shlex.join(cmd) + "\n" + out)
    return code, out, time.time() - t0


def run_cell(spec, meta, cell, a, hwt):
    dtype, target, level = cell
    key = "%s-%s-O%d" % (target, dtype, level)
    mdir = os.path.join(a.out, spec.name)
    cdir = os.path.join(mdir, key)
    os.makedirs(cdir, exist_ok=True)
    onnx_path = os.path.join(mdir, "model.onnx")
    res = {"model": spec.name, "cell": key, "dtype": dtype, "target": target, "O": level}
    if "error" in meta:
        res.update(status="export error", error=meta["error"])
        return res
    neff = os.path.join(cdir, "model.neff")
    if os.path.exists(neff):
        os.remove(neff)
    cmd = [os.path.join(a.bin, "neuronc"), onnx_path, "-o", neff, "-O%d" % level,
           "--target=" + target] + (["--auto-cast=matmult"] if dtype == "bf16" else []) + \
        ([] if a.use_cache else ["--no-cache"]) + a.neuronc_flag
    code, out, res["compile_s"] = run_tool(cmd, os.path.join(cdir, "neuronc.log"), a.timeout)
    if code != 0 or not os.path.exists(neff):
        res.update(status="compile error", error=first_error(out, onnx_path, code))
        return res
    n_in, n_out = len(meta["inputs"]), len(meta["outputs"])
    outs = [os.path.join(cdir, "out%d.npy" % k) for k in range(n_out)]
    for p in outs:
        if os.path.exists(p):
            os.remove(p)
    cmd = [os.path.join(a.bin, "neuron-run"), neff]
    for k in range(n_in):
        cmd += ["--input", os.path.join(mdir, "input%d.npy" % k)]
    for p in outs:
        cmd += ["--output", p]
    prof = os.path.join(cdir, "profile")
    if a.profile:
        cmd += ["--profile", prof]
    code, out, res["run_s"] = run_tool(cmd, os.path.join(cdir, "neuron-run.log"), a.timeout)
    m = re.search(r"device time ([0-9.]+) us", out)
    if m:
        res["device_us"] = float(m.group(1))
    if code != 0:
        res.update(status="run error", error=first_error(out, onnx_path, code))
        if a.check:
            res["check"] = run_check(onnx_path, meta, cell, a, cdir)[0]
            res["error"] += "; neuron-run --check: " + res["check"]
        return res
    ys, refs = [], []
    for k, p in enumerate(outs):
        ref = np.load(os.path.join(mdir, "ref%d.npy" % k))
        if not os.path.exists(p):
            res.update(status="run error", error="neuron-run wrote no output %d" % k)
            return res
        y = np.load(p)
        if y.shape != ref.shape:
            res.update(status="shape differs",
                       error="output %d: shape %s, PyTorch %s" % (k, y.shape, ref.shape))
            return res
        ys.append(y)
        refs.append(ref)
    err = max_rel_error(ys, refs)
    res["max_err"] = err
    rtol = (spec.rtol or {}).get(dtype, RTOL[dtype])
    res["rtol"] = rtol
    res["status"] = "ok" if err <= rtol else "DIFFERS"
    if dtype == "bf16" and "bf16_emulation_err" in meta:
        # How far PyTorch itself moves with bf16 operands, and how far the device is from that.
        res["bf16_emulation_err"] = meta["bf16_emulation_err"]
        emu = [np.load(os.path.join(mdir, "refbf16_%d.npy" % k)) for k in range(n_out)]
        res["err_vs_bf16_emulation"] = max_rel_error(ys, emu)
    if res["status"] == "DIFFERS" and dtype == "f32":
        # How far PyTorch's own f32 is from the same model in f64 (long sums in
        # deep models): the reference is no closer to the exact result than that.
        f64 = ensure_f64_reference(spec, a)
        if "f32_err_vs_f64" in f64:
            res["f32_err_vs_f64"] = f64["f32_err_vs_f64"]
            exact = [np.load(os.path.join(mdir, "reff64_%d.npy" % k)) for k in range(n_out)]
            res["err_vs_f64"] = max_rel_error(ys, exact)
    sens = res.get("bf16_emulation_err", res.get("f32_err_vs_f64"))
    if res["status"] == "DIFFERS" and sens is not None and err <= 2 * sens:
        # A model whose outputs PyTorch itself moves beyond the tolerance at
        # this precision (bf16 operands against f32; f32 against f64: deep
        # random-weight CNNs): the device passes when it is within twice that
        # distance AND the simulator computes what the program says, kernel
        # by kernel (neuron-run --check against the interpreter, which rounds
        # as the device does; a kernel that diverges or reads unwritten memory
        # fails it, rounding accumulated along the program does not).
        res["check"], verdict = run_check(onnx_path, meta, cell, a, cdir)
        if verdict in ("passes", "agrees"):
            res["status"] = "ok"
            res["precision_sensitive"] = True
    if res["status"] == "DIFFERS":
        res["error"] = "max error %.3g > %g" % (err, rtol)
        if "bf16_emulation_err" in res:
            res["error"] += " (PyTorch with bf16 operands: %.3g; device vs that: %.3g)" % (
                res["bf16_emulation_err"], res["err_vs_bf16_emulation"])
        if "f32_err_vs_f64" in res:
            res["error"] += " (PyTorch f32 against f64: %.3g; device against f64: %.3g)" % (
                res["f32_err_vs_f64"], res["err_vs_f64"])
    if res["status"] != "ok" and a.check and "check" not in res:
        res["check"] = run_check(onnx_path, meta, cell, a, cdir)[0]
    if res["status"] != "ok" and "check" in res:
        res["error"] += "; neuron-run --check: " + res["check"]
    comp, mem, hbm = bound(meta["stats"], dtype, hwt)
    res.update(bound_compute_us=comp, bound_memory_us=mem, bound_hbm_us=hbm,
               bound_us=max(comp, mem), bound_hbm_total_us=max(comp, hbm))
    if "device_us" in res:
        res["ratio"] = res["device_us"] / max(comp, mem)
        res["ratio_hbm"] = res["device_us"] / max(comp, hbm)
    if a.profile:
        res["profile_check"] = check_profile(prof, hwt)
    return res


def run_cell_and_clean(spec, meta, cell, a, hwt):
    """run_cell, then removes the executable unless --keep-neff (an executable carries the
    model's constants: the whole zoo's are ~15 GB)."""
    res = run_cell(spec, meta, cell, a, hwt)
    neff = os.path.join(a.out, spec.name, res["cell"], "model.neff")
    if not a.keep_neff and os.path.exists(neff):
        os.remove(neff)
    return res


def run_check(onnx_path, meta, cell, a, cdir):
    """neuron-run --check on the ONNX model (simulator against the interpreter, kernel by
    kernel): its finding in one line, and a verdict: "passes"; "agrees" (no kernel
    diverges and none reads unwritten memory: the outputs differ by rounding accumulated
    along the program, or fusion moved where rounding happens); "diverges" otherwise."""
    dtype, target, level = cell
    cmd = [os.path.join(a.bin, "neuron-run"), onnx_path, "--check", "--target=" + target] + \
        (["--fuse"] if level >= 1 else []) + \
        (["--auto-cast=matmult", "--check-rtol=2e-2", "--check-atol=2e-2"] if dtype == "bf16"
         else [])
    for k in range(len(meta["inputs"])):
        cmd += ["--input", os.path.join(os.path.dirname(onnx_path), "input%d.npy" % k)]
    code, out, _ = run_tool(cmd, os.path.join(cdir, "check.log"), a.timeout)
    return check_verdict(code, out.replace(onnx_path, "model.onnx"))


def check_verdict(code, out):
    """neuron-run --check's exit code and output: (its finding in one line, verdict)."""
    lines = [l.strip() for l in out.splitlines() if l.strip()
             and not l.startswith(("check @", "$ ")) and not re.search(r"\bwarning\b", l)]
    if code == 0:
        return "passes (the simulator agrees with the interpreter)", "passes"
    keep = lines[:1] + [l for l in lines[1:] if l.startswith(("first kernel", "the simulator",
                                                              "fusion changed"))]
    keep = [l for l in keep if l != "check: FAILED"]
    outputs = [l for l in lines if l.startswith("output #")]
    agrees = code == 1 and outputs and lines[-1] == "check: FAILED" and all(
        l.endswith(": ok") or "every kernel agrees with the interpreter" in l for l in outputs) \
        and not any(l.startswith(("first kernel", "the simulator")) for l in lines)
    return (" / ".join(keep) if keep else _exit_text(code)), ("agrees" if agrees else "diverges")


def rows_from_results(sel, cells, rpath):
    """The selected models' rows as OUT/results.json has them (--from-results): the
    cells asked for that a run recorded; a cell no run recorded is "not run"."""
    try:
        allres = json.load(open(rpath))
    except (OSError, ValueError):
        fail("--from-results: no results in %s (run the zoo first)" % rpath)
    rows = []
    for spec in sel:
        ent = allres.get(spec.name, {"cells": {}, "meta": {"error": "not run"}})
        row = {"spec": spec, "meta": ent.get("meta", {}), "cells": {},
               "export_s": ent.get("export_s", 0.0)}
        for c in cells:
            key = cell_key(c)
            row["cells"][key] = ent["cells"].get(
                key, {"cell": key, "status": "not run", "error": "no run recorded this cell"})
        rows.append(row)
    return rows


def check_profile(prof, hwt):
    """The profile's own peak and DMA bandwidth against the numbers the bound uses."""
    try:
        s = json.load(open(os.path.join(prof, "summary.json")))["summary"]
    except (OSError, ValueError, KeyError):
        return "no summary.json"
    probs = []
    if abs(s.get("peak_flops", 0) - hwt["tensorBf16Tflops"] * 1e12) > 1e6:
        probs.append("peak_flops %g" % s.get("peak_flops", 0))
    if abs(s.get("dma_bandwidth_bytes_per_s", 0) - hwt["dmaGBps"] * 1e9) > 1e3:
        probs.append("dma_bandwidth %g" % s.get("dma_bandwidth_bytes_per_s", 0))
    return "ok" if not probs else "differs: " + ", ".join(probs)


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------


def _md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _short(text, n=110):
    text = str(text)
    return text if len(text) <= n else text[:n - 1] + "…"


def _check_short(text):
    """neuron-run --check's finding in a few words (the whole line is in the error list)."""
    m = re.search(r'first kernel that diverges: (@\w+ "[^"]*")', text)
    if m:
        return "first diverging kernel " + m.group(1)
    m = re.search(r"the simulator stopped: .*?\(([^,]*), kernel (\w+) from (\S+)", text)
    if m:
        return "%s in kernel %s (%s) reads unwritten memory" % (m.group(1), m.group(2),
                                                               m.group(3))
    if "every kernel agrees" in text:
        return "every kernel agrees with the interpreter (rounding accumulated)"
    if text.startswith("passes"):
        return "the simulator agrees with the interpreter"
    return _short(text, 80)


def cell_key(c):
    return "%s-%s-O%d" % (c[1], c[0], c[2])


def bf16_slower(rows):
    """The bar bf16 is held to: at -O2 and above, on every target, a bf16
    (--auto-cast=matmult) cell must not run longer than the f32 cell of the
    same model (at -O0 every cast is a kernel of its own). Returns
    (comparisons made, [(model, target, level, f32 us, bf16 us)])."""
    made, slower = 0, []
    for r in rows:
        cells = r["cells"]
        for name, x in cells.items():
            target, dtype, level = name.split("-")
            if dtype != "bf16" or "device_us" not in x or int(level[1:]) < 2:
                continue
            f = cells.get("%s-f32-%s" % (target, level))
            if not f or "device_us" not in f:
                continue
            made += 1
            if x["device_us"] > f["device_us"]:
                slower.append((r["spec"].name, target, level, f["device_us"], x["device_us"]))
    return made, slower


def bf16_line(rows):
    made, slower = bf16_slower(rows)
    if not made:
        return ""
    if not slower:
        return "bf16 against f32 at -O2: %d comparison(s), bf16 never slower" % made
    return ("bf16 against f32 at -O2: %d comparison(s), bf16 slower in %d: %s" %
            (made, len(slower), ", ".join("%s %s-%s (%.1f vs %.1f us)" % s for s in slower)))


def family_geomeans(rows):
    """Per family and cell: (models, geometric mean of device / bound at the memory
    roofline, the same at the HBM share) over the models whose cell ran and matched
    (ok or ok†); families in registry order, cells in the order run."""
    acc = {}
    for r in rows:
        for key, x in r["cells"].items():
            if x.get("status") != "ok" or not x.get("ratio") or not x.get("ratio_hbm"):
                continue
            a = acc.setdefault((r["spec"].family, key), [0, 0.0, 0.0])
            a[0] += 1
            a[1] += math.log(x["ratio"])
            a[2] += math.log(x["ratio_hbm"])
    return [(fam, key, n, math.exp(l1 / n), math.exp(l2 / n))
            for (fam, key), (n, l1, l2) in acc.items()]


def geomean_lines(rows, hw):
    """The per-family geometric means as text lines (scripts/bench.sh prints them)."""
    out = []
    for fam, key, n, g1, g2 in family_geomeans(rows):
        t = hw[key.split("-")[0]]
        out.append("%-18s %-14s %3d model(s)  geomean %6.2fx of the bound @%g GB/s, %6.2fx @%g GB/s"
                   % (fam, key, n, g1, t["memoryGBps"], g2, t["hbmGBps"]))
    return out


def geomean_markdown(rows, hw):
    def rates(key):
        return ", ".join("%s %g GB/s" % (t, hw[t][key]) for t in sorted(hw))
    lines = ["| family | cell | models | geomean ×bound at the memory roofline (%s) | "
             "geomean ×bound at the HBM share (%s) |" % (rates("memoryGBps"), rates("hbmGBps")),
             "|---|---|---|---|---|"]
    for fam, key, n, g1, g2 in family_geomeans(rows):
        lines.append("| %s | %s | %d | %.3g× | %.3g× |" % (fam, key, n, g1, g2))
    return "\n".join(lines)


def markdown(rows, cells, hw, hw_source):
    lines = []
    head = ["model", "family", "input", "GFLOP", "MB (f32)"]
    for c in cells:
        k = cell_key(c)
        t = hw[c[1]]
        head += ["%s" % k, "max err", "device us", "bound us",
                 "×bound @%g · @%g GB/s" % (t["memoryGBps"], t["hbmGBps"])]
    head.append("time s")
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for r in rows:
        meta = r["meta"]
        st = meta.get("stats")
        row = [r["spec"].name, r["spec"].family, _md(r["spec"].describe_inputs()),
               "%.3g" % (st["flops"] / 1e9) if st else "",
               "%.3g" % (compulsory_bytes(st, "f32") / 1e6) if st else ""]
        for c in cells:
            x = r["cells"].get(cell_key(c), {})
            s = x.get("status", "")
            if s == "ok":
                if not (x.get("precision_sensitive") or x.get("bf16_sensitive")):
                    status = "ok"
                elif "bf16_emulation_err" in x:
                    status = "ok† (PyTorch bf16 operands: %.2g)" % x["bf16_emulation_err"]
                else:
                    status = "ok† (PyTorch f32 against f64: %.2g)" % x["f32_err_vs_f64"]
            elif s == "DIFFERS":
                status = "**DIFFERS**"
                if "bf16_emulation_err" in x:
                    status += " (PyTorch bf16 operands: %.2g)" % x["bf16_emulation_err"]
                if "f32_err_vs_f64" in x:
                    status += " (PyTorch f32 against f64: %.2g)" % x["f32_err_vs_f64"]
                if x.get("check"):
                    status += "; check: " + _md(_check_short(x["check"]))
            else:
                err = x.get("error", "")
                if x.get("check"):
                    err = err.split("; neuron-run --check:")[0] + "; check: " + \
                        _check_short(x["check"])
                status = "%s: %s" % (s, _md(_short(err, 160)))
            row += [status,
                    "%.2g" % x["max_err"] if "max_err" in x else "",
                    "%.1f" % x["device_us"] if "device_us" in x else "",
                    "%.1f" % x["bound_us"] if "bound_us" in x else "",
                    "%.3g× · %.3g×" % (x["ratio"], x["ratio_hbm"]) if "ratio" in x else ""]
        row.append("%.0f" % r["time_s"])
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def legend(hw, hw_source, cells):
    used = sorted({c[1] for c in cells})
    parts = []
    for t in used:
        h = hw[t]
        parts.append("%s: TensorE %g TFLOP/s bf16, %g fp32 (×%g), memoryGBps() %g GB/s "
                     "(min of HBM share %g and DMA %g × %g = %g), HBM share %g GB/s" %
                     (t, h["tensorBf16Tflops"], h["tensorBf16Tflops"] * h["tensorFp32Fraction"],
                      h["tensorFp32Fraction"], h["memoryGBps"], h["hbmGBps"], h["dmaEngines"],
                      h["dmaBytesPerNsPerEngine"], h["dmaGBps"], h["hbmGBps"]))
    return (
        "Columns: per cell (target-dtype-level; bf16 = `--auto-cast=matmult`) the result (ok, "
        "DIFFERS, or the first line of the compile/run error), the max error "
        "max|y − ref| / max|ref| over the outputs (tolerance 1e-4 f32, 2e-2 bf16; ok† marks a "
        "cell of a model that PyTorch itself moves further than that at the cell's precision "
        "(bf16: its outputs with bf16 matmul/conv operands against f32; f32: against the "
        "same model in f64): it passes within twice PyTorch's distance when `neuron-run "
        "--check` also finds every kernel equal to the interpreter on its own inputs, which "
        "rounds as the device does), the "
        "simulated device time, the lower bound and device / bound at the memory roofline "
        "(`memoryGBps()`) · at the HBM share (`hbmGBps`). GFLOP: 2 × MACs of MatMul, Gemm, "
        "Conv, ConvTranspose, Einsum and LSTM/GRU/RNN gates in the ONNX graph; MB: compulsory "
        "bytes at f32 (graph inputs, outputs, initializers and constants; embedding tables "
        "only the rows gathered; bf16 cells count matmul/conv weights at 2 bytes). "
        "Bound = max(FLOPs / TensorE peak of the cell's dtype, bytes / bandwidth). time s: "
        "export (0 when cached) + compile + run of all cells.\n\n"
        "Hardware numbers (from %s): %s." % (hw_source, "; ".join(parts)))


def compiler_identity(bindir):
    """neuronc's version line, the binary's modification time and a hash of it (the results
    belong to one build; the compile cache keys on the same identity)."""
    path = os.path.join(bindir, "neuronc")
    try:
        ver = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=60).stdout.splitlines()[0].strip()
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return "%s (%s, built %s, sha256 %s)" % (
            ver, os.path.relpath(path, ROOT) if path.startswith(ROOT) else path,
            time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(os.path.getmtime(path))),
            h.hexdigest()[:12])
    except (OSError, IndexError, subprocess.SubprocessError):
        return "neuronc (unknown version)"


def git_dirty():
    try:
        return bool(subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "-uno"],
                                   capture_output=True, text=True).stdout.strip())
    except OSError:
        return False


def git_rev():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "?"


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def parse_list(text, conv=str):
    return [conv(x.strip()) for x in text.split(",") if x.strip()]


def select(models, a):
    sel = list(models.MODELS)
    if a.models:
        names = parse_list(a.models)
        known = {m.name for m in sel}
        bad = [n for n in names if n not in known]
        if bad:
            fail("unknown model(s): %s (scripts/zoo.py --list)" % ", ".join(bad))
        sel = [models.get(n) for n in names]
    if a.family:
        fams = parse_list(a.family)
        bad = [f for f in fams if f not in models.families()]
        if bad:
            fail("unknown family: %s (families: %s)" % (", ".join(bad),
                                                         ", ".join(models.families())))
        sel = [m for m in sel if m.family in fams]
    if a.sample:
        sel = [m for m in sel if "sample" in m.tags]
    if a.tags:
        tags = set(parse_list(a.tags))
        sel = [m for m in sel if tags <= m.tags]
    if not sel:
        fail("no model selected")
    return sel


def main():
    ap = argparse.ArgumentParser(prog="zoo.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help="comma-separated model names")
    ap.add_argument("--family", help="comma-separated families")
    ap.add_argument("--sample", action="store_true", help="the CI sample: one model per family")
    ap.add_argument("--tags", help="only models with all these tags (e.g. small)")
    ap.add_argument("--dtypes", default="f32", help="f32,bf16 (bf16: --auto-cast=matmult)")
    ap.add_argument("--targets", default="trn1", help="trn1,trn2")
    ap.add_argument("-O", dest="levels", default="2", help="-O levels, e.g. 0,2")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--out", default=None,
                    help="cache and output directory (default: build/zoo of this checkout)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per export/compile/run")
    ap.add_argument("--markdown", action="store_true", help="print the Markdown table")
    ap.add_argument("--write-doc", metavar="FILE", help="write the table with its header to FILE")
    ap.add_argument("--profile", action="store_true", help="neuron-run --profile CELL/profile")
    ap.add_argument("--check", action="store_true",
                    help="when a cell differs or fails to run: neuron-run --check (simulator "
                         "against interpreter, first diverging kernel) and record its finding")
    ap.add_argument("--keep-neff", action="store_true",
                    help="keep each cell's model.neff (default: removed once run)")
    ap.add_argument("--export-only", action="store_true",
                    help="build, run and export only (no neuronc)")
    ap.add_argument("--rebuild", action="store_true", help="export again even when cached")
    ap.add_argument("--use-cache", action="store_true",
                    help="let neuronc use its compile cache (default --no-cache: real compile "
                         "times, no executables left in the cache)")
    ap.add_argument("--neuronc-flag", action="append", default=[],
                    help="an extra neuronc flag (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the registry and exit")
    ap.add_argument("--from-results", action="store_true",
                    help="run nothing: report (and --write-doc) the selected models and cells "
                         "from OUT/results.json, which every run updates after each model")
    ap.add_argument("--_export", help=argparse.SUPPRESS)
    ap.add_argument("--_f64", help=argparse.SUPPRESS)
    ap.add_argument("--classify-check", nargs="+", metavar="LOG",
                    help="print the verdict on saved `neuron-run --check` logs (first line: "
                         "'exit N', then its output) and exit")
    a = ap.parse_args()
    if a.out is None:
        a.out = os.path.join(ROOT, "build", "zoo")
    a.out = os.path.abspath(a.out)
    if a._export:
        sys.exit(export_child(a._export, os.path.join(a.out, a._export)))
    if a._f64:
        sys.exit(f64_child(a._f64, os.path.join(a.out, a._f64)))
    if a.classify_check:
        for log in a.classify_check:
            code, _, out = open(log).read().partition("\n")
            text, verdict = check_verdict(int(code.split()[1]), out)
            print("%s: %s: %s" % (os.path.basename(log), verdict, text))
        return 0
    try:
        models = registry()
    except ImportError as e:
        fail("cannot load test/zoo/models.py: %s (python3-torch, python3-torchvision, "
             "python3-onnx are needed)" % e)
    if a.list:
        for m in models.MODELS:
            print("%-30s %-19s %-34s %-13s %s" % (m.name, m.family, m.describe_inputs(),
                                                 ",".join(sorted(m.tags)), m.note))
        print("%d models in %d families" % (len(models.MODELS), len(models.families())))
        return 0
    dtypes = parse_list(a.dtypes)
    targets = parse_list(a.targets)
    try:
        levels = parse_list(a.levels, int)
    except ValueError:
        fail("-O takes levels like 0,2")
    for d in dtypes:
        if d not in RTOL:
            fail("--dtypes: %s is not f32 or bf16" % d)
    for lv in levels:
        if lv not in (0, 1, 2, 3):
            fail("-O: level %d is not 0..3" % lv)
    hw, hw_source = hardware_numbers()
    for t in targets:
        if t not in hw:
            fail("--targets: no hardware profile %s (have %s)" % (t, ", ".join(hw)))
    if not a.export_only and not a.from_results:
        for tool in ("neuronc", "neuron-run"):
            if not os.access(os.path.join(a.bin, tool), os.X_OK):
                fail("no %s in %s (build first, or pass --bin)" % (tool, a.bin))
    sel = select(models, a)
    compiler = None if a.export_only or a.from_results else compiler_identity(a.bin)
    cells = [(d, t, lv) for d in dtypes for t in targets for lv in levels]
    os.makedirs(a.out, exist_ok=True)
    print("zoo: %d model(s) x %d cell(s) (%s); out %s; hardware numbers from %s%s" %
          (len(sel), 0 if a.export_only else len(cells),
           ", ".join(cell_key(c) for c in cells), a.out, hw_source,
           "; compiler " + compiler if compiler else ""), flush=True)

    rows = []
    rpath = os.path.join(a.out, "results.json")
    save_lock = threading.Lock()

    def save_results(some_rows):
        """Merges rows into OUT/results.json (with earlier invocations' rows of other
        models and cells), after every model: a long run that stops keeps what it did."""
        with save_lock:
            try:
                allres = json.load(open(rpath))
            except (OSError, ValueError):
                allres = {}
            for row in some_rows:
                ent = allres.setdefault(row["spec"].name, {"cells": {}})
                ent["meta"] = {k: v for k, v in row["meta"].items() if k != "cached"}
                ent["export_s"] = row["export_s"]
                for x in row["cells"].values():
                    x["compiler"] = compiler
                ent["cells"].update(row["cells"])
            tmp = rpath + ".tmp"
            with open(tmp, "w") as f:
                json.dump(allres, f, indent=1)
            os.replace(tmp, rpath)

    def do_model(spec):
        t0 = time.time()
        meta = ensure_exported(spec, a)
        exp_s = 0.0 if meta.get("cached") else time.time() - t0
        row = {"spec": spec, "meta": meta, "cells": {}, "export_s": exp_s}
        if "error" in meta:
            print("%s: %s" % (spec.name, meta["error"]), flush=True)
        else:
            st = meta["stats"]
            print("%s: %s %.1f s%s; %s; %.3g GFLOP, %.3g MB; %d ONNX ops: %s%s" %
                  (spec.name, "cached (the export took" if meta.get("cached") else "exported in",
                   meta["export_s"], ")" if meta.get("cached") else "",
                   spec.describe_inputs(), st["flops"] / 1e9,
                   compulsory_bytes(st, "f32") / 1e6, sum(st["ops"].values()),
                   " ".join(sorted(st["ops"])),
                   "".join("; warning: " + w for w in meta.get("warnings", []))), flush=True)
        return row

    def do_cell(row, cell):
        spec = row["spec"]
        r = run_cell_and_clean(spec, row["meta"], cell, a, hw[cell[1]])
        line = "%s %s: %s" % (spec.name, r["cell"], r["status"])
        if "max_err" in r:
            line += " max err %.3g" % r["max_err"]
        if "device_us" in r:
            line += ", device %.1f us" % r["device_us"]
        if "ratio" in r:
            line += ", bound %.1f us (%.2fx, %.2fx at HBM share)" % (r["bound_us"], r["ratio"],
                                                                    r["ratio_hbm"])
        if r.get("error") and r["status"] != "DIFFERS":
            line += ": " + r["error"]
        line += " [compile %.1f s, run %.1f s]" % (r.get("compile_s", 0), r.get("run_s", 0))
        if r.get("profile_check") and r["profile_check"] != "ok":
            line += " [profile: hardware numbers %s]" % r["profile_check"]
        print(line, flush=True)
        row["cells"][r["cell"]] = r

    if a.from_results:
        rows = rows_from_results(sel, cells, rpath)
    elif a.jobs <= 1:
        for spec in sel:
            row = do_model(spec)
            rows.append(row)
            if not a.export_only:
                for c in cells:
                    do_cell(row, c)
                save_results([row])
    else:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            rows = list(ex.map(do_model, sel))
            if not a.export_only:
                futs = {row["spec"].name: [ex.submit(do_cell, row, c) for c in cells]
                        for row in rows}
                for row in rows:
                    for f in futs[row["spec"].name]:
                        f.result()
                    save_results([row])
    for row in rows:
        row["time_s"] = row["export_s"] + sum(x.get("compile_s", 0) + x.get("run_s", 0)
                                              for x in row["cells"].values())

    for row in rows:
        row["time_s"] = row["export_s"] + sum(x.get("compile_s", 0) + x.get("run_s", 0)
                                              for x in row["cells"].values())
    if not a.from_results:
        save_results(rows)

    exported = sum("error" not in r["meta"] for r in rows)
    if a.export_only:
        print("\nzoo: %d of %d model(s) exported" % (exported, len(rows)))
        for r in rows:
            if "error" in r["meta"]:
                print("  %s: %s" % (r["spec"].name, r["meta"]["error"]))
        return 0 if exported == len(rows) else 1
    results = [x for r in rows for x in r["cells"].values()]
    n_ok = sum(x["status"] == "ok" for x in results)
    n_compiled = sum(x["status"] not in ("compile error", "export error", "not run")
                     for x in results)
    if a.from_results:
        compiler = "; ".join(sorted({x["compiler"] for x in results if x.get("compiler")})) \
            or "none recorded"
    summary = ("%d model(s), %d cell(s): %d compiled, %d matched; %d of %d model(s) exported" %
               (len(rows), len(results), n_compiled, n_ok, exported, len(rows)))
    table = markdown(rows, cells, hw, hw_source)
    print("\nzoo: " + summary)
    if bf16_line(rows):
        summary += "; " + bf16_line(rows)
        print("zoo: " + bf16_line(rows))
    for r in rows:
        for x in r["cells"].values():
            if x["status"] != "ok":
                print("  %s %s: %s: %s" % (r["spec"].name, x["cell"], x["status"], x.get("error", "")))
    geo = geomean_lines(rows, hw)
    if geo:
        print("zoo: geometric mean of device time / bound per family (cells that matched):")
        for line in geo:
            print("  " + line)
    if a.markdown:
        print()
        print(table)
        print()
        print(legend(hw, hw_source, cells))
    if a.write_doc:
        cmd = "scripts/zoo.py " + shlex.join(sys.argv[1:])
        with open(a.write_doc, "w") as f:
            f.write("# Model zoo\n\n"
                    "Real PyTorch models (`test/zoo/models.py`: torchvision CNNs and vision "
                    "transformers, segmentation models, `torch.nn` attention and transformer "
                    "layers, language models written as Hugging Face writes them, recurrent "
                    "and audio models) exported to ONNX, compiled by neuronc, run on the "
                    "simulator and compared with PyTorch; device time against each model's "
                    "lower bound from its ONNX graph. How to add a model: the docstring of "
                    "`test/zoo/models.py`; the options: `scripts/zoo.py --help`.\n\n"
                    "Generated on revision %s%s (%s), compiler %s, by:\n\n    %s\n\n%s.\n\n" %
                    (git_rev(), " with uncommitted changes" if git_dirty() else "",
                     time.strftime("%Y-%m-%d"), compiler, cmd, summary))
            f.write(table + "\n\n" + legend(hw, hw_source, cells) + "\n")
            if geo:
                f.write("\nGeometric mean of device time / bound per family (cells that "
                        "matched):\n\n" + geomean_markdown(rows, hw) + "\n")
            errs = [(r["spec"].name, x) for r in rows for x in r["cells"].values()
                    if x["status"] != "ok"]
            if errs:
                f.write("\nErrors, whole first lines:\n\n")
                for name, x in errs:
                    f.write("- `%s` %s: %s: %s\n" % (name, x["cell"], x["status"],
                                                     x.get("error", "").replace("`", "'")))
        print("zoo: wrote %s" % a.write_doc)
    return 0 if results and n_ok == len(results) and exported == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
