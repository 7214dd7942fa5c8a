#!/usr/bin/env bash
# Configures (once) and builds neuronc in ./build with Ninja: tools, unit
# tests and benchmarks. Usage: scripts/build.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${NEURONC_BUILD_DIR:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$BUILD"
