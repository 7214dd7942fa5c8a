//===- CollectiveTest.cpp - all_reduce across the cores of a group --------===//
//
// Hand-written tensor-parallel programs (a sharded input, one nisa.all_reduce,
// nisa.all_gather or nisa.reduce_scatter) run on the simulator: every core of
// the group receives the sum of their parts, all parts in their places, or
// its part of the sum, whether the group sits in one chip or spans chips; the collective
// starts when the group's last core reaches it and takes the ring's time;
// a group program run on fewer cores is refused; and the sharded input's
// fields survive the executable's round trip, guarded by their feature bit.
//
//===----------------------------------------------------------------------===//

#include "BackendHarness.h"

#include "neuronc/Host/Tensor.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Simulator/Simulator.h"

#include "gtest/gtest.h"

using namespace neuronc;

namespace {

/// A program summing its `rows`x8 part of input 0 (sharded into `parts`
/// along dim 0) over a `group`-core group into output 0.
std::string allReduceProgram(const std::string &target, int64_t rows, int64_t parts,
                             int64_t group) {
  std::string n = std::to_string(rows * 8);
  return "nisa.program @tp target \"" + target + "\" {\n"
         "  nisa.hbm @x input 0 shard [0, " + std::to_string(parts) +
         "] : tensor<" + std::to_string(rows) + "x8xf32>\n"
         "  nisa.hbm @y output 0 : tensor<" + std::to_string(rows) + "x8xf32>\n"
         "  nisa.kernel @k \"all_reduce\" from \"neuron.all_reduce\" {\n"
         "    nisa.all_reduce q3 @y[0, [1," + n + "]] = @x[0, [1," + n + "]] group " +
         std::to_string(group) + "\n"
         "  }\n"
         "}\n";
}

/// The caller's whole input: element (r, c) = r * 8 + c + 1.
Tensor wholeInput(int64_t rows) {
  Tensor t = Tensor::empty(DType::F32, {rows, 8});
  for (int64_t i = 0; i < rows * 8; ++i)
    t.f()[i] = static_cast<float>(i + 1);
  return t;
}

/// One job per core 0..group-1, each given the whole input.
std::vector<sim::Job> groupJobs(const neff::Executable &exe, int64_t group, const Tensor &x) {
  std::vector<sim::Job> jobs(group);
  for (int64_t c = 0; c < group; ++c) {
    jobs[c].exe = &exe;
    jobs[c].program = &exe.programs.front();
    jobs[c].inputs = {x};
    jobs[c].core = static_cast<unsigned>(c);
  }
  return jobs;
}

TEST(Collective, RingTimeIsTheAnalyticModel) {
  const HardwareModel &trn1 = *lookupHardwareModel("trn1");
  const HardwareModel &trn2 = *lookupHardwareModel("trn2");
  EXPECT_EQ(trn1.instanceCores(), 32);
  EXPECT_EQ(trn2.instanceCores(), 128);
  // Inside one chip the ring goes through the chip's HBM; across chips
  // over half of the chip's NeuronLink (two of four links each way).
  EXPECT_DOUBLE_EQ(trn1.ringGBps(2), trn1.chipHbmGBps / 2);
  EXPECT_DOUBLE_EQ(trn1.ringGBps(8), trn1.neuronLinkGBps / 2);
  EXPECT_DOUBLE_EQ(trn2.ringGBps(8), trn2.chipHbmGBps / 2);
  EXPECT_DOUBLE_EQ(trn2.ringGBps(16), trn2.neuronLinkGBps / 2);
  // 2(N-1)/N * bytes / bandwidth + 2(N-1) steps.
  int64_t bytes = 32 << 20;
  EXPECT_DOUBLE_EQ(trn1.allReduceNs(8, bytes),
                   2.0 * 7 / 8 * bytes / (trn1.neuronLinkGBps / 2) + 14 * trn1.collectiveStepNs);
  EXPECT_FALSE(trn1.allReduceUsesTree(8, bytes));
  // More cores move barely more bytes each, but pay more steps.
  EXPECT_GT(trn1.allReduceNs(32, 1024), trn1.allReduceNs(8, 1024));
}

TEST(Collective, SmallAllReducesRunAsATree) {
  const HardwareModel &trn1 = *lookupHardwareModel("trn1");
  // A decode step's 16 KiB over 32 cores: the ring's 62 steps against the
  // tree's 2 log2(32) = 10, each byte over a link twice.
  int64_t small = 16 << 10;
  double gbps = trn1.neuronLinkGBps / 2;
  EXPECT_DOUBLE_EQ(trn1.treeAllReduceNs(32, small), 2.0 * small / gbps + 10 * trn1.collectiveStepNs);
  EXPECT_TRUE(trn1.allReduceUsesTree(32, small));
  EXPECT_DOUBLE_EQ(trn1.allReduceNs(32, small), trn1.treeAllReduceNs(32, small));
  EXPECT_LT(trn1.allReduceNs(32, small), trn1.ringAllReduceNs(32, small) / 5);
  // A group of 3 rounds its tree depth up: 2 levels.
  EXPECT_DOUBLE_EQ(trn1.treeAllReduceNs(3, 0), 4 * trn1.collectiveStepNs);
  // Two cores: one ring step each way, one tree level each way, but the
  // tree sends the whole message twice: the ring.
  EXPECT_FALSE(trn1.allReduceUsesTree(2, small));
  // A prefill's 32 MiB: the ring's N-fold smaller pieces win.
  EXPECT_FALSE(trn1.allReduceUsesTree(8, 32 << 20));
  EXPECT_DOUBLE_EQ(trn1.allReduceNs(8, 32 << 20), trn1.ringAllReduceNs(8, 32 << 20));
}

TEST(Collective, EveryCoreReceivesTheSumOfTheParts) {
  neuronc::testing::BackendHarness h;
  // Two cores of one trn1 chip, each with its half of the rows.
  neff::Executable exe = assembleText(h, allReduceProgram("trn1", 4, 2, 2));
  ASSERT_EQ(exe.programs.size(), 1u);
  EXPECT_EQ(exe.programs[0].collectiveGroup(), 2);
  EXPECT_TRUE(exe.requiredFeatures & neff::kFeatureTensorParallel);
  Tensor x = wholeInput(8);
  sim::Options options;
  auto run = sim::runChip(groupJobs(exe, 2, x), options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  for (const sim::Result &r : *run) {
    ASSERT_EQ(r.outputs.size(), 1u);
    for (int64_t i = 0; i < 32; ++i) // rows 0-3 plus rows 4-7
      EXPECT_EQ(r.outputs[0].f()[i], x.f()[i] + x.f()[32 + i]) << "core " << r.core;
    EXPECT_EQ(r.collectiveBytes, 128);
  }
}

TEST(Collective, AGroupAcrossChipsWithFewerPartsThanCores) {
  neuronc::testing::BackendHarness h;
  // Eight cores on four trn1 chips; four parts, each held by two cores (a
  // GQA KV head kept whole).
  neff::Executable exe = assembleText(h, allReduceProgram("trn1", 2, 4, 8));
  Tensor x = wholeInput(8);
  sim::Options options;
  auto run = sim::runChip(groupJobs(exe, 8, x), options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const HardwareModel &hw = *lookupHardwareModel("trn1");
  for (const sim::Result &r : *run) {
    for (int64_t i = 0; i < 16; ++i) {
      float sum = 0;
      for (int64_t part = 0; part < 4; ++part)
        sum += x.f()[part * 16 + i];
      EXPECT_EQ(r.outputs[0].f()[i], 2 * sum) << "core " << r.core << " element " << i;
    }
    // The model over NeuronLink is the instruction's time: for 64 bytes,
    // the tree's.
    EXPECT_NEAR(r.collectiveNs, hw.allReduceNs(8, 64), 1e-6);
    EXPECT_NEAR(r.collectiveNs, hw.treeAllReduceNs(8, 64), 1e-6);
    EXPECT_GE(r.deviceNs, hw.allReduceNs(8, 64));
    EXPECT_LT(r.deviceNs, hw.allReduceNs(8, 64) + 2000);
  }
}

TEST(Collective, AllGatherPutsEachPartInItsPlace) {
  neuronc::testing::BackendHarness h;
  // Four cores on two trn1 chips, each with 3 of the 12 columns of a 2x12
  // tensor: the gather along dim 1 interleaves the parts per row (outer 2)
  // and gives every core the caller's tensor back.
  neff::Executable exe = assembleText(h, R"(
nisa.program @tp target "trn1" {
  nisa.hbm @x input 0 shard [1, 4] : tensor<2x3xf32>
  nisa.hbm @y output 0 : tensor<2x12xf32>
  nisa.kernel @k "all_gather" from "neuron.all_gather" {
    nisa.all_gather q1 @y[0, [1,24]] = @x[0, [1,6]] group 4 outer 2
  }
})");
  EXPECT_EQ(exe.programs[0].collectiveGroup(), 4);
  Tensor x = Tensor::empty(DType::F32, {2, 12});
  for (int64_t i = 0; i < 24; ++i)
    x.f()[i] = static_cast<float>(i) * 0.5f;
  sim::Options options;
  auto run = sim::runChip(groupJobs(exe, 4, x), options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const HardwareModel &hw = *lookupHardwareModel("trn1");
  for (const sim::Result &r : *run) {
    for (int64_t i = 0; i < 24; ++i)
      EXPECT_EQ(r.outputs[0].f()[i], x.f()[i]) << "core " << r.core << " element " << i;
    // (N-1)/N of the whole 96 bytes over NeuronLink, N-1 steps.
    EXPECT_NEAR(r.collectiveNs, hw.allGatherNs(4, 96), 1e-6);
    EXPECT_NEAR(hw.allGatherNs(4, 96), 3.0 / 4 * 96 / (hw.neuronLinkGBps / 2) +
                                           3 * hw.collectiveStepNs, 1e-9);
  }
}

TEST(Collective, ReduceScatterKeepsEachCoresPartOfTheSum) {
  neuronc::testing::BackendHarness h;
  // Two cores of one trn2 chip, each with a partial sum of a 4x6 tensor
  // (its own input, replicated here: the sum is twice it); core r keeps
  // rows 2r and 2r+1 of the sum (scattered along dim 0: outer 1).
  neff::Executable exe = assembleText(h, R"(
nisa.program @tp target "trn2" {
  nisa.hbm @x input 0 : tensor<4x6xf32>
  nisa.hbm @y output 0 : tensor<2x6xf32>
  nisa.kernel @k "reduce_scatter" from "neuron.reduce_scatter" {
    nisa.reduce_scatter q0 @y[0, [1,12]] = @x[0, [1,24]] group 2 outer 1
  }
})");
  Tensor x = Tensor::empty(DType::F32, {4, 6});
  for (int64_t i = 0; i < 24; ++i)
    x.f()[i] = static_cast<float>(i) - 7.0f;
  sim::Options options;
  auto run = sim::runChip(groupJobs(exe, 2, x), options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const HardwareModel &hw = *lookupHardwareModel("trn2");
  for (const sim::Result &r : *run) {
    for (int64_t i = 0; i < 12; ++i)
      EXPECT_EQ(r.outputs[0].f()[i], 2 * x.f()[r.core * 12 + i]) << "core " << r.core;
    // Inside one chip: half the chip's HBM bandwidth, one step.
    EXPECT_NEAR(r.collectiveNs, 0.5 * 96 / (hw.chipHbmGBps / 2) + hw.collectiveStepNs, 1e-9);
  }
}

TEST(Collective, StartsWhenTheLastCoreArrives) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, allReduceProgram("trn1", 4, 2, 2));
  std::vector<sim::Job> jobs = groupJobs(exe, 2, wholeInput(8));
  jobs[1].notBeforeNs = 10000; // core 1 comes 10 us late
  sim::Options options;
  options.data = false;
  for (sim::Job &j : jobs)
    j.inputs.clear();
  auto run = sim::runChip(jobs, options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const sim::Result &early = (*run)[0], &late = (*run)[1];
  EXPECT_NEAR(early.collectiveWaitNs, 10000, 1);
  EXPECT_NEAR(late.collectiveWaitNs, 0, 1e-6);
  EXPECT_DOUBLE_EQ(early.endNs, late.endNs); // both receive the sum together
}

TEST(Collective, AGroupProgramRunsOnEveryCoreOfItsGroup) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, allReduceProgram("trn1", 4, 2, 2));
  sim::Options options;
  options.data = false;
  std::vector<sim::Job> one = groupJobs(exe, 1, wholeInput(8));
  auto run = sim::runChip(one, options);
  ASSERT_FALSE(static_cast<bool>(run));
  EXPECT_EQ(llvm::toString(run.takeError()),
            "program 'tp' is one core's part of a tensor-parallel group of 2 cores: run it once "
            "on each of cores 0-1 together (neuron-run does for an executable built with --tp)");
}

TEST(Collective, ShardedInputsRoundTripAndNeedTheirFeatureBit) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, allReduceProgram("trn2", 4, 2, 2));
  const neff::Variable &x = exe.programs[0].variables[0];
  EXPECT_EQ(x.shardDim, 0);
  EXPECT_EQ(x.shardParts, 2);
  EXPECT_EQ(x.hostShape(), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(x.shape, (std::vector<int64_t>{4, 8}));
  auto back = neff::readNeff(neff::writeNeff(exe));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == exe);

  exe.requiredFeatures &= ~neff::kFeatureTensorParallel;
  back = neff::readNeff(neff::writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "section 'meta': variable 'x' is sharded along dim 0 into 2 parts but the "
            "'tensor-parallel' feature bit is not set");

  // Parts that do not divide the group leave some core without a whole part.
  exe.requiredFeatures |= neff::kFeatureTensorParallel;
  exe.programs[0].variables[0].shardParts = 3;
  back = neff::readNeff(neff::writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "program 'tp': input 'x' is sharded into 3 parts but the program is one core's part "
            "of a group of 2 cores");
}

TEST(Collective, ShardedOutputsAreJoinedFromEveryCoresPart) {
  neuronc::testing::BackendHarness h;
  // Two cores of one trn1 chip pass their halves of a 4x8 input on
  // cyclically and each returns its part of a 4x8 output: the caller's
  // tensor is the parts joined along dim 0, [x1; x0].
  neff::Executable exe = assembleText(h, R"(
nisa.program @tp target "trn1" {
  nisa.hbm @x input 0 shard [0, 2] : tensor<2x8xf32>
  nisa.hbm @y output 0 shard [0, 2] : tensor<2x8xf32>
  nisa.kernel @k "send_recv" from "neuron.send_recv" {
    nisa.send_recv q0 @y[0, [1,16]] = @x[0, [1,16]] group 2 shift 1 cyclic 1
  }
})");
  const neff::Variable &y = *exe.programs[0].outputs().front();
  EXPECT_EQ(y.hostShape(), (std::vector<int64_t>{4, 8}));
  auto back = neff::readNeff(neff::writeNeff(exe));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == exe);
  Tensor x = wholeInput(4);
  sim::Options options;
  auto run = sim::runChip(groupJobs(exe, 2, x), options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  std::vector<Tensor> parts = {(*run)[0].outputs[0], (*run)[1].outputs[0]};
  EXPECT_EQ(parts[0].shape(), llvm::ArrayRef<int64_t>({2, 8}));
  Tensor whole = sim::gatherOutput(parts, y, 2);
  ASSERT_EQ(whole.shape(), llvm::ArrayRef<int64_t>({4, 8}));
  for (int64_t i = 0; i < 32; ++i)
    EXPECT_EQ(whole.f()[i], x.f()[(i + 16) % 32]) << "element " << i;
}

} // namespace

TEST(Collective, AllToAllAndSendRecvMovePartsBetweenCores) {
  neuronc::testing::BackendHarness h;
  // Four cores of two trn1 chips, core r holding slab r of a 4x8x6 tensor.
  // all_to_all splits each slab's 8 rows into 4 parts of 2 and concatenates
  // the parts a core receives along the 6 columns: core j's [2, 24] holds
  // X[r, 2j + a, c] at (a, 6r + c). send_recv passes each slab to the next
  // core (core 0 receives zeros), and cyclically to the one before.
  neff::Executable exe = assembleText(h, R"(
nisa.program @tp target "trn1" {
  nisa.hbm @x input 0 shard [0, 4] : tensor<1x8x6xf32>
  nisa.hbm @y output 0 : tensor<1x2x24xf32>
  nisa.hbm @z output 1 : tensor<1x8x6xf32>
  nisa.hbm @w output 2 : tensor<1x8x6xf32>
  nisa.kernel @k "all_to_all" from "neuron.all_to_all" {
    nisa.all_to_all q0 @y[0, [1,48]] = @x[0, [1,48]] group 4 split 12 concat 6
    nisa.send_recv q1 @z[0, [1,48]] = @x[0, [1,48]] group 4 shift 1 cyclic 0
    nisa.send_recv q2 @w[0, [1,48]] = @x[0, [1,48]] group 4 shift -1 cyclic 1
  }
})");
  EXPECT_EQ(exe.programs[0].collectiveGroup(), 4);
  Tensor x = Tensor::empty(DType::F32, {4, 8, 6});
  for (int64_t i = 0; i < 4 * 48; ++i)
    x.f()[i] = static_cast<float>(i) + 0.25f;
  auto at = [&](int64_t r, int64_t row, int64_t c) { return x.f()[(r * 8 + row) * 6 + c]; };
  sim::Options options;
  auto run = sim::runChip(groupJobs(exe, 4, x), options);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  const HardwareModel &hw = *lookupHardwareModel("trn1");
  for (const sim::Result &r : *run) {
    int64_t j = r.core;
    for (int64_t from = 0; from < 4; ++from)
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t c = 0; c < 6; ++c)
          EXPECT_EQ(r.outputs[0].f()[a * 24 + from * 6 + c], at(from, 2 * j + a, c))
              << "all_to_all: core " << j << " from core " << from;
    for (int64_t e = 0; e < 48; ++e) {
      EXPECT_EQ(r.outputs[1].f()[e], j == 0 ? 0.0f : x.f()[(j - 1) * 48 + e])
          << "send_recv: core " << j;
      EXPECT_EQ(r.outputs[2].f()[e], x.f()[((j + 1) % 4) * 48 + e])
          << "cyclic send_recv: core " << j;
    }
    // Each on its own queue: the three run side by side, each its model's
    // time (pairwise exchanges: (N-1)/N of 192 bytes, N-1 steps; one hop).
    EXPECT_NEAR(r.collectiveNs, hw.allToAllNs(4, 192) + 2 * hw.sendRecvNs(4, 192), 1e-6);
    EXPECT_NEAR(hw.allToAllNs(4, 192),
                3.0 / 4 * 192 / (hw.neuronLinkGBps / 2) + 3 * hw.collectiveStepNs, 1e-9);
    EXPECT_NEAR(hw.sendRecvNs(4, 192), 192 / (hw.neuronLinkGBps / 2) + hw.collectiveStepNs,
                1e-9);
    EXPECT_LT(r.deviceNs, hw.allToAllNs(4, 192) + 2000);
  }
}
