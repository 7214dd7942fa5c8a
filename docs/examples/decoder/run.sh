#!/usr/bin/env bash
# A decoder layer with a dynamic sequence length: compiled once into one
# executable with buckets (128 ... 1024), then run and profiled at two real
# sequence lengths. Each run picks its bucket, pads, masks and slices; the
# profile says which bucket ran and how much of its work was padding.
#
# usage: docs/examples/decoder/run.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
BIN="${1:-$root/build}/bin"
OUT="${2:-$root/build/decoder-study}"
mkdir -p "$OUT"

echo "== neuronc decoder.mlir --buckets=seq:auto:128:1024 --bucket-report=- =="
"$BIN/neuronc" "$here/decoder.mlir" --buckets=seq:auto:128:1024 -o "$OUT/decoder.neff" \
    --bucket-report=- 2>&1
echo
"$BIN/neuron-inspect" "$OUT/decoder.neff" | sed -n '/^entry points/,/^$/p'
for seq in 100 700; do
  echo "== seq = $seq =="
  "$BIN/neuron-run" "$OUT/decoder.neff" --random-inputs --seed 1 --sizes=seq=$seq \
      --warmup 1 --iterations 3 --profile "$OUT/seq$seq" > "$OUT/seq$seq.txt"
  grep -E "^@decoder: (bucket|1 output)" "$OUT/seq$seq.txt"
  sed -n '1,9p' "$OUT/seq$seq/key_averages.txt"
  echo
done
echo "Profiles: $OUT/seq100/ and $OUT/seq700/ (report.html, trace.json)"
