//===- FuseActivations.cpp - neuron-fuse-activations ------------------------===//
//
// SiLU and GELU written op by op become one neuron op each.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSEACTIVATIONSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

bool near(std::optional<double> v, double want) {
  return v && std::abs(*v - want) <= 1e-6 * std::max(1.0, std::abs(want));
}

/// The operand of binary `op` that is not `v`.
Value other(Operation *op, Value v) {
  return op->getOperand(0) == v ? op->getOperand(1) : op->getOperand(0);
}

/// The same values up to a reshape that only adds or drops unit dims (what
/// TOSA exporters put between a value and its rank-matched use).
bool sameUpToUnitReshape(Value a, Value b) {
  if (a == b)
    return true;
  auto squeezed = [](Value v) {
    SmallVector<int64_t> dims;
    for (int64_t d : cast<RankedTensorType>(v.getType()).getShape())
      if (d != 1)
        dims.push_back(d);
    return dims;
  };
  auto reshapeOf = [&](Value r, Value v) {
    auto reshape = r.getDefiningOp<ReshapeOp>();
    return reshape && reshape.getInput() == v && squeezed(r) == squeezed(v);
  };
  return reshapeOf(a, b) || reshapeOf(b, a);
}

/// x * sigmoid(x), either order → silu(x). Returns the ops or empty.
SmallVector<Operation *> matchSiluProduct(MulOp mul, Value &x) {
  for (Value side : {mul.getLhs(), mul.getRhs()}) {
    auto sig = side.getDefiningOp<SigmoidOp>();
    if (sig && sig->hasOneUse() && sameUpToUnitReshape(other(mul, side), sig.getInput()) &&
        mul.getType() == sig.getType()) {
      x = sig.getInput();
      return {sig, mul};
    }
  }
  return {};
}

/// x / (1 + exp(-x)) → silu(x) (the hand-written linalg body once raised).
SmallVector<Operation *> matchSiluDivision(DivOp div, Value &x) {
  auto add = div.getRhs().getDefiningOp<AddOp>();
  if (!add || !add->hasOneUse())
    return {};
  for (Value side : {add.getLhs(), add.getRhs()}) {
    auto exp = side.getDefiningOp<ExpOp>();
    if (!exp || !near(splatValue(other(add, side)), 1.0) || !exp->hasOneUse())
      continue;
    auto neg = exp.getInput().getDefiningOp<NegOp>();
    if (neg && neg.getInput() == div.getLhs() && neg->hasOneUse()) {
      x = div.getLhs();
      return {neg, exp, add, div};
    }
  }
  return {};
}

/// Multiplies up from `onePlus` = (1 + f(x)) until both x and 0.5 have been
/// factors: 0.5 * x * (1 + ...) in any association. Appends the muls to
/// `ops`; false when the product is something else.
bool matchHalfXTimes(Value onePlus, Value x, SmallVector<Operation *> &ops) {
  Value cur = onePlus;
  bool sawX = false, sawHalf = false;
  while (!(sawX && sawHalf)) {
    if (!cur.hasOneUse())
      return false;
    auto mul = dyn_cast<MulOp>(*cur.user_begin());
    if (!mul)
      return false;
    Value f = other(mul, cur);
    if (f == x && !sawX) {
      sawX = true;
    } else if (near(splatValue(f), 0.5) && !sawHalf) {
      sawHalf = true;
    } else if (auto inner = f.getDefiningOp<MulOp>(); inner && inner->hasOneUse()) {
      // (0.5 * x) as one factor.
      Value a = inner.getLhs(), b = inner.getRhs();
      bool ok = (a == x && near(splatValue(b), 0.5)) || (b == x && near(splatValue(a), 0.5));
      if (!ok || sawX || sawHalf)
        return false;
      sawX = sawHalf = true;
      ops.push_back(inner);
    } else {
      return false;
    }
    ops.push_back(mul);
    cur = mul.getResult();
  }
  return true;
}

/// x³ written as x*x*x, square(x)*x or pow(x, 3); returns x.
Value cubedInput(Value v, SmallVector<Operation *> &ops) {
  Operation *def = v.getDefiningOp();
  if (!def || !def->hasOneUse())
    return {};
  if (auto p = dyn_cast<PowOp>(def); p && near(splatValue(p.getRhs()), 3.0)) {
    ops.push_back(p);
    return p.getLhs();
  }
  auto mul = dyn_cast<MulOp>(def);
  if (!mul)
    return {};
  for (Value side : {mul.getLhs(), mul.getRhs()}) {
    Value x = other(mul, side);
    Operation *sq = side.getDefiningOp();
    if (!sq || !sq->hasOneUse())
      continue;
    bool isSquare = (isa<SquareOp>(sq) && sq->getOperand(0) == x) ||
                    (isa<MulOp>(sq) && sq->getOperand(0) == x && sq->getOperand(1) == x);
    if (isSquare) {
      ops.append({sq, mul});
      return x;
    }
  }
  return {};
}

/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
SmallVector<Operation *> matchGeluTanh(TanhOp tanh, Value &x) {
  SmallVector<Operation *> ops = {tanh};
  auto scaled = tanh.getInput().getDefiningOp<MulOp>();
  if (!scaled || !scaled->hasOneUse())
    return {};
  Value inner;
  for (Value side : {scaled.getLhs(), scaled.getRhs()})
    if (near(splatValue(other(scaled, side)), 0.7978845608028654))
      inner = side;
  auto add = inner ? inner.getDefiningOp<AddOp>() : AddOp();
  if (!add || !add->hasOneUse())
    return {};
  ops.append({scaled, add});
  for (Value side : {add.getLhs(), add.getRhs()}) {
    auto cubic = other(add, side).getDefiningOp<MulOp>();
    if (!cubic || !cubic->hasOneUse())
      continue;
    for (Value c : {cubic.getLhs(), cubic.getRhs()}) {
      if (!near(splatValue(other(cubic, c)), 0.044715))
        continue;
      SmallVector<Operation *> cubeOps;
      if (cubedInput(c, cubeOps) == side) {
        x = side;
        ops.push_back(cubic);
        ops.append(cubeOps.begin(), cubeOps.end());
      }
    }
  }
  if (!x || !tanh->hasOneUse())
    return {};
  auto onePlus = dyn_cast<AddOp>(*tanh->user_begin());
  if (!onePlus || !near(splatValue(other(onePlus, tanh.getResult())), 1.0))
    return {};
  ops.push_back(onePlus);
  if (!matchHalfXTimes(onePlus.getResult(), x, ops))
    return {};
  return ops;
}

/// 0.5 * x * (1 + erf(x / sqrt 2)) in any association of the three factors.
SmallVector<Operation *> matchGeluErf(ErfOp erf, Value &x) {
  SmallVector<Operation *> ops = {erf};
  Value in = erf.getInput();
  if (auto m = in.getDefiningOp<MulOp>()) {
    for (Value side : {m.getLhs(), m.getRhs()})
      if (near(splatValue(other(m, side)), M_SQRT1_2))
        x = side;
    ops.push_back(m);
  } else if (auto d = in.getDefiningOp<DivOp>(); d && near(splatValue(d.getRhs()), M_SQRT2)) {
    x = d.getLhs();
    ops.push_back(d);
  }
  if (!x || !erf->hasOneUse() || !in.hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*erf->user_begin());
  if (!add || !near(splatValue(other(add, erf.getResult())), 1.0) || !add->hasOneUse())
    return {};
  ops.push_back(add);
  if (!matchHalfXTimes(add.getResult(), x, ops))
    return {};
  return ops;
}

template <typename NewOp, typename... Args>
void replace(SmallVector<Operation *> &ops, Value x, StringRef kernel, Args... args) {
  Operation *root = ops.back();
  if (root->getResult(0).getType() != x.getType())
    return recordRejected(root, kernel, "the result does not have the input's type");
  OpBuilder b(root);
  auto fused = NewOp::create(b, fusedLocation(ops), x.getType(), x, args...);
  recordFused(fused, kernel, ops, bytesSaved(ops, fused));
  root->getResult(0).replaceAllUsesWith(fused.getResult());
  eraseDeadChain(ops);
}

struct FuseActivationsPass
    : mlir::neuron::impl::NeuronFuseActivationsPassBase<FuseActivationsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (isa<MulOp, DivOp, ErfOp, TanhOp>(op))
        candidates.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 16> gone;
    for (Operation *op : candidates) {
      if (gone.contains(op))
        continue;
      Value x;
      SmallVector<Operation *> ops;
      StringRef kernel = "silu";
      if (auto mul = dyn_cast<MulOp>(op))
        ops = matchSiluProduct(mul, x);
      else if (auto div = dyn_cast<DivOp>(op))
        ops = matchSiluDivision(div, x);
      else if (auto erf = dyn_cast<ErfOp>(op)) {
        ops = matchGeluErf(erf, x);
        kernel = "gelu";
      } else if (auto tanh = dyn_cast<TanhOp>(op)) {
        ops = matchGeluTanh(tanh, x);
        kernel = "gelu-tanh";
      }
      if (ops.empty())
        continue;
      gone.insert(ops.begin(), ops.end());
      // The root (the last product) is the op whose result is replaced.
      llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      if (kernel == "gelu")
        replace<GeluOp>(ops, x, kernel, GeluApproximation::erf);
      else if (kernel == "gelu-tanh")
        replace<GeluOp>(ops, x, "gelu", GeluApproximation::tanh);
      else
        replace<SiluOp>(ops, x, kernel);
    }
  }
};

} // namespace
