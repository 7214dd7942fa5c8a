//===- fusion_bench.cpp - Fusion time on a 32-layer decoder ---------------===//
//
// A decoder layer as exporters write it (naive RMSNorm, QKV projections,
// softmax attention, SwiGLU FFN, residual adds) repeated 32 times. Measures
// parsing the text and running the fusion pipeline on it, side by side;
// scripts/bench.sh prints fusion time relative to parse time.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

#include <benchmark/benchmark.h>

namespace {

constexpr int kLayers = 32;

/// One decoder layer on a [T, D] activation: the body text, with values
/// numbered from `n`, reading %h<layer> and defining %h<layer + 1>.
std::string layer(int l) {
  const char *tmpl = R"(
  %sq{0} = neuron.mul %h{0}, %h{0} : tensor<64x512xf32>, tensor<64x512xf32> -> tensor<64x512xf32>
  %ss{0} = neuron.reduce_sum %sq{0} axes = [1] keepdims : tensor<64x512xf32> -> tensor<64x1xf32>
  %ms{0} = neuron.mul %ss{0}, %inv : tensor<64x1xf32>, tensor<f32> -> tensor<64x1xf32>
  %ve{0} = neuron.add %ms{0}, %eps : tensor<64x1xf32>, tensor<f32> -> tensor<64x1xf32>
  %rs{0} = neuron.rsqrt %ve{0} : tensor<64x1xf32>
  %nx{0} = neuron.mul %h{0}, %rs{0} : tensor<64x512xf32>, tensor<64x1xf32> -> tensor<64x512xf32>
  %n{0} = neuron.mul %nx{0}, %g : tensor<64x512xf32>, tensor<512xf32> -> tensor<64x512xf32>
  %q{0} = neuron.matmul %n{0}, %wq : tensor<64x512xf32>, tensor<512x512xf32> -> tensor<64x512xf32>
  %k{0} = neuron.matmul %n{0}, %wk : tensor<64x512xf32>, tensor<512x512xf32> -> tensor<64x512xf32>
  %v{0} = neuron.matmul %n{0}, %wv : tensor<64x512xf32>, tensor<512x512xf32> -> tensor<64x512xf32>
  %s{0} = neuron.matmul %q{0}, %k{0} transpose_rhs : tensor<64x512xf32>, tensor<64x512xf32> -> tensor<64x64xf32>
  %sc{0} = neuron.mul %s{0}, %scale : tensor<64x64xf32>, tensor<f32> -> tensor<64x64xf32>
  %mx{0} = neuron.reduce_max %sc{0} axes = [1] keepdims : tensor<64x64xf32> -> tensor<64x1xf32>
  %d{0} = neuron.sub %sc{0}, %mx{0} : tensor<64x64xf32>, tensor<64x1xf32> -> tensor<64x64xf32>
  %e{0} = neuron.exp %d{0} : tensor<64x64xf32>
  %se{0} = neuron.reduce_sum %e{0} axes = [1] keepdims : tensor<64x64xf32> -> tensor<64x1xf32>
  %rc{0} = neuron.reciprocal %se{0} : tensor<64x1xf32>
  %p{0} = neuron.mul %e{0}, %rc{0} : tensor<64x64xf32>, tensor<64x1xf32> -> tensor<64x64xf32>
  %a{0} = neuron.matmul %p{0}, %v{0} : tensor<64x64xf32>, tensor<64x512xf32> -> tensor<64x512xf32>
  %o{0} = neuron.matmul %a{0}, %wo : tensor<64x512xf32>, tensor<512x512xf32> -> tensor<64x512xf32>
  %r{0} = neuron.add %h{0}, %o{0} : tensor<64x512xf32>, tensor<64x512xf32> -> tensor<64x512xf32>
  %gt{0} = neuron.matmul %r{0}, %wg : tensor<64x512xf32>, tensor<512x1024xf32> -> tensor<64x1024xf32>
  %sg{0} = neuron.sigmoid %gt{0} : tensor<64x1024xf32>
  %sl{0} = neuron.mul %gt{0}, %sg{0} : tensor<64x1024xf32>, tensor<64x1024xf32> -> tensor<64x1024xf32>
  %up{0} = neuron.matmul %r{0}, %wu : tensor<64x512xf32>, tensor<512x1024xf32> -> tensor<64x1024xf32>
  %gu{0} = neuron.mul %sl{0}, %up{0} : tensor<64x1024xf32>, tensor<64x1024xf32> -> tensor<64x1024xf32>
  %dn{0} = neuron.matmul %gu{0}, %wd : tensor<64x1024xf32>, tensor<1024x512xf32> -> tensor<64x512xf32>
  %h{1} = neuron.add %r{0}, %dn{0} : tensor<64x512xf32>, tensor<64x512xf32> -> tensor<64x512xf32>
)";
  return llvm::formatv(tmpl, l, l + 1).str();
}

std::string decoder() {
  std::string s =
      "func.func @decoder(%h0: tensor<64x512xf32>, %g: tensor<512xf32>, %wq: tensor<512x512xf32>, "
      "%wk: tensor<512x512xf32>, %wv: tensor<512x512xf32>, %wo: tensor<512x512xf32>, "
      "%wg: tensor<512x1024xf32>, %wu: tensor<512x1024xf32>, %wd: tensor<1024x512xf32>) -> "
      "tensor<64x512xf32> {\n"
      "  %inv = neuron.constant dense<0.001953125> : tensor<f32>\n"
      "  %eps = neuron.constant dense<1.0e-06> : tensor<f32>\n"
      "  %scale = neuron.constant dense<0.0441941738> : tensor<f32>\n";
  for (int l = 0; l < kLayers; ++l)
    s += layer(l);
  s += "  return %h" + std::to_string(kLayers) + " : tensor<64x512xf32>\n}\n";
  return s;
}

struct Context {
  Context() {
    mlir::DialectRegistry registry;
    neuronc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.disableMultithreading();
  }
  mlir::MLIRContext context;
};

void BM_ParseDecoder32(benchmark::State &state) {
  Context c;
  std::string text = decoder();
  for (auto _ : state) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &c.context);
    benchmark::DoNotOptimize(module.get());
  }
}

void BM_FuseDecoder32(benchmark::State &state) {
  Context c;
  std::string text = decoder();
  int64_t kernels = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &c.context);
    mlir::PassManager pm(&c.context);
    neuronc::buildFusionPipeline(pm);
    state.ResumeTiming();
    if (failed(pm.run(*module)))
      state.SkipWithError("fusion failed");
    state.PauseTiming();
    kernels = 0;
    module->walk([&](mlir::Operation *op) {
      kernels += op->getName().getStringRef() == "neuron.kernel" ||
                 op->getName().getStringRef() == "neuron.rmsnorm" ||
                 op->getName().getStringRef() == "neuron.softmax";
    });
    module = nullptr;
    state.ResumeTiming();
  }
  state.counters["kernels"] = static_cast<double>(kernels);
}

} // namespace

BENCHMARK(BM_ParseDecoder32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FuseDecoder32)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
