//===- FuseSoftmax.cpp - neuron-fuse-softmax --------------------------------===//
//
// Softmax and log-softmax written op by op. The anchor is the sum of
// exponentials; the walk goes up to x - max(x) and down to the division
// (softmax) or the subtraction of its log (log-softmax).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSESOFTMAXPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// Looks through a reshape that restores a non-keepdims reduction's dims.
Value throughReshape(Value v, SmallVectorImpl<Operation *> &ops) {
  if (auto r = v.getDefiningOp<ReshapeOp>()) {
    ops.push_back(r);
    return r.getInput();
  }
  return v;
}

/// The single user of `v`, if it has exactly one.
Operation *soleUser(Value v) { return v.hasOneUse() ? *v.user_begin() : nullptr; }

struct Match {
  Value x;
  int64_t axis = 0;
  bool log = false;
  Operation *root = nullptr;
  SmallVector<Operation *> ops;
};

/// Analyzes the candidate anchored at `sum` = reduce_sum(exp(x - max(x))).
FailureOr<Match> analyze(ReduceSumOp sum, std::string &why) {
  Match m;
  m.ops.push_back(sum);
  if (sum.getAxes().size() != 1) {
    why = "the sum runs over more than one axis";
    return failure();
  }
  m.axis = sum.getAxes()[0];
  auto exp = sum.getInput().getDefiningOp<ExpOp>();
  if (!exp) {
    why = "the summed value is not an exponential";
    return failure();
  }
  auto shifted = exp.getInput().getDefiningOp<SubOp>();
  if (!shifted) {
    why = "the exponent is not x - max(x) (unstable softmax is left alone)";
    return failure();
  }
  SmallVector<Operation *> maxOps;
  Value maxValue = throughReshape(shifted.getRhs(), maxOps);
  auto max = maxValue.getDefiningOp<ReduceMaxOp>();
  if (!max || max.getInput() != shifted.getLhs()) {
    why = "the exponent is not x - max(x) (unstable softmax is left alone)";
    return failure();
  }
  if (max.getAxes().size() != 1 || max.getAxes()[0] != m.axis) {
    why = "the max and the sum run over different axes";
    return failure();
  }
  m.x = max.getInput();
  m.ops.append({exp, shifted, max});
  m.ops.append(maxOps.begin(), maxOps.end());
  auto xType = cast<RankedTensorType>(m.x.getType());
  if (!isa<FloatType>(xType.getElementType()) || !xType.hasStaticShape()) {
    why = "the input must be a statically shaped float tensor";
    return failure();
  }

  SmallVector<Operation *> sumOps;
  Operation *user = soleUser(sum.getResult());
  if (auto r = dyn_cast_or_null<ReshapeOp>(user)) {
    sumOps.push_back(r);
    user = soleUser(r.getResult());
  }
  if (!user) {
    why = "the sum of exponentials has more than one user";
    return failure();
  }
  m.ops.append(sumOps.begin(), sumOps.end());

  if (auto div = dyn_cast<DivOp>(user); div && div.getLhs() == exp.getResult()) {
    m.root = div; // exp / sum
  } else if (auto rec = dyn_cast<ReciprocalOp>(user)) {
    Operation *mul = soleUser(rec.getResult());
    if (!isa_and_nonnull<MulOp>(mul) ||
        (mul->getOperand(0) != exp.getResult() && mul->getOperand(1) != exp.getResult())) {
      why = "the reciprocal of the sum does not multiply the exponentials";
      return failure();
    }
    m.ops.push_back(rec);
    m.root = mul;
  } else if (auto log = dyn_cast<LogOp>(user)) {
    m.log = true;
    m.ops.push_back(log);
    Operation *next = soleUser(log.getResult());
    if (auto sub = dyn_cast_or_null<SubOp>(next);
        sub && sub.getLhs() == shifted.getResult() && sub.getRhs() == log.getResult()) {
      m.root = sub; // (x - max) - log(sum)
    } else if (auto add = dyn_cast_or_null<AddOp>(next)) {
      // x - (max + log(sum)), the log-sum-exp form.
      Operation *sub = soleUser(add.getResult());
      bool addsMax = add.getLhs() == shifted.getRhs() || add.getRhs() == shifted.getRhs();
      if (!addsMax || !isa_and_nonnull<SubOp>(sub) || sub->getOperand(0) != m.x ||
          sub->getOperand(1) != add.getResult()) {
        why = "log(sum) is not subtracted from x - max(x)";
        return failure();
      }
      m.ops.push_back(add);
      m.root = sub;
    } else {
      why = "log(sum) is not subtracted from x - max(x)";
      return failure();
    }
  } else {
    why = "the sum of exponentials does not divide them";
    return failure();
  }
  m.ops.push_back(m.root);
  if (m.root->getResult(0).getType() != xType) {
    why = "the result does not have the input's type";
    return failure();
  }
  // Intermediates may only feed the chain.
  llvm::SmallPtrSet<Operation *, 16> chain(m.ops.begin(), m.ops.end());
  for (Operation *op : m.ops) {
    if (op == m.root)
      continue;
    for (Value r : op->getResults())
      if (!onlyUsedBy(r, chain)) {
        why = describe(op, "an intermediate") + " has users outside the chain";
        return failure();
      }
  }
  return m;
}

struct FuseSoftmaxPass : mlir::neuron::impl::NeuronFuseSoftmaxPassBase<FuseSoftmaxPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<ReduceSumOp> anchors;
    getOperation().walk([&](ReduceSumOp op) {
      if (op.getInput().getDefiningOp<ExpOp>())
        anchors.push_back(op);
    });
    for (ReduceSumOp anchor : anchors) {
      std::string why;
      FailureOr<Match> m = analyze(anchor, why);
      if (failed(m)) {
        recordRejected(anchor, "softmax", why);
        continue;
      }
      OpBuilder b(m->root);
      auto fused = SoftmaxOp::create(b, fusedLocation(m->ops), m->x.getType(), m->x,
                                     b.getI64IntegerAttr(m->axis),
                                     m->log ? b.getUnitAttr() : nullptr);
      recordFused(fused, m->log ? "log-softmax" : "softmax", m->ops,
                  bytesSaved(m->ops, fused));
      m->root->getResult(0).replaceAllUsesWith(fused.getResult());
      eraseDeadChain(m->ops);
    }
    // exp(log_softmax(x)) is softmax(x) (the log-sum-exp attention form).
    SmallVector<ExpOp> exps;
    getOperation().walk([&](ExpOp e) { exps.push_back(e); });
    for (ExpOp e : exps) {
      auto ls = e.getInput().getDefiningOp<SoftmaxOp>();
      if (!ls || !ls.getLog() || !ls->hasOneUse())
        continue;
      OpBuilder b(e);
      SmallVector<Operation *> ops = {ls, e};
      auto fused = SoftmaxOp::create(b, fusedLocation(ops), e.getType(), ls.getInput(),
                                     ls.getAxisAttr(), nullptr);
      recordFused(fused, "softmax", ops, bytesSaved(ops, fused));
      e.getResult().replaceAllUsesWith(fused.getResult());
      eraseDeadChain(ops);
    }
  }
};

} // namespace
