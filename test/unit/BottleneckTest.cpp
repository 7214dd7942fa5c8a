//===- BottleneckTest.cpp - Kernel verdicts from timeline evidence ---------===//
//
// Each verdict of `diagnose` from evidence built by hand on trn1: the
// thresholds that separate them, the evidence texts and the hints.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include <gtest/gtest.h>

using namespace neuronc;
using namespace neuronc::profile;

namespace {

const HardwareModel &trn1() { return *lookupHardwareModel("trn1"); }

/// A 1 ms kernel whose 16 queues move `bytesPerNs` each while `busy` of
/// the time, in runs of `run` bytes.
KernelEvidence withDma(double busy, double fractionOfRate, int64_t run) {
  KernelEvidence ev;
  ev.spanNs = 1e6;
  ev.dmaBusyNs = busy * ev.spanNs * trn1().dmaEngines;
  ev.dmaBytes = static_cast<int64_t>(ev.dmaBusyNs * trn1().dmaBytesPerNsPerEngine * fractionOfRate);
  ev.dmaRuns = ev.dmaBytes / run;
  ev.utilization.dma = busy;
  ev.utilization.dmaMbu = ev.dmaBytes / ev.spanNs / trn1().dmaGBps();
  ev.utilization.hbm = ev.dmaBytes / ev.spanNs / trn1().chipHbmGBps;
  return ev;
}

} // namespace

TEST(Bottleneck, BandwidthAtThePeakIsMemoryBound) {
  KernelEvidence ev = withDma(0.95, 0.94, 4096);
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "memory-bound (HBM)");
  EXPECT_EQ(v.evidence, "MBU 89.3 % (>= 60 % is good; HBM 29.6 %, DMA 89.3 %); also DMA queues "
                        "95.0 %");
  EXPECT_EQ(v.hint, "");
}

TEST(Bottleneck, BusyQueuesMovingShortRunsAreDmaBound) {
  // 512 B runs: busy queues at 2/3 of their rate, MBU 53 %.
  KernelEvidence ev = withDma(0.8, 0.66, 512);
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "DMA-bound (short transfers)");
  EXPECT_EQ(v.evidence, "DMA queues 80.0 % busy, moving bytes at 66.0 % of their rate (512 B per "
                        "contiguous run), MBU 52.8 %");
  EXPECT_NE(v.hint.find("runs of 2 KiB or more"), std::string::npos) << v.hint;
}

TEST(Bottleneck, ABusyEngineBoundsAndTensorESaysWhetherItMultiplies) {
  KernelEvidence ev = withDma(0.3, 0.9, 2048);
  ev.utilization.tensor = 0.77;
  ev.utilization.mfu = 0.16;
  ev.utilization.vector = 0.54;
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "compute-bound (TensorE)");
  EXPECT_EQ(v.evidence, "TensorE active 77.0 %, MFU 16.0 % (>= 90 % active is good); also MBU "
                        "27.0 %, DMA queues 30.0 %, VectorE 54.0 %");
  EXPECT_NE(v.hint.find("multiplies at 20.8 % of its active time's peak"), std::string::npos)
      << v.hint;
  ev.utilization.tensor = 0.1;
  ev.utilization.vector = 0.92;
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "engine-bound (VectorE)");
}

TEST(Bottleneck, LongKernelsWaitingAreDependencyBoundNotSmall) {
  // A 1 ms matmul whose TensorE is 48 % active and waited 40 % on loads:
  // before, "latency-bound (too small to fill the machine)".
  KernelEvidence ev = withDma(0.57, 0.69, 597);
  ev.utilization.tensor = 0.48;
  ev.waitNs[0][4] = 0.4e6;      // TensorE on DMA loads
  ev.waitNs[0][2] = 0.05e6;     // TensorE on VectorE
  ev.waitNs[4][0] = 0.3e6; // the queues on TensorE (back-pressure)
  ev.topProducer = "neuron.matmul at m.mlir:5:8";
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "dependency-bound (TensorE waits on DMA loads)");
  EXPECT_EQ(v.evidence.substr(0, 85), "TensorE waited 40.0 % of the kernel's time on DMA loads "
                                      "(neuron.matmul at m.mlir:5:8)");
  EXPECT_NE(v.evidence.find("597 B per contiguous run"), std::string::npos) << v.evidence;
  EXPECT_NE(v.hint.find("runs of 2 KiB"), std::string::npos) << v.hint;
  // Only the queues waited: they are the consumer.
  ev.waitNs[0] = {};
  v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "dependency-bound (DMA queues wait on TensorE)");
  EXPECT_NE(v.evidence.find("waited 30.0 %"), std::string::npos) << v.evidence;
}

TEST(Bottleneck, OnlyShortKernelsAreLatencyBound) {
  KernelEvidence ev = withDma(0.2, 0.9, 4096);
  ev.spanNs = 5000; // under ten DMA latencies (13 us)
  ev.waitNs[0][4] = 2000;
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "latency-bound (too small to fill the machine)");
  EXPECT_NE(v.evidence.find("in 5.000 us (3.8 DMA latencies)"), std::string::npos) << v.evidence;
  ev.spanNs = 14000;
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "dependency-bound (TensorE waits on DMA loads)");
  ev.waitNs = {};
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "issue-bound (fixed costs per instruction)");
}

TEST(Bottleneck, OperandsReadTwiceAreCapacityBound) {
  KernelEvidence ev = withDma(0.9, 0.9, 4096);
  ev.hbmReadBytes = ev.dmaBytes;
  ev.hbmDistinctReadBytes = ev.dmaBytes / 4;
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "capacity-bound (SBUF: operands re-read)");
  EXPECT_EQ(v.evidence.substr(0, 47), "HBM reads 210.1 MiB of 52.5 MiB distinct (4.0x)");
  // Read once: the bandwidth.
  ev.hbmDistinctReadBytes = ev.dmaBytes;
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "memory-bound (HBM)");
}

TEST(Bottleneck, TensorESaysWhetherItIsFed) {
  KernelEvidence ev = withDma(0.2, 0.9, 4096);
  ev.utilization.tensor = 0.9;
  ev.utilization.mfu = 0.3;
  ev.multiplyNs = 0.3e6;
  ev.stationaryNs = 0.6e6;
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "compute-bound (TensorE under-fed: stationary reloads)");
  EXPECT_NE(v.evidence.find("multiplies 33.3 %, stationary loads 66.7 %, transposes 0.0 %"),
            std::string::npos)
      << v.evidence;
  ev.stationaryNs = 0.1e6;
  ev.transposeNs = 0.5e6;
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "compute-bound (TensorE under-fed: transposes)");
  ev.multiplyNs = 0.8e6;
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "compute-bound (TensorE)");
}

TEST(Bottleneck, EnginesCopyingOutOfPsumArePsumEvictionBound) {
  KernelEvidence ev = withDma(0.2, 0.9, 4096);
  ev.utilization.vector = 0.8;
  ev.psumReadNs[static_cast<int>(isa::Engine::vector)] = 0.6e6;
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "PSUM-eviction-bound (VectorE)");
  EXPECT_EQ(v.evidence.substr(0, 71),
            "VectorE active 80.0 %, 75.0 % of it reading matmul results out of PSUM");
  ev.psumReadNs = {};
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "engine-bound (VectorE)");
}

TEST(Bottleneck, LongRunsHeldBySharedHbmAreMemoryBound) {
  // Two cores: 4 KiB runs (over 90 % of the rate alone) moving at 45 %.
  KernelEvidence ev = withDma(0.95, 0.45, 4096);
  ev.hbmSharers = 2;
  Verdict v = diagnose(ev, trn1());
  EXPECT_EQ(v.verdict, "memory-bound (HBM)");
  EXPECT_NE(v.evidence.find("2 cores shared the chip's HBM"), std::string::npos) << v.evidence;
  // Alone, the same numbers are the transfers' fault.
  ev.hbmSharers = 1;
  EXPECT_EQ(diagnose(ev, trn1()).verdict, "DMA-bound (short transfers)");
}

TEST(Bottleneck, MeasuredAndPredictedAgreeOrSayWhy) {
  KernelStats alone, k;
  alone.calls = k.calls = 1;
  alone.spanNs = 2.0e6;
  alone.verdict.verdict = k.verdict.verdict = "memory-bound (HBM)";
  alone.verdict.evidence = "MBU 93.0 % (>= 60 % is good)";
  alone.utilization.dma = 0.9;
  alone.utilization.hbm = 0.93;
  k.spanNs = 2.2e6; // within 1.5x, the same verdict
  EXPECT_EQ(explainPrediction(k, alone), "");
  // Two cores sharing the HBM.
  k.spanNs = 3.8e6;
  k.evidence.hbmSharers = 2;
  k.utilization.dma = 0.47;
  k.utilization.hbm = 0.49;
  k.verdict.evidence = "MBU 49.0 % (>= 60 % is good); 2 cores shared the chip's HBM";
  EXPECT_EQ(explainPrediction(k, alone),
            "measured 3.800 ms per call (memory-bound (HBM)), 1.9x the prediction of 2.000 ms "
            "alone (memory-bound (HBM)): 2 cores shared the chip's HBM, so the DMA queues moved "
            "47.0 % of their peak vs 90.0 % alone (MBU 49.0 % vs 93.0 %)");
  // Another verdict in the same time is explained too.
  k.spanNs = 2.1e6;
  k.evidence.hbmSharers = 1;
  k.verdict.verdict = "dependency-bound (TensorE waits on DMA loads)";
  k.verdict.evidence = "TensorE waited 49.5 % of the kernel's time on DMA loads; more";
  EXPECT_EQ(explainPrediction(k, alone),
            "measured 2.100 ms per call (dependency-bound (TensorE waits on DMA loads)), 1.1x "
            "the prediction of 2.000 ms alone (memory-bound (HBM)): here TensorE waited 49.5 % "
            "of the kernel's time on DMA loads; alone MBU 93.0 % (>= 60 % is good)");
}
