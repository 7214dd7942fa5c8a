#!/usr/bin/env bash
# The headline demo: installs what is missing, builds, then runs RMSNorm
# written as naive neuron ops through the reference interpreter on random
# inputs, checks it against the single fused `neuron.rmsnorm` kernel, and
# shows what each op says it costs: the naive chain moves ~4x the bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${NEURONC_BUILD_DIR:-build}
scripts/install-deps.sh
scripts/build.sh
BIN=$BUILD/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo
echo "== RMSNorm as naive ops (docs/examples/rmsnorm_naive.mlir), random inputs, seed 1 =="
"$BIN/neuron-run" docs/examples/rmsnorm_naive.mlir --random-inputs --seed 1 --output "$out/naive.npy"
echo
echo "== The same as one fused kernel (docs/examples/rmsnorm_fused.mlir) =="
"$BIN/neuron-run" docs/examples/rmsnorm_fused.mlir --random-inputs --seed 1 --output "$out/fused.npy"
echo
echo "== Static cost (what every op reports through CostOpInterface) =="
for f in naive fused; do
  printf '%-6s ' "$f:"
  "$BIN/neuron-opt" "docs/examples/rmsnorm_$f.mlir" --neuron-cost-report=totals-only \
      -o /dev/null 2>&1 | sed -n 's/.*remark: total cost: //p'
done
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - "$out" <<'PY'
import sys, numpy as np
a, b = (np.load(f"{sys.argv[1]}/{n}.npy") for n in ("naive", "fused"))
print(f"\nnaive vs fused: max abs difference {np.abs(a - b).max():.3g} over {a.size} values")
PY
fi
