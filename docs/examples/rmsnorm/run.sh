#!/usr/bin/env bash
# The RMSNorm study of the seed article, on the simulated NeuronCore: the
# same RMSNorm on identical inputs, three ways:
#   naive    naive.mlir compiled at -O0: every op its own kernel, each
#            intermediate tensor written to HBM and read back
#   builtin  builtin.mlir: the built-in neuron.rmsnorm op
#   fused    naive.mlir compiled with fusion (-O2): the compiler finds the
#            RMSNorm in the naive ops
# Prints one row per approach (kernels, device time, HBM bytes, verdict),
# then the naive program's key-averages table, and leaves each profile
# (report.html, trace.json for Perfetto) under OUT.
#
# usage: docs/examples/rmsnorm/run.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
BIN="${1:-$root/build}/bin"
OUT="${2:-$root/build/rmsnorm-study}"
mkdir -p "$OUT"

compile() { # name source flags...
  local name=$1 src=$2
  shift 2
  "$BIN/neuronc" "$src" "$@" -o "$OUT/$name.neff" 2>/dev/null
}
compile naive "$here/naive.mlir" -O0
compile builtin "$here/builtin.mlir"
compile fused "$here/naive.mlir" -O2

for name in naive builtin fused; do
  # Identical inputs: the same seed for every approach.
  "$BIN/neuron-run" "$OUT/$name.neff" --random-inputs --seed 1 --output "$OUT/$name.npy" \
      --profile "$OUT/$name" > "$OUT/$name.txt"
done

/usr/bin/python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = []
for name, what in (("naive", "naive ops, -O0"), ("builtin", "built-in rmsnorm op"),
                   ("fused", "naive ops, fused by neuronc")):
    s = json.load(open(os.path.join(out, name, "summary.json")))
    m = s["summary"]
    kernels = s["kernels"]
    top = max(kernels, key=lambda k: k["device_time_ns"])
    verdicts = sorted({k["verdict"] for k in kernels})
    verdict = top["verdict"] if len(verdicts) == 1 else \
        "%s (%d of %d kernels)" % (top["verdict"], sum(k["verdict"] == top["verdict"] for k in kernels), len(kernels))
    rows.append((what, len(kernels), s["runs"]["median_ns"] / 1e3,
                 (m["hbm_read_bytes"] + m["hbm_write_bytes"]) / 2**20, verdict))
base = rows[0][2]
print("RMSNorm over [1, 2048, 4096] f32 on a simulated trn1 NeuronCore, identical inputs\n")
print("%-30s %7s %14s %10s %9s  %s" % ("approach", "kernels", "device time", "HBM", "speedup", "verdict"))
for what, k, us, mib, verdict in rows:
    print("%-30s %7d %11.1f us %6.0f MiB %8.2fx  %s" % (what, k, us, mib, base / us, verdict))
try:
    import numpy as np
    ref = np.load(os.path.join(out, "naive.npy"))
    for name in ("builtin", "fused"):
        d = np.abs(np.load(os.path.join(out, name + ".npy")) - ref).max()
        print("max |%s - naive| = %.2g" % (name, d))
except ImportError:
    pass
PY
echo
echo "== Where the naive program's device time goes (key averages by source op) =="
# The source ops by name and location, then summed by name (up to the kernels).
awk '/^$/ && ++blank == 2 { exit } { print }' "$OUT/naive/key_averages.txt"
echo
echo "Profiles: $OUT/{naive,builtin,fused}/"
echo "  report.html  open in a browser (no network needed): timeline, tables, roofline"
echo "  trace.json   open in https://ui.perfetto.dev or chrome://tracing"
