//===- KernelsTest.cpp - Reference kernels pinned to hand-computed values -===//

#include "neuronc/Host/Kernels.h"
#include "neuronc/Support/Activations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using namespace neuronc;
using namespace neuronc::ref;

namespace {

Tensor floats(std::initializer_list<int64_t> shape, std::vector<float> values,
              DType dtype = DType::F32) {
  Tensor t = Tensor::empty(dtype, llvm::ArrayRef<int64_t>(shape.begin(), shape.size()));
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.f());
  t.roundToType();
  return t;
}

Tensor ints(std::initializer_list<int64_t> shape, std::vector<int32_t> values,
            DType dtype = DType::I32) {
  Tensor t = Tensor::empty(dtype, llvm::ArrayRef<int64_t>(shape.begin(), shape.size()));
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.i());
  return t;
}

Tensor iota(std::initializer_list<int64_t> shape) {
  Tensor t = Tensor::empty(DType::F32, llvm::ArrayRef<int64_t>(shape.begin(), shape.size()));
  std::iota(t.f(), t.f() + t.numel(), 0.0f);
  return t;
}

std::vector<float> valuesOf(const Tensor &t) { return {t.f(), t.f() + t.numel()}; }
std::vector<int32_t> intsOf(const Tensor &t) { return {t.i(), t.i() + t.numel()}; }

void expectNear(const Tensor &t, std::vector<float> want, float tol = 1e-5f) {
  ASSERT_EQ(static_cast<size_t>(t.numel()), want.size());
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_NEAR(t.f()[k], want[k], tol) << "element " << k;
}

/// Unwraps an Expected, failing the test with the error text.
Tensor ok(llvm::Expected<Tensor> t) {
  if (!t) {
    ADD_FAILURE() << llvm::toString(t.takeError());
    return Tensor::filled(DType::F32, {}, 0);
  }
  return std::move(*t);
}

std::string errorOf(llvm::Expected<Tensor> t) {
  if (t)
    return "(no error)";
  return llvm::toString(t.takeError());
}

} // namespace

TEST(Kernels, BinaryBroadcastsRowAndColumn) {
  Tensor a = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = floats({3}, {10, 20, 30});
  Tensor col = floats({2, 1}, {100, 200});
  EXPECT_EQ(valuesOf(ok(binary(BinaryKind::Add, a, row))),
            std::vector<float>({11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(valuesOf(ok(binary(BinaryKind::Sub, col, a))),
            std::vector<float>({99, 98, 97, 196, 195, 194}));
  Tensor outer = ok(binary(BinaryKind::Mul, col, row));
  EXPECT_EQ(outer.shape(), llvm::ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(valuesOf(outer), std::vector<float>({1000, 2000, 3000, 2000, 4000, 6000}));
  EXPECT_EQ(errorOf(binary(BinaryKind::Add, a, floats({2}, {1, 2}))),
            "binary op: shapes 2x3 and 2 do not broadcast");
}

TEST(Kernels, IntegerDivisionTruncatesAndRejectsZero) {
  Tensor a = ints({4}, {-7, 7, -8, 5});
  Tensor b = ints({4}, {2, -2, 3, 5});
  EXPECT_EQ(intsOf(ok(binary(BinaryKind::Div, a, b))), std::vector<int32_t>({-3, -3, -2, 1}));
  EXPECT_EQ(errorOf(binary(BinaryKind::Div, a, ints({1}, {0}))), "integer division by zero");
  EXPECT_EQ(intsOf(ok(binary(BinaryKind::Max, a, b))), std::vector<int32_t>({2, 7, 3, 5}));
}

TEST(Kernels, Bf16ResultsAreRounded) {
  Tensor one = floats({1}, {1.0f}, DType::BF16);
  Tensor tiny = floats({1}, {0x1.0p-8f}, DType::BF16);
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7 in bf16: ties to even gives 1.
  EXPECT_EQ(valuesOf(ok(binary(BinaryKind::Add, one, tiny))), std::vector<float>({1.0f}));
  Tensor f32sum = ok(binary(BinaryKind::Add, floats({1}, {1.0f}), floats({1}, {0x1.0p-8f})));
  EXPECT_EQ(valuesOf(f32sum), std::vector<float>({1.0f + 0x1.0p-8f}));
}

TEST(Kernels, CompareAndSelect) {
  Tensor a = floats({3}, {1, 2, 3});
  Tensor two = floats({1}, {2});
  Tensor lt = ok(compare(CompareKind::LT, a, two));
  EXPECT_EQ(lt.dtype(), DType::I1);
  EXPECT_EQ(intsOf(lt), std::vector<int32_t>({1, 0, 0}));
  EXPECT_EQ(intsOf(ok(compare(CompareKind::GE, a, two))), std::vector<int32_t>({0, 1, 1}));
  Tensor chosen = ok(select(lt, a, floats({1}, {-1})));
  EXPECT_EQ(valuesOf(chosen), std::vector<float>({1, -1, -1}));
}

TEST(Kernels, UnaryFunctions) {
  Tensor x = floats({3}, {-1.0f, 0.0f, 2.0f});
  expectNear(ok(unary(UnaryKind::Sigmoid, x)), {0.26894142f, 0.5f, 0.88079708f});
  expectNear(ok(unary(UnaryKind::Silu, x)), {-0.26894142f, 0.0f, 1.76159416f});
  expectNear(ok(unary(UnaryKind::GeluErf, x)), {-0.15865525f, 0.0f, 1.95449974f});
  expectNear(ok(unary(UnaryKind::GeluTanh, x)), {-0.15880801f, 0.0f, 1.95459769f});
  expectNear(ok(unary(UnaryKind::Relu, x)), {0.0f, 0.0f, 2.0f});
  expectNear(ok(unary(UnaryKind::Rsqrt, floats({2}, {4.0f, 0.25f}))), {0.5f, 2.0f});
  EXPECT_EQ(errorOf(unary(UnaryKind::Exp, ints({1}, {1}))),
            "this unary op is defined on floating-point tensors only");
}

TEST(Kernels, SinAndCosOfLargeArguments) {
  // RoPE's angles reach thousands of radians; f32 sin/cos of the f32 input.
  Tensor x = floats({5}, {0.0f, 1.57079637f, 1000.0f, 4095.0f, -10000.0f});
  expectNear(ok(unary(UnaryKind::Sin, x)),
             {0.0f, 1.0f, 0.82687954f, -0.99782121f, 0.30561439f}, 1e-7f);
  expectNear(ok(unary(UnaryKind::Cos, x)),
             {1.0f, -0.00000004f, 0.56237908f, -0.06597600f, -0.95215537f}, 1e-7f);
  EXPECT_EQ(errorOf(unary(UnaryKind::Sin, ints({1}, {1}))),
            "this unary op is defined on floating-point tensors only");
}

TEST(Kernels, AngleReductionKeepsSinAndCosAccurate) {
  // The device's reduction (neuronc::reduceAngle, what the lowering emits):
  // within pi + |x| 2^-23 of 0, and sin/cos of the reduced angle within
  // 1e-6 of the exact values of the f32 argument up to |x| = 10^4 (RoPE's
  // range), 1e-5 up to the 4 * 10^5 where k * 2pi_hi stays exact.
  for (double x = -4.0e5; x <= 4.0e5; x += 1.37) {
    float xf = static_cast<float>(x);
    float r = reduceAngle(xf);
    EXPECT_LE(std::fabs(r), M_PI + std::fabs(xf) * 0x1p-23 + 1e-6) << xf;
    double tol = std::fabs(xf) <= 1.0e4 ? 1e-6 : 1e-5;
    ASSERT_NEAR(std::sin(r), std::sin(static_cast<double>(xf)), tol) << xf;
    ASSERT_NEAR(std::cos(r), std::cos(static_cast<double>(xf)), tol) << xf;
  }
}

TEST(Kernels, ReduceOverNonTrailingAxes) {
  // x[i][j][k] = 12i + 4j + k; summing over i and k leaves 60 + 32j.
  Tensor x = iota({2, 3, 4});
  Tensor s = ok(reduce(ReduceKind::Sum, x, {0, 2}, false));
  EXPECT_EQ(s.shape(), llvm::ArrayRef<int64_t>({3}));
  EXPECT_EQ(valuesOf(s), std::vector<float>({60, 92, 124}));
  Tensor m = ok(reduce(ReduceKind::Max, x, {1}, true));
  EXPECT_EQ(m.shape(), llvm::ArrayRef<int64_t>({2, 1, 4}));
  EXPECT_EQ(valuesOf(m), std::vector<float>({8, 9, 10, 11, 20, 21, 22, 23}));
  EXPECT_EQ(valuesOf(ok(reduce(ReduceKind::Mean, x, {2}, false))),
            std::vector<float>({1.5, 5.5, 9.5, 13.5, 17.5, 21.5}));
}

TEST(Kernels, MatmulWithTransposesAndBatchBroadcast) {
  Tensor a = floats({2, 2}, {1, 2, 3, 4});
  Tensor b = floats({2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(valuesOf(ok(matmul(a, b, false, false))), std::vector<float>({19, 22, 43, 50}));
  EXPECT_EQ(valuesOf(ok(matmul(a, b, true, false))), std::vector<float>({26, 30, 38, 44}));
  EXPECT_EQ(valuesOf(ok(matmul(a, b, false, true))), std::vector<float>({17, 23, 39, 53}));
  // A batch of two lhs matrices shares the rank-2 rhs.
  Tensor batch = floats({2, 1, 2}, {1, 0, 0, 1});
  Tensor c = ok(matmul(batch, b, false, false));
  EXPECT_EQ(c.shape(), llvm::ArrayRef<int64_t>({2, 1, 2}));
  EXPECT_EQ(valuesOf(c), std::vector<float>({5, 6, 7, 8}));
}

TEST(Kernels, DataMovement) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(valuesOf(ok(transpose(x, {1, 0}))), std::vector<float>({0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(valuesOf(ok(slice(iota({10}), {1}, {3}, {3}))), std::vector<float>({1, 4, 7}));
  EXPECT_EQ(errorOf(slice(iota({10}), {5}, {3}, {3})), "slice: dim 0 reads outside [0, 10)");
  Tensor cat = ok(concat({x, floats({2, 1}, {-1, -2})}, 1));
  EXPECT_EQ(cat.shape(), llvm::ArrayRef<int64_t>({2, 4}));
  EXPECT_EQ(valuesOf(cat), std::vector<float>({0, 1, 2, -1, 3, 4, 5, -2}));
  EXPECT_EQ(valuesOf(ok(broadcastTo(floats({2, 1}, {7, 8}), {2, 2}))),
            std::vector<float>({7, 7, 8, 8}));
  EXPECT_EQ(errorOf(reshape(x, {4})), "reshape: cannot view 6 elements (2x3) as 4");
}

TEST(Kernels, GatherIsNumpyTake) {
  Tensor table = iota({4, 2});
  Tensor rows = ok(gather(table, ints({1, 3}, {3, 0, 3}), 0));
  EXPECT_EQ(rows.shape(), llvm::ArrayRef<int64_t>({1, 3, 2}));
  EXPECT_EQ(valuesOf(rows), std::vector<float>({6, 7, 0, 1, 6, 7}));
  Tensor cols = ok(gather(table, ints({1}, {1}), 1));
  EXPECT_EQ(valuesOf(cols), std::vector<float>({1, 3, 5, 7}));
  EXPECT_EQ(errorOf(gather(table, ints({1}, {4}), 0)),
            "gather: index 4 at position 0 is outside [0, 4)");
}

TEST(Kernels, CastTruncatesAndSaturates) {
  Tensor x = floats({5}, {-2.7f, 2.7f, 3e9f, -3e9f, NAN});
  EXPECT_EQ(intsOf(ok(cast(x, DType::I32))),
            std::vector<int32_t>({-2, 2, INT32_MAX, INT32_MIN, 0}));
  EXPECT_EQ(intsOf(ok(cast(floats({3}, {0, -0.5f, 2}), DType::I1))),
            std::vector<int32_t>({0, 1, 1}));
  EXPECT_EQ(valuesOf(ok(cast(floats({1}, {1.0f + 0x1.0p-8f}), DType::BF16))),
            std::vector<float>({1.0f}));
}

TEST(Kernels, NamedKernels) {
  // rms of [3, 4] is sqrt(12.5).
  Tensor x = floats({1, 2}, {3, 4});
  expectNear(ok(rmsnorm(x, nullptr, {1}, 0.0f)), {0.84852814f, 1.13137085f});
  Tensor w = floats({2}, {2, -1});
  expectNear(ok(rmsnorm(x, &w, {1}, 0.0f)), {1.69705627f, -1.13137085f});
  // Over axis 0 of a column: same numbers, laid out vertically.
  expectNear(ok(rmsnorm(floats({2, 1}, {3, 4}), nullptr, {0}, 0.0f)),
             {0.84852814f, 1.13137085f});
  expectNear(ok(layernorm(floats({4}, {1, 2, 3, 4}), nullptr, nullptr, {0}, 0.0f)),
             {-1.34164079f, -0.44721360f, 0.44721360f, 1.34164079f});
  Tensor p = floats({2}, {0.0f, std::log(3.0f)});
  expectNear(ok(softmax(p, 0, false)), {0.25f, 0.75f});
  expectNear(ok(softmax(p, 0, true)), {std::log(0.25f), std::log(0.75f)});
  // Softmax over the first axis of a 2x2 works column by column.
  expectNear(ok(softmax(floats({2, 2}, {0, 0, std::log(3.0f), 0}), 0, false)),
             {0.25f, 0.5f, 0.75f, 0.5f});
}

TEST(Kernels, ConvolutionByHand) {
  // x = 1..9 as one 3x3 plane, w = ones 2x2: window sums.
  Tensor x = floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = floats({1, 1, 2, 2}, {1, 1, 1, 1});
  expectNear(ok(ref::conv(x, w, nullptr, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, DType::F32)),
             {12, 16, 24, 28});
  // Padding 1 before only, stride 2: windows at (-1,-1), (-1,1), (1,-1), (1,1).
  Tensor b = floats({1}, {0.5f});
  expectNear(ok(ref::conv(x, w, &b, 1, {2, 2}, {1, 1, 0, 0}, {1, 1}, DType::F32)),
             {1.5f, 5.5f, 11.5f, 28.5f});
  // Dilation 2 over the corners; two groups of one channel each (depthwise).
  expectNear(ok(ref::conv(x, w, nullptr, 1, {1, 1}, {0, 0, 0, 0}, {2, 2}, DType::F32)), {20});
  Tensor x2 = floats({1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor w2 = floats({2, 1, 1, 1}, {10, 100});
  expectNear(ok(ref::conv(x2, w2, nullptr, 2, {1, 1}, {0, 0, 0, 0}, {1, 1}, DType::F32)),
             {10, 20, 300, 400});
}

TEST(Kernels, PoolingByHand) {
  Tensor x = floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // 3x3, stride 2, padding 1: windows centred on the corners.
  expectNear(ok(ref::pool(true, x, {3, 3}, {2, 2}, {1, 1, 1, 1}, false)), {5, 6, 8, 9});
  // Padding not counted: (1+2+4+5)/4; counted: /9.
  expectNear(ok(ref::pool(false, x, {3, 3}, {2, 2}, {1, 1, 1, 1}, false)), {3, 4, 6, 7});
  expectNear(ok(ref::pool(false, x, {3, 3}, {2, 2}, {1, 1, 1, 1}, true)),
             {12.0f / 9, 16.0f / 9, 24.0f / 9, 28.0f / 9});
  llvm::Expected<Tensor> tooBig = ref::pool(true, x, {4, 4}, {1, 1}, {0, 0, 0, 0}, false);
  ASSERT_FALSE(static_cast<bool>(tooBig));
  EXPECT_EQ(llvm::toString(tooBig.takeError()),
            "pool: spatial dim 0 of size 3 (padded by 0) is smaller than the window span 4");
}
