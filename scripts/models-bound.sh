#!/usr/bin/env bash
# Every program of ../shared/models (or $NEURONC_MODELS) that holds a matmul,
# compiled for trn1 (-O2; printed tensors become results, as the corpus runs them) and simulated: device time beside
# the lower bound max(matmul FLOPs / TensorE peak (fp32: a quarter of it),
# bytes of the inputs and outputs / 272 GB/s), and their ratio (issue target:
# within 3x). The inputs are counted whole even where a program reads part of
# them, so the bound is, if anything, too high.
# Usage: scripts/models-bound.sh [build-dir]
set -uo pipefail
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
MODELS=${NEURONC_MODELS:-$SRC/../shared/models}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$BUILD/bin" "$MODELS" "$work" <<'PY'
import glob, json, os, re, subprocess, sys
bindir, models, work = sys.argv[1:4]
files = sorted(glob.glob(os.path.join(models, "*.mlir")) +
               glob.glob(os.path.join(models, "buddy-next-more", "*.mlir")))
units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
print("%-44s %12s %12s %9s %7s" % ("program", "device", "bound", "bound is", "ratio"))
for f in files:
    name = os.path.relpath(f, models)
    neff = os.path.join(work, "m.neff")
    c = subprocess.run([os.path.join(bindir, "neuronc"), "--no-cache", "--return-printed", f,
                        "-o", neff], capture_output=True, text=True)
    if c.returncode != 0:
        continue
    prof = os.path.join(work, "p")
    r = subprocess.run([os.path.join(bindir, "neuron-run"), neff, "--no-data", "--profile", prof],
                       capture_output=True, text=True)
    if r.returncode != 0:
        continue
    summary = json.load(open(os.path.join(prof, "summary.json")))
    flops = sum(k.get("matmul_flops", 0) for k in summary["kernels"])
    if flops == 0:
        continue
    ins = subprocess.run([os.path.join(bindir, "neuron-inspect"), neff], capture_output=True,
                         text=True).stdout
    io_bytes, fp32 = 0, False
    for m in re.finditer(r"^\s+\w+\s+(input|output)\s+tensor<([^>]*)>\s+([\d.]+) (\w+)", ins, re.M):
        io_bytes += float(m.group(3)) * units[m.group(4)]
        fp32 |= m.group(1) == "input" and m.group(2).endswith("f32")
    peak = 91.8e12 * (0.25 if fp32 else 1.0)
    compute_us, memory_us = flops / peak * 1e6, io_bytes / 272e9 * 1e6
    us = summary["summary"]["total_time"] * 1e6
    bound = max(compute_us, memory_us)
    print("%-44s %9.1f us %9.1f us %9s %6.2fx%s" % (
        name, us, bound, "compute" if compute_us >= memory_us else "memory", us / bound,
        "" if us / bound <= 3 else "  (> 3x)"))
PY
