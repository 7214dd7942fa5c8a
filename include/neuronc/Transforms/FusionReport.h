//===- FusionReport.h - Why each fusion happened or did not -----*- C++ -*-===//
//
// Every fusion pass records each decision — a kernel formed, with the ops it
// absorbed and the HBM bytes it saves, or a candidate rejected, with the
// reason in words — on the function it worked on (attribute
// `neuron.fusion_decisions`). Tools collect them into a text or JSON report;
// `--neuron-fusion-remarks` turns them into remarks for lit tests. The
// lowering adds one entry per fused kernel it had to run as two (an
// epilogue that cannot follow its matmul's or convolution's output tiles, a
// pooling that cannot read the convolution's planes), on the module: the
// report would otherwise claim a fusion the executable does not have.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TRANSFORMS_FUSIONREPORT_H
#define NEURONC_TRANSFORMS_FUSIONREPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace neuronc {

/// One fusion decision.
struct FusionDecision {
  std::string kernel;   ///< "rmsnorm", "softmax", ...
  bool fused = false;
  std::string reason;   ///< why not (empty when fused)
  mlir::Location loc;   ///< the anchor op of the candidate
  llvm::SmallVector<mlir::Location> absorbed; ///< source ops folded into the kernel
  int64_t bytesSaved = 0; ///< HBM bytes saved per the ops' own costs
  bool split = false;     ///< formed, but the lowering runs it as two kernels (`reason`)
};

/// Appends `d` to the decisions recorded on `fn`.
void recordFusionDecision(mlir::func::FuncOp fn, const FusionDecision &d);

/// All decisions recorded in `module`, in function and program order.
llvm::SmallVector<FusionDecision> collectFusionDecisions(mlir::ModuleOp module);

/// Removes the recorded decisions from the IR.
void clearFusionDecisions(mlir::ModuleOp module);

/// The fused kernels the lowering ran as two kernels, in lowering order
/// (mlir::neuron::kLoweringSplitsAttrName on `module`); removes the record.
llvm::SmallVector<FusionDecision> takeLoweringSplits(mlir::ModuleOp module);

/// `fused rmsnorm at file:3:5: absorbed 7 ops, saves 1234 bytes` lines.
std::string formatFusionReportText(llvm::ArrayRef<FusionDecision> decisions);
/// `{"kernels": [...], "rejected": [...]}`.
llvm::json::Value formatFusionReportJSON(llvm::ArrayRef<FusionDecision> decisions);

/// A location as `file:line:col` (or its printed form when not a file location).
std::string formatLocation(mlir::Location loc);

} // namespace neuronc

#endif // NEURONC_TRANSFORMS_FUSIONREPORT_H
