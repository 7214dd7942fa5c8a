#!/usr/bin/env bash
# The model corpus at every level (docs/testing.md#the-model-corpus): every
# function of every program in ../shared/models (or $NEURONC_MODELS), run by
# upstream mlir-opt + mlir-runner (the reference, and IREE's expected values
# where the file has them), by the interpreter, and compiled at -O0..-O3 for
# trn1 and trn2 and run on the simulator. Writes the table into
# docs/testing.md between its corpus markers and prints one line per function.
# Usage: scripts/corpus.sh [--filter SUBSTRING]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${NEURONC_BUILD_DIR:-build}
MODELS=${NEURONC_MODELS:-../shared/models}
scripts/build.sh > /dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 test/Conversion/Inputs/compare_models.py --neuron-run "$BUILD/bin/neuron-run" \
  --mlir-opt /usr/lib/llvm-22/bin/mlir-opt --mlir-runner /usr/lib/llvm-22/bin/mlir-runner \
  --runner-utils-dir /usr/lib/llvm-22/lib --workdir "$work" --models "$MODELS" \
  --levels 0,1,2,3 --targets trn1,trn2 --table "$work/table.md" "$@"
rc=$?
if [ -z "${1:-}" ]; then
  /usr/bin/python3 - "$work/table.md" docs/testing.md <<'PY'
import sys
table, doc = sys.argv[1], sys.argv[2]
begin, end = "<!-- corpus table: scripts/corpus.sh writes it -->", "<!-- end of the corpus table -->"
text = open(doc).read()
a, b = text.index(begin) + len(begin), text.index(end)
open(doc, "w").write(text[:a] + "\n" + open(table).read() + text[b:])
PY
fi
exit $rc
