#!/usr/bin/env bash
# Runs the interpreter benchmarks side by side with their plain-loop twins in
# one process and prints interpreter/plain-loop ratios (lower is better; the
# targets are <= 2.0). Usage: scripts/bench.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
BIN="$BUILD/test/bench/neuronc-bench-interpreter"
[ -x "$BIN" ] || { echo "bench.sh: build first ($BIN not found)" >&2; exit 1; }
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$BIN" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
       --benchmark_format=json > "$json"
/usr/bin/python3 - "$json" <<'PY'
import json, sys
rows = {b["run_name"]: b["real_time"] for b in json.load(open(sys.argv[1]))["benchmarks"]
        if b.get("aggregate_name") == "median"}
for name in ("RmsNorm", "Add"):
    interp, plain = rows[f"BM_{name}Interpreter"], rows[f"BM_{name}PlainLoop"]
    verdict = "ok" if interp / plain <= 2.0 else "OVER TARGET"
    print(f"{name:8s} interpreter {interp:8.2f} ms  plain loop {plain:8.2f} ms  "
          f"ratio {interp / plain:5.2f}x  (target <= 2.0x: {verdict})")
PY
