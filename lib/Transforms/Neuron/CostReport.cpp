//===- CostReport.cpp - neuron-cost-report --------------------------------===//
//
// Emits each op's self-reported cost as a remark, plus per-function totals.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/Passes.h"

#include "llvm/Support/Format.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCOSTREPORTPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// Formats a cost as `flops=… transcendentals=… read=…B written=…B intensity=… flop/B`.
std::string formatCost(const OpCost &c) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "flops=" << c.flops << " transcendentals=" << c.transcendentals
     << " read=" << c.bytesRead << "B written=" << c.bytesWritten << "B intensity="
     << llvm::format("%.4g", c.intensity()) << " flop/B";
  return s;
}

/// The static roofline of one op on `hw`: matmuls (also inside a fused
/// kernel) need TensorE, other arithmetic VectorE, transcendentals ScalarE.
neuronc::RooflineEstimate roofline(Operation *op, const OpCost &c,
                                   const neuronc::HardwareModel &hw) {
  MatmulOp mm = dyn_cast<MatmulOp>(op);
  if (auto kernel = dyn_cast<KernelOp>(op))
    kernel.walk([&](MatmulOp inner) { mm = inner; });
  bool fp32 = mm && mm.getLhs().getType().getElementType().isF32();
  return neuronc::estimateRoofline(hw, c.flops, c.transcendentals, c.bytes(),
                                   static_cast<bool>(mm), fp32);
}

std::string formatRoofline(const neuronc::HardwareModel &hw, double ns,
                           const std::string &verdict) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << " | " << hw.name << ": " << llvm::format("%.3g", ns / 1000.0) << " us, " << verdict;
  return s;
}

/// Walks a function and reports what every op says it costs.
struct CostReportPass : mlir::neuron::impl::NeuronCostReportPassBase<CostReportPass> {
  using Base::Base;

  void runOnOperation() override {
    const neuronc::HardwareModel *hw = nullptr;
    if (!target.empty()) {
      hw = neuronc::lookupHardwareModel(target);
      if (!hw) {
        getOperation().emitError("unknown target '")
            << target << "'; known targets: " << neuronc::hardwareModelNames();
        return signalPassFailure();
      }
    }
    double totalNs = 0;
    OpCost total;
    int64_t unknown = 0;
    // Top-level ops only: a kernel's cost already covers its body.
    for (auto op : getOperation().getBody().getOps<CostOpInterface>()) {
      std::optional<OpCost> c = op.getCost();
      if (!c) {
        ++unknown;
        if (!totalsOnly)
          op->emitRemark("cost: unknown (dynamic shape)");
        continue;
      }
      total += *c;
      std::string suffix;
      if (hw) {
        neuronc::RooflineEstimate e = roofline(op, *c, *hw);
        totalNs += e.boundNs();
        suffix = formatRoofline(*hw, e.boundNs(), e.verdict());
      }
      if (!totalsOnly)
        op->emitRemark("cost: ") << formatCost(*c) << suffix;
    }
    InFlightDiagnostic d = getOperation().emitRemark("total cost: ") << formatCost(total);
    if (hw) {
      std::string t;
      llvm::raw_string_ostream os(t);
      os << " | " << hw->name << ": " << llvm::format("%.3g", totalNs / 1000.0)
         << " us as a sum of per-op bounds";
      d << t;
    }
    if (unknown)
      d << " (" << unknown << " op(s) with dynamic shapes not counted)";
    markAllAnalysesPreserved();
  }
};

} // namespace
