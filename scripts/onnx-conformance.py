#!/usr/bin/python3
"""ONNX's node tests through neuronc: the conformance table of docs/onnx.md.

  scripts/onnx-conformance.py [--build build] [--data DIR] [--ops Add,MatMul] [--markdown]
                              [--interpreter-only]

Debian's libonnx-testdata ships ONNX's backend node tests: per case a
model.onnx and test_data_set_*/ with input_N.pb and output_N.pb. Every case
whose model uses only ops neuronc claims (the importer's list, read from
`neuronc --list-onnx-ops`) is run on the interpreter and, compiled, on the
simulator (`neuron-run model.onnx [--sim] --input ... --output ...`), and
each is compared with ONNX's
expected outputs (|got - want| <= atol + rtol * |want|, rtol 1e-3, atol 1e-4
for floats; exact for integers and booleans). A failure says which of the
two failed first ("interpreter: ..." or "simulator: ..."); --interpreter-only
skips the simulator (for ops whose device lowering is not there yet). A case
is counted under the op of its single node, or under "function expansions" when it is several ops
(ONNX's `_expanded` cases). Graph inputs that decide a shape (Reshape's
shape, Slice's starts, ...: SHAPE_INPUTS) are frozen to the case's values,
as a static-shape compiler specializes a model on them. Skipped cases say
why (an element type the device does not have, e.g.). Prints a table per op
and the totals.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

SUPPORTED_DTYPES = {np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64,
                    np.bool_}


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


# Inputs that decide a result's shape (op type -> input positions). The
# device runs static shapes, so like torch.onnx.export with constant folding,
# a model is specialized on them: a case feeding one from a graph input gets
# the test's value as an initializer instead.
SHAPE_INPUTS = {
    "Reshape": {1}, "Slice": {1, 2, 3, 4}, "ReduceSum": {1}, "ReduceMean": {1},
    "ReduceMax": {1}, "ReduceMin": {1}, "ReduceProd": {1}, "ReduceSumSquare": {1},
    "ReduceL2": {1}, "ConstantOfShape": {0}, "Range": {0, 1, 2}, "Expand": {1}, "Split": {1},
    "Unsqueeze": {1}, "Squeeze": {1}, "Trilu": {1}, "Pad": {1, 3}, "Resize": {1, 2, 3},
}


def specialize(model, names, values):
    """The graph inputs of `model` in SHAPE_INPUTS positions, as initializers
    holding `values` (by input name); returns the names frozen."""
    frozen = set()
    for n in model.graph.node:
        for i in SHAPE_INPUTS.get(n.op_type, ()):
            if i < len(n.input) and n.input[i] in names:
                frozen.add(n.input[i])
    for name in frozen:
        model.graph.initializer.append(numpy_helper.from_array(values[name], name))
        keep = [v for v in model.graph.input if v.name != name]
        del model.graph.input[:]
        model.graph.input.extend(keep)
    return frozen


def run_case(build, case, work, interpreter_only=False):
    """(status, reason) for one case directory."""
    model = onnx.load(os.path.join(case, "model.onnx"))
    sets = sorted(glob.glob(os.path.join(case, "test_data_set_*")))
    if not sets:
        return "skip", "no test data"
    if any(n.op_type == "Dropout" and len(n.input) > 2 and n.input[2] for n in model.graph.node):
        return "skip", "training-mode Dropout draws random masks (neuronc compiles inference)"
    graph_inputs = [i.name for i in model.graph.input
                    if i.name not in {t.name for t in model.graph.initializer}]
    for ds in sets:
        try:
            ins = [load_pb(p) for p in sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                                              key=lambda p: int(p.rsplit("_", 1)[1][:-3]))]
            outs = [load_pb(p) for p in sorted(glob.glob(os.path.join(ds, "output_*.pb")),
                                               key=lambda p: int(p.rsplit("_", 1)[1][:-3]))]
        except Exception as e:  # sequences, optionals: not tensors
            return "skip", "test data not tensors (%s)" % type(e).__name__
        for a in ins + outs:
            if a.dtype.type not in SUPPORTED_DTYPES:
                return "skip", "element type %s" % a.dtype
        if len(ins) != len(graph_inputs):
            return "skip", "optional inputs omitted"
        spec = onnx.load(os.path.join(case, "model.onnx"))
        frozen = specialize(spec, set(graph_inputs), dict(zip(graph_inputs, ins)))
        path = os.path.join(case, "model.onnx")
        if frozen:
            path = os.path.join(work, "model.onnx")
            onnx.save(spec, path)
            ins = [a for n, a in zip(graph_inputs, ins) if n not in frozen]
        args = [os.path.join(build, "bin", "neuron-run"), path]
        for i, a in enumerate(ins):
            p = os.path.join(work, "in%d.npy" % i)
            np.save(p, a)
            args += ["--input", p]
        for i in range(len(outs)):
            args += ["--output", os.path.join(work, "out%d.npy" % i)]
        # The interpreter, then the simulator (compiled at the default -O).
        runs = [("interpreter", [])] + ([] if interpreter_only else [("simulator", ["--sim"])])
        for where, extra in runs:
            r = subprocess.run(args + extra, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                lines = r.stderr.strip().splitlines() or ["exit %d" % r.returncode]
                msg = next((l for l in lines if "error" in l), lines[0])
                return "fail", "%s: %s" % (where, msg[:200])
            for i, want in enumerate(outs):
                got = np.load(os.path.join(work, "out%d.npy" % i))
                if got.shape != want.shape:
                    return "fail", "%s: output %d shape %s, expected %s" % (
                        where, i, got.shape, want.shape)
                if want.dtype.kind == "f":
                    w, g = want.astype(np.float64), got.astype(np.float64)
                    bad = ~(np.abs(g - w) <= 1e-4 + 1e-3 * np.abs(w))
                    bad &= ~(np.isnan(w) & np.isnan(g))
                    if bad.any():
                        return "fail", "%s: output %d: %d of %d elements off (max diff %.3g)" % (
                            where, i, bad.sum(), bad.size, np.nanmax(np.abs(g - w)))
                elif not np.array_equal(got.astype(want.dtype), want):
                    return "fail", "%s: output %d differs" % (where, i)
    return "pass", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("--ops", default="")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--interpreter-only", action="store_true",
                    help="run the interpreter only, not the simulator")
    a = ap.parse_args()
    listed = subprocess.run([os.path.join(a.build, "bin", "neuronc"), "--list-onnx-ops"],
                            capture_output=True, text=True, check=True).stdout.split()
    claimed = set(listed)
    only = set(a.ops.split(",")) if a.ops else None
    rows = {}
    with tempfile.TemporaryDirectory() as work:
        for case in sorted(glob.glob(os.path.join(a.data, "test_*"))):
            try:
                model = onnx.load(os.path.join(case, "model.onnx"))
            except Exception:
                continue
            ops = {n.op_type for n in model.graph.node}
            if not ops or not ops <= claimed:
                continue
            key = next(iter(ops)) if len(ops) == 1 and len(model.graph.node) == 1 \
                else "function expansions"
            if only and key not in only:
                continue
            status, reason = run_case(a.build, case, work, a.interpreter_only)
            rows.setdefault(key, []).append((os.path.basename(case), status, reason))
            if a.verbose:
                print(os.path.basename(case), status, reason, file=sys.stderr)
    total = {"pass": 0, "fail": 0, "skip": 0}
    if a.markdown:
        print("| op | cases | passed | failed | skipped | why |")
        print("|---|---|---|---|---|---|")
    for op in sorted(rows, key=lambda k: (k == "function expansions", k)):
        cases = rows[op]
        c = {s: sum(1 for _, st, _ in cases if st == s) for s in total}
        for s in total:
            total[s] += c[s]
        why = "; ".join("%s: %s" % (n[5:], r) for n, st, r in cases if st != "pass")
        if a.markdown:
            print("| %s | %d | %d | %d | %d | %s |" % (op, len(cases), c["pass"], c["fail"],
                                                      c["skip"], why.replace("|", "/")))
        else:
            print("%-22s %3d cases %3d passed %3d failed %3d skipped  %s" % (
                op, len(cases), c["pass"], c["fail"], c["skip"], why[:300]))
    run = total["pass"] + total["fail"]
    print()
    print("%d cases of %d claimed ops: %d passed, %d failed, %d skipped; %.1f %% of the cases "
          "run pass" % (sum(total.values()), len(claimed), total["pass"], total["fail"],
                        total["skip"], 100.0 * total["pass"] / max(1, run)))


if __name__ == "__main__":
    main()
