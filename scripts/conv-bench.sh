#!/usr/bin/env bash
# Convolutions alone, at the shapes of ResNet-50 (the stem, then the 1x1 and
# 3x3 convolutions of each stage at 56², 28², 14² and 7²) and of
# MobileNetV2's depthwise layers (against the taps' bound: the faster of the
# vector engines and TensorE's multiplies by diagonal weights), batch 1
# and 8, bf16 (splat weights: the
# timing does not depend on the values). Each compiled by neuronc and
# simulated on trn1 (TARGET=trn2 for the other): device time against the
# compute bound 2·N·F·OH·OW·(C/groups)·KH·KW / TensorE peak and the memory
# bound (input + weights + output bytes) / HBM bandwidth.
# Usage: scripts/conv-bench.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
BIN=$(mktemp -d); cp "$BUILD/bin/neuronc" "$BUILD/bin/neuron-run" "$BIN"/
TARGET=${TARGET:-trn1}
[ -x "$BUILD/bin/neuronc" ] || { echo "conv-bench.sh: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work" "$BIN"' EXIT
# Engine clocks and rates from the hardware table (as scripts/zoo.py reads it).
HW=$(/usr/bin/python3 - "$(dirname "$0")/../lib/ISA/HardwareModel.cpp" "$TARGET" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for name, body in re.findall(r"\{\s*/\*name=\*/\"(\w+)\"(.*?)\}", text, re.S):
    if name == sys.argv[2]:
        v = dict(re.findall(r"/\*(\w+)=\*/\s*([-+0-9.eE]+)", body))
        print(v["tensorClockGHz"], v["vectorClockGHz"], v["vectorBf16ElementsPerCycle"])
PY
)
[ -n "$HW" ] || { echo "conv-bench.sh: no target $TARGET in the hardware table" >&2; exit 1; }
printf "%-26s %5s %10s %10s %10s %10s %8s %8s\n" layer batch device compute taps memory "%peak" "%bound"
# name C F H KH stride pad groups
while read -r name c f h k s p g; do
  for n in 1 8; do
    d="$work/$name-$n"
    mkdir -p "$d"
    /usr/bin/python3 - "$d/m.mlir" "$n" "$c" "$f" "$h" "$k" "$s" "$p" "$g" <<'PY'
import sys
path, n, c, f, h, k, s, p, g = sys.argv[1], *map(int, sys.argv[2:])
o = (h + 2 * p - k) // s + 1
T = lambda *d: "tensor<%sxbf16>" % "x".join(map(str, d))
open(path, "w").write("""func.func @main(%%x: %s) -> %s {
  %%w = neuron.constant dense<0.01> : %s
  %%y = neuron.conv %%x, %%w strides = [%d, %d] padding = [%d, %d, %d, %d] dilations = [1, 1] groups = %d : (%s, %s) -> %s
  return %%y : %s
}
""" % (T(n, c, h, h), T(n, f, o, o), T(f, c // g, k, k), s, s, p, p, p, p, g, T(n, c, h, h),
       T(f, c // g, k, k), T(n, f, o, o), T(n, f, o, o)))
PY
    if ! err=$("$BIN/neuronc" --no-cache --target="$TARGET" "$d/m.mlir" -o "$d/m.neff" 2>&1); then
      printf "%-26s %5s %s\n" "$name" "$n" "does not compile: $(echo "$err" | grep -m1 error: | sed 's/.*error: //' | cut -c1-80)"
      continue
    fi
    "$BIN/neuron-run" "$d/m.neff" --no-data --profile "$d/p" > /dev/null
    /usr/bin/python3 - "$name" "$n" "$d/p/summary.json" "$c" "$f" "$h" "$k" "$s" "$p" "$g" $HW <<'PY'
import json, sys
name, n = sys.argv[1], int(sys.argv[2])
s = json.load(open(sys.argv[3]))["summary"]
c, f, h, k, st, p, g = map(int, sys.argv[4:11])
o = (h + 2 * p - k) // st + 1
flops = 2 * n * f * o * o * (c // g) * k * k
depthwise = g == c and g > 1
# A depthwise layer's taps: on the vector engines one multiply-add per tap
# and output element over VectorE's lanes (bf16 rate; VectorE and GpSimdE
# share SBUF on trn1); on TensorE (bf16, docs/lowering.md) one column per
# cycle per tap and output pixel of each 128-plane tile. The faster bounds.
tensor_ghz, vector_ghz, bf16_per_cycle = map(float, sys.argv[11:14])
planes = n * f
vector = planes * o * o * k * k / (bf16_per_cycle * vector_ghz) * 1e-9
tensor = -(-planes // 128) * o * o * k * k / tensor_ghz * 1e-9
vector = min(vector, tensor) if depthwise else 0.0
compute = 0.0 if depthwise else flops / s["peak_flops"]
bytes_ = 2 * (n * c * h * h + f * (c // g) * k * k + n * f * o * o)
memory = bytes_ / s["dma_bandwidth_bytes_per_s"]
t = s["total_time"]
print("%-26s %5d %8.1f us %8.1f us %8.1f us %8.1f us %7.0f%% %7.0f%%" % (
    name, n, t * 1e6, compute * 1e6, vector * 1e6, memory * 1e6, 100 * compute / t,
    100 * max(compute, vector, memory) / t))
PY
  done
done <<'LAYERS'
stem-7x7/2-3-64@224 3 64 224 7 2 3 1
s1-1x1-64-64@56 64 64 56 1 1 0 1
s1-3x3-64-64@56 64 64 56 3 1 1 1
s1-1x1-64-256@56 64 256 56 1 1 0 1
s1-1x1-256-64@56 256 64 56 1 1 0 1
s2-3x3-128-128@28 128 128 28 3 1 1 1
s2-1x1-128-512@28 128 512 28 1 1 0 1
s2-1x1-512-128@28 512 128 28 1 1 0 1
s3-3x3-256-256@14 256 256 14 3 1 1 1
s3-1x1-256-1024@14 256 1024 14 1 1 0 1
s3-1x1-1024-256@14 1024 256 14 1 1 0 1
s4-3x3-512-512@7 512 512 7 3 1 1 1
s4-1x1-512-2048@7 512 2048 7 1 1 0 1
s4-1x1-2048-512@7 2048 512 7 1 1 0 1
mbv2-dw-32@112 32 32 112 3 1 1 32
mbv2-dw-96/2@112 96 96 112 3 2 1 96
mbv2-dw-144@56 144 144 56 3 1 1 144
mbv2-dw-192@28 192 192 28 3 1 1 192
mbv2-dw-384@14 384 384 14 3 1 1 384
mbv2-dw-576/2@14 576 576 14 3 2 1 576
mbv2-dw-960@7 960 960 7 3 1 1 960
LAYERS
