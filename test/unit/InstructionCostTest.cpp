//===- InstructionCostTest.cpp - One test per cost formula ----------------===//
//
// Pins the cycles of single instructions against the formulas of the NKI ISA
// reference (docs/hardware-model.md), on trn1 unless said otherwise.
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/InstructionCost.h"

#include <gtest/gtest.h>

using namespace neuronc;
using isa::Engine;
using isa::Opcode;

namespace {

const HardwareModel &trn1() { return *lookupHardwareModel("trn1"); }
const HardwareModel &trn2() { return *lookupHardwareModel("trn2"); }

int64_t cycles(Opcode op, Engine e, int64_t parts, int64_t n,
               std::function<void(CostQuery &)> more = {}) {
  CostQuery q;
  q.opcode = op;
  q.engine = e;
  q.partitions = parts;
  q.elements = n;
  if (more)
    more(q);
  return instructionCycles(trn1(), q);
}

} // namespace

TEST(InstructionCost, MultiplyMovingIsTheMovingFreeSizeAndFp32Costs4x) {
  // max(min(64, N_stationary), N_moving): a 512-wide moving matrix takes 512.
  EXPECT_EQ(cycles(Opcode::MultiplyMoving, Engine::tensor, 128, 512), 512);
  // A narrow moving matrix is bound by min(64, N_stationary).
  EXPECT_EQ(cycles(Opcode::MultiplyMoving, Engine::tensor, 128, 8), 64);
  EXPECT_EQ(cycles(Opcode::MultiplyMoving, Engine::tensor, 128, 8,
                   [](CostQuery &q) { q.stationaryCols = 16; }),
            16);
  // fp32 operands: x4.
  EXPECT_EQ(cycles(Opcode::MultiplyMoving, Engine::tensor, 128, 512,
                   [](CostQuery &q) { q.fp32Matmul = true; }),
            2048);
  // 128 x 128 x 512 MACs in 512 cycles at 2.8 GHz is the 91.8 TFLOPS peak.
  double ns = instructionNs(trn1(), [] {
    CostQuery q;
    q.opcode = Opcode::MultiplyMoving;
    q.engine = Engine::tensor;
    q.elements = 512;
    return q;
  }());
  EXPECT_NEAR(2.0 * 128 * 128 * 512 / ns / 1e3, 91.75, 0.1);
}

TEST(InstructionCost, LoadStationaryIsAQuarterOfAMultiply) {
  EXPECT_EQ(cycles(Opcode::LoadStationary, Engine::tensor, 128, 128), 32);
  EXPECT_EQ(cycles(Opcode::LoadStationary, Engine::tensor, 128, 128,
                   [](CostQuery &q) { q.fp32Matmul = true; }),
            128);
}

TEST(InstructionCost, Transpose) {
  // TensorE: max(P, min(64, F)); VectorE: max(MIN_II, N).
  EXPECT_EQ(cycles(Opcode::Transpose, Engine::tensor, 128, 128), 128);
  EXPECT_EQ(cycles(Opcode::Transpose, Engine::tensor, 16, 200), 64);
  EXPECT_EQ(cycles(Opcode::Transpose, Engine::vector, 32, 32), 64 + 100); // tiny: +100
}

TEST(InstructionCost, ActivationAndItsReduction) {
  // max(MIN_II, N), and MIN_II more with the free-axis accumulate.
  EXPECT_EQ(cycles(Opcode::Activation, Engine::scalar, 128, 4096), 4096);
  EXPECT_EQ(cycles(Opcode::Activation, Engine::scalar, 128, 4096,
                   [](CostQuery &q) { q.accumulate = true; }),
            4096 + 64);
  // A tiny tile pays MIN_II plus the static overhead.
  EXPECT_EQ(cycles(Opcode::Activation, Engine::scalar, 128, 1), 64 + 100);
}

TEST(InstructionCost, TensorTensorIs2NUnlessFast) {
  EXPECT_EQ(cycles(Opcode::TensorTensor, Engine::vector, 128, 1024), 2048);
  // One input in PSUM: N.
  EXPECT_EQ(cycles(Opcode::TensorTensor, Engine::vector, 128, 1024,
                   [](CostQuery &q) { q.psumInput = true; }),
            1024);
  // All-bf16 add/multiply/subtract in SBUF: N.
  EXPECT_EQ(cycles(Opcode::TensorTensor, Engine::vector, 128, 1024,
                   [](CostQuery &q) {
                     q.allBf16 = true;
                     q.alu = isa::AluOp::multiply;
                   }),
            1024);
  // ... but not for max.
  EXPECT_EQ(cycles(Opcode::TensorTensor, Engine::vector, 128, 1024,
                   [](CostQuery &q) {
                     q.allBf16 = true;
                     q.alu = isa::AluOp::max;
                   }),
            2048);
}

TEST(InstructionCost, TensorScalarAndCopyAreN) {
  EXPECT_EQ(cycles(Opcode::TensorScalar, Engine::vector, 128, 1024), 1024);
  EXPECT_EQ(cycles(Opcode::TensorScalar, Engine::gpsimd, 128, 1024), 1024);
  EXPECT_EQ(cycles(Opcode::TensorCopy, Engine::scalar, 128, 1024), 1024);
  EXPECT_EQ(cycles(Opcode::TensorCopy, Engine::vector, 128, 128), 128);
}

TEST(InstructionCost, TensorReduceHalvesForBf16AddMax) {
  EXPECT_EQ(cycles(Opcode::TensorReduce, Engine::vector, 128, 1024), 1024);
  EXPECT_EQ(cycles(Opcode::TensorReduce, Engine::vector, 128, 1024,
                   [](CostQuery &q) {
                     q.allBf16 = true;
                     q.alu = isa::AluOp::max;
                   }),
            512);
}

TEST(InstructionCost, ReciprocalIs8N) {
  EXPECT_EQ(cycles(Opcode::Reciprocal, Engine::vector, 128, 1024), 8192);
}

TEST(InstructionCost, BatchNormStatistics) {
  // bn_stats max(MIN_II, N); bn_aggr max(MIN_II, 13N/3).
  EXPECT_EQ(cycles(Opcode::BnStats, Engine::vector, 128, 512), 512);
  EXPECT_EQ(cycles(Opcode::BnAggr, Engine::vector, 128, 300), 1300);
}

TEST(InstructionCost, MemsetIotaAffineSelect) {
  EXPECT_EQ(cycles(Opcode::Memset, Engine::vector, 128, 1024), 1024);
  EXPECT_EQ(cycles(Opcode::Memset, Engine::vector, 128, 1024,
                   [](CostQuery &q) { q.zeroIntoBf16 = true; }),
            512);
  EXPECT_EQ(cycles(Opcode::Iota, Engine::gpsimd, 128, 1024), 150 + 1024);
  EXPECT_EQ(cycles(Opcode::AffineSelect, Engine::gpsimd, 128, 1024), 150 + 1024);
}

TEST(InstructionCost, PartitionReduceWalksThe16PartitionGroups) {
  EXPECT_EQ(cycles(Opcode::PartitionReduce, Engine::gpsimd, 128, 512), 150 + 512 * 8);
}

TEST(InstructionCost, Trn2VectorEDoesTwoElementsPerPartitionAndCycle) {
  CostQuery q;
  q.opcode = Opcode::TensorScalar;
  q.engine = Engine::vector;
  q.elements = 4096;
  EXPECT_EQ(instructionCycles(trn2(), q), 2048);
  q.allBf16 = true; // 512 bf16 elements per cycle
  EXPECT_EQ(instructionCycles(trn2(), q), 1024);
}

TEST(InstructionCost, DmaSmallTransfersPayTheirOverhead) {
  const HardwareModel &hw = trn1();
  // One 128 KiB contiguous run: the issue cost, the run's overhead and the
  // bytes at 17 B/ns.
  EXPECT_NEAR(dmaQueueNs(hw, 131072, 1, false), 100.0 + (131072 + 256) / 17.0, 1e-6);
  // 128 runs of 4 bytes: each run costs its overhead.
  EXPECT_NEAR(dmaQueueNs(hw, 512, 128, false), 100.0 + (512 + 128 * 256) / 17.0, 1e-6);
  // Element-strided SBUF access halves the bandwidth.
  EXPECT_NEAR(dmaQueueNs(hw, 131072, 1, true), 100.0 + (131072 + 256) / 8.5, 1e-6);
}

// The regimes of the DMA bandwidth guide (nki/deep-dives/nki-dma-bandwidth-
// guide): per-partition runs below 256 B are severely overhead-bound, 256 B
// to 2 KiB improve but stay below peak, 2 KiB approaches peak, 4 KiB
// saturates. docs/hardware-model.md#dma-efficiency has the curve.
TEST(InstructionCost, DmaEfficiencyFollowsThePublishedRegimes) {
  for (const HardwareModel *hw : {&trn1(), &trn2()}) {
    EXPECT_LT(dmaRunEfficiency(*hw, 4), 0.02) << hw->name.str() << ": element-strided";
    EXPECT_LT(dmaRunEfficiency(*hw, 64), 0.25) << hw->name.str();
    EXPECT_LT(dmaRunEfficiency(*hw, 255), 0.5) << hw->name.str();
    EXPECT_GE(dmaRunEfficiency(*hw, 256), 0.5) << hw->name.str();
    EXPECT_LT(dmaRunEfficiency(*hw, 1024), 0.85) << hw->name.str();
    EXPECT_GE(dmaRunEfficiency(*hw, 2048), 0.88) << hw->name.str();
    EXPECT_GE(dmaRunEfficiency(*hw, 4096), 0.94) << hw->name.str();
    EXPECT_GE(dmaRunEfficiency(*hw, 32768), 0.99) << hw->name.str();
    // Monotone: a longer run is never less efficient.
    for (int64_t r = 1; r < 65536; r *= 2)
      EXPECT_LT(dmaRunEfficiency(*hw, r), dmaRunEfficiency(*hw, 2 * r)) << r;
    // The queue time of many runs agrees with the curve.
    double ns = dmaQueueNs(*hw, 128 * 2048, 128, false) - hw->dmaIssueNs;
    EXPECT_NEAR(128 * 2048 / ns / hw->dmaBytesPerNsPerEngine, dmaRunEfficiency(*hw, 2048), 1e-9);
  }
}

TEST(InstructionCost, ContiguousRunsMergeInnerDims) {
  isa::Operand o;
  o.space = isa::Space::Hbm;
  o.dtype = isa::DType::F32;
  o.rank = 2;
  o.sizes = {128, 64};
  o.strides = {64, 1}; // a dense block: one run of 8192 elements
  auto [runs, bytes] = contiguousRuns(o);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(bytes, 128 * 64 * 4);
  o.strides = {100, 1}; // rows of a wider matrix: 128 runs of 64
  std::tie(runs, bytes) = contiguousRuns(o);
  EXPECT_EQ(runs, 128);
  EXPECT_EQ(bytes, 256);
}
