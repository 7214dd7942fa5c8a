//===- PrepackWeights.cpp - neuron-prepack-weights --------------------------===//
//
// An entry argument the program only ever reads transposed (nn.Linear's
// weight `[out, in]`, transposed before its matmul) is taken in the layout
// the device wants: the executable records that the runtime swaps its last
// two dims when it loads the input, once, as weight prepacking does, and
// the program reads it untransposed. Opt-in (`neuronc --prepack-weights`):
// it is right for weights loaded once and called many times, not for
// activations that change every call.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONPREPACKWEIGHTSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using mlir::neuron::fusion::keepsMatrixDims;
using mlir::neuron::fusion::swapMatrixDims;
using mlir::neuron::fusion::swapsMatrixDims;

namespace {

/// What reads an argument, as the rewrite needs it: views (casts and
/// batch reshapes) whose results are read the same way, transposes that
/// become no-ops, and matmul operands whose transpose flag flips.
struct Readers {
  SmallVector<Operation *> views;
  SmallVector<TransposeOp> transposes;
  SmallVector<OpOperand *> matmulOperands;
};

/// Why an argument converted to `to` on its way to a matmul stays as
/// declared: read transposed, the conversion happens as its tiles leave
/// PSUM; read as a prepacked [K, N], it would be a kernel of its own that
/// writes a converted copy to HBM every call.
std::string converted(Type to) {
  std::string name;
  llvm::raw_string_ostream(name) << to;
  return "it is converted to " + name +
         " (--auto-cast), which its transposed load does on the way through PSUM and a "
         "prepacked load would do in HBM";
}

/// The element type a cast converts `v` to on its way (through reshapes and
/// casts) to its readers, or null.
Type conversionAfter(Value v, int depth = 0) {
  for (Operation *user : v.getUsers()) {
    if (!isa<CastOp, ReshapeOp>(user) || depth > 3)
      continue;
    Type from = getElementTypeOrSelf(v), to = getElementTypeOrSelf(user->getResult(0));
    if (from != to)
      return to;
    if (Type t = conversionAfter(user->getResult(0), depth + 1))
      return t;
  }
  return {};
}

/// Collects the readers of `v` into `r` (all of them, so that the caller
/// knows whether any reads it transposed); false when some reader takes
/// the argument as declared, with `why` naming the first.
bool collectReaders(Value v, Readers &r, std::string &why) {
  bool ok = true;
  auto refuse = [&](const Twine &reason) {
    if (ok)
      why = reason.str();
    ok = false;
  };
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto t = dyn_cast<TransposeOp>(user); t && swapsMatrixDims(t)) {
      r.transposes.push_back(t);
      if (Type to = conversionAfter(t))
        refuse(converted(to));
      continue;
    }
    if (auto mm = dyn_cast<MatmulOp>(user)) {
      bool transposed = use.getOperandNumber() == 0 ? mm.getTransposeLhs() : mm.getTransposeRhs();
      if (transposed && mm.getLhs() != mm.getRhs())
        r.matmulOperands.push_back(&use);
      else
        refuse("a matmul reads it untransposed");
      continue;
    }
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (!isa<CastOp>(user) && !(reshape && keepsMatrixDims(reshape))) {
      refuse("'" + user->getName().getStringRef() + "' reads it in its own layout");
      continue;
    }
    Type from = getElementTypeOrSelf(user->getOperand(0)),
         to = getElementTypeOrSelf(user->getResult(0));
    if (from != to)
      refuse(converted(to));
    r.views.push_back(user);
    if (!collectReaders(user->getResult(0), r, why))
      ok = false;
  }
  return ok;
}

struct PrepackWeightsPass : mlir::neuron::impl::NeuronPrepackWeightsPassBase<PrepackWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto fn : module.getOps<func::FuncOp>()) {
      // Entries only: a function something calls takes its caller's layout,
      // and a bucketed entry passes its inputs to the dispatcher.
      if (fn.isExternal() || fn.isPrivate() || !SymbolTable::symbolKnownUseEmpty(fn, module) ||
          !fn.getOps<DispatchOp>().empty())
        continue;
      for (BlockArgument arg : fn.getArguments())
        prepack(fn, arg);
    }
  }

  /// Swaps the layout of `arg` when every reader wants it transposed.
  void prepack(func::FuncOp fn, BlockArgument arg) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() < 2 || !type.hasStaticShape() || arg.use_empty())
      return;
    Readers r;
    std::string why;
    bool ok = collectReaders(arg, r, why);
    if (r.transposes.empty() && r.matmulOperands.empty())
      return; // nothing reads it transposed: not a weight of a matmul
    if (!ok) {
      neuronc::recordFusionDecision(
          fn, {"prepack-weight",
               false,
               ("argument #" + Twine(arg.getArgNumber()) + " stays as declared: " + why).str(),
               arg.getLoc(),
               {},
               0});
      return;
    }
    arg.setType(swapMatrixDims(type));
    for (Operation *view : r.views) {
      Value out = view->getResult(0);
      out.setType(swapMatrixDims(cast<RankedTensorType>(out.getType())));
    }
    // No HBM bytes are saved (a transpose before a matmul folds into it
    // anyway): what goes is the TensorE transposes of every call.
    SmallVector<Location> absorbed;
    for (TransposeOp t : r.transposes) {
      absorbed.push_back(t.getLoc());
      t.getResult().replaceAllUsesWith(t.getInput());
      t.erase();
    }
    for (OpOperand *use : r.matmulOperands) {
      auto mm = cast<MatmulOp>(use->getOwner());
      if (use->getOperandNumber() == 0)
        mm.setTransposeLhs(false);
      else
        mm.setTransposeRhs(false);
    }
    fn.setArgAttr(arg.getArgNumber(), kHostTransposedAttrName, UnitAttr::get(&getContext()));
    FunctionType ft = fn.getFunctionType();
    SmallVector<Type> inputs(ft.getInputs());
    inputs[arg.getArgNumber()] = arg.getType();
    fn.setFunctionType(FunctionType::get(&getContext(), inputs, ft.getResults()));
    neuronc::recordFusionDecision(fn, {"prepack-weight", true, "", arg.getLoc(), absorbed, 0});
  }
};

} // namespace
