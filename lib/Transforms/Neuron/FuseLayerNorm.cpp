//===- FuseLayerNorm.cpp - neuron-fuse-layernorm ----------------------------===//
//
// LayerNorm is RMSNorm of the centred input: once --neuron-fuse-rmsnorm has
// collapsed (x - mean) * rsqrt(mean((x - mean)^2) + eps) [* w] into
// rmsnorm(x - mean(x)), this pass turns that into layernorm(x), taking a
// following `+ b` as the bias.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSELAYERNORMPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// The mean of `x` over `axes` (kept as size-1 dims) written as reduce_mean
/// or reduce_sum * 1/N or reduce_sum / N; appends the ops.
bool isMeanOf(Value mean, Value x, ArrayRef<int64_t> axes, SmallVector<Operation *> &ops) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t count = 1;
  for (int64_t a : axes)
    count *= type.getDimSize(a);
  Operation *def = mean.getDefiningOp();
  auto reduces = [&](Operation *op) {
    if (!isa_and_nonnull<ReduceMeanOp, ReduceSumOp>(op) || op->getOperand(0) != x)
      return false;
    ArrayRef<int64_t> ra = isa<ReduceMeanOp>(op) ? cast<ReduceMeanOp>(op).getAxes()
                                                  : cast<ReduceSumOp>(op).getAxes();
    bool keep = isa<ReduceMeanOp>(op) ? cast<ReduceMeanOp>(op).getKeepdims()
                                      : cast<ReduceSumOp>(op).getKeepdims();
    SmallVector<int64_t> sorted(ra.begin(), ra.end());
    llvm::sort(sorted);
    return keep && ArrayRef<int64_t>(sorted) == axes;
  };
  if (isa_and_nonnull<ReduceMeanOp>(def) && reduces(def)) {
    ops.push_back(def);
    return true;
  }
  if (auto mul = dyn_cast_or_null<MulOp>(def)) {
    for (Value side : {mul.getLhs(), mul.getRhs()}) {
      Value k = side == mul.getLhs() ? mul.getRhs() : mul.getLhs();
      std::optional<double> s = splatValue(k);
      Operation *sum = side.getDefiningOp();
      if (s && isa_and_nonnull<ReduceSumOp>(sum) && reduces(sum) &&
          std::abs(1.0 / *s - count) <= 1e-4 * count && sum->hasOneUse()) {
        ops.append({sum, mul});
        return true;
      }
    }
  }
  if (auto div = dyn_cast_or_null<DivOp>(def)) {
    std::optional<double> s = splatValue(div.getRhs());
    Operation *sum = div.getLhs().getDefiningOp();
    if (s && isa_and_nonnull<ReduceSumOp>(sum) && reduces(sum) &&
        std::abs(*s - count) <= 1e-4 * count && sum->hasOneUse()) {
      ops.append({sum, div});
      return true;
    }
  }
  return false;
}

struct FuseLayerNormPass : mlir::neuron::impl::NeuronFuseLayerNormPassBase<FuseLayerNormPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<RmsNormOp> norms;
    getOperation().walk([&](RmsNormOp op) { norms.push_back(op); });
    for (RmsNormOp norm : norms) {
      auto centred = norm.getInput().getDefiningOp<SubOp>();
      if (!centred)
        continue; // an ordinary rmsnorm
      Value x = centred.getLhs();
      SmallVector<int64_t> axes(norm.getAxes().begin(), norm.getAxes().end());
      SmallVector<Operation *> ops;
      if (x.getType() != norm.getType() || !isMeanOf(centred.getRhs(), x, axes, ops)) {
        recordRejected(norm, "layernorm",
                       "the normalized input is a difference, but not x - mean(x) over the "
                       "normalized axes");
        continue;
      }
      if (!centred->hasOneUse() || !ops.back()->hasOneUse()) {
        recordRejected(norm, "layernorm",
                       describe(centred, "the centred input") +
                           " or its mean has users outside the chain");
        continue;
      }
      ops.append({centred, norm});
      // `+ b` after the normalization is the bias.
      Value bias;
      Operation *root = norm;
      if (norm->hasOneUse()) {
        if (auto add = dyn_cast<AddOp>(*norm->user_begin())) {
          Value b = add.getLhs() == norm.getResult() ? add.getRhs() : add.getLhs();
          if (add.getType() == norm.getType() && b.getDefiningOp() != centred &&
              b != x && cast<RankedTensorType>(b.getType()).getElementType() ==
                            norm.getType().getElementType()) {
            bias = b;
            ops.push_back(add);
            root = add;
          }
        }
      }
      OpBuilder builder(root);
      auto fused = LayerNormOp::create(builder, fusedLocation(ops), norm.getType(), x,
                                       norm.getWeight(), bias, norm.getAxesAttr(),
                                       norm.getEpsilonAttr());
      recordFused(fused, "layernorm", ops, bytesSaved(ops, fused));
      root->getResult(0).replaceAllUsesWith(fused.getResult());
      eraseDeadChain(ops);
    }
  }
};

} // namespace
