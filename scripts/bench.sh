#!/usr/bin/env bash
# Runs the benchmarks side by side and prints ratios measured in one run:
#  - interpreter / plain C++ loop (targets <= 2.0);
#  - fusion of a 32-layer decoder relative to parsing it (target: well under a second);
#  - the simulator: functional simulation of the compiled fused RMSNorm 4096x4096 relative to the
#    interpreter on the same program (target <= 3.0), timing-only instructions per second
#    (target >= 5 million);
#  - the generated code on the simulated trn1: fused RMSNorm 4096x4096 f32 against the core's
#    modeled peak memory bandwidth (target >= 85 %), naive (-O0) / fused device time (target
#    >= 3x, with `mul` the largest share of the naive one), 4096^3 bf16 matmul MFU (>= 80 %).
# Usage: scripts/bench.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
for b in interpreter fusion simulator; do
  [ -x "$BUILD/test/bench/neuronc-bench-$b" ] || { echo "bench.sh: build first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for b in interpreter fusion simulator; do
  "$BUILD/test/bench/neuronc-bench-$b" --benchmark_repetitions=5 \
      --benchmark_report_aggregates_only=true --benchmark_format=json > "$work/$b.json"
done

# The generated code, simulated (deterministic: one run each).
NEURONC="$BUILD/bin/neuronc"; RUN="$BUILD/bin/neuron-run"
"$NEURONC" "$SRC/test/bench/Inputs/rmsnorm_4096.mlir" -o "$work/fused.neff"
"$NEURONC" "$SRC/test/bench/Inputs/rmsnorm_4096.mlir" -O0 -o "$work/naive.neff"
"$NEURONC" "$SRC/test/bench/Inputs/matmul_4096_bf16.mlir" -o "$work/matmul.neff"
for p in fused naive matmul; do
  "$RUN" "$work/$p.neff" --no-data --profile "$work/$p" > /dev/null
done

/usr/bin/python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
rows = {}
for b in ("interpreter", "fusion", "simulator"):
    for r in json.load(open(os.path.join(work, b + ".json")))["benchmarks"]:
        if r.get("aggregate_name") == "median":
            rows[r["run_name"].replace("/real_time", "")] = r

def ok(good):
    return "ok" if good else "OVER TARGET"

print("Interpreter")
for name in ("RmsNorm", "Add"):
    interp = rows[f"BM_{name}Interpreter"]["real_time"]
    plain = rows[f"BM_{name}PlainLoop"]["real_time"]
    print(f"  {name:8s} interpreter {interp:8.2f} ms  plain loop {plain:8.2f} ms  "
          f"ratio {interp / plain:5.2f}x  (target <= 2.0x: {ok(interp / plain <= 2.0)})")
fuse, parse = rows["BM_FuseDecoder32"]["real_time"], rows["BM_ParseDecoder32"]["real_time"]
print(f"  Fusion of a 32-layer decoder {fuse:8.2f} ms  parse {parse:8.2f} ms  "
      f"ratio {fuse / parse:5.2f}x parse  (target well under 1 s: {ok(fuse < 1000)})")

print("Simulator")
sim = rows["BM_RmsNormSimulated"]["real_time"]
interp = rows["BM_RmsNormInterpreterSameProgram"]["real_time"]
print(f"  RMSNorm 4096x4096 functional {sim:8.2f} ms  interpreter {interp:8.2f} ms  "
      f"ratio {sim / interp:5.2f}x  (target <= 3.0x: {ok(sim / interp <= 3.0)})")
for name in ("Matmul", "RmsNorm"):
    r = rows[f"BM_{name}TimingOnly"]
    ips = r["instructions_per_second"]
    print(f"  {name:8s} timing only {r['real_time']:8.3f} ms for {int(r['instructions'])} "
          f"instructions: {ips / 1e6:5.2f} M instructions/s"
          + (f"  (target >= 5 M/s: {ok(ips >= 5e6)})" if name == "Matmul" else ""))

print("Generated code on trn1 (simulated)")
def summary(p):
    return json.load(open(os.path.join(work, p, "summary.json")))
fused, naive, mm = summary("fused"), summary("naive"), summary("matmul")
mbu = fused["summary"]["mbu_estimated_percent"]
bw = fused["summary"]["hbm_bandwidth_bytes_per_s"] / 1e9
t_f = fused["summary"]["total_time"] * 1e6
print(f"  Fused RMSNorm 4096x4096 f32: {t_f:8.1f} us, {mbu:5.1f} % of the modeled peak "
      f"{bw:.0f} GB/s  (target >= 85 %: {ok(mbu >= 85)})")
t_n = naive["summary"]["total_time"] * 1e6
top = naive["ops"][0]
print(f"  Naive (-O0) RMSNorm: {t_n:8.1f} us = {t_n / t_f:5.2f}x the fused one  "
      f"(target >= 3x: {ok(t_n / t_f >= 3)}); largest share: {top['name']} "
      f"{top['device_time_percent']:.1f} %")
mfu = mm["summary"]["mfu_estimated_percent"]
print(f"  4096^3 bf16 matmul: {mm['summary']['total_time'] * 1e6:8.1f} us, MFU {mfu:5.1f} %  "
      f"(target >= 80 %: {ok(mfu >= 80)})")
PY
