//===- CostReport.cpp - neuron-cost-report --------------------------------===//
//
// Emits each op's self-reported cost as a remark, plus per-function totals.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
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

/// Walks a function and reports what every op says it costs.
struct CostReportPass : mlir::neuron::impl::NeuronCostReportPassBase<CostReportPass> {
  using Base::Base;

  void runOnOperation() override {
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
      if (!totalsOnly)
        op->emitRemark("cost: ") << formatCost(*c);
    }
    InFlightDiagnostic d = getOperation().emitRemark("total cost: ") << formatCost(total);
    if (unknown)
      d << " (" << unknown << " op(s) with dynamic shapes not counted)";
    markAllAnalysesPreserved();
  }
};

} // namespace
