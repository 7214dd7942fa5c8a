//===- simulator_bench.cpp - The simulator's own speed --------------------===//
//
// Functional simulation of the compiled fused RMSNorm (4096x4096 f32) next
// to the reference interpreter on the same program (target: at most 3x its
// time), and timing-only simulation of large executables in instructions
// per second (target: at least 5 million). scripts/bench.sh prints the
// ratios.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Simulator/Simulator.h"
#include "neuronc/Conversion/NisaToNeff.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

using namespace neuronc;

namespace {

const char *kRmsNorm = R"mlir(
func.func @rms(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06
      : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
})mlir";

const char *kMatmul = R"mlir(
func.func @mm(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  %0 = neuron.matmul %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
})mlir";

/// A neuron program, parsed, and its executable for trn1.
struct Compiled {
  explicit Compiled(const char *ir) {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
    fn = *module->getOps<mlir::func::FuncOp>().begin();
    // Lower a copy: the interpreter runs the original.
    mlir::OwningOpRef<mlir::ModuleOp> lowered = module->clone();
    mlir::PassManager pm(&context);
    buildBackendPipeline(pm, BackendOptions{});
    if (mlir::failed(pm.run(*lowered))) {
      llvm::errs() << "simulator_bench: cannot lower the program\n";
      std::abort();
    }
    mlir::FailureOr<neff::Executable> built = assemble(*lowered, "bench");
    if (mlir::failed(built)) {
      llvm::errs() << "simulator_bench: cannot assemble the program\n";
      std::abort();
    }
    exe = std::move(*built);
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp fn;
  neff::Executable exe;
};

Compiled &rmsnorm() {
  static Compiled c(kRmsNorm);
  return c;
}
Compiled &matmul() {
  static Compiled c(kMatmul);
  return c;
}

void BM_RmsNormInterpreterSameProgram(benchmark::State &state) {
  Compiled &c = rmsnorm();
  Tensor x = randomTensor(DType::F32, {4096, 4096}, 1), w = randomTensor(DType::F32, {4096}, 2);
  for (auto _ : state) {
    auto out = interpret(c.fn, {x, w});
    benchmark::DoNotOptimize((*out)[0].f());
  }
}

void BM_RmsNormSimulated(benchmark::State &state) {
  Compiled &c = rmsnorm();
  Tensor x = randomTensor(DType::F32, {4096, 4096}, 1), w = randomTensor(DType::F32, {4096}, 2);
  int64_t instructions = c.exe.programs.front().instructionCount();
  sim::TimingCache cache;
  sim::Options options;
  options.cache = &cache;
  for (auto _ : state) {
    auto r = sim::run(c.exe, c.exe.programs.front(), {x, w}, options);
    if (!r)
      state.SkipWithError(llvm::toString(r.takeError()).c_str());
    else
      benchmark::DoNotOptimize(r->outputs[0].f());
  }
  state.counters["instructions"] = static_cast<double>(instructions);
}

/// Timing only: instructions simulated per second, with the program
/// prepared once (as the runtime does when it loads an executable).
void timingOnly(benchmark::State &state, Compiled &c) {
  sim::TimingCache cache;
  sim::Options options;
  options.data = false;
  options.cache = &cache;
  int64_t instructions = c.exe.programs.front().instructionCount();
  for (auto _ : state) {
    auto r = sim::run(c.exe, c.exe.programs.front(), {}, options);
    if (!r)
      state.SkipWithError(llvm::toString(r.takeError()).c_str());
    else
      benchmark::DoNotOptimize(r->deviceNs);
  }
  state.counters["instructions_per_second"] =
      benchmark::Counter(static_cast<double>(instructions) * state.iterations(),
                         benchmark::Counter::kIsRate);
  state.counters["instructions"] = static_cast<double>(instructions);
}

void BM_MatmulTimingOnly(benchmark::State &state) { timingOnly(state, matmul()); }
void BM_RmsNormTimingOnly(benchmark::State &state) { timingOnly(state, rmsnorm()); }

} // namespace

BENCHMARK(BM_RmsNormInterpreterSameProgram)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RmsNormSimulated)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatmulTimingOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RmsNormTimingOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
