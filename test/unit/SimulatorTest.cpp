//===- SimulatorTest.cpp - The timing model and instruction semantics -----===//
//
// Hand-written nisa programs, assembled and run on the simulator: the time
// of one instruction is its cost formula plus the access latency; DMA
// efficiency grows with the transfer size (small transfers pay the fixed
// latency); a load_stationary overlaps the multiply before it; VectorE and
// GpSimdE serialize on NeuronCore-v2's shared SBUF port but not on v3; two
// cores share the chip's HBM bandwidth; and bn_stats/bn_aggr, iota,
// affine_select and the sin/cos activations compute what the ISA says.
//
//===----------------------------------------------------------------------===//

#include "BackendHarness.h"

#include "neuronc/Simulator/Simulator.h"
#include "neuronc/ISA/InstructionCost.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace neuronc;

namespace {

sim::Result runTiming(const neff::Executable &exe, const HardwareModel *target = nullptr) {
  sim::Options options;
  options.data = false;
  options.trace = true;
  options.target = target;
  auto r = sim::run(exe, exe.programs.front(), {}, options);
  EXPECT_TRUE(static_cast<bool>(r)) << (r ? "" : llvm::toString(r.takeError()));
  return r ? std::move(*r) : sim::Result();
}

const HardwareModel &trn1() { return *lookupHardwareModel("trn1"); }

TEST(Simulator, OneInstructionTakesItsFormulaAndTheAccessLatency) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, R"(
nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @t sbuf 128x4096xf32 offset = 0
    nisa.memset vector @t[0:128, 0, [1,4096]] = 1.0
  }
})");
  sim::Result r = runTiming(exe);
  // memset: N = 4096 cycles on VectorE at 1.12 GHz, then 60 cycles of access.
  EXPECT_NEAR(r.deviceNs, 4096 / 1.12 + 60 / 1.12, 1e-6);
  EXPECT_NEAR(r.busyNs[static_cast<int>(isa::Engine::vector)], 4096 / 1.12, 1e-6);
}

TEST(Simulator, BackToBackDependentInstructionsPayTheStaticOverhead) {
  neuronc::testing::BackendHarness h;
  // Two memsets and a copy on VectorE; the copy reads @a (written just
  // before it: dependent) or @b (written two instructions before: not).
  auto program = [](const char *src) {
    return std::string(R"(
nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x1024xf32 offset = 0
    nisa.alloc @b sbuf 128x1024xf32 offset = 4096
    nisa.alloc @c sbuf 128x1024xf32 offset = 8192
    nisa.memset vector @b[0:128, 0, [1,1024]] = 1.0
    nisa.memset vector @a[0:128, 0, [1,1024]] = 2.0
    nisa.tensor_copy vector @c[0:128, 0, [1,1024]] = )") +
           src + R"([0:128, 0, [1,1024]]
  }
})";
  };
  sim::Result dependent = runTiming(assembleText(h, program("@a")));
  sim::Result independent = runTiming(assembleText(h, program("@b")));
  // 100 cycles at VectorE's 1.12 GHz.
  EXPECT_NEAR(dependent.deviceNs - independent.deviceNs, 100 / 1.12, 1e-6);
  // Three 1024-element instructions and the access latency, nothing else.
  EXPECT_NEAR(independent.deviceNs, 3 * 1024 / 1.12 + 60 / 1.12, 1e-6);
}

/// A program moving `n` f32 per partition on 128 partitions from HBM to
/// SBUF, `count` times on queue 0.
std::string dmaProgram(int64_t n, int count) {
  std::string s = "nisa.program @p target \"trn1\" {\n  nisa.hbm @x input 0 : tensor<128x" +
                  std::to_string(n) + "xf32>\n  nisa.kernel @k \"x\" from \"y\" {\n"
                  "    nisa.alloc @t sbuf 128x" + std::to_string(n) + "xf32 offset = 0\n";
  for (int i = 0; i < count; ++i)
    s += "    nisa.dma_copy q0 @t[0:128, 0, [1," + std::to_string(n) + "]] = @x[0, [" +
         std::to_string(n) + ",128], [1," + std::to_string(n) + "]]\n";
  return s + "  }\n}\n";
}

TEST(Simulator, DmaEfficiencyGrowsWithTransferSize) {
  neuronc::testing::BackendHarness h;
  const HardwareModel &hw = trn1();
  double lastIsolated = 0;
  for (int64_t n : {1, 4, 16, 64, 256, 1024, 4096}) {
    double bytes = 128.0 * n * 4;
    // One transfer alone: the fixed start latency, the descriptor cost and
    // every per-partition run with its overhead at 17 B/ns.
    sim::Result one = runTiming(assembleText(h, dmaProgram(n, 1)));
    double moved = 128.0 * (4.0 * n + hw.dmaRunOverheadBytes);
    EXPECT_NEAR(one.deviceNs, hw.dmaLatencyNs + hw.dmaIssueNs + moved / hw.dmaBytesPerNsPerEngine,
                1e-3)
        << n;
    double isolated = bytes / one.deviceNs / hw.dmaBytesPerNsPerEngine;
    EXPECT_GT(isolated, lastIsolated) << "efficiency must grow with size, n = " << n;
    lastIsolated = isolated;
    // Eight back to back on one queue: the latency is paid once.
    sim::Result eight = runTiming(assembleText(h, dmaProgram(n, 8)));
    double pipelined = 8 * bytes / eight.deviceNs / hw.dmaBytesPerNsPerEngine;
    EXPECT_GT(pipelined, isolated) << n;
    if (n == 1) {
      EXPECT_LT(isolated, 0.02) << "a 512-byte transfer is dominated by its latency";
    }
    // Large transfers reach what their run length allows
    // (dmaRunEfficiency: 80 % for 1 KiB runs, 98 % for 16 KiB).
    double runEfficiency = dmaRunEfficiency(hw, 4 * n);
    if (bytes >= 128 * 1024) {
      EXPECT_GT(pipelined, 0.95 * runEfficiency) << n;
    }
    if (bytes >= 512 * 1024) {
      EXPECT_GT(isolated, 0.9 * runEfficiency) << n;
    }
  }
}

TEST(Simulator, LoadStationaryOverlapsThePreviousMultiply) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, R"(
nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @a sbuf 128x128xbf16 offset = 0
    nisa.alloc @b sbuf 128x512xbf16 offset = 256
    nisa.alloc @acc psum 128x512xf32 offset = 0
    nisa.load_stationary @a[0:128, 0, [1,128]]
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @b[0:128, 0, [1,512]] start
    nisa.load_stationary @a[0:128, 0, [1,128]]
    nisa.multiply_moving @acc[0:128, 0, [1,512]] = @b[0:128, 0, [1,512]]
  }
})");
  sim::Result r = runTiming(exe);
  double ls = 32 / 2.8, mm = 512 / 2.8, latency = 60 / 2.8;
  ASSERT_EQ(r.trace.size(), 4u);
  // The second load starts with the first multiply, not after it.
  EXPECT_NEAR(r.trace[2].start, r.trace[1].start, 1e-9);
  EXPECT_NEAR(r.trace[3].start, ls + mm, 1e-6);
  EXPECT_NEAR(r.deviceNs, ls + 2 * mm + latency, 1e-6);
}

TEST(Simulator, VectorAndGpSimdShareTheSbufPortOnV2Only) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, R"(
nisa.program @p target "trn1" {
  nisa.kernel @k "x" from "y" {
    nisa.alloc @t1 sbuf 128x4096xf32 offset = 0
    nisa.alloc @t2 sbuf 128x4096xf32 offset = 16384
    nisa.memset vector @t1[0:128, 0, [1,4096]] = 1.0
    nisa.memset gpsimd @t2[0:128, 0, [1,4096]] = 2.0
  }
})");
  double vector1 = 4096 / 1.12, gpsimd1 = 4096 / 1.4;
  sim::Result v2 = runTiming(exe);
  EXPECT_NEAR(v2.deviceNs, vector1 + gpsimd1 + 60 / 1.4, 1e-6) << "serialized on trn1";
  // Replayed on trn2: in parallel (VectorE does 2 f32 per partition and cycle).
  sim::Result v3 = runTiming(exe, lookupHardwareModel("trn2"));
  EXPECT_NEAR(v3.deviceNs, std::max(2048 / 0.96 + 60 / 0.96, 4096 / 1.2 + 60 / 1.2), 1e-6);
}

/// 16 transfers of 1 MiB, one per queue.
std::string bandwidthProgram() {
  std::string s = "nisa.program @p target \"trn1\" {\n  nisa.hbm @x input 0 : "
                  "tensor<2048x2048xf32>\n  nisa.kernel @k \"x\" from \"y\" {\n";
  for (int q = 0; q < 16; ++q) {
    s += "    nisa.alloc @t" + std::to_string(q) + " sbuf 128x2048xf32 offset = " +
         std::to_string(q * 8192) + "\n";
    s += "    nisa.dma_copy q" + std::to_string(q) + " @t" + std::to_string(q) +
         "[0:128, 0, [1,2048]] = @x[" + std::to_string(q * 128 * 2048) +
         ", [2048,128], [1,2048]]\n";
  }
  return s + "  }\n}\n";
}

TEST(Simulator, CoresShareTheChipsHbmBandwidth) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, bandwidthProgram());
  // A chip whose HBM is slower than two cores' DMA engines together.
  HardwareModel slow = trn1();
  slow.chipHbmGBps = 300;
  sim::Options options;
  options.data = false;
  options.target = &slow;
  sim::Job job;
  job.exe = &exe;
  job.program = &exe.programs.front();
  auto alone = sim::runChip({job}, options);
  ASSERT_TRUE(static_cast<bool>(alone)) << llvm::toString(alone.takeError());
  double bytes = 16.0 * 1024 * 1024;
  // Alone, the core's 16 queues (272 GB/s) bound it: each moves 128
  // partition runs of 8 KiB, each run with its overhead.
  EXPECT_NEAR((*alone)[0].deviceNs,
              slow.dmaLatencyNs + slow.dmaIssueNs +
                  (bytes / 16 + 128 * slow.dmaRunOverheadBytes) / slow.dmaBytesPerNsPerEngine,
              0.01 * (*alone)[0].deviceNs);
  sim::Job second = job;
  second.core = 1;
  auto both = sim::runChip({job, second}, options);
  ASSERT_TRUE(static_cast<bool>(both)) << llvm::toString(both.takeError());
  // Together they move 32 MiB through the chip's 300 GB/s: never faster,
  // and (queues draw from their core's half first come, first served) not
  // much slower.
  for (const sim::Result &r : *both) {
    double gbps = 2 * bytes / r.deviceNs;
    EXPECT_LE(gbps, 300.0);
    EXPECT_GE(gbps, 0.85 * 300.0);
    EXPECT_GT(r.deviceNs, 1.7 * (*alone)[0].deviceNs);
  }
  EXPECT_NEAR((*both)[0].deviceNs, (*both)[1].deviceNs, 1e-6);
  // On the real trn1 table (820 GB/s for the chip) two cores do not slow
  // each other down.
  options.target = nullptr;
  auto real = sim::runChip({job, second}, options);
  ASSERT_TRUE(static_cast<bool>(real));
  EXPECT_NEAR((*real)[0].deviceNs, (*alone)[0].deviceNs, 0.01 * (*alone)[0].deviceNs);
  // A core the instance does not have is refused.
  sim::Job past = job;
  past.core = 32;
  auto bad = sim::runChip({past}, options);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "NeuronCore 32 does not exist: a trn1 instance has 32 (0-31, 2 per chip)");
}

/// 16 MiB copied HBM->HBM by 16 queues, each moving 8 transfers of 128
/// KiB: each byte is read and written, so one trn1 core's queues (272 B/ns)
/// draw 544 GB/s of HBM. (Queues book HBM first come, first served; short
/// transfers keep that close to a fair share.)
std::string hbmCopyProgram() {
  std::string s = "nisa.program @p target \"trn1\" {\n  nisa.hbm @x input 0 : "
                  "tensor<2048x2048xf32>\n  nisa.hbm @y output 0 : tensor<2048x2048xf32>\n"
                  "  nisa.kernel @k \"x\" from \"y\" {\n";
  for (int i = 0; i < 8; ++i)
    for (int q = 0; q < 16; ++q) {
      std::string at = std::to_string((q * 8 + i) * 16 * 2048) + ", [2048,16], [1,2048]]";
      s += "    nisa.dma_copy q" + std::to_string(q) + " @y[" + at + " = @x[" + at + "\n";
    }
  return s + "  }\n}\n";
}

TEST(Simulator, CoresContendForHbmAndAFinishedCoreFreesItsShare) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, hbmCopyProgram());
  const HardwareModel &hw = trn1();
  sim::Options options;
  options.data = false;
  sim::Job job;
  job.exe = &exe;
  job.program = &exe.programs.front();
  auto alone = sim::runChip({job}, options);
  ASSERT_TRUE(static_cast<bool>(alone)) << llvm::toString(alone.takeError());
  double bytes = 16.0 * 1024 * 1024, fixed = hw.dmaLatencyNs + hw.dmaIssueNs;
  // Alone, the queues bound the core: 544 GB/s of HBM is less than the
  // chip's 820.
  double queueNs = bytes / 16 / hw.dmaBytesPerNsPerEngine + 7 * hw.dmaIssueNs;
  EXPECT_NEAR((*alone)[0].deviceNs, fixed + queueNs, 0.02 * (*alone)[0].deviceNs);
  // Both cores copying want 1088 GB/s: each gets half the chip, 410 GB/s of
  // HBM, 205 B/ns of copy.
  sim::Job second = job;
  second.core = 1;
  auto both = sim::runChip({job, second}, options);
  ASSERT_TRUE(static_cast<bool>(both)) << llvm::toString(both.takeError());
  double shared = fixed + 2 * bytes / (hw.chipHbmGBps / 2);
  for (const sim::Result &r : *both)
    EXPECT_NEAR(r.deviceNs, shared, 0.05 * shared);
  EXPECT_GT((*both)[0].deviceNs, 1.25 * (*alone)[0].deviceNs);
  // Core 1 copies twice: while core 0 copies they share; once core 0 is
  // done, core 1's second copy runs at the speed of a core alone.
  auto twice = sim::runChip({job, second, second}, options);
  ASSERT_TRUE(static_cast<bool>(twice)) << llvm::toString(twice.takeError());
  EXPECT_NEAR((*twice)[0].deviceNs, shared, 0.05 * shared);
  double secondRun = (*twice)[2].endNs - (*twice)[2].startNs;
  EXPECT_NEAR(secondRun, (*alone)[0].deviceNs, 0.05 * (*alone)[0].deviceNs);
  EXPECT_LT((*twice)[2].endNs, 2 * shared);
}

/// Runs a program with data on `inputs` and returns its outputs.
std::vector<Tensor> runData(const neff::Executable &exe, llvm::ArrayRef<Tensor> inputs) {
  auto r = sim::run(exe, exe.programs.front(), inputs);
  EXPECT_TRUE(static_cast<bool>(r)) << (r ? "" : llvm::toString(r.takeError()));
  return r ? r->outputs : std::vector<Tensor>();
}

TEST(Simulator, BnStatsAndAggrGiveMeanAndVariance) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, R"(
nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x2xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @t sbuf 128x64xf32 offset = 0
    nisa.alloc @st sbuf 128x6xf32 offset = 256
    nisa.alloc @mv sbuf 128x2xf32 offset = 512
    nisa.dma_copy q0 @t[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    nisa.bn_stats @st[0:128, 0, [1,3]] = @t[0:128, 0, [1,32]] wait(q0 >= 1)
    nisa.bn_stats @st[0:128, 3, [1,3]] = @t[0:128, 32, [1,32]]
    nisa.bn_aggr @mv[0:128, 0, [1,2]] = @st[0:128, 0, [1,6]] signal
    nisa.dma_copy q1 @y[0, [2,128], [1,2]] = @mv[0:128, 0, [1,2]] wait(vector >= 1)
  }
})");
  Tensor x = Tensor::empty(DType::F32, {128, 64});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.f()[i] = std::sin(0.37 * i) * (1 + i % 7);
  std::vector<Tensor> out = runData(exe, {x});
  ASSERT_EQ(out.size(), 1u);
  for (int p = 0; p < 128; ++p) {
    double mean = 0, var = 0;
    for (int f = 0; f < 64; ++f)
      mean += x.f()[p * 64 + f] / 64.0;
    for (int f = 0; f < 64; ++f)
      var += std::pow(x.f()[p * 64 + f] - mean, 2) / 64.0;
    EXPECT_NEAR(out[0].f()[2 * p], mean, 1e-5) << p;
    EXPECT_NEAR(out[0].f()[2 * p + 1], var, 1e-4 * std::max(1.0, var)) << p;
  }
}

TEST(Simulator, IotaAndAffineSelect) {
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, R"(
nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x8xf32>
  nisa.hbm @i output 0 : tensor<128x8xi32>
  nisa.hbm @m output 1 : tensor<128x8xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @idx sbuf 128x8xi32 offset = 0
    nisa.alloc @t sbuf 128x8xf32 offset = 64
    nisa.alloc @s sbuf 128x8xf32 offset = 128
    nisa.iota @idx[0:128, 0, [1,8]] = 5 + 2 * p + [3] signal
    nisa.dma_copy q0 @i[0, [8,128], [1,8]] = @idx[0:128, 0, [1,8]] wait(gpsimd >= 1)
    nisa.dma_copy q1 @t[0:128, 0, [1,8]] = @x[0, [8,128], [1,8]] signal
    nisa.affine_select @s[0:128, 0, [1,8]] = @t[0:128, 0, [1,8]] if 0 + 1 * p + [-1] ge else -7.0 wait(q1 >= 1) signal
    nisa.dma_copy q2 @m[0, [8,128], [1,8]] = @s[0:128, 0, [1,8]] wait(gpsimd >= 2)
  }
})");
  Tensor x = Tensor::empty(DType::F32, {128, 8});
  for (int64_t k = 0; k < x.numel(); ++k)
    x.f()[k] = 0.5f * k;
  std::vector<Tensor> out = runData(exe, {x});
  ASSERT_EQ(out.size(), 2u);
  for (int p = 0; p < 128; ++p)
    for (int f = 0; f < 8; ++f) {
      EXPECT_EQ(out[0].i()[p * 8 + f], 5 + 2 * p + 3 * f);
      // Kept where p - f >= 0 (a causal mask), else the fill.
      EXPECT_EQ(out[1].f()[p * 8 + f], p - f >= 0 ? x.f()[p * 8 + f] : -7.0f) << p << "," << f;
    }
}

TEST(Simulator, SinAndCosReadOnePeriod) {
  // ScalarE's sin and cos of scale * x + bias: right where the argument is
  // within isa::kTrigActivationBound of 0, NaN beyond (a kernel must reduce
  // larger angles first, as the lowering does).
  neuronc::testing::BackendHarness h;
  neff::Executable exe = assembleText(h, R"(
nisa.program @p target "trn1" {
  nisa.hbm @x input 0 : tensor<128x4xf32>
  nisa.hbm @s output 0 : tensor<128x4xf32>
  nisa.hbm @c output 1 : tensor<128x4xf32>
  nisa.kernel @k "x" from "y" {
    nisa.alloc @t sbuf 128x4xf32 offset = 0
    nisa.alloc @ts sbuf 128x4xf32 offset = 64
    nisa.alloc @tc sbuf 128x4xf32 offset = 128
    nisa.dma_copy q0 @t[0:128, 0, [1,4]] = @x[0, [4,128], [1,4]] signal
    nisa.activation sin @ts[0:128, 0, [1,4]] = @t[0:128, 0, [1,4]] scale 2.0 wait(q0 >= 1)
    nisa.activation cos @tc[0:128, 0, [1,4]] = @t[0:128, 0, [1,4]] bias 0.25 signal
    nisa.dma_copy q1 @s[0, [4,128], [1,4]] = @ts[0:128, 0, [1,4]] wait(scalar >= 1)
    nisa.dma_copy q2 @c[0, [4,128], [1,4]] = @tc[0:128, 0, [1,4]] wait(scalar >= 1)
  }
})");
  Tensor x = Tensor::empty(DType::F32, {128, 4});
  const float row[4] = {-1.5f, 0.5f, 1.55f, 5.0f};
  for (int64_t k = 0; k < x.numel(); ++k)
    x.f()[k] = row[k % 4];
  std::vector<Tensor> out = runData(exe, {x});
  ASSERT_EQ(out.size(), 2u);
  for (int p = 0; p < 128; ++p) {
    for (int f = 0; f < 3; ++f) {
      EXPECT_NEAR(out[0].f()[p * 4 + f], std::sin(2.0 * row[f]), 1e-6) << p << "," << f;
      EXPECT_NEAR(out[1].f()[p * 4 + f], std::cos(row[f] + 0.25), 1e-6) << p << "," << f;
    }
    // 10 and 5.25 radians are past the bound.
    EXPECT_TRUE(std::isnan(out[0].f()[p * 4 + 3])) << p;
    EXPECT_TRUE(std::isnan(out[1].f()[p * 4 + 3])) << p;
  }
}

} // namespace
