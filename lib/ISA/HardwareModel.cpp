//===- HardwareModel.cpp - The simulated NeuronCore's numbers -------------===//
//
// Values from the public Neuron SDK documentation (2.26–2.32); where pages
// disagree, the chosen number is the one docs/hardware-model.md marks.
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/HardwareModel.h"

#include <algorithm>

namespace neuronc {

namespace {
// clang-format off
const HardwareModel kModels[] = {
  {/*name=*/"trn1", /*core=*/"NeuronCore-v2",
   /*partitions=*/128, /*sbufPartitionBytes=*/192 * 1024, /*psumPartitionBytes=*/16 * 1024,
   /*psumBanks=*/8, /*partitionQuadrant=*/32, /*vectorTransposeMax=*/32,
   /*bnStatsMaxElements=*/512,
   /*tensorClockGHz=*/2.8, /*tensorBf16Tflops=*/91.8, /*tensorFp32Fraction=*/0.25,
   /*vectorClockGHz=*/1.12, /*vectorElementsPerCycle=*/128, /*vectorBf16ElementsPerCycle=*/128,
   /*scalarClockGHz=*/1.4, /*scalarLanes=*/128,
   /*gpsimdClockGHz=*/1.4, /*minII=*/64, /*accessLatencyCycles=*/60,
   /*tinyTileOverheadCycles=*/100, /*tinyTileElements=*/128, /*dependentOverheadCycles=*/100,
   /*vectorGpsimdShareSbuf=*/true, /*vectorScalarSharePsum=*/true, /*semaphoreLatencyNs=*/50.0,
   /*hbmGBps=*/410.0, /*dmaEngines=*/16, /*dmaBytesPerNsPerEngine=*/17.0,
   /*dmaLatencyNs=*/1300.0, /*dmaEfficientBytes=*/32 * 1024, /*dmaIssueNs=*/100.0,
   /*dmaRunOverheadBytes=*/256, /*sbufStrideBytes=*/16,
   /*coresPerChip=*/2, /*chipHbmGBps=*/820.0, /*chipHbmBytes=*/32ll << 30,
   /*chipsPerInstance=*/16, /*neuronLinkGBps=*/384.0, /*collectiveStepNs=*/1500.0},
  {/*name=*/"trn2", /*core=*/"NeuronCore-v3",
   /*partitions=*/128, /*sbufPartitionBytes=*/224 * 1024, /*psumPartitionBytes=*/16 * 1024,
   /*psumBanks=*/8, /*partitionQuadrant=*/32, /*vectorTransposeMax=*/32,
   /*bnStatsMaxElements=*/512,
   /*tensorClockGHz=*/2.4, /*tensorBf16Tflops=*/78.6, /*tensorFp32Fraction=*/0.25,
   /*vectorClockGHz=*/0.96, /*vectorElementsPerCycle=*/256, /*vectorBf16ElementsPerCycle=*/512,
   /*scalarClockGHz=*/1.2, /*scalarLanes=*/128,
   /*gpsimdClockGHz=*/1.2, /*minII=*/64, /*accessLatencyCycles=*/60,
   /*tinyTileOverheadCycles=*/100, /*tinyTileElements=*/128, /*dependentOverheadCycles=*/100,
   /*vectorGpsimdShareSbuf=*/false, /*vectorScalarSharePsum=*/false, /*semaphoreLatencyNs=*/50.0,
   /*hbmGBps=*/362.0, /*dmaEngines=*/16, /*dmaBytesPerNsPerEngine=*/23.0,
   /*dmaLatencyNs=*/1300.0, /*dmaEfficientBytes=*/32 * 1024, /*dmaIssueNs=*/600.0,
   /*dmaRunOverheadBytes=*/256, /*sbufStrideBytes=*/16,
   /*coresPerChip=*/8, /*chipHbmGBps=*/2900.0, /*chipHbmBytes=*/96ll << 30,
   /*chipsPerInstance=*/16, /*neuronLinkGBps=*/1280.0, /*collectiveStepNs=*/1500.0},
};
// clang-format on
} // namespace

llvm::ArrayRef<HardwareModel> hardwareModels() { return kModels; }

const HardwareModel *lookupHardwareModel(llvm::StringRef name) {
  for (const HardwareModel &m : kModels)
    if (m.name == name)
      return &m;
  return nullptr;
}

std::string hardwareModelNames() {
  std::string s;
  for (const HardwareModel &m : kModels)
    s += (s.empty() ? "" : ", ") + m.name.str();
  return s;
}

double RooflineEstimate::boundNs() const {
  return std::max({tensorNs, elementwiseNs, vectorNs, scalarNs, gpsimdNs, hbmNs, latencyNs});
}

std::string RooflineEstimate::verdict() const {
  double work = std::max({tensorNs, elementwiseNs, vectorNs, scalarNs, gpsimdNs, hbmNs});
  if (work == 0 && latencyNs == 0)
    return "no work";
  if (latencyNs > work)
    return "latency-bound (too small to fill the machine)";
  if (work == hbmNs)
    return "memory-bound (HBM)";
  if (work == tensorNs)
    return "compute-bound (TensorE)";
  if (work == elementwiseNs)
    return "engine-bound (VectorE+ScalarE)";
  if (work == vectorNs)
    return "engine-bound (VectorE)";
  if (work == gpsimdNs)
    return "engine-bound (GpSimdE)";
  return "engine-bound (ScalarE)";
}

RooflineEstimate estimateRoofline(const HardwareModel &hw, int64_t flops, int64_t transcendentals,
                                  int64_t bytes, bool isMatmul, bool isFp32) {
  RooflineEstimate e;
  if (isMatmul) {
    double tflops = hw.tensorBf16Tflops * (isFp32 ? hw.tensorFp32Fraction : 1.0);
    e.tensorNs = flops / (tflops * 1e3); // TFLOP/s = 1e3 FLOP/ns
  } else {
    double elementsPerNs = hw.vectorElementsPerCycle * hw.vectorClockGHz +
                           hw.scalarLanes * hw.scalarClockGHz;
    e.elementwiseNs = flops / 2.0 / elementsPerNs;
  }
  e.scalarNs = transcendentals / (hw.scalarLanes * hw.scalarClockGHz);
  e.hbmNs = bytes / hw.memoryGBps(); // GB/s = bytes/ns
  return e;
}

} // namespace neuronc
