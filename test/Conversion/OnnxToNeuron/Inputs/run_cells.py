"""run_cells.py BIN DIR NAME [--tol T] [--bf16-tol T] [--cells LIST] [--no-random]

Runs DIR/NAME.onnx (inputs DIR/NAME.in<i>.npy, expected outputs
DIR/NAME.ref<i>.npy, as make_onnx.py writes them) every way a user runs an
ONNX model and prints one line per way, "NAME CELL ok" or what differs:

  interp        neuron-run NAME.onnx (the interpreter)
  sim           neuron-run NAME.onnx --sim (compiled in-process, simulated)
  check         neuron-run NAME.onnx --check --random-inputs (simulator
                against interpreter kernel by kernel; --no-random: on the
                inputs, for models whose integer inputs must stay in range)
  trn1-f32-O0 ... trn2-bf16-O2
                neuronc -O0/-O2 --target=trn1/trn2 [--auto-cast=matmult],
                then neuron-run NAME.neff; " (device X us)" follows "ok"

A cell matches when max|got - ref| <= tol * max|ref| over every output (tol:
--tol, 1e-4 by default; bf16 cells --bf16-tol, 2e-2). --cells picks some
(comma-separated names, or prefixes such as trn1).
"""
import argparse
import glob
import os
import re
import subprocess
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("dir")
ap.add_argument("name")
ap.add_argument("--tol", type=float, default=1e-4)
ap.add_argument("--bf16-tol", type=float, default=2e-2)
ap.add_argument("--cells", default="")
ap.add_argument("--no-random", action="store_true")
args = ap.parse_args()

base = os.path.join(args.dir, args.name)
model = base + ".onnx"
count = lambda kind: len(glob.glob("%s.%s[0-9]*.npy" % (base, kind)))
inputs = ["%s.in%d.npy" % (base, i) for i in range(count("in"))]
refs = ["%s.ref%d.npy" % (base, i) for i in range(count("ref"))]
in_flags = [f for p in inputs for f in ("--input", p)]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def compare(cell, tol):
    worst = 0.0
    for i, ref in enumerate(refs):
        got = np.load("%s.out.%s.%d.npy" % (base, cell, i))
        want = np.load(ref)
        if got.shape != want.shape:
            return "output %d: shape %s, expected %s" % (i, got.shape, want.shape)
        err = np.abs(got.astype(np.float64) - want).max() / max(1e-30, np.abs(want).max())
        worst = max(worst, err)
        if not err <= tol:
            return "output %d: max relative error %.3g > %g" % (i, err, tol)
    return None


def outputs(cell):
    return [f for i in range(len(refs)) for f in ("--output", "%s.out.%s.%d.npy" % (base, cell, i))]


cells = ["interp", "sim", "check"] + ["%s-%s-O%d" % (t, d, o) for t in ("trn1", "trn2")
                                      for d in ("f32", "bf16") for o in (0, 2)]
wanted = [c for c in args.cells.split(",") if c]
if wanted:
    cells = [c for c in cells if any(c == w or c.startswith(w + "-") for w in wanted)]
failed = False
for cell in cells:
    tol = args.bf16_tol if "bf16" in cell else args.tol
    timing = ""
    if cell in ("interp", "sim"):
        cmd = [os.path.join(args.bin, "neuron-run"), model] + (["--sim"] if cell == "sim" else [])
        rc, log = run(cmd + in_flags + outputs(cell))
    elif cell == "check":
        rc, log = run([os.path.join(args.bin, "neuron-run"), model, "--check"] +
                      (in_flags if args.no_random else ["--random-inputs"]))
        ok = rc == 0 and "check: ok" in log
        print("%s check %s" % (args.name, "ok" if ok else "FAILED: " + log.strip()[-800:]))
        failed |= not ok
        continue
    else:
        target, dtype, level = cell.split("-")
        neff = "%s.%s.neff" % (base, cell)
        cmd = [os.path.join(args.bin, "neuronc"), "--no-cache", model, "-" + level,
               "--target=" + target, "-o", neff]
        if dtype == "bf16":
            cmd.append("--auto-cast=matmult")
        rc, log = run(cmd)
        if rc == 0:
            rc, log = run([os.path.join(args.bin, "neuron-run"), neff] + in_flags + outputs(cell))
            m = re.search(r"device time ([0-9.]+) us", log)
            timing = " (device %s us)" % m.group(1) if m else ""
    if rc != 0:
        print("%s %s FAILED: %s" % (args.name, cell, log.strip()[-800:]))
        failed = True
        continue
    why = compare(cell, tol)
    print("%s %s %s%s" % (args.name, cell, "ok" if why is None else "FAILED: " + why, timing))
    failed |= why is not None
sys.exit(1 if failed else 0)
