//===- Roofline.cpp - Static roofline of compiled kernels -----------------===//

#include "neuronc/ISA/Roofline.h"

#include "neuronc/ISA/InstructionCost.h"

#include <algorithm>

using namespace neuronc;

RooflineEstimate neuronc::kernelRoofline(const HardwareModel &hw, const neff::CostTable &c) {
  RooflineEstimate e;
  auto ns = [&](isa::Engine engine) {
    return c.cycles[static_cast<int>(engine)] / engineClockGHz(hw, engine);
  };
  e.tensorNs = ns(isa::Engine::tensor);
  e.vectorNs = ns(isa::Engine::vector);
  e.scalarNs = ns(isa::Engine::scalar);
  e.gpsimdNs = ns(isa::Engine::gpsimd);
  double bytes = static_cast<double>(c.hbmReadBytes + c.hbmWriteBytes);
  e.hbmNs = std::max(bytes / hw.memoryGBps(),
                     static_cast<double>(c.dmaQueueNs) / static_cast<double>(hw.dmaEngines));
  // A kernel that loads and stores has at least one dependent chain of both.
  int chain = (c.hbmReadBytes > 0 ? 1 : 0) + (c.hbmWriteBytes > 0 ? 1 : 0);
  e.latencyNs = chain * hw.dmaLatencyNs;
  return e;
}

neff::CostTable neuronc::programCost(const neff::Program &program) {
  neff::CostTable t;
  for (const neff::Kernel &k : program.kernels) {
    const neff::CostTable &c = k.cost;
    for (int i = 0; i < 4; ++i) {
      t.instructions[i] += c.instructions[i];
      t.cycles[i] += c.cycles[i];
      t.elements[i] += c.elements[i];
    }
    t.matmulFlops += c.matmulFlops;
    t.transposeFlops += c.transposeFlops;
    t.transcendentals += c.transcendentals;
    t.dmaCount += c.dmaCount;
    t.dmaBytes += c.dmaBytes;
    t.dmaQueueNs += c.dmaQueueNs;
    t.hbmReadBytes += c.hbmReadBytes;
    t.hbmWriteBytes += c.hbmWriteBytes;
    t.sbufBytes += c.sbufBytes;
    t.psumBytes += c.psumBytes;
  }
  return t;
}

double neuronc::arithmeticIntensity(const neff::CostTable &c) {
  double bytes = static_cast<double>(c.hbmReadBytes + c.hbmWriteBytes);
  return bytes > 0 ? static_cast<double>(c.matmulFlops) / bytes : 0.0;
}
