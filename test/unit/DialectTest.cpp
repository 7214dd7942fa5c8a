//===- DialectTest.cpp - Costs the neuron ops state for themselves --------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::neuron;

namespace {

class CostTest : public ::testing::Test {
protected:
  CostTest() {
    DialectRegistry registry;
    neuronc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `body` as a function and returns the cost of its first op.
  std::optional<OpCost> costOfFirstOp(StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << "IR does not parse";
    if (!module)
      return std::nullopt;
    auto fn = *module->getOps<func::FuncOp>().begin();
    auto op = dyn_cast<CostOpInterface>(&fn.getBody().front().front());
    EXPECT_TRUE(op) << "first op does not implement CostOpInterface";
    return op ? op.getCost() : std::nullopt;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

} // namespace

TEST_F(CostTest, MatmulCountsTwoFlopsPerMultiplyAdd) {
  auto c = costOfFirstOp(R"mlir(
    func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
      %0 = neuron.matmul %a, %b : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
      return %0 : tensor<2x4x16xf32>
    })mlir");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->flops, 2 * 2 * 4 * 16 * 8);
  EXPECT_EQ(c->bytesRead, (2 * 4 * 8 + 8 * 16) * 4);
  EXPECT_EQ(c->bytesWritten, 2 * 4 * 16 * 4);
}

TEST_F(CostTest, ElementwiseCountsTranscendentalsAndBf16Bytes) {
  auto c = costOfFirstOp(R"mlir(
    func.func @f(%a: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
      %0 = neuron.exp %a : tensor<4x8xbf16>
      return %0 : tensor<4x8xbf16>
    })mlir");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->flops, 0);
  EXPECT_EQ(c->transcendentals, 32);
  EXPECT_EQ(c->bytesRead, 64);
  EXPECT_EQ(c->bytesWritten, 64);
}

TEST_F(CostTest, RmsNormIsOneKernel) {
  auto c = costOfFirstOp(R"mlir(
    func.func @f(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
      %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06 : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
      return %0 : tensor<4x64xf32>
    })mlir");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->flops, 4 * 256);
  EXPECT_EQ(c->transcendentals, 4); // one rsqrt per row
  EXPECT_EQ(c->bytesRead, (256 + 64) * 4);
  EXPECT_EQ(c->bytesWritten, 256 * 4);
  EXPECT_DOUBLE_EQ(c->intensity(), 1024.0 / 2304.0);
}

TEST_F(CostTest, ReshapeMovesNothingAndDynamicShapesAreUnknown) {
  auto r = costOfFirstOp(R"mlir(
    func.func @f(%x: tensor<4x64xf32>) -> tensor<256xf32> {
      %0 = neuron.reshape %x : tensor<4x64xf32> -> tensor<256xf32>
      return %0 : tensor<256xf32>
    })mlir");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes(), 0);
  auto d = costOfFirstOp(R"mlir(
    func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
      %0 = neuron.relu %x : tensor<?x64xf32>
      return %0 : tensor<?x64xf32>
    })mlir");
  EXPECT_FALSE(d.has_value());
}
