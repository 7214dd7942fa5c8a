//===- compile_bench.cpp - Compile time versus graph size -----------------===//
//
// The whole compiler (import → legalize → fuse → lower → allocate →
// synchronize → race check → executable bytes) on 1, 2, 4, 8, 16 and 32
// stacked TOSA decoder layers (test/bench/Inputs/gen_decoder.py, written by
// scripts/bench.sh into $NEURONC_BENCH_INPUTS as decoder_<N>.mlir), side by
// side with parsing and printing the same text (what `mlir-opt in.mlir`
// costs) and with a compile-cache hit. Counters: executable bytes, and
// bytes per layer.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/CompileCache.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/ISA/Neff.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <benchmark/benchmark.h>

namespace {

/// The text of decoder_<layers>.mlir, or empty (the state is skipped).
std::string input(benchmark::State &state, int layers) {
  std::optional<std::string> dir = llvm::sys::Process::GetEnv("NEURONC_BENCH_INPUTS");
  if (!dir) {
    state.SkipWithError("set NEURONC_BENCH_INPUTS (scripts/bench.sh does)");
    return {};
  }
  llvm::SmallString<256> path(*dir);
  llvm::sys::path::append(path, "decoder_" + std::to_string(layers) + ".mlir");
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    std::string msg = ("cannot read " + path).str();
    state.SkipWithError(msg.c_str());
    return {};
  }
  return (*buf)->getBuffer().str();
}

mlir::DialectRegistry registry() {
  mlir::DialectRegistry r;
  neuronc::registerAllDialects(r);
  return r;
}

/// Compiles `text` to executable bytes; empty on failure.
std::vector<uint8_t> compile(const std::string &text) {
  mlir::MLIRContext context(registry());
  context.disableMultithreading(); // one core per compile: comparable across machines
  // Say why a compile failed (once).
  static bool reported = false;
  mlir::ScopedDiagnosticHandler handler(&context, [](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error && !reported) {
      reported = true;
      llvm::errs() << "compile_bench: " << d << "\n";
    }
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&context));
  if (!module) {
    llvm::errs() << "compile_bench: parse failed\n";
    return {};
  }
  neuronc::CompileOptions options;
  options.stage = neuronc::EmitStage::Neff;
  if (failed(neuronc::compileModule(*module, options))) {
    llvm::errs() << "compile_bench: compile failed\n";
    return {};
  }
  mlir::FailureOr<neuronc::neff::Executable> exe =
      neuronc::assemble(*module, neuronc::getVersionString());
  if (failed(exe))
    return {};
  return neuronc::neff::writeNeff(*exe);
}

void BM_CompileDecoder(benchmark::State &state) {
  int layers = static_cast<int>(state.range(0));
  std::string text = input(state, layers);
  if (text.empty())
    return;
  size_t bytes = 0;
  for (auto _ : state) {
    std::vector<uint8_t> neff = compile(text);
    if (neff.empty()) {
      state.SkipWithError("compilation failed");
      return;
    }
    bytes = neff.size();
    benchmark::DoNotOptimize(neff.data());
  }
  state.counters["layers"] = layers;
  state.counters["neff_bytes"] = static_cast<double>(bytes);
  state.counters["neff_bytes_per_layer"] = static_cast<double>(bytes) / layers;
}

/// What `mlir-opt in.mlir` does: parse, verify, print.
void BM_ParsePrint(benchmark::State &state) {
  std::string text = input(state, static_cast<int>(state.range(0)));
  if (text.empty())
    return;
  for (auto _ : state) {
    mlir::MLIRContext context(registry());
    context.disableMultithreading();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&context));
    std::string out;
    llvm::raw_string_ostream os(out);
    module->print(os);
    benchmark::DoNotOptimize(out.data());
  }
}

/// A compile-cache hit: the key of the text, then the entry read and
/// validated.
void BM_CacheHit(benchmark::State &state) {
  int layers = static_cast<int>(state.range(0));
  std::string text = input(state, layers);
  if (text.empty())
    return;
  llvm::SmallString<128> dir;
  llvm::sys::fs::createUniqueDirectory("neuronc-bench-cache", dir);
  neuronc::CompileCache cache{dir.str().str()};
  neuronc::CompileOptions options;
  std::string key = neuronc::CompileCache::key(text, options.fingerprint());
  llvm::Expected<neuronc::neff::Executable> exe = neuronc::neff::readNeff(compile(text));
  if (!exe) {
    llvm::consumeError(exe.takeError());
    state.SkipWithError("cannot compile");
    return;
  }
  if (llvm::Error err = cache.store(key, *exe)) {
    llvm::consumeError(std::move(err));
    state.SkipWithError("cannot fill the cache");
    return;
  }
  for (auto _ : state) {
    std::string k = neuronc::CompileCache::key(text, options.fingerprint());
    neuronc::CompileCache::Lookup hit = cache.lookup(k);
    if (!hit.bytes) {
      state.SkipWithError("no hit");
      break;
    }
    benchmark::DoNotOptimize(hit.bytes->data());
  }
  llvm::sys::fs::remove_directories(dir);
}

BENCHMARK(BM_CompileDecoder)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Arg(32)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParsePrint)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheHit)->Arg(32)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
