//===- FusionDifferentialTest.cpp - Fusion never changes results ----------===//
//
// Seeded random graphs in the shapes the fusion passes look for (RMSNorm,
// softmax, log-softmax, SiLU, GELU, in their many spellings, some with a
// detail that must block fusion) plus random elementwise chains. Each graph
// runs through the interpreter before and after the fusion pipeline; the
// outputs must agree. NEURONC_FUSION_GRAPHS sets the count (default 500);
// a failure prints the seed and the program so it can be replayed.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Transforms/FusionReport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

#include "GraphGenerator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

using namespace neuronc;

namespace {

using neuronc::testing::GraphGenerator;

class FusionDifferential : public ::testing::Test {
protected:
  FusionDifferential() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  mlir::MLIRContext context;
};

/// Runs `fn` on seeded inputs.
llvm::SmallVector<Tensor> run(mlir::func::FuncOp fn, uint64_t seed) {
  llvm::SmallVector<Tensor> args;
  for (auto [i, t] : llvm::enumerate(fn.getFunctionType().getInputs()))
    args.push_back(randomTensor(DType::F32, llvm::cast<mlir::RankedTensorType>(t).getShape(),
                                seed * 31 + i));
  auto out = interpret(fn, args);
  return succeeded(out) ? *out : llvm::SmallVector<Tensor>{};
}

} // namespace

TEST_F(FusionDifferential, RandomGraphsKeepTheirResults) {
  int graphs = 500;
  if (const char *env = std::getenv("NEURONC_FUSION_GRAPHS"))
    graphs = std::atoi(env);
  std::map<std::string, int> fusedByKind, seenByKind;
  for (int seed = 1; seed <= graphs; ++seed) {
    GraphGenerator gen(seed);
    std::string text = gen.generate();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    ASSERT_TRUE(module) << "seed " << seed << " generated invalid IR:\n" << text;
    auto fn = *module->getOps<mlir::func::FuncOp>().begin();
    llvm::SmallVector<Tensor> before = run(fn, seed);
    ASSERT_FALSE(before.empty()) << "seed " << seed;

    mlir::PassManager pm(&context);
    buildFusionPipeline(pm);
    ASSERT_TRUE(succeeded(pm.run(*module))) << "seed " << seed;
    ++seenByKind[gen.kind];
    for (const FusionDecision &d : collectFusionDecisions(*module))
      if (d.fused)
        ++fusedByKind[gen.kind];
    fn = *module->getOps<mlir::func::FuncOp>().begin();
    llvm::SmallVector<Tensor> after = run(fn, seed);
    ASSERT_EQ(before.size(), after.size()) << "seed " << seed;
    for (size_t r = 0; r < before.size(); ++r) {
      ASSERT_EQ(before[r].shape(), after[r].shape()) << "seed " << seed;
      double scale = 1.0, err = 0.0;
      for (int64_t k = 0; k < before[r].numel(); ++k) {
        scale = std::max(scale, std::abs(before[r].f()[k]) * 1.0);
        err = std::max(err, std::abs(double(before[r].f()[k]) - after[r].f()[k]));
      }
      ASSERT_LE(err, 2e-5 * scale) << "seed " << seed << " (" << gen.kind
                                   << ") changed result " << r << ":\n"
                                   << text;
    }
  }
  // The generator mostly writes fusible graphs: most of them must fuse.
  for (const char *kind : {"rmsnorm", "softmax", "silu", "gelu", "gelu-tanh", "layernorm"})
    EXPECT_GE(fusedByKind[kind] * 10, seenByKind[kind] * 6)
        << kind << ": " << fusedByKind[kind] << " of " << seenByKind[kind] << " fused";
  // (Random elementwise chains may legitimately contain an x * sigmoid(x).)
}
