//===- HardwareModelTest.cpp - The target table and its roofline ----------===//

#include "neuronc/ISA/HardwareModel.h"

#include <gtest/gtest.h>

using namespace neuronc;

TEST(HardwareModel, ProfilesMatchTheReferenceNumbers) {
  const HardwareModel *trn1 = lookupHardwareModel("trn1");
  const HardwareModel *trn2 = lookupHardwareModel("trn2");
  ASSERT_TRUE(trn1 && trn2);
  EXPECT_EQ(hardwareModels().front().name, "trn1"); // the default
  EXPECT_EQ(trn1->sbufBytes(), 24 * 1024 * 1024);
  EXPECT_EQ(trn2->sbufBytes(), 28 * 1024 * 1024);
  EXPECT_EQ(trn1->psumBytes(), 2 * 1024 * 1024);
  EXPECT_EQ(trn1->psumBankBytes(), 2048); // 512 fp32 per bank per partition
  // Ridge points at the bandwidth a core can use: on trn1 its DMA engines
  // (272 GB/s) limit before its HBM share (the reference's ~224 FLOP/byte is
  // at the share); on trn2 the share does (~217).
  EXPECT_NEAR(trn1->ridgePoint(), 91.8e3 / 272.0, 0.5);
  EXPECT_NEAR(trn2->ridgePoint(), 217.1, 1.0);
  EXPECT_EQ(lookupHardwareModel("trn3"), nullptr);
  EXPECT_EQ(hardwareModelNames(), "trn1, trn2");
}

TEST(HardwareModel, RooflineVerdicts) {
  const HardwareModel &trn1 = *lookupHardwareModel("trn1");
  // A 4096^3 bf16 matmul: 2*4096^3 FLOPs over 3 * 32 MiB moves 1365 FLOP/B,
  // far right of the ridge: TensorE bounds it, at 2*4096^3 / 91.8 TFLOP/s.
  int64_t n = 4096;
  RooflineEstimate mm = estimateRoofline(trn1, 2 * n * n * n, 0, 3 * n * n * 2, true, false);
  EXPECT_EQ(mm.verdict(), "compute-bound (TensorE)");
  EXPECT_NEAR(mm.boundNs(), 2.0 * n * n * n / 91.8e3, 1.0);
  // fp32 operands run at a quarter of that rate.
  RooflineEstimate mm32 = estimateRoofline(trn1, 2 * n * n * n, 0, 3 * n * n * 4, true, true);
  EXPECT_NEAR(mm32.tensorNs, 4 * mm.tensorNs, 1.0);
  // RMSNorm on 4096x4096 f32: 4 flops per element against 8 bytes per element.
  RooflineEstimate norm = estimateRoofline(trn1, 4 * n * n, n, 8 * n * n, false, false);
  EXPECT_EQ(norm.verdict(), "memory-bound (HBM)");
  // The DMA engines (16 x 17 B/ns = 272 GB/s) limit before the 410 GB/s HBM share.
  EXPECT_NEAR(trn1.memoryGBps(), 272.0, 1e-9);
  EXPECT_NEAR(norm.hbmNs, 8.0 * n * n / 272.0, 1.0);
  // Many transcendentals on few bytes: ScalarE bounds it.
  RooflineEstimate act = estimateRoofline(trn1, 0, 1 << 24, 1 << 10, false, false);
  EXPECT_EQ(act.verdict(), "engine-bound (ScalarE)");
  EXPECT_EQ(RooflineEstimate().verdict(), "no work");
}

// Accumulators are counted in whole PSUM banks, as nisa-allocate-memory
// places them: never across a bank, and one wider than a bank starts one.
TEST(HardwareModel, PsumTilesCountWholeBanks) {
  const HardwareModel &trn1 = *lookupHardwareModel("trn1");
  ASSERT_EQ(trn1.psumBankBytes(), 2048);
  ASSERT_EQ(trn1.psumBanks, 8);
  // 768 f32 columns (3072 bytes) take two banks each: three fit in the six
  // banks a matmul with TensorE transposes leaves, not 12288 / 3072 = 4.
  EXPECT_EQ(trn1.psumTilesIn(6, 768 * 4), 3);
  EXPECT_EQ(trn1.psumBanksFor(768 * 4, 3), 6);
  EXPECT_EQ(trn1.psumBanksFor(768 * 4, 4), 8);
  // A whole bank each; four 512-byte tiles share one; 600 bytes: three.
  EXPECT_EQ(trn1.psumTilesIn(8, 2048), 8);
  EXPECT_EQ(trn1.psumTilesIn(1, 512), 4);
  EXPECT_EQ(trn1.psumTilesIn(2, 600), 6);
  EXPECT_EQ(trn1.psumBanksFor(512, 5), 2);
  EXPECT_EQ(trn1.psumBanksFor(4096, 1), 2);
  EXPECT_EQ(trn1.psumTilesIn(0, 512), 0);
  EXPECT_EQ(trn1.psumBanksFor(512, 0), 0);
}
