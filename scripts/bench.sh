#!/usr/bin/env bash
# Runs the benchmarks side by side and prints ratios measured in one run:
#  - interpreter / plain C++ loop (targets <= 2.0);
#  - fusion of a 32-layer decoder relative to parsing it (target: well under a second);
#  - the simulator: functional simulation of the compiled fused RMSNorm 4096x4096 relative to the
#    interpreter on the same program (target <= 3.0), timing-only instructions per second
#    (target >= 5 million);
#  - the generated code on the simulated trn1: fused RMSNorm 4096x4096 f32 against the core's
#    modeled peak memory bandwidth (target >= 85 %), naive (-O0) / fused device time (target
#    >= 3x, with `mul` the largest share of the naive one), 4096^3 bf16 matmul MFU (>= 80 %);
#  - compile time of 1..32 stacked TOSA decoder layers (32 layers <= 4.6x 8 layers, 32 layers
#    under 10 s and 1 GiB), against parsing and printing the same text (in process and with
#    mlir-opt), executable bytes per layer, and a compile-cache hit (< 5 % of a cold compile);
#    a transposed LM head at vocab 32768 (< 2 s) and 151936 (< 10 s);
#  - the Llama-7B layer against its bound (scripts/llama-bench.sh), attention alone fused and
#    unfused (scripts/attention-bench.sh), ResNet-50/MobileNetV2 convolution layers against their
#    bounds (scripts/conv-bench.sh) and the calibration suite (scripts/calibrate.sh);
#  - the model zoo's geometric mean of device time / true bound per family, f32 and bf16
#    (scripts/zoo.py; BENCH_ZOO_TAGS= for the whole zoo instead of the small models).
# Usage: scripts/bench.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
for b in interpreter fusion simulator compile; do
  [ -x "$BUILD/test/bench/neuronc-bench-$b" ] || { echo "bench.sh: build first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Stacked decoder layers for the compile benchmarks.
export NEURONC_BENCH_INPUTS="$work/decoders"
mkdir -p "$NEURONC_BENCH_INPUTS"
for n in 1 2 4 8 16 32; do
  /usr/bin/python3 "$SRC/test/bench/Inputs/gen_decoder.py" $n > "$NEURONC_BENCH_INPUTS/decoder_$n.mlir"
done
for b in interpreter fusion simulator compile; do
  reps=5; [ $b = compile ] && reps=3
  "$BUILD/test/bench/neuronc-bench-$b" --benchmark_repetitions=$reps \
      --benchmark_report_aggregates_only=true --benchmark_format=json > "$work/$b.json"
done

# The generated code, simulated (deterministic: one run each).
NEURONC="$BUILD/bin/neuronc"; RUN="$BUILD/bin/neuron-run"
"$NEURONC" "$SRC/test/bench/Inputs/rmsnorm_4096.mlir" -o "$work/fused.neff"
"$NEURONC" "$SRC/test/bench/Inputs/rmsnorm_4096.mlir" -O0 -o "$work/naive.neff"
"$NEURONC" "$SRC/test/bench/Inputs/matmul_4096_bf16.mlir" -o "$work/matmul.neff"
for p in fused naive matmul; do
  "$RUN" "$work/$p.neff" --no-data --profile "$work/$p" > /dev/null
done

/usr/bin/python3 - "$work" "$BUILD" <<'PY'
import json, os, resource, subprocess, sys, time
work, build = sys.argv[1], sys.argv[2]
rows = {}
for b in ("interpreter", "fusion", "simulator", "compile"):
    for r in json.load(open(os.path.join(work, b + ".json")))["benchmarks"]:
        if r.get("aggregate_name") == "median":
            rows[r["run_name"].replace("/real_time", "")] = r

def ok(good):
    return "ok" if good else "OVER TARGET"

print("Interpreter")
for name in ("RmsNorm", "Add"):
    interp = rows[f"BM_{name}Interpreter"]["real_time"]
    plain = rows[f"BM_{name}PlainLoop"]["real_time"]
    print(f"  {name:8s} interpreter {interp:8.2f} ms  plain loop {plain:8.2f} ms  "
          f"ratio {interp / plain:5.2f}x  (target <= 2.0x: {ok(interp / plain <= 2.0)})")
fuse, parse = rows["BM_FuseDecoder32"]["real_time"], rows["BM_ParseDecoder32"]["real_time"]
print(f"  Fusion of a 32-layer decoder {fuse:8.2f} ms  parse {parse:8.2f} ms  "
      f"ratio {fuse / parse:5.2f}x parse  (target well under 1 s: {ok(fuse < 1000)})")

print("Simulator")
sim = rows["BM_RmsNormSimulated"]["real_time"]
interp = rows["BM_RmsNormInterpreterSameProgram"]["real_time"]
print(f"  RMSNorm 4096x4096 functional {sim:8.2f} ms  interpreter {interp:8.2f} ms  "
      f"ratio {sim / interp:5.2f}x  (target <= 3.0x: {ok(sim / interp <= 3.0)})")
for name in ("Matmul", "RmsNorm"):
    r = rows[f"BM_{name}TimingOnly"]
    ips = r["instructions_per_second"]
    print(f"  {name:8s} timing only {r['real_time']:8.3f} ms for {int(r['instructions'])} "
          f"instructions: {ips / 1e6:5.2f} M instructions/s"
          + (f"  (target >= 5 M/s: {ok(ips >= 5e6)})" if name == "Matmul" else ""))

print("Generated code on trn1 (simulated)")
def summary(p):
    return json.load(open(os.path.join(work, p, "summary.json")))
fused, naive, mm = summary("fused"), summary("naive"), summary("matmul")
mbu = fused["summary"]["mbu_estimated_percent"]
bw = fused["summary"]["hbm_bandwidth_bytes_per_s"] / 1e9
t_f = fused["summary"]["total_time"] * 1e6
print(f"  Fused RMSNorm 4096x4096 f32: {t_f:8.1f} us, {mbu:5.1f} % of the modeled peak "
      f"{bw:.0f} GB/s  (target >= 85 %: {ok(mbu >= 85)})")
t_n = naive["summary"]["total_time"] * 1e6
top = naive["ops"][0]
print(f"  Naive (-O0) RMSNorm: {t_n:8.1f} us = {t_n / t_f:5.2f}x the fused one  "
      f"(target >= 3x: {ok(t_n / t_f >= 3)}); largest share: {top['name']} "
      f"{top['device_time_percent']:.1f} %")
mfu = mm["summary"]["mfu_estimated_percent"]
print(f"  4096^3 bf16 matmul: {mm['summary']['total_time'] * 1e6:8.1f} us, MFU {mfu:5.1f} %  "
      f"(target >= 80 %: {ok(mfu >= 80)})")

print("Compiler (in process, one thread, median of 3)")
comp = {n: rows[f"BM_CompileDecoder/{n}"] for n in (1, 2, 4, 8, 16, 32)}
for n, r in comp.items():
    print(f"  {n:2d} layer(s): {r['real_time']:8.1f} ms, executable {r['neff_bytes'] / 1024:7.0f} KiB"
          f" = {r['neff_bytes_per_layer'] / 1024:5.1f} KiB per layer")
t8, t32 = comp[8]["real_time"], comp[32]["real_time"]
pp8, pp32 = rows["BM_ParsePrint/8"]["real_time"], rows["BM_ParsePrint/32"]["real_time"]
hit = rows["BM_CacheHit/32"]["real_time"]
print(f"  32 layers / 8 layers: {t32 / t8:4.2f}x  (target <= 4.6x: {ok(t32 / t8 <= 4.6)})")
print(f"  32 layers: {t32 / 1000:5.2f} s (target < 10 s: {ok(t32 < 10000)}); "
      f"{t32 / pp32:5.1f}x parsing and printing the same text ({pp32:.1f} ms)")
print(f"  cache hit, 32 layers: {hit:6.2f} ms = {100 * hit / t32:4.1f} % of the cold compile "
      f"(target < 5 %: {ok(hit < 0.05 * t32)})")

print("Compiler (processes: neuronc vs mlir-opt, best of 3)")
decoders = os.environ["NEURONC_BENCH_INPUTS"]
def best(args, n=3):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ts.append(time.perf_counter() - t)
    return min(ts)
neuronc = os.path.join(build, "bin", "neuronc")
mlir_opt = "/usr/lib/llvm-22/bin/mlir-opt"
d32 = os.path.join(decoders, "decoder_32.mlir")
cold = best([neuronc, d32, "--no-cache", "-o", os.path.join(work, "d32.neff")])
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
opt = best([mlir_opt, d32, "-o", os.devnull]) if os.path.exists(mlir_opt) else float("nan")
cache = os.path.join(work, "cache")
subprocess.run([neuronc, d32, "--cache-dir", cache, "-o", os.path.join(work, "c.neff")], check=True)
warm = best([neuronc, d32, "--cache-dir", cache, "-o", os.path.join(work, "c.neff")])
start = best([neuronc, "--version"])
print(f"  neuronc 32 layers: {cold:5.2f} s cold, peak memory {rss:6.0f} MiB (target < 1024 MiB: "
      f"{ok(rss < 1024)}); mlir-opt parse+print {opt:5.3f} s: ratio {cold / opt:5.1f}x")
print(f"  cache hit: {warm:5.3f} s = {100 * warm / cold:4.1f} % of cold, of which "
      f"{start:5.3f} s is starting the process (neuronc --version)")
# A transposed LM head, 1024 tokens x hidden 1536 x vocab V (the weight
# [V, 1536] transposed before the matmul, as exporters write it).
lm = {}
for v, target in ((8192, None), (32768, 2.0), (151936, 10.0)):
    src = os.path.join(work, f"lm{v}.mlir")
    with open(src, "w") as f:
        f.write(f"""func.func @lm(%x: tensor<1x1024x1536xf32>, %w: tensor<{v}x1536xf32>) -> tensor<1x1024x{v}xf32> {{
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %wt = tosa.transpose %w {{perms = array<i32: 1, 0>}} : (tensor<{v}x1536xf32>) -> tensor<1536x{v}xf32>
  %s = tosa.const_shape {{values = dense<[1, 1536, {v}]> : tensor<3xindex>}} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %wt, %s : (tensor<1536x{v}xf32>, !tosa.shape<3>) -> tensor<1x1536x{v}xf32>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x1024x1536xf32>, tensor<1x1536x{v}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1024x{v}xf32>
  return %y : tensor<1x1024x{v}xf32>
}}
""")
    lm[v] = best([neuronc, src, "--no-cache", "-o", os.path.join(work, "lm.neff")], n=1)
    print(f"  transposed LM head, V = {v:6d}: {lm[v]:5.2f} s"
          + (f"  (target < {target:.0f} s: {ok(lm[v] < target)})" if target else ""))
print(f"  LM head V = 32768 / V = 8192: {lm[32768] / lm[8192]:4.2f}x for 4x the work")
PY
# A Llama-7B-shaped layer against its bound (prefill and decode), and every
# model of ../shared/models that holds a matmul against its bound.
echo
bash "$SRC/scripts/llama-bench.sh" "$BUILD"
echo
bash "$SRC/scripts/attention-bench.sh" "$BUILD"
echo
bash "$SRC/scripts/conv-bench.sh" "$BUILD"
echo
bash "$SRC/scripts/models-bound.sh" "$BUILD"
# The calibration suite keeps the simulated machine beside published figures.
echo
bash "$SRC/scripts/calibrate.sh" "$BUILD"
# The model zoo as the performance suite: the geometric mean of device time /
# true bound per family, f32 and bf16 (--auto-cast=matmult), trn1 -O2. By
# default the models tagged `small` (every family has one; exports are cached
# in BUILD/zoo); BENCH_ZOO_TAGS= (empty) runs the whole zoo (about 40 minutes
# with its exports cached).
echo
echo "Model zoo (scripts/zoo.py --tags ${BENCH_ZOO_TAGS-small}), geometric mean per family"
zoo_args=(--dtypes f32,bf16 --targets trn1 -O 2 --jobs 2 --bin "$BUILD/bin" --out "$BUILD/zoo")
[ -n "${BENCH_ZOO_TAGS-small}" ] && zoo_args+=(--tags "${BENCH_ZOO_TAGS-small}")
zoo_status=0
/usr/bin/python3 "$SRC/scripts/zoo.py" "${zoo_args[@]}" > "$work/zoo.log" 2>&1 || zoo_status=$?
sed -n '/^zoo: [0-9]* model/,$p' "$work/zoo.log"
[ "$zoo_status" = 0 ] || echo "bench.sh: the zoo run had failures (exit $zoo_status); its log: scripts/zoo.py ${zoo_args[*]}"
