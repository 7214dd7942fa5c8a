//===- FusionRemarks.cpp - neuron-fusion-remarks ----------------------------===//
//
// Turns the recorded fusion decisions into remarks at their anchor ops, so
// lit tests can pin them with --verify-diagnostics, and removes the records.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSIONREMARKSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {
struct FusionRemarksPass : mlir::neuron::impl::NeuronFusionRemarksPassBase<FusionRemarksPass> {
  using Base::Base;
  void runOnOperation() override {
    for (const neuronc::FusionDecision &d : neuronc::collectFusionDecisions(getOperation())) {
      if (d.fused)
        emitRemark(d.loc) << "fused " << d.kernel << " (absorbed " << d.absorbed.size()
                          << " ops, saves " << d.bytesSaved << " bytes)";
      else
        emitRemark(d.loc) << "not fused " << d.kernel << ": " << d.reason;
    }
    neuronc::clearFusionDecisions(getOperation());
  }
};
} // namespace
