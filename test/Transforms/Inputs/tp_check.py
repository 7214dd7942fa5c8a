#!/usr/bin/env python3
"""Checks neuronc --tp=N against the unsharded program, on the interpreter.

usage: tp_check.py BINDIR WORKDIR PROGRAM.mlir INPUTS_DIR N [N ...] [-O LEVEL]

Runs PROGRAM on the inputs INPUTS_DIR/in0.npy, in1.npy, ... with
`neuron-run` (the reference), then compiles it with `neuronc --tp=N
--emit=fused` and emulates the N cores: each core gets its slice of every
argument marked `neuron.shard = array<i64: DIM, PARTS>` (part r / (N /
PARTS) along DIM) and the whole of the others. The interpreter cannot run
`neuron.all_reduce`, so each one `%y = neuron.all_reduce %x` becomes an
extra argument read in its place (`%y = neuron.reshape %in`), and its operand
`%x` an extra result. The program then runs in stages: stage k feeds the
sums over the cores of the operands of all-reduces 0..k-1 (zeros for the
rest, which stage k does not depend on) and sums what the cores return for
all-reduce k; the last stage gives the results. Prints the largest error
relative to max |reference| per N and exits 1 above 1e-4.
"""
import os
import re
import subprocess
import sys

import numpy as np

args = sys.argv[1:]
opt_level = "0"
if "-O" in args:
    i = args.index("-O")
    opt_level = args[i + 1]
    del args[i:i + 2]
bindir, work, program, inputs_dir = args[:4]
parts_list = [int(a) for a in args[4:]]
os.makedirs(work, exist_ok=True)

inputs = []
while os.path.exists(os.path.join(inputs_dir, "in%d.npy" % len(inputs))):
    inputs.append(np.load(os.path.join(inputs_dir, "in%d.npy" % len(inputs))))


def run(prog, arrays, tag, n_out):
    """Runs `prog` on the interpreter, returns its n_out results."""
    cmd = [os.path.join(bindir, "neuron-run"), prog]
    for i, a in enumerate(arrays):
        path = os.path.join(work, "%s.in%d.npy" % (tag, i))
        np.save(path, np.ascontiguousarray(a, dtype=np.float32))
        cmd += ["--input", path]
    outs = [os.path.join(work, "%s.out%d.npy" % (tag, i)) for i in range(n_out)]
    for o in outs:
        cmd += ["--output", o]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return [np.load(o) for o in outs]


reference = run(program, inputs, "ref", 1)[0]

TENSOR = r"tensor<[^>]*>"
failed = False
for n in parts_list:
    sharded = os.path.join(work, "tp%d.mlir" % n)
    subprocess.run([os.path.join(bindir, "neuronc"), program, "--tp=%d" % n, "--emit=fused",
                    "-O" + opt_level, "-o", sharded], check=True)
    text = open(sharded).read()
    header = re.search(r"func\.func @\w+\((.*)\) -> (\(.*?\)|%s) attributes" % TENSOR, text)
    assert header, "no entry function in " + sharded
    arg_text = header.group(1)
    assert "neuron.tp = %d" % n in text
    # Each argument's split, from its attributes.
    splits = []
    for m in re.finditer(r"%%arg\d+: %s( \{[^}]*\})?" % TENSOR, arg_text):
        s = re.search(r"neuron\.shard = array<i64: (\d+), (\d+)>", m.group(1) or "")
        splits.append((int(s.group(1)), int(s.group(2))) if s else None)
    assert len(splits) == len(inputs), (len(splits), len(inputs))

    # Every all-reduce becomes an argument in, its operand a result out.
    reduces = re.findall(r"^( *)(%\S+) = neuron\.all_reduce (%\S+) group = (\d+) : (" + TENSOR + r")$",
                         text, re.M)
    assert reduces, "no neuron.all_reduce in " + sharded
    for k, (indent, res, operand, group, ty) in enumerate(reduces):
        assert int(group) == n
        text = text.replace("%s%s = neuron.all_reduce %s group = %s : %s" % (indent, res, operand, group, ty),
                            "%s%s = neuron.reshape %%tp_in%d : %s -> %s" % (indent, res, k, ty, ty))
    extra_args = "".join(", %%tp_in%d: %s" % (k, r[4]) for k, r in enumerate(reduces))
    ret = re.search(r"^    return (.*) : (.*)$", text, re.M)
    results = ret.group(1).split(", ")
    result_types = re.findall(TENSOR, ret.group(2))
    new_ret = "    return %s : %s" % (", ".join(results + [r[2] for r in reduces]),
                                      ", ".join(result_types + [r[4] for r in reduces]))
    text = text[:ret.start()] + new_ret + text[ret.end():]
    all_types = ", ".join(result_types + [r[4] for r in reduces])
    text = text.replace(header.group(0),
                        "func.func @%s(%s%s) -> (%s) attributes" %
                        (re.search(r"@(\w+)", header.group(0)).group(1), arg_text, extra_args,
                         all_types), 1)
    staged = os.path.join(work, "tp%d.staged.mlir" % n)
    open(staged, "w").write(text)

    def core_inputs(r):
        out = []
        for a, s in zip(inputs, splits):
            if s is None:
                out.append(a)
            else:
                dim, p = s
                assert n % p == 0 and a.shape[dim] % p == 0
                out.append(np.split(a, p, axis=dim)[r // (n // p)])
        return out

    n_res = len(results) + len(reduces)
    shapes = [tuple(int(d) for d in r[4][len("tensor<"):-1].split("x")[:-1]) for r in reduces]
    reduced = [np.zeros(s, np.float32) for s in shapes]
    for k in range(len(reduces) + 1):
        total = None
        finals = []
        for r in range(n):
            outs = run(staged, core_inputs(r) + reduced, "tp%d.c%d" % (n, r), n_res)
            if k < len(reduces):
                part = outs[len(results) + k].astype(np.float64)
                total = part if total is None else total + part
            else:
                finals.append(outs[0])
        if k < len(reduces):
            reduced[k] = total.astype(np.float32)
    for r in range(1, n):
        assert np.array_equal(finals[0], finals[r]), "core %d's result differs from core 0's" % r
    err = float(np.max(np.abs(finals[0].astype(np.float64) - reference)) /
                max(1e-30, float(np.max(np.abs(reference)))))
    ok = err <= 1e-4
    failed |= not ok
    print("tp=%d -O%s: %d all_reduce(s), %d of %d arguments split, max relative error %.2e %s" %
          (n, opt_level, len(reduces), sum(s is not None for s in splits), len(splits), err,
           "ok" if ok else "FAIL"))
sys.exit(1 if failed else 0)
