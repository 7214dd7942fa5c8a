//===- BackendHarness.h - Compile and simulate in a unit test ---*- C++ -*-===//
//
// Parses a neuron program, optionally fuses it, runs the backend pipeline
// (lower, allocate, semaphores, race check), assembles it, writes the
// executable to bytes and reads it back, and simulates it: everything a
// test of the compiled path needs, with the failure reason when a step
// fails.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TEST_UNIT_BACKENDHARNESS_H
#define NEURONC_TEST_UNIT_BACKENDHARNESS_H

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Simulator/Simulator.h"
#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/ISA/Neff.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <string>

namespace neuronc::testing {

/// One MLIR context for a test, with every neuronc dialect.
class BackendHarness {
public:
  BackendHarness() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  mlir::MLIRContext context;

  /// The diagnostics printed while `f` runs, collected.
  template <typename F> auto capture(std::string &diags, F &&f) {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diags += d.str() + "\n";
      return mlir::success();
    });
    return f();
  }

  /// The interpreter's results for the first function of `text`.
  mlir::FailureOr<llvm::SmallVector<Tensor>> interpret(const std::string &text,
                                                       llvm::ArrayRef<Tensor> args,
                                                       std::string &why) {
    return capture(why, [&]() -> mlir::FailureOr<llvm::SmallVector<Tensor>> {
      auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
      if (!module)
        return mlir::failure();
      return neuronc::interpret(*module->getOps<mlir::func::FuncOp>().begin(), args);
    });
  }

  /// Compiles `text` (a module of neuron functions) to an executable,
  /// round-tripping it through the binary format.
  mlir::FailureOr<neff::Executable> compile(const std::string &text, bool fuse,
                                            llvm::StringRef target, std::string &why) {
    return capture(why, [&]() -> mlir::FailureOr<neff::Executable> {
      auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
      if (!module)
        return mlir::failure();
      if (fuse) {
        mlir::PassManager pm(&context);
        buildFusionPipeline(pm);
        if (mlir::failed(pm.run(*module)))
          return mlir::failure();
      }
      mlir::PassManager pm(&context);
      BackendOptions options;
      options.target = target.str();
      buildBackendPipeline(pm, options);
      if (mlir::failed(pm.run(*module)))
        return mlir::failure();
      auto exe = assemble(*module, "test");
      if (mlir::failed(exe))
        return mlir::failure();
      std::vector<uint8_t> bytes = neff::writeNeff(*exe);
      auto back = neff::readNeff(bytes);
      if (!back) {
        why += "the written executable does not read back: " + llvm::toString(back.takeError());
        return mlir::failure();
      }
      if (!(*back == *exe)) {
        why += "the executable read back differs from the one written";
        return mlir::failure();
      }
      return std::move(*back);
    });
  }
};

/// Assembles a nisa program written by hand (offsets and semaphores given);
/// a failure is a test failure with the diagnostics and the text.
inline neff::Executable assembleText(BackendHarness &h, const std::string &text) {
  std::string why;
  auto exe = h.capture(why, [&]() -> mlir::FailureOr<neff::Executable> {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &h.context);
    if (!module)
      return mlir::failure();
    return assemble(*module, "test");
  });
  EXPECT_TRUE(mlir::succeeded(exe)) << why << text;
  return mlir::succeeded(exe) ? std::move(*exe) : neff::Executable();
}

/// max |a - b| over every element, relative to max(1, max |a|).
inline double relativeError(const Tensor &a, const Tensor &b) {
  double scale = 1.0, err = 0.0;
  for (int64_t k = 0; k < a.numel(); ++k) {
    double x = a.get(k), y = b.get(k);
    if (std::isnan(x) && std::isnan(y))
      continue;
    if (std::isinf(x) && x == y)
      continue;
    scale = std::max(scale, std::abs(x));
    err = std::max(err, std::isnan(y) || std::isnan(x) ? INFINITY : std::abs(x - y));
  }
  return err / scale;
}

} // namespace neuronc::testing

#endif // NEURONC_TEST_UNIT_BACKENDHARNESS_H
