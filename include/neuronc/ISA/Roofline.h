//===- Roofline.h - Static roofline of compiled kernels ---------*- C++ -*-===//
//
// What bounds a kernel of an executable, without running it: each engine's
// busy time from the cost formulas of its instructions, HBM traffic at the
// core's achievable bandwidth (and the DMA queues' summed time spread over
// all queues), and the fixed latency of a load -> compute -> store chain.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_ISA_ROOFLINE_H
#define NEURONC_ISA_ROOFLINE_H

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"

namespace neuronc {

/// The static roofline of a kernel from its cost table.
RooflineEstimate kernelRoofline(const HardwareModel &hw, const neff::CostTable &cost);

/// The cost tables of all kernels of a program added up.
neff::CostTable programCost(const neff::Program &program);

/// FLOPs (matmul FLOPs, transposes excluded) per HBM byte.
double arithmeticIntensity(const neff::CostTable &cost);

} // namespace neuronc

#endif // NEURONC_ISA_ROOFLINE_H
