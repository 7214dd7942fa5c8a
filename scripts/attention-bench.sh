#!/usr/bin/env bash
# Scaled dot-product attention alone, as TOSA exporters write it
# (test/Conversion/Lower/Inputs/gen_attention.py): Llama-7B heads (32 query,
# 8 KV, head dim 128), bf16, an additive [S, S] mask input or a constant
# causal mask, at seq 512, 2048 and 8192. Compiled with and without the
# attention fusion (--disable-fusion=attention) and simulated on trn1:
# device time, HBM bytes read and written, and the compute bound
# 4·H·S²·D / TensorE peak (dense: causal masks skip half of it).
# Usage: scripts/attention-bench.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
GEN="$SRC/test/Conversion/Lower/Inputs/gen_attention.py"
[ -x "$BUILD/bin/neuronc" ] || { echo "attention-bench.sh: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-16s %-8s %12s %12s %12s %10s %8s\n" config form device "HBM read" "HBM write" bound ratio
for cfg in 512:input 2048:input 2048:causal-const 8192:input; do
  IFS=: read -r seq mask <<< "$cfg"
  d="$work/s$seq-$mask"
  /usr/bin/python3 "$GEN" "$d" --heads 32 --kv-heads 8 --q "$seq" --dim 128 --mask "$mask" \
    --dtype bf16 --no-data
  for form in unfused fused; do
    flags=(); [ "$form" = unfused ] && flags=(--disable-fusion=attention)
    if ! err=$("$BUILD/bin/neuronc" --no-cache "${flags[@]}" "$d/m.mlir" -o "$d/$form.neff" 2>&1); then
      printf "%-16s %-8s %s\n" "$seq/$mask" "$form" "does not compile: $(echo "$err" | grep -m1 error: | sed 's/.*error: //' | cut -c1-90)"
      continue
    fi
    "$BUILD/bin/neuron-run" "$d/$form.neff" --no-data --profile "$d/p-$form" > /dev/null
    /usr/bin/python3 - "$seq/$mask" "$form" "$d/p-$form/summary.json" "$seq" <<'PY'
import json, sys
name, form, path, seq = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
s = json.load(open(path))["summary"]
bound = 4 * 32 * seq * seq * 128 / s["peak_flops"]
us = s["total_time"] * 1e6
print("%-16s %-8s %9.1f us %9.1f MiB %9.1f MiB %7.1f us %7.2fx" % (
    name, form, us, s["hbm_read_bytes"] / 2**20, s["hbm_write_bytes"] / 2**20, bound * 1e6,
    us / (bound * 1e6)))
PY
  done
done
