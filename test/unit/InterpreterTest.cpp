//===- InterpreterTest.cpp - Running neuron functions on host tensors -----===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace neuronc;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  func::FuncOp parse(StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module);
    return *module->getOps<func::FuncOp>().begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

constexpr const char *kNaiveRmsNorm = R"mlir(
  func.func @rms(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %sq = neuron.square %x : tensor<2x2xf32>
    %m = neuron.reduce_mean %sq axes = [1] keepdims : tensor<2x2xf32> -> tensor<2x1xf32>
    %r = neuron.rsqrt %m : tensor<2x1xf32>
    %y = neuron.mul %x, %r : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
    return %y : tensor<2x2xf32>
  })mlir";

} // namespace

TEST_F(InterpreterTest, NaiveRmsNormMatchesHandComputation) {
  func::FuncOp fn = parse(kNaiveRmsNorm);
  Tensor x = Tensor::empty(DType::F32, {2, 2});
  float values[] = {3, 4, 1, 1};
  std::copy(values, values + 4, x.f());
  ASSERT_FALSE(static_cast<bool>(checkArguments(fn, {x})));
  auto out = interpret(fn, {x});
  ASSERT_TRUE(succeeded(out));
  ASSERT_EQ(out->size(), 1u);
  const float *y = (*out)[0].f();
  EXPECT_NEAR(y[0], 3 / std::sqrt(12.5f), 1e-6);
  EXPECT_NEAR(y[1], 4 / std::sqrt(12.5f), 1e-6);
  EXPECT_NEAR(y[2], 1.0f, 1e-6);
  EXPECT_NEAR(y[3], 1.0f, 1e-6);
}

TEST_F(InterpreterTest, ArgumentErrorsNameTheArgument) {
  func::FuncOp fn = parse(kNaiveRmsNorm);
  Tensor wrongShape = Tensor::filled(DType::F32, {2, 3}, 1);
  EXPECT_EQ(llvm::toString(checkArguments(fn, {wrongShape})),
            "argument #0 of @rms expects tensor<2x2xf32> but the input is tensor<2x3xf32>");
  Tensor wrongType = Tensor::filled(DType::I32, {2, 2}, 1);
  EXPECT_EQ(llvm::toString(checkArguments(fn, {wrongType})),
            "argument #0 of @rms expects tensor<2x2xf32> but the input is tensor<2x2xi32>");
  EXPECT_EQ(llvm::toString(checkArguments(fn, {})),
            "@rms takes 1 argument(s) but 0 input(s) were given");
}

TEST_F(InterpreterTest, RunTimeErrorsPointAtTheOp) {
  func::FuncOp fn = parse(R"mlir(
    func.func @lookup(%t: tensor<4x2xf32>, %i: tensor<3xi32>) -> tensor<3x2xf32> {
      %0 = neuron.gather %t[%i] axis = 0 : tensor<4x2xf32>, tensor<3xi32> -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    })mlir");
  Tensor table = Tensor::filled(DType::F32, {4, 2}, 1);
  Tensor ids = Tensor::filled(DType::I32, {3}, 9);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(interpret(fn, {table, ids})));
  EXPECT_EQ(message, "gather: index 9 at position 0 is outside [0, 4)");
}

TEST_F(InterpreterTest, F64IsRefusedWithAHint) {
  func::FuncOp fn = parse(R"mlir(
    func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
      return %x : tensor<2xf64>
    })mlir");
  EXPECT_EQ(llvm::toString(checkArguments(fn, {Tensor::filled(DType::F32, {2}, 1)})),
            "argument #0: f64 is not executable: the device has no fp64; convert the program "
            "to f32 first");
}
