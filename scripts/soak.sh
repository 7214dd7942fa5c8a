#!/usr/bin/env bash
# The long differential soak (docs/testing.md#the-realistic-soak): builds, then
# runs neuronc-soak on N generated programs (default 10000) at -O0..-O3 on trn1
# and trn2, interpreter against the checked simulator. Extra arguments go to
# neuronc-soak (--seed S, --levels, --targets, --max-elements N, --seconds S).
# Usage: scripts/soak.sh [N] [neuronc-soak args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${NEURONC_BUILD_DIR:-build}
N=${1:-10000}
shift || true
scripts/build.sh > /dev/null
exec "$BUILD/bin/neuronc-soak" --programs "$N" "$@"
