#!/bin/bash
# Compiles every .mlir under test/ and the shared model corpus at -O0..-O3
# for trn1 and trn2 and prints one line per executable: its SHA-256, or
# "error" when the compile fails. Two runs (before and after a refactoring)
# compared with `diff` show whether every executable stayed byte-identical.
#
#   scripts/neff-hashes.sh [NEURONC] > before.txt
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
neuronc=${1:-$root/build/bin/neuronc}
models=$(realpath "${NEURONC_MODELS:-$root/../shared/models}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find "$root/test" "$models" -name '*.mlir' 2>/dev/null | sort | while read -r f; do
  rel=${f#"$root/"}
  for t in trn1 trn2; do
    for o in 0 1 2 3; do
      if "$neuronc" --no-cache --drop-host-calls -O "$o" --target="$t" "$f" \
          -o "$tmp/out.neff" >/dev/null 2>&1; then
        h=$(sha256sum "$tmp/out.neff" | cut -c1-16)
      else
        h=error
      fi
      echo "$rel -O$o $t $h"
      rm -f "$tmp/out.neff"
    done
  done
done
