//===- Passes.h - Passes over the neuron dialect ----------------*- C++ -*-===//

#ifndef NEURONC_TRANSFORMS_PASSES_H
#define NEURONC_TRANSFORMS_PASSES_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/ISA/HardwareModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::neuron {

#define GEN_PASS_DECL
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"

} // namespace mlir::neuron

#endif // NEURONC_TRANSFORMS_PASSES_H
