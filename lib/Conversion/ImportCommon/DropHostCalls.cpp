//===- DropHostCalls.cpp - neuron-drop-host-calls ---------------------------===//
//
// Removes host-side code that exporters wrap around kernels: calls to
// external functions (timers, printers), LLVM-dialect calls and
// vector.print, plus the scalar code that only feeds them (timer
// differences, `llvm.mlir.addressof` of a name string) and the LLVM globals
// nothing uses afterwards. With return-printed, the tensors the removed
// printers printed become extra results of their functions.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONDROPHOSTCALLSPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {

/// A call to a function without a body, an LLVM-dialect call, a print, or a
/// test assertion (IREE's `check.expect_*`): code only the host runs.
bool isHostRoot(Operation *op, SymbolTableCollection &symbols) {
  StringRef name = op->getName().getStringRef();
  if (name == "vector.print" || name.starts_with("check.expect_") || isa<LLVM::CallOp>(op))
    return true;
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && callee.isExternal();
}

/// The ranked tensor behind a printer's (or an assertion's) operand, or null
/// when there is none. Exporters print through `tensor.cast`s to unranked or
/// dynamic types; of the values along that chain, the most static one is
/// returned (the nearest to the printer on a tie).
Value printedTensor(Value v) {
  Value best;
  auto dynamicDims = [](Value x) { return cast<RankedTensorType>(x.getType()).getNumDynamicDims(); };
  for (;;) {
    if (isa<RankedTensorType>(v.getType()) && (!best || dynamicDims(v) < dynamicDims(best)))
      best = v;
    auto cast = v.getDefiningOp<tensor::CastOp>();
    if (!cast)
      return best;
    v = cast.getSource();
  }
}

/// Appends `values` to the results of `fn` (a single-block function).
void appendResults(func::FuncOp fn, ArrayRef<Value> values) {
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  SmallVector<Value> operands(ret.getOperands());
  operands.append(values.begin(), values.end());
  ret->setOperands(operands);
  SmallVector<Type> results(fn.getResultTypes());
  for (Value v : values)
    results.push_back(v.getType());
  fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(), results));
}

/// Rewrites every call of a function whose results grew to the new signature.
void updateCalls(ModuleOp module, const llvm::DenseMap<StringAttr, func::FuncOp> &grown) {
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (grown.count(call.getCalleeAttr().getAttr()))
      calls.push_back(call);
  });
  for (func::CallOp call : calls) {
    func::FuncOp fn = grown.lookup(call.getCalleeAttr().getAttr());
    OpBuilder b(call);
    auto repl = func::CallOp::create(b, call.getLoc(), fn, call.getOperands());
    for (auto [oldResult, newResult] : llvm::zip(call.getResults(), repl.getResults()))
      oldResult.replaceAllUsesWith(newResult);
    call->erase();
  }
}

struct DropHostCallsPass
    : mlir::neuron::impl::NeuronDropHostCallsPassBase<DropHostCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    llvm::DenseMap<StringAttr, func::FuncOp> grown;
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
      // Then the scalar values only removed code used: the address of a name
      // string, a constant format argument. (Tensors stay: a printed tensor
      // may become a result.)
      if (!removable.empty()) {
        SmallVector<Operation *> all;
        fn.walk([&](Operation *op) { all.push_back(op); });
        for (Operation *op : llvm::reverse(all)) {
          if (removable.contains(op) || op->use_empty() || !isMemoryEffectFree(op) ||
              op->getNumRegions() != 0 ||
              llvm::any_of(op->getResultTypes(), [](Type t) { return isa<ShapedType>(t); }))
            continue;
          if (llvm::all_of(op->getUsers(), [&](Operation *u) { return removable.contains(u); }))
            removable.insert(op);
        }
        order.clear();
        fn.walk([&](Operation *op) {
          if (removable.contains(op))
            order.push_back(op);
        });
      }
      // The device tensors the removed printers printed, once each, in order.
      SmallVector<Value> printed;
      // A printed device tensor of a function without results: all its
      // work fed the printers and goes as dead code without --return-printed.
      Operation *lostPrinter = nullptr;
      bool singleBlock = fn.getBody().hasOneBlock();
      for (Operation *op : order) {
        if (!removable.contains(op))
          continue;
        if (!isHostRoot(op, symbols))
          continue;
        SymbolRefAttr callee;
        if (auto call = dyn_cast<CallOpInterface>(op))
          callee = llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
        InFlightDiagnostic warning = callee ? op->emitWarning("dropped host call to ")
                                                  << callee << " (--drop-host-calls)"
                                            : op->emitWarning("dropped host-side '")
                                                  << op->getName() << "' (--drop-host-calls)";
        if (!returnPrinted) {
          if (!lostPrinter && fn.getNumResults() == 0 &&
              llvm::any_of(op->getOperands(), [&](Value operand) {
                Value v = printedTensor(operand);
                return v && !matchPattern(v, m_Constant());
              }))
            lostPrinter = op;
          continue;
        }
        for (Value operand : op->getOperands()) {
          Value v = printedTensor(operand);
          if (!v || matchPattern(v, m_Constant()))
            continue;
          if (!singleBlock || v.getParentRegion() != &fn.getBody()) {
            warning << "; the printed tensor is computed inside a nested region or a "
                       "multi-block function and cannot be returned";
            continue;
          }
          auto *it = llvm::find(printed, v);
          unsigned index = fn.getNumResults() + (it - printed.begin());
          if (it == printed.end())
            printed.push_back(v);
          warning << "; it printed what is now result #" << index << " of @"
                  << fn.getSymName() << " (--return-printed)";
        }
      }
      if (lostPrinter)
        fn.emitWarning("@")
            << fn.getSymName()
            << " returns nothing and its work only fed the host calls dropped: it compiles "
               "to an empty program; pass --return-printed to return what they printed";
      for (Operation *op : llvm::reverse(order))
        if (removable.contains(op))
          op->erase();
      if (!printed.empty()) {
        appendResults(fn, printed);
        grown[fn.getSymNameAttr()] = fn;
      }
    }
    updateCalls(getOperation(), grown);
    dropUnusedLLVMSymbols();
  }

  /// Erases the LLVM globals and function declarations (name strings,
  /// `printf`) that only the dropped code used, with a warning each.
  void dropUnusedLLVMSymbols() {
    ModuleOp module = getOperation();
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations())) {
        if (!isa<LLVM::GlobalOp, LLVM::LLVMFuncOp>(op) ||
            !SymbolTable::symbolKnownUseEmpty(&op, module))
          continue;
        op.emitWarning("dropped host-side '")
            << op.getName() << "' @" << SymbolTable::getSymbolName(&op).getValue()
            << " (--drop-host-calls)";
        op.erase();
        changed = true;
      }
    }
  }
};

} // namespace
