//===- interpreter_bench.cpp - Interpreter vs plain C++ loops -------------===//
//
// The reference interpreter must stay fast enough to run whole decoder
// layers in tests. Each interpreter benchmark has a plain-loop twin that
// computes the same thing; scripts/bench.sh runs them side by side and prints
// the ratios (targets: within 2x for rmsnorm 4096x4096 and a 16M-element add).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

using namespace neuronc;

namespace {

constexpr int64_t kRows = 4096, kCols = 4096;
constexpr int64_t kAddElements = 16 * 1024 * 1024;

/// Parses one function and keeps the context alive for the benchmark.
struct Program {
  explicit Program(llvm::StringRef ir) {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
    fn = *module->getOps<mlir::func::FuncOp>().begin();
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp fn;
};

void BM_RmsNormInterpreter(benchmark::State &state) {
  Program p(R"mlir(
    func.func @rms(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>) -> tensor<4096x4096xf32> {
      %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06
          : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
      return %0 : tensor<4096x4096xf32>
    })mlir");
  Tensor x = randomTensor(DType::F32, {kRows, kCols}, 1);
  Tensor w = randomTensor(DType::F32, {kCols}, 2);
  for (auto _ : state) {
    auto out = interpret(p.fn, {x, w});
    benchmark::DoNotOptimize((*out)[0].f());
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}

/// The same computation as the interpreter's rmsnorm kernel, written inline.
void BM_RmsNormPlainLoop(benchmark::State &state) {
  Tensor x = randomTensor(DType::F32, {kRows, kCols}, 1);
  Tensor w = randomTensor(DType::F32, {kCols}, 2);
  std::vector<float> out(kRows * kCols);
  for (auto _ : state) {
    const float *px = x.f();
    const float *pw = w.f();
    float *o = out.data();
    for (int64_t r = 0; r < kRows; ++r, px += kCols, o += kCols) {
      double ss = 0;
      for (int64_t j = 0; j < kCols; ++j)
        ss += static_cast<double>(px[j]) * px[j];
      float scale = 1.0f / std::sqrt(static_cast<float>(ss / kCols) + 1e-6f);
      for (int64_t j = 0; j < kCols; ++j)
        o[j] = px[j] * scale * pw[j];
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}

void BM_AddInterpreter(benchmark::State &state) {
  Program p(R"mlir(
    func.func @add(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>) -> tensor<16777216xf32> {
      %0 = neuron.add %a, %b : tensor<16777216xf32>, tensor<16777216xf32> -> tensor<16777216xf32>
      return %0 : tensor<16777216xf32>
    })mlir");
  Tensor a = randomTensor(DType::F32, {kAddElements}, 3);
  Tensor b = randomTensor(DType::F32, {kAddElements}, 4);
  for (auto _ : state) {
    auto out = interpret(p.fn, {a, b});
    benchmark::DoNotOptimize((*out)[0].f());
  }
  state.SetBytesProcessed(state.iterations() * kAddElements * 12);
}

void BM_AddPlainLoop(benchmark::State &state) {
  Tensor a = randomTensor(DType::F32, {kAddElements}, 3);
  Tensor b = randomTensor(DType::F32, {kAddElements}, 4);
  std::vector<float> out(kAddElements);
  for (auto _ : state) {
    const float *pa = a.f(), *pb = b.f();
    float *o = out.data();
    for (int64_t k = 0; k < kAddElements; ++k)
      o[k] = pa[k] + pb[k];
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kAddElements * 12);
}

} // namespace

BENCHMARK(BM_RmsNormInterpreter)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RmsNormPlainLoop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AddInterpreter)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AddPlainLoop)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
