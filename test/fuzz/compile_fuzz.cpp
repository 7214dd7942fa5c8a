//===- compile_fuzz.cpp - libFuzzer target: the compiler on generated graphs ===//
//
// The bytes choose a program, not its text: a random valid TOSA graph
// (ProgramGenerator.h: rank 0 to 6, size-1 dims, broadcast fan-out) or one
// of the neuron-dialect graphs of the fusion tests, then the optimization
// level and the target. The whole compiler runs on it: import, type
// legalization, fusion, lowering, allocation, synchronization, assembly.
// It may refuse a program, but only with an error diagnostic; a crash, a
// sanitizer report, a silent failure, or an executable its own reader
// refuses is a finding. NEURONC_FUZZ_PRINT=1 prints each program (to replay
// a finding: `neuronc-fuzz-compile crash-<hash>` with it set).
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"
#include "../unit/GraphGenerator.h"

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/ISA/Neff.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace {

/// One context for the whole run (loading the dialects costs more than a
/// small compile).
mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    neuronc::registerAllDialects(registry);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

[[noreturn]] void finding(const std::string &what, const std::string &program,
                          const std::string &diagnostics) {
  llvm::errs() << "compile_fuzz: " << what << "\n--- program ---\n"
               << program << "--- diagnostics ---\n"
               << diagnostics << "\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  neuronc::CompileOptions options;
  options.optLevel = fdp.ConsumeIntegralInRange<unsigned>(0, 3);
  options.backend.target = fdp.ConsumeBool() ? "trn2" : "trn1";
  std::string program;
  if (fdp.ConsumeIntegralInRange<int>(0, 3) == 0) {
    neuronc::testing::GraphGenerator gen(fdp.ConsumeIntegral<uint64_t>(),
                                         fdp.ConsumeBool() ? 3 : 1);
    program = gen.generate();
  } else {
    neuronc::fuzzing::ProgramGenerator gen(fdp);
    program = gen.generate();
  }
  static const bool print = std::getenv("NEURONC_FUZZ_PRINT") != nullptr;
  if (print)
    llvm::errs() << program << "\n";

  mlir::MLIRContext &ctx = context();
  std::string diagnostics;
  bool sawError = false;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    sawError |= d.getSeverity() == mlir::DiagnosticSeverity::Error;
    llvm::raw_string_ostream(diagnostics) << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(program, &ctx);
  if (!module)
    finding("the generator wrote an invalid program", program, diagnostics);
  if (mlir::failed(neuronc::compileModule(*module, options))) {
    if (print)
      llvm::errs() << "refused:\n" << diagnostics;
    if (!sawError)
      finding("the compiler failed without an error", program, diagnostics);
    return 0;
  }
  mlir::FailureOr<neuronc::neff::Executable> exe = neuronc::assemble(*module, "fuzz");
  if (mlir::failed(exe)) {
    if (!sawError)
      finding("assembly failed without an error", program, diagnostics);
    return 0;
  }
  llvm::Expected<neuronc::neff::Executable> back =
      neuronc::neff::readNeff(neuronc::neff::writeNeff(*exe));
  if (!back)
    finding("the reader refuses what the compiler wrote: " + llvm::toString(back.takeError()),
            program, diagnostics);
  return 0;
}
