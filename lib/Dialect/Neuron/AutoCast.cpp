//===- AutoCast.cpp - Where --auto-cast's casts cost nothing --------------===//

#include "neuronc/Dialect/Neuron/AutoCast.h"

using namespace mlir;
using namespace mlir::neuron;

bool mlir::neuron::isNarrowingFloatCast(CastOp c) {
  auto in = dyn_cast<FloatType>(cast<RankedTensorType>(c.getInput().getType()).getElementType());
  auto out = dyn_cast<FloatType>(c.getType().getElementType());
  return in && out && in.getWidth() > out.getWidth();
}

bool mlir::neuron::onlyConvertingUses(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto r = dyn_cast<ReshapeOp>(user))
      return onlyConvertingUses(r.getResult());
    if (auto k = dyn_cast<KernelOp>(user))
      return onlyConvertingUses(k.getBody().front().getArgument(use.getOperandNumber()));
    if (isa<ConvOp>(user))
      return use.getOperandNumber() == 0;
    auto mm = dyn_cast<MatmulOp>(user);
    if (!mm || !isa<FloatType>(mm.getLhs().getType().getElementType()) ||
        !isa<FloatType>(mm.getRhs().getType().getElementType()))
      return false;
    return use.getOperandNumber() == 1 || !mm.getTransposeLhs();
  });
}
