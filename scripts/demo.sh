#!/usr/bin/env bash
# The headline demo: installs what is missing, builds, then reproduces the
# RMSNorm study of the seed article on the simulated NeuronCore
# (docs/examples/rmsnorm/run.sh): naive ops at -O0, the built-in rmsnorm op,
# and the naive ops fused by the compiler, on identical inputs; a table of
# kernels, device time, HBM bytes and verdicts, the naive program's
# key-averages table, and where the HTML reports and Perfetto traces are.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${NEURONC_BUILD_DIR:-build}
scripts/install-deps.sh
scripts/build.sh
echo
docs/examples/rmsnorm/run.sh "$BUILD" "$BUILD/rmsnorm-study"
