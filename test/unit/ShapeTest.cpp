//===- ShapeTest.cpp - Shape rules shared by verifiers and kernels -------===//

#include "neuronc/Support/Float.h"
#include "neuronc/Support/Shape.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace neuronc;

TEST(Shape, BroadcastAlignsTrailingDims) {
  Shape out;
  ASSERT_TRUE(broadcastShapes({4, 1, 8}, {3, 1}, out));
  EXPECT_EQ(out, Shape({4, 3, 8}));
  ASSERT_TRUE(broadcastShapes({}, {2, 5}, out));
  EXPECT_EQ(out, Shape({2, 5}));
  EXPECT_FALSE(broadcastShapes({4, 8}, {3, 8}, out));
}

TEST(Shape, BroadcastWithDynamicDims) {
  Shape out;
  ASSERT_TRUE(broadcastShapes({kDynamic, 8}, {4, 1}, out));
  EXPECT_EQ(out, Shape({4, 8}));
  ASSERT_TRUE(broadcastShapes({kDynamic, 8}, {1, 8}, out));
  EXPECT_EQ(out, Shape({kDynamic, 8}));
}

TEST(Shape, AxesAreCheckedForRangeAndDuplicates) {
  EXPECT_EQ(checkAxes({0, 2}, 3), "");
  EXPECT_EQ(checkAxes({3}, 3), "axis 3 is out of range for rank 3");
  EXPECT_EQ(checkAxes({1, 1}, 3), "axis 1 is listed twice");
  EXPECT_EQ(reducedShape({2, 3, 4}, {1}, false), Shape({2, 4}));
  EXPECT_EQ(reducedShape({2, 3, 4}, {0, 2}, true), Shape({1, 3, 1}));
}

TEST(Shape, MatmulShapes) {
  Shape out;
  EXPECT_EQ(matmulShape({2, 4, 8}, {8, 16}, false, false, out), "");
  EXPECT_EQ(out, Shape({2, 4, 16}));
  EXPECT_EQ(matmulShape({8, 4}, {16, 8}, true, true, out), "");
  EXPECT_EQ(out, Shape({4, 16}));
  EXPECT_EQ(matmulShape({4, 8}, {7, 16}, false, false, out),
            "contraction sizes differ: lhs has K=8 but rhs has K=7");
  EXPECT_EQ(matmulShape({2, 4, 8}, {3, 8, 16}, false, false, out),
            "batch dimensions 2 and 3 do not broadcast");
}

TEST(Shape, ConvolutionShapes) {
  Shape out;
  // ResNet's stem: 224 + 3 + 3 - 7 = 223, / 2 + 1 = 112.
  EXPECT_EQ(convShape({8, 3, 224, 224}, {64, 3, 7, 7}, 1, {2, 2}, {3, 3, 3, 3}, {1, 1}, out), "");
  EXPECT_EQ(out, Shape({8, 64, 112, 112}));
  // Asymmetric pads, dilation 2 (span 5), 1-D, depthwise.
  EXPECT_EQ(convShape({1, 4, 9}, {4, 1, 3}, 4, {1}, {0, 2}, {2}, out), "");
  EXPECT_EQ(out, Shape({1, 4, 7}));
  // A dynamic batch and spatial dim stay dynamic.
  EXPECT_EQ(convShape({kDynamic, 2, kDynamic, 5}, {6, 2, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}, {1, 1},
                      out),
            "");
  EXPECT_EQ(out, Shape({kDynamic, 6, kDynamic, 5}));
  EXPECT_EQ(convShape({1, 6, 8, 8}, {4, 4, 3, 3}, 2, {1, 1}, {0, 0, 0, 0}, {1, 1}, out),
            "input channels 6 are not weight dim 1 (4) x groups (2)");
  EXPECT_EQ(convShape({1, 4, 8, 8}, {6, 1, 3, 3}, 4, {1, 1}, {0, 0, 0, 0}, {1, 1}, out),
            "output channels 6 are not a multiple of groups 4");
  EXPECT_EQ(convShape({1, 1, 2, 2}, {1, 1, 3, 3}, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, out),
            "spatial dim 0 of size 2 (padded by 0) is smaller than the window span 3");
  EXPECT_EQ(convShape({1, 1, 4, 4}, {1, 1, 3, 3}, 1, {1, 1}, {0, 0}, {1, 1}, out),
            "a window over 2 spatial dim(s) needs 2 strides and dilations and 4 pads (got 2, 2 "
            "and 2)");
}

TEST(Shape, PoolingShapes) {
  Shape out;
  EXPECT_EQ(poolShape({1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, out), "");
  EXPECT_EQ(out, Shape({1, 64, 56, 56}));
  EXPECT_EQ(poolShape({1, 64, 8, 8}, {2, 2}, {2, 2}, {2, 0, 0, 0}, out),
            "spatial dim 0: pads must be smaller than the window (2)");
  EXPECT_EQ(poolShape({1, 64, 8}, {2, 2}, {2, 2}, {0, 0, 0, 0}, out),
            "an input of rank 3 needs 1 window sizes, got 2");
}

TEST(Shape, Format) {
  EXPECT_EQ(formatShape({4, kDynamic, 8}), "4x?x8");
  EXPECT_EQ(formatShape({}), "scalar");
}

TEST(Float, BF16RoundsToNearestEven) {
  // 1 + 2^-8 is exactly halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(roundToBF16(1.0f + 0x1.0p-8f), 1.0f);
  // 1 + 3*2^-8 is halfway between 1+2^-7 and 1+2^-6: ties to even (1+2^-6).
  EXPECT_EQ(roundToBF16(1.0f + 3 * 0x1.0p-8f), 1.0f + 0x1.0p-6f);
  EXPECT_EQ(roundToBF16(1.0f + 0x1.8p-8f), 1.0f + 0x1.0p-7f); // above half: up
  EXPECT_TRUE(std::isnan(roundToBF16(NAN)));
  EXPECT_EQ(floatToBF16Bits(1.0f), 0x3f80);
}

TEST(Float, F16RoundsToNearestEvenAndOverflowsToInf) {
  EXPECT_EQ(roundToF16(1.0f + 0x1.0p-11f), 1.0f);
  EXPECT_EQ(roundToF16(1.0f + 3 * 0x1.0p-11f), 1.0f + 0x1.0p-9f);
  EXPECT_EQ(roundToF16(65520.0f), INFINITY);
  EXPECT_EQ(floatToF16Bits(1.0f), 0x3c00);
  EXPECT_EQ(f16BitsToFloat(0x0001), 0x1.0p-24f); // smallest subnormal
}
