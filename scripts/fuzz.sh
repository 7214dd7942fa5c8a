#!/usr/bin/env bash
# Fuzzes neuronc with libFuzzer (clang-22, AddressSanitizer and
# UndefinedBehaviorSanitizer). Targets (test/fuzz/, docs/testing.md#fuzzing):
#   neff_reader        the .neff reader on any bytes
#   neff_sealed        the .neff reader on bytes resealed (checksums made good)
#   npy_reader         the .npy reader
#   instruction_times  the profile reader of neuron-inspect --profile
#   compile            the whole compiler on generated TOSA/neuron graphs
#                      (needs all of the compiler built with the sanitizers)
# Seeds: executables the normal build compiles from the examples and tests,
# .npy files of every dtype written by numpy, and a real profile.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
#        (default targets: the four readers)
# NEURONC_FUZZ_RUNS=N stops each target after N inputs instead.
# Crashes, leaks, timeouts and sanitizer reports stop the run with a
# non-zero exit; the input that caused them is left in build-fuzz/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(neff_reader neff_sealed npy_reader instruction_times)
RUNS=${NEURONC_FUZZ_RUNS:--1}
FUZZ=${NEURONC_FUZZ_BUILD_DIR:-build-fuzz}
BUILD=${NEURONC_BUILD_DIR:-build}
command -v clang++-22 >/dev/null || { echo "fuzz.sh: needs clang-22 and libclang-rt-22-dev (apt-get install clang-22 libclang-rt-22-dev)" >&2; exit 1; }
[ -x "$BUILD/bin/neuronc" ] || scripts/build.sh
if [ ! -f "$FUZZ/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B "$FUZZ" -DNEURONC_FUZZ=ON >/dev/null
fi
# The build's output (clang's warnings on LLVM's headers) goes to a log.
if ! ninja -C "$FUZZ" "${TARGETS[@]/#/neuronc-fuzz-}" > "$FUZZ/fuzz-build.log" 2>&1; then
  tail -40 "$FUZZ/fuzz-build.log"; echo "fuzz.sh: the fuzz build failed (log: $FUZZ/fuzz-build.log)" >&2; exit 1
fi
echo "fuzz.sh: built ${TARGETS[*]} in $FUZZ (log: $FUZZ/fuzz-build.log)"

# Seed corpora.
corpus="$FUZZ/corpus"
mkdir -p "$corpus"/{neff_reader,neff_sealed,npy_reader,instruction_times,compile}
neff="$corpus/neff_reader"
"$BUILD/bin/neuronc" docs/examples/rmsnorm_naive.mlir --no-cache -O0 -o "$neff/naive.neff"
"$BUILD/bin/neuronc" docs/examples/rmsnorm_fused.mlir --no-cache -o "$neff/fused.neff"
"$BUILD/bin/neuronc" test/Pipelines/Inputs/bucketing/softmax.mlir --buckets=keys:4,8 --no-cache -o "$neff/buckets.neff"
"$BUILD/bin/neuronc" test/Pipelines/Inputs/bucketing/attention.mlir --buckets=seq:4 --no-cache --target=trn2 -o "$neff/attention.neff"
cp "$neff"/*.neff "$corpus/neff_sealed/"
# The profile reader fuzzes against the naive RMSNorm and its real profile.
"$BUILD/bin/neuron-run" "$neff/naive.neff" --no-data --profile "$FUZZ/profile" >/dev/null
cp "$FUZZ/profile/instructions.json" "$corpus/instruction_times/naive.json"
export NEURONC_FUZZ_NEFF="$(realpath "$neff/naive.neff")"
/usr/bin/python3 - "$corpus/npy_reader" <<'PY'
import sys, numpy as np
d = sys.argv[1]
for name, a in {"f32": np.arange(6, dtype=np.float32).reshape(2, 3),
                "f64": np.ones((3,), np.float64), "f16": np.zeros((2, 2), np.float16),
                "i32": np.arange(4, dtype=np.int32), "i64": np.arange(3, dtype=np.int64),
                "bool": np.array([True, False]), "scalar": np.float32(1.5),
                "fortran": np.asfortranarray(np.ones((2, 3), np.float32))}.items():
    np.save(f"{d}/{name}.npy", a)
PY
# The compile target's seeds are byte strings: any bytes are a program.
for i in 1 2 3 4; do head -c $((64 * i)) /dev/urandom > "$corpus/compile/random$i"; done

# allow_user_poisoning=0: Debian's libMLIR is not instrumented, and LLVM's
# allocator headers, compiled into our instrumented code by clang, poison
# slab space that libMLIR's own copy of the allocator then writes (a false
# use-after-poison). Heap, stack and global checks are unaffected.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$FUZZ/$t"
  echo "== $t: ${SECONDS_PER_TARGET} s =="
  rc=0
  ( cd "$FUZZ/$t" && "../bin/neuronc-fuzz-$t" \
      -max_total_time="$SECONDS_PER_TARGET" -runs="$RUNS" -max_len=65536 -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 "../corpus/$t" > ../$t.log 2>&1 ) || rc=$?
  grep -E "stat::number_of_executed_units|stat::peak_rss|Done|ERROR|SUMMARY|crash-|leak|compile_fuzz:" "$FUZZ/$t.log" || true
  # A finding is a non-zero exit or an artifact (one glob at a time: ls of
  # several patterns fails when any one of them matches nothing).
  found=$rc
  for kind in crash leak timeout oom; do
    compgen -G "$FUZZ/$t/$kind-*" > /dev/null && found=1
  done
  if [ "$found" -ne 0 ]; then
    echo "fuzz.sh: $t found a problem (exit $rc; see $FUZZ/$t.log and $FUZZ/$t/)"; status=1
  fi
done
exit $status
