#!/usr/bin/env bash
# The whole test suite from a fresh machine: installs what is missing,
# builds, runs the lit suite (IR, tools, numpy oracle) and the GoogleTest unit
# tests, and ends with one summary line: "neuronc: N passed, M failed, K skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${NEURONC_BUILD_DIR:-build}

scripts/install-deps.sh || exit 1
scripts/build.sh || { echo "neuronc: build failed"; exit 1; }

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "== lit =="
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" | tee "$log/lit.txt"
lit_rc=${PIPESTATUS[0]}

echo "== unit tests (ctest) =="
(cd "$BUILD" && ctest --output-on-failure) | tee "$log/ctest.txt"
ctest_rc=${PIPESTATUS[0]}

count() { # count <file> <lit label>
  grep -E "^\s+$2:" "$1" | awk '{print $2}' | head -1
}
lit_pass=$(count "$log/lit.txt" Passed); lit_pass=${lit_pass:-0}
lit_fail=0
for k in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  n=$(count "$log/lit.txt" "$k"); lit_fail=$((lit_fail + ${n:-0}))
done
lit_skip=0
for k in Unsupported Skipped "Expectedly Failed" Excluded; do
  n=$(count "$log/lit.txt" "$k"); lit_skip=$((lit_skip + ${n:-0}))
done
read -r ct_fail ct_total < <(sed -nE 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1 \2/p' "$log/ctest.txt")
ct_fail=${ct_fail:-0}; ct_total=${ct_total:-0}
ct_pass=$((ct_total - ct_fail))

if [ "$lit_rc" -ne 0 ] && [ "$lit_fail" -eq 0 ]; then lit_fail=1; fi
if [ "$ctest_rc" -ne 0 ] && [ "$ct_fail" -eq 0 ]; then ct_fail=1; fi

# The fuzz targets for a short fixed budget each (NEURONC_FUZZ_SECONDS,
# default 30; 0 skips them): the four readers under libFuzzer with
# ASan/UBSan (scripts/fuzz.sh), then the compiler on random generated
# programs through its standalone driver in the normal build (unguided and
# without sanitizers: the guided, sanitized run needs the whole compiler
# built with clang, `scripts/fuzz.sh 600 compile`).
fz_pass=0; fz_fail=0
FUZZ_SECONDS=${NEURONC_FUZZ_SECONDS:-30}
if [ "$FUZZ_SECONDS" -gt 0 ]; then
  echo "== fuzzing (${FUZZ_SECONDS} s per target) =="
  if scripts/fuzz.sh "$FUZZ_SECONDS"; then fz_pass=$((fz_pass + 4)); else fz_fail=$((fz_fail + 1)); fi
  seed=${NEURONC_FUZZ_SEED:-$(date +%s)}
  echo "== compile: ${FUZZ_SECONDS} s of random programs, seed $seed =="
  if "$BUILD/bin/neuronc-fuzz-compile-standalone" --seconds="$FUZZ_SECONDS" --seed="$seed" --max-len=8192; then
    fz_pass=$((fz_pass + 1))
  else
    echo "fuzz: the compile target failed; replay with --seed=$seed"; fz_fail=$((fz_fail + 1))
  fi
fi

# A bounded run of the realistic differential soak (NEURONC_SOAK_PROGRAMS,
# default 400; 0 skips it): generated programs at real model dims and the
# lowering's thresholds, -O0..-O3 on trn1 and trn2, interpreter against the
# checked simulator. scripts/soak.sh runs the long one.
sk_pass=0; sk_fail=0
SOAK_PROGRAMS=${NEURONC_SOAK_PROGRAMS:-400}
if [ "$SOAK_PROGRAMS" -gt 0 ]; then
  soak_seed=${NEURONC_SOAK_SEED:-$(date +%s)}
  echo "== soak: $SOAK_PROGRAMS realistic programs, seed $soak_seed =="
  if "$BUILD/bin/neuronc-soak" --programs "$SOAK_PROGRAMS" --seed "$soak_seed"; then
    sk_pass=1
  else
    echo "soak: failures above; replay with $BUILD/bin/neuronc-soak --programs $SOAK_PROGRAMS --seed $soak_seed"
    sk_fail=1
  fi
fi

echo "lit: $lit_pass passed, $lit_fail failed, $lit_skip skipped; unit: $ct_pass passed, $ct_fail failed; fuzz: $fz_pass passed, $fz_fail failed; soak: $sk_pass passed, $sk_fail failed"
echo "neuronc: $((lit_pass + ct_pass + fz_pass + sk_pass)) passed, $((lit_fail + ct_fail + fz_fail + sk_fail)) failed, $lit_skip skipped"
[ "$lit_fail" -eq 0 ] && [ "$ct_fail" -eq 0 ] && [ "$fz_fail" -eq 0 ] && [ "$sk_fail" -eq 0 ]
