//===- NamedKernelsTest.cpp - The named kernels' one definition -----------===//
//
// neuron.rmsnorm, neuron.layernorm and neuron.softmax are defined once, as
// steps (NamedKernels.h); the row-kernel lowering builds its instructions
// from that definition. Here the `neuron-decompose-named-kernels` rewrite
// writes the steps out as neuron ops, and the interpreter runs both the
// named op (its own reference kernel) and the steps on random inputs at
// real model widths: they must agree.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir;
using namespace neuronc;

namespace {

class NamedKernels : public ::testing::Test {
protected:
  NamedKernels() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Interprets @f of `ir` before and after the rewrite on the same random
  /// f32 inputs and compares every output element.
  void expectSameValues(StringRef ir, double rtol) {
    OwningOpRef<ModuleOp> named = parseSourceString<ModuleOp>(ir, &context);
    ASSERT_TRUE(named);
    OwningOpRef<ModuleOp> steps = named->clone();
    PassManager pm(&context);
    pm.addNestedPass<func::FuncOp>(neuron::createNeuronDecomposeNamedKernelsPass());
    ASSERT_TRUE(succeeded(pm.run(*steps)));
    bool anyNamed = false;
    steps->walk([&](Operation *op) {
      anyNamed |= isa<neuron::RmsNormOp, neuron::LayerNormOp, neuron::SoftmaxOp>(op);
    });
    EXPECT_FALSE(anyNamed) << "a named op survived the rewrite";

    auto fnA = *named->getOps<func::FuncOp>().begin();
    auto fnB = *steps->getOps<func::FuncOp>().begin();
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.5f, 2.0f);
    SmallVector<Tensor> args;
    for (Type t : fnA.getArgumentTypes()) {
      auto rt = cast<RankedTensorType>(t);
      Tensor x = Tensor::empty(DType::F32, SmallVector<int64_t>(rt.getShape()));
      for (int64_t i = 0; i < x.numel(); ++i)
        x.f()[i] = dist(rng);
      args.push_back(std::move(x));
    }
    auto a = interpret(fnA, args);
    auto b = interpret(fnB, args);
    ASSERT_TRUE(succeeded(a) && succeeded(b));
    ASSERT_EQ(a->size(), b->size());
    for (size_t k = 0; k < a->size(); ++k) {
      const Tensor &ta = (*a)[k], &tb = (*b)[k];
      ASSERT_EQ(ta.numel(), tb.numel());
      double maxAbs = 0;
      for (int64_t i = 0; i < ta.numel(); ++i)
        maxAbs = std::max(maxAbs, std::fabs(double(ta.f()[i])));
      int bad = 0;
      for (int64_t i = 0; i < ta.numel() && bad < 5; ++i) {
        double x = ta.f()[i], y = tb.f()[i];
        if (std::fabs(x - y) > rtol * std::fabs(x) + 1e-6 * std::max(1.0, maxAbs)) {
          ADD_FAILURE() << "output " << k << " element " << i << ": named " << x << ", steps "
                        << y;
          ++bad;
        }
      }
    }
  }

  MLIRContext context;
};

TEST_F(NamedKernels, RmsNormWithWeightAtModelWidth) {
  expectSameValues(R"mlir(
    func.func @f(%x: tensor<4x1536xf32>, %w: tensor<1536xf32>) -> tensor<4x1536xf32> {
      %y = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06
          : (tensor<4x1536xf32>, tensor<1536xf32>) -> tensor<4x1536xf32>
      return %y : tensor<4x1536xf32>
    })mlir",
                   1e-5);
}

TEST_F(NamedKernels, RmsNormInBf16OverTwoAxes) {
  expectSameValues(R"mlir(
    func.func @f(%x: tensor<3x8x129xf32>) -> tensor<3x8x129xf32> {
      %b = neuron.cast %x : tensor<3x8x129xf32> -> tensor<3x8x129xbf16>
      %y = neuron.rmsnorm %b axes = [1, 2] epsilon = 1.0e-05
          : (tensor<3x8x129xbf16>) -> tensor<3x8x129xbf16>
      %r = neuron.cast %y : tensor<3x8x129xbf16> -> tensor<3x8x129xf32>
      return %r : tensor<3x8x129xf32>
    })mlir",
                   // One bf16 rounding step (2^-8) apart at most.
                   8e-3);
}

TEST_F(NamedKernels, RmsNormOverAUnitAxis) {
  expectSameValues(R"mlir(
    func.func @f(%x: tensor<5x1xf32>) -> tensor<5x1xf32> {
      %y = neuron.rmsnorm %x axes = [1] epsilon = 1.0e-06 : (tensor<5x1xf32>) -> tensor<5x1xf32>
      return %y : tensor<5x1xf32>
    })mlir",
                   1e-5);
}

TEST_F(NamedKernels, LayerNormWithWeightAndBias) {
  expectSameValues(R"mlir(
    func.func @f(%x: tensor<6x4096xf32>, %w: tensor<4096xf32>, %b: tensor<4096xf32>)
        -> tensor<6x4096xf32> {
      %y = neuron.layernorm %x weight %w bias %b axes = [1] epsilon = 1.0e-05
          : (tensor<6x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<6x4096xf32>
      return %y : tensor<6x4096xf32>
    })mlir",
                   1e-4);
}

TEST_F(NamedKernels, LayerNormBiasOnlyInBf16) {
  expectSameValues(R"mlir(
    func.func @f(%x: tensor<2x768xf32>, %b: tensor<768xf32>) -> tensor<2x768xf32> {
      %xb = neuron.cast %x : tensor<2x768xf32> -> tensor<2x768xbf16>
      %bb = neuron.cast %b : tensor<768xf32> -> tensor<768xbf16>
      %y = neuron.layernorm %xb bias %bb axes = [1] epsilon = 1.0e-05
          : (tensor<2x768xbf16>, tensor<768xbf16>) -> tensor<2x768xbf16>
      %r = neuron.cast %y : tensor<2x768xbf16> -> tensor<2x768xf32>
      return %r : tensor<2x768xf32>
    })mlir",
                   8e-3);
}

TEST_F(NamedKernels, SoftmaxAndLogSoftmaxAlongEitherAxis) {
  expectSameValues(R"mlir(
    func.func @f(%x: tensor<7x2048xf32>) -> (tensor<7x2048xf32>, tensor<7x2048xf32>) {
      %s = neuron.softmax %x axis = 1 : tensor<7x2048xf32>
      %l = neuron.softmax %x axis = 0 log : tensor<7x2048xf32>
      return %s, %l : tensor<7x2048xf32>, tensor<7x2048xf32>
    })mlir",
                   1e-5);
}

} // namespace
