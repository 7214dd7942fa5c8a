#!/usr/bin/env bash
# The calibration suite (test/calibration/, docs/simulator.md#simulated-vs-published):
# prints the simulated machine beside published Neuron figures, each as a
# table of ratios from one run:
#  1. the NKI matrix-multiplication tutorial's four kernels against their
#     published Trn1 latencies;
#  2. the ridge point of each target against the published 222 FLOP/B;
#  3. DMA throughput over run length and stride against the DMA bandwidth
#     guide's regimes, on both targets.
# Usage: scripts/calibrate.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/bin"
[ -x "$BIN/neuronc" ] || { echo "calibrate.sh: build first ($BIN/neuronc missing)" >&2; exit 1; }
echo "== 1. NKI matrix multiplication tutorial (trn1)"
/usr/bin/python3 "$SRC/test/calibration/nki_matmul.py" "$BIN"
echo
echo "== 2. ridge point (bf16 FLOP per HBM byte) against the published 222 for NeuronCore-v2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in trn1 trn2; do
  "$BIN/neuronc" --no-cache --target="$t" "$SRC/test/bench/Inputs/rmsnorm_4096.mlir" -o "$work/$t.neff"
  ridge=$("$BIN/neuron-inspect" "$work/$t.neff" | sed -n 's/.*ridge point \([0-9.]*\) FLOP\/B.*/\1/p' | head -1)
  echo "  $t: ridge point $ridge FLOP/B; published 222 for NeuronCore-v2 (ratio $(/usr/bin/python3 -c "print(round($ridge / 222, 2))")x): the model bounds one core by min(HBM share, DMA engines), see docs/hardware-model.md#memory-bandwidth-hbm-share-or-dma-engines"
done
echo
echo "== 3. DMA throughput over run length and stride"
for t in trn1 trn2; do
  /usr/bin/python3 "$SRC/test/calibration/dma_curve.py" "$BIN" --target "$t"
done
