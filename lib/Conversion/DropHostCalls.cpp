//===- DropHostCalls.cpp - neuron-drop-host-calls ---------------------------===//
//
// Removes host-side code that exporters wrap around kernels: calls to
// external functions (timers, printers) and vector.print, plus the scalar
// arithmetic that only feeds them.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONDROPHOSTCALLSPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {

/// A call to a function without a body, a print, or a test assertion
/// (IREE's `check.expect_*`): code only the host runs.
bool isHostRoot(Operation *op, SymbolTableCollection &symbols) {
  StringRef name = op->getName().getStringRef();
  if (name == "vector.print" || name.starts_with("check.expect_"))
    return true;
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && callee.isExternal();
}

struct DropHostCallsPass
    : mlir::neuron::impl::NeuronDropHostCallsPassBase<DropHostCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      // Host-side: the roots, and side-effect-free ops computing only from
      // host-side values (the `t_end - t_start` of a timer).
      llvm::SmallPtrSet<Operation *, 16> host;
      fn.walk([&](Operation *op) {
        if (isHostRoot(op, symbols)) {
          host.insert(op);
          return;
        }
        if (op->getNumOperands() == 0 || !isMemoryEffectFree(op))
          return;
        if (llvm::all_of(op->getOperands(), [&](Value v) {
              Operation *def = v.getDefiningOp();
              return def && host.contains(def);
            }))
          host.insert(op);
      });
      // Decide from the last op back (an op goes once nothing but host code
      // that also goes uses it), warn in program order, then erase.
      SmallVector<Operation *> order;
      fn.walk([&](Operation *op) {
        if (host.contains(op))
          order.push_back(op);
      });
      llvm::SmallPtrSet<Operation *, 16> removable;
      for (Operation *op : llvm::reverse(order))
        if (llvm::all_of(op->getUsers(), [&](Operation *u) { return removable.contains(u); }))
          removable.insert(op);
      for (Operation *op : order) {
        if (!removable.contains(op))
          continue;
        if (auto call = dyn_cast<func::CallOp>(op))
          op->emitWarning("dropped host call to @")
              << call.getCallee() << " (--drop-host-calls)";
        else if (isHostRoot(op, symbols))
          op->emitWarning("dropped host-side '") << op->getName() << "' (--drop-host-calls)";
      }
      for (Operation *op : llvm::reverse(order))
        if (removable.contains(op))
          op->erase();
    }
  }
};

} // namespace
