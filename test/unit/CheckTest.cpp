//===- CheckTest.cpp - The tolerance of checked runs ----------------------===//
//
// neuron-run --check compares the simulator's tensors with the
// interpreter's: |got - want| <= atol * max(1, max|want|) + rtol * |want|,
// NaN only with NaN, infinities exactly, bf16/f16 with rtol >= 2e-2.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Check/Check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace neuronc;
using namespace neuronc::check;

namespace {

Tensor vec(std::initializer_list<float> v, DType t = DType::F32) {
  Tensor x = Tensor::empty(t, {static_cast<int64_t>(v.size())});
  int64_t k = 0;
  for (float f : v)
    x.f()[k++] = f;
  return x;
}

} // namespace

TEST(CheckCompare, RelativeAndScaledAbsoluteTolerance) {
  Tolerance tol; // rtol 1e-3, atol 1e-5
  // 1000 +- 0.9 is within 1e-3 relative; +- 1.1 is not.
  EXPECT_TRUE(compare(vec({1000.9f, 0}), vec({1000, 0}), tol).ok());
  Difference d = compare(vec({0, 1001.2f}), vec({0, 1000}), tol);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.bad, 1);
  EXPECT_EQ(d.firstBad, 1);
  EXPECT_NEAR(d.maxAbs, 1.2, 1e-3);
  // A near-zero element next to a large one: atol scales with max|want|.
  EXPECT_TRUE(compare(vec({5e-3f, 1000}), vec({0, 1000}), tol).ok());
  EXPECT_FALSE(compare(vec({2e-2f, 1000}), vec({0, 1000}), tol).ok());
}

TEST(CheckCompare, NanAndInfinity) {
  float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
  Tolerance tol;
  EXPECT_TRUE(compare(vec({nan, inf, -inf}), vec({nan, inf, -inf}), tol).ok());
  EXPECT_EQ(compare(vec({0, inf, 1}), vec({nan, -inf, 1}), tol).bad, 2);
  // A NaN where a number was expected is wrong, whatever the tolerance.
  EXPECT_EQ(compare(vec({nan}), vec({1}), {1.0, 1.0}).bad, 1);
}

TEST(CheckCompare, LowPrecisionAndShapes) {
  Tolerance tol;
  // 1 % off: wrong in f32, within bf16's 2e-2.
  EXPECT_FALSE(compare(vec({1.01f}), vec({1}), tol).ok());
  EXPECT_TRUE(compare(vec({1.01f}, DType::BF16), vec({1}), tol).ok());
  EXPECT_FALSE(compare(vec({1.03f}, DType::BF16), vec({1}), tol).ok());
  Difference d = compare(vec({1, 2}), vec({1}), tol);
  EXPECT_TRUE(d.shapeMismatch);
  EXPECT_FALSE(d.ok());
}
