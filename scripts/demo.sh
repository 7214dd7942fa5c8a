#!/usr/bin/env bash
# The headline demo: installs what is missing, builds, then runs RMSNorm
# written as naive neuron ops through the reference interpreter on random
# inputs, lets the compiler fuse it (and says what it fused, from which source
# lines), runs the fused program on the same inputs, and shows what each
# version costs by the ops' own accounting: the naive chain moves ~4x the bytes.
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
echo "== neuronc --emit=fused: what the compiler fused, and from which source ops =="
"$BIN/neuronc" docs/examples/rmsnorm_naive.mlir --emit=fused --fusion-report=- -o "$out/fused.mlir"
grep -E "neuron\.(rmsnorm|kernel)" "$out/fused.mlir"
echo
echo "== The fused program on the same inputs =="
"$BIN/neuron-run" "$out/fused.mlir" --random-inputs --seed 1 --output "$out/fused.npy"
echo
echo "== Static cost (what every op reports through CostOpInterface) =="
for f in docs/examples/rmsnorm_naive.mlir "$out/fused.mlir"; do
  printf '%-6s ' "$(basename "$f" .mlir | sed 's/rmsnorm_//'):"
  "$BIN/neuron-opt" "$f" --neuron-cost-report=totals-only -o /dev/null 2>&1 \
      | sed -n 's/.*remark: total cost: //p'
done
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 - "$out" <<'PY'
import sys, numpy as np
a, b = (np.load(f"{sys.argv[1]}/{n}.npy") for n in ("naive", "fused"))
print(f"\nnaive vs fused: max abs difference {np.abs(a - b).max():.3g} over {a.size} values")
PY
fi
