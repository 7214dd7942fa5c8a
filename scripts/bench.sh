#!/usr/bin/env bash
# Runs the benchmarks side by side and prints ratios measured in one run:
# interpreter / plain C++ loop (targets <= 2.0), and fusion of a 32-layer
# decoder relative to parsing it (target: well under a second).
# Usage: scripts/bench.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
for b in interpreter fusion; do
  [ -x "$BUILD/test/bench/neuronc-bench-$b" ] || { echo "bench.sh: build first" >&2; exit 1; }
done
json=$(mktemp); json2=$(mktemp)
trap 'rm -f "$json" "$json2"' EXIT
"$BUILD/test/bench/neuronc-bench-interpreter" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_format=json > "$json"
"$BUILD/test/bench/neuronc-bench-fusion" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_format=json > "$json2"
/usr/bin/python3 - "$json" "$json2" <<'PY'
import json, sys
rows = {}
for path in sys.argv[1:]:
    rows.update({b["run_name"]: b["real_time"] for b in json.load(open(path))["benchmarks"]
                 if b.get("aggregate_name") == "median"})
for name in ("RmsNorm", "Add"):
    interp, plain = rows[f"BM_{name}Interpreter"], rows[f"BM_{name}PlainLoop"]
    verdict = "ok" if interp / plain <= 2.0 else "OVER TARGET"
    print(f"{name:8s} interpreter {interp:8.2f} ms  plain loop {plain:8.2f} ms  "
          f"ratio {interp / plain:5.2f}x  (target <= 2.0x: {verdict})")
fuse, parse = rows["BM_FuseDecoder32"], rows["BM_ParseDecoder32"]
verdict = "ok" if fuse < 1000 else "OVER TARGET"
print(f"Fusion   32-layer decoder {fuse:8.2f} ms  parse {parse:8.2f} ms  "
      f"ratio {fuse / parse:5.2f}x parse  (target well under 1 s: {verdict})")
PY
