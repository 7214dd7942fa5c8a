//===- LowerCustomKernel.cpp - Hand-written kernels into the program ------===//
//
// neuron.custom_kernel calls a nisa.program written by hand. Its kernels are
// cloned into the calling program: the callee's input and output HBM tensors
// become the call's operand and result buffers, its constants and scratch
// become tensors of the program, its tiles get fresh names. Semaphores and
// addresses are dropped: the backend passes recompute them over the whole
// program, as for the compiler's own kernels.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace {

/// Replaces every symbol attribute of `op` named in `rename`.
void renameSymbols(Operation *op, const DenseMap<StringAttr, FlatSymbolRefAttr> &rename) {
  SmallVector<NamedAttribute> attrs(op->getAttrs());
  bool changed = false;
  for (NamedAttribute &a : attrs)
    if (auto ref = dyn_cast<FlatSymbolRefAttr>(a.getValue()))
      if (auto it = rename.find(ref.getAttr()); it != rename.end()) {
        a.setValue(it->second);
        changed = true;
      }
  if (changed)
    op->setAttrs(attrs);
}

} // namespace

LogicalResult mlir::neuron::lowering::lowerCustomKernel(FunctionLowering &fl, CustomKernelOp op) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<nisa::ProgramOp>(op, op.getCalleeAttr());
  if (!callee)
    return op.emitOpError("calls ") << op.getCalleeAttr() << ", which is not a nisa.program";
  const neuronc::HardwareModel &hw = fl.pb.hw();
  if (callee.getTarget() != hw.name)
    return op.emitOpError("calls ")
           << op.getCalleeAttr() << ", written for target '" << callee.getTarget()
           << "', from a program compiled for '" << hw.name
           << "'; compile with --target=" << callee.getTarget() << " or port the kernel";

  // The callee's HBM tensors, as buffers of the calling program.
  DenseMap<StringAttr, FlatSymbolRefAttr> hbm;
  for (nisa::HbmOp h : callee.getBodyBlock().getOps<nisa::HbmOp>()) {
    FlatSymbolRefAttr sym;
    switch (h.getKind()) {
    case nisa::HbmKind::input:
      sym = fl.bufferOf(op.getInputs()[*h.getIndex()]).sym;
      break;
    case nisa::HbmKind::output:
      sym = fl.resultBuffer(op.getResult(*h.getIndex())).sym;
      break;
    case nisa::HbmKind::constant:
      sym = fl.pb
                .declare(nisa::HbmKind::constant, h.getTensorType(), h.getLoc(), std::nullopt,
                         fl.pb.uniqueName((h.getSymName() + ".").str()), h.getValueAttr())
                .sym;
      break;
    case nisa::HbmKind::internal:
      sym = fl.pb
                .declare(nisa::HbmKind::internal, h.getTensorType(), h.getLoc(), std::nullopt,
                         fl.pb.uniqueName((h.getSymName() + ".").str()))
                .sym;
      break;
    }
    hbm[h.getSymNameAttr()] = sym;
  }

  // Instructions are attributed to the call: one key-averages row per callee.
  MLIRContext *ctx = op.getContext();
  std::string rowName = ("neuron.custom_kernel @" + op.getCalleeAttr().getValue()).str();
  // Every instruction is located as the inliner locates inlined code: at
  // its line in the kernel, called from the call (CallSiteLoc), under the
  // call's row name. A backend error points at the kernel line with a
  // "called from" note; the profile counts one call per row.
  auto instLoc = [&](Location inner) -> Location {
    return CallSiteLoc::get(NameLoc::get(StringAttr::get(ctx, rowName), inner), op.getLoc());
  };
  for (nisa::KernelOp k : callee.getBodyBlock().getOps<nisa::KernelOp>()) {
    nisa::KernelOp kernel = fl.pb.newKernel(k.getKind(), rowName, op.getLoc());
    DenseMap<StringAttr, FlatSymbolRefAttr> rename = hbm;
    for (nisa::AllocOp a : k.getBodyBlock().getOps<nisa::AllocOp>())
      rename[a.getSymNameAttr()] =
          FlatSymbolRefAttr::get(ctx, fl.pb.uniqueName((a.getSymName() + ".").str()));
    OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBodyBlock());
    for (Operation &inner : k.getBodyBlock()) {
      Operation *c = b.clone(inner);
      if (auto a = dyn_cast<nisa::AllocOp>(c)) {
        a.setSymName(rename[inner.getAttrOfType<StringAttr>(
                                SymbolTable::getSymbolAttrName())]
                         .getValue());
        a.removeOffsetAttr();
        a->setLoc(instLoc(inner.getLoc()));
        continue;
      }
      renameSymbols(c, rename);
      c->removeAttr("wait");
      c->removeAttr("signal");
      c->setLoc(instLoc(inner.getLoc()));
    }
  }
  return success();
}
