// The driver: every --emit stage, numbered phase dumps, stdin/stdout, the
// version, MLIR's own flags, -O levels, the compile cache, determinism
// across runs and thread counts, and the pipeline as one neuron-opt flag.

// RUN: neuronc %s --emit=neuron | FileCheck %s --check-prefix=IMPORTED
// IMPORTED: neuron.constant dense<9.9999999999999995E-7> : tensor<1x1xf64>
// RUN: neuronc %s --emit=legalized 2>&1 | FileCheck %s --check-prefix=LEGALIZED
// LEGALIZED: warning: 1 value of type f64 was converted to f32
// LEGALIZED-NOT: f64
// RUN: neuronc %s --emit=bucketed --buckets=seq:8,16 | FileCheck %s --check-prefix=BUCKETED
// BUCKETED: neuron.dispatch
// BUCKETED: func.func @rmsnorm.seq_8(
// RUN: neuronc %s --emit=fused --buckets=seq:8,16 | FileCheck %s --check-prefix=FUSED
// FUSED: func.func @rmsnorm.seq_8(
// FUSED: neuron.rmsnorm
// RUN: neuronc %s --emit=lowered --buckets=seq:8 | FileCheck %s --check-prefix=LOWERED
// LOWERED: nisa.program @rmsnorm.seq_8
// LOWERED-NOT: nisa.semaphore
// RUN: neuronc %s --emit=nisa --buckets=seq:8 | FileCheck %s --check-prefix=NISA
// The dispatcher is an engine-level entry: no graph op is left.
// NISA-NOT: func.func
// NISA: nisa.entry @rmsnorm buckets [@rmsnorm.seq_8] {bucket_sizes = [array<i64: 8>]
// NISA-SAME: symbols = ["seq"]
// NISA-NOT: func.func
// NISA: nisa.program @rmsnorm.seq_8
// NISA: wait(
// NISA-NOT: func.func

// -O1 recognizes the named kernel; -O0 keeps every op; -O3 is -O2.
// RUN: neuronc %s --emit=fused -O3 --buckets=seq:8 | FileCheck %s --check-prefix=O1
// RUN: neuronc %s --emit=legalized --auto-cast=all | FileCheck %s --check-prefix=AUTOCAST
// AUTOCAST: neuron.cast %arg0 : tensor<?x64xf32> -> tensor<?x64xbf16>
// RUN: neuronc %s --emit=fused -O1 --buckets=seq:8 | FileCheck %s --check-prefix=O1
// O1: neuron.rmsnorm
// RUN: neuronc %s --emit=fused -O0 --buckets=seq:8 | FileCheck %s --check-prefix=O0
// O0-NOT: neuron.rmsnorm
// O0: neuron.rsqrt

// Phase dumps, numbered in pipeline order.
// RUN: rm -rf %t && mkdir -p %t
// RUN: neuronc %s --buckets=seq:8 --dump-phases-to=%t/phases --no-cache -o %t/a.neff
// RUN: ls %t/phases | FileCheck %s --check-prefix=PHASES
// PHASES: driver.1.imported.mlir
// PHASES-NEXT: driver.2.legalized.mlir
// PHASES-NEXT: driver.3.bucketed.mlir
// PHASES-NEXT: driver.4.fused.mlir
// PHASES-NEXT: driver.5.lowered.mlir
// PHASES-NEXT: driver.6.nisa.mlir
// RUN: FileCheck %s --check-prefix=PHASE4 < %t/phases/driver.4.fused.mlir
// PHASE4: neuron.rmsnorm

// stdin to stdout, also an executable.
// RUN: cat %s | neuronc - --buckets=seq:8 --emit=neff --no-cache -o - > %t/stdout.neff
// RUN: neuron-inspect %t/stdout.neff | FileCheck %s --check-prefix=STDOUT
// STDOUT: @rmsnorm: 1 bucket(s) over seq

// The version says the compiler, the executable format and the targets.
// RUN: neuronc --version | FileCheck %s --check-prefix=VERSION
// VERSION: neuronc {{[0-9]+\.[0-9]+\.[0-9]+}}
// VERSION-NEXT: executable format 1.2, targets trn1, trn2

// MLIR's flags: timing per stage, IR after every pass, crash reproducers.
// RUN: neuronc %s --buckets=seq:8 --emit=nisa --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: imported
// TIMING: bucketed
// TIMING: NeuronBucketShapesPass
// TIMING: fused
// TIMING: NeuronLowerPass
// RUN: neuronc %s --buckets=seq:8 --emit=fused --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// AFTER: IR Dump After NeuronConvertTosaPass
// AFTER: IR Dump After NeuronBucketShapesPass
// AFTER: IR Dump After NeuronFuseRmsNormPass
// RUN: neuronc %s --buckets=seq:8 --emit=nisa --mlir-pass-pipeline-crash-reproducer=%t/repro.mlir -o /dev/null
// RUN: not ls %t/repro.mlir

// Deterministic: the same executable twice and without threads.
// RUN: neuronc %s --buckets=seq:auto:1:64 --no-cache -o %t/t1.neff
// RUN: neuronc %s --buckets=seq:auto:1:64 --no-cache -o %t/t2.neff
// RUN: neuronc %s --buckets=seq:auto:1:64 --no-cache --mlir-disable-threading -o %t/t3.neff
// RUN: cmp %t/t1.neff %t/t2.neff
// RUN: cmp %t/t1.neff %t/t3.neff

// The compile cache: a miss compiles and stores, a hit skips and says so,
// other options are another key, a corrupted entry is discarded and
// rebuilt, --no-cache neither reads nor writes.
// RUN: neuronc %s --buckets=seq:8 --cache-dir=%t/cache -o %t/c1.neff 2>&1 | FileCheck %s --check-prefix=MISS
// MISS-NOT: cache
// RUN: neuronc %s --buckets=seq:8 --cache-dir=%t/cache -o %t/c2.neff 2>&1 | FileCheck %s --check-prefix=HIT
// HIT: neuronc: cache hit {{[0-9a-f]+}} in {{.*}}cache{{/|\\}}{{[0-9a-f]+}}.neff: compilation skipped
// RUN: cmp %t/c1.neff %t/c2.neff
// RUN: neuronc %s --buckets=seq:16 --cache-dir=%t/cache -o %t/c3.neff 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: ls %t/cache | count 2
// RUN: %python -c "import glob; [open(f, 'r+b').write(b'XX') for f in glob.glob('%t/cache/*.neff')]"
// RUN: neuronc %s --buckets=seq:8 --cache-dir=%t/cache -o %t/c4.neff 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: neuronc: warning: discarded a corrupted cache entry ({{.*}}bad magic{{.*}}); compiling again
// CORRUPT-NOT: cache hit
// RUN: cmp %t/c1.neff %t/c4.neff
// RUN: neuronc %s --buckets=seq:8 --cache-dir=%t/cache -o %t/c5.neff 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: env XDG_CACHE_HOME=%t/nocache neuronc %s --buckets=seq:8 --no-cache -o %t/c6.neff
// RUN: not ls %t/nocache
// The default cache directory is $XDG_CACHE_HOME/neuronc.
// RUN: env XDG_CACHE_HOME=%t/xdg neuronc %s --buckets=seq:8 -o %t/c8.neff
// RUN: ls %t/xdg/neuronc | count 1
// RUN: not neuronc %s --no-cache --cache-dir=%t/cache -o %t/c7.neff 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: neuronc: error: --no-cache and --cache-dir contradict each other; give one

// The whole compiler as one pass pipeline.
// RUN: neuron-opt %s --neuron-pipeline="stage=fused buckets=seq:8" | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: func.func @rmsnorm.seq_8(
// PIPELINE: neuron.rmsnorm
// RUN: neuron-opt %s --neuron-pipeline="stage=nisa buckets=seq:8 target=trn2" | FileCheck %s --check-prefix=PIPELINE-NISA
// PIPELINE-NISA: nisa.program @rmsnorm.seq_8 target "trn2"

func.func @rmsnorm(%x: tensor<?x64xf32> {neuron.dim_names = ["seq", ""]}, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %sq = tosa.mul %x, %x, %shift : (tensor<?x64xf32>, tensor<?x64xf32>, tensor<1xi8>) -> tensor<?x64xf32>
  %s = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %inv = "tosa.const"() {values = dense<0.015625> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %m = tosa.mul %s, %inv, %shift : (tensor<?x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<?x1xf32>
  %eps64 = "tosa.const"() {values = dense<1.0e-06> : tensor<1x1xf64>} : () -> tensor<1x1xf64>
  %eps = tosa.cast %eps64 : (tensor<1x1xf64>) -> tensor<1x1xf32>
  %a = tosa.add %m, %eps : (tensor<?x1xf32>, tensor<1x1xf32>) -> tensor<?x1xf32>
  %r = tosa.rsqrt %a : (tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<?x64xf32>, tensor<?x1xf32>, tensor<1xi8>) -> tensor<?x64xf32>
  %shape = tosa.const_shape {values = dense<[1, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %w2 = tosa.reshape %w, %shape : (tensor<64xf32>, !tosa.shape<2>) -> tensor<1x64xf32>
  %o = tosa.mul %y, %w2, %shift : (tensor<?x64xf32>, tensor<1x64xf32>, tensor<1xi8>) -> tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}
