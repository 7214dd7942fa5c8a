#!/usr/bin/env bash
# Tensor-parallel scaling of the Llama-7B-shaped decoder layer of
# scripts/llama-bench.sh (hidden 4096, 32 query / 8 KV heads, FFN 14336, bf16
# weights, f32 activations): prefill at seq 2048 and one decode step over a
# 2048-token cache, compiled with neuronc --tp=N for N = 1, 2, 8, 32 and run
# on the simulated instance (cores 0..N-1; trn1: 2 cores per chip, so N = 8
# spans 4 chips over NeuronLink), timing only, profiled.
#
# Per configuration: the group's device time (its slowest core), the speedup
# over N = 1, the all-reduces' share of the device time and the exposed
# (not overlapped) communication from the profile, and the analytic model
#   model(N) = device(1) / N + sum over the all-reduces of
#              2(N-1)/N * bytes / ring bandwidth + 2(N-1) * step cost
# (neuron-run prints the second term, from the hardware table), with the
# issue's targets: within 15 % of the model for every N, prefill at N = 8 at
# least 6x faster than N = 1.
# Usage: scripts/tp-bench.sh [build-dir] [target] [N ...]
set -euo pipefail
BUILD=${1:-build}
TARGET=${2:-trn1}
shift $(( $# < 2 ? $# : 2 ))
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1 2 8 32)
SRC=$(cd "$(dirname "$0")/.." && pwd)
GEN="$SRC/test/bench/Inputs/gen_llama_layer.py"
[ -x "$BUILD/bin/neuronc" ] || { echo "tp-bench.sh: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-13s %4s %12s %8s %11s %9s %12s %7s  %s\n" configuration N device speedup collective exposed model "/model" target
for cfg in "prefill-2048:--seq 2048" "decode-2048:--seq 1 --cache 2048"; do
  IFS=: read -r name flags <<< "$cfg"
  /usr/bin/python3 "$GEN" $flags --dtype bf16 > "$work/$name.mlir"
  base=""
  for n in "${SIZES[@]}"; do
    tp=(); [ "$n" -gt 1 ] && tp=(--tp="$n")
    "$BUILD/bin/neuronc" --no-cache --target="$TARGET" "${tp[@]}" "$work/$name.mlir" \
      -o "$work/$name.$n.neff"
    "$BUILD/bin/neuron-run" "$work/$name.$n.neff" --no-data --profile "$work/$name.$n.prof" \
      > "$work/$name.$n.txt"
    line=$(/usr/bin/python3 - "$name" "$n" "$work/$name.$n.txt" "$work/$name.$n.prof/summary.json" "$base" <<'PY'
import json, re, sys
name, n, txt, summary, base = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), sys.argv[4], sys.argv[5]
s = json.load(open(summary))
device = max(s["runs"]["device_time_ns"]) / 1e3
tp = s["tensor_parallel"]
collective = max((c["collective_ns"] for c in tp), default=0) / 1e3
exposed = max((c["exposed_communication_ns"] for c in tp), default=0) / 1e3
m = re.search(r"ring model ([0-9.]+) us", txt)
ring = float(m.group(1)) if m else 0.0
t1 = float(base) if base else device
model = t1 / n + ring
speedup = t1 / device
ratio = device / model
miss = abs(ratio - 1) > 0.15
target = "within 15 %%: %s" % ("MISSED" if miss else "met")
if name.startswith("prefill") and n == 8:
    target += "; >= 6x: %s" % ("met" if speedup >= 6 else "MISSED")
print("%-13s %4d %9.1f us %7.2fx %8.1f us %6.1f us %9.1f us %6.2fx  %s|%f" % (
    name, n, device, speedup, collective, exposed, model, ratio, target, device))
PY
)
    echo "${line%|*}"
    [ -n "$base" ] || base=${line##*|}
  done
done
