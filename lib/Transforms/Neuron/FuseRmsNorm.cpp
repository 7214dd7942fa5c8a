//===- FuseRmsNorm.cpp - neuron-fuse-rmsnorm -------------------------------===//
//
// Finds y = x * rsqrt(mean(x^2, axes) + eps) [* w] written op by op and
// replaces it by one neuron.rmsnorm. The match starts at the distinctive op
// (rsqrt, or sqrt followed by a reciprocal or a division), walks up to the
// mean and x², then down to the normalization product and the weight. Every
// candidate gets a decision with a reason.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSERMSNORMPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// A candidate under construction: every op it would absorb, with roles.
struct Candidate {
  Value x;                      // the normalized input
  SmallVector<int64_t> axes;    // reduced axes of x
  double epsilon = 0;
  Value weight;                 // optional
  Operation *root = nullptr;    // the op whose result the rmsnorm replaces
  SmallVector<Operation *> ops; // everything absorbed
  /// Ops whose only users must be inside the chain, with their role names.
  SmallVector<std::pair<Operation *, std::string>> intermediates;
};

/// The operand of a binary op that is not `v` (nullptr when `v` is neither).
Value otherOperand(Operation *op, Value v) {
  if (op->getOperand(0) == v)
    return op->getOperand(1);
  if (op->getOperand(1) == v)
    return op->getOperand(0);
  return {};
}

/// x for x², written as mul(x, x), pow(x, 2) or square(x).
Value squaredInput(Value sq) {
  Operation *op = sq.getDefiningOp();
  if (auto s = dyn_cast_or_null<SquareOp>(op))
    return s.getInput();
  if (auto m = dyn_cast_or_null<MulOp>(op); m && m.getLhs() == m.getRhs())
    return m.getLhs();
  if (auto p = dyn_cast_or_null<PowOp>(op); p && splatValue(p.getRhs()) == 2.0)
    return p.getLhs();
  return {};
}

/// Walks from the value that should be mean(x²) up to x². Fills the axes,
/// the divisor the program uses (N), and the ops. Returns the x² value or
/// null with `why` set.
Value matchMean(Value mean, Candidate &c, double &divisor, bool &explicitDivisor,
                std::string &why) {
  Operation *op = mean.getDefiningOp();
  // A reshape restoring the reduced dims after a non-keepdims reduction.
  if (auto reshape = dyn_cast_or_null<ReshapeOp>(op)) {
    c.ops.push_back(reshape);
    c.intermediates.push_back({reshape, "the reshaped mean"});
    mean = reshape.getInput();
    op = mean.getDefiningOp();
  }
  Value sum;
  explicitDivisor = true;
  if (auto m = dyn_cast_or_null<ReduceMeanOp>(op)) {
    explicitDivisor = false;
    sum = mean;
  } else if (auto m = dyn_cast_or_null<MulOp>(op)) {
    for (Value side : {m.getLhs(), m.getRhs()})
      if (std::optional<double> k = splatValue(otherOperand(m, side)); k && *k != 0) {
        if (!isa_and_nonnull<ReduceSumOp, ReshapeOp>(side.getDefiningOp()))
          continue;
        divisor = 1.0 / *k;
        sum = side;
        break;
      }
    if (sum) {
      c.ops.push_back(m);
      c.intermediates.push_back({m, "the scaled sum"});
    }
  } else if (auto d = dyn_cast_or_null<DivOp>(op)) {
    if (std::optional<double> k = splatValue(d.getRhs())) {
      divisor = *k;
      sum = d.getLhs();
      c.ops.push_back(d);
      c.intermediates.push_back({d, "the divided sum"});
    }
  }
  if (!sum) {
    why = "the value under the square root is not a mean (reduce_mean, reduce_sum * 1/N or "
          "reduce_sum / N)";
    return {};
  }
  if (auto reshape = sum.getDefiningOp<ReshapeOp>()) {
    c.ops.push_back(reshape);
    c.intermediates.push_back({reshape, "the reshaped sum"});
    sum = reshape.getInput();
  }
  // One reduction, or a chain of keepdims reductions over several axes.
  Value cur = sum;
  bool first = true;
  while (Operation *def = cur.getDefiningOp()) {
    ArrayRef<int64_t> axes;
    bool keepdims;
    Value input;
    if (auto r = dyn_cast<ReduceSumOp>(def)) {
      if (!explicitDivisor && !first)
        break; // a mean of a sum is not the mean of x²
      axes = r.getAxes(), keepdims = r.getKeepdims(), input = r.getInput();
    } else if (auto r = dyn_cast<ReduceMeanOp>(def)) {
      if (explicitDivisor || !first)
        break;
      axes = r.getAxes(), keepdims = r.getKeepdims(), input = r.getInput();
    } else {
      break;
    }
    if (!keepdims && !first) {
      why = "a chain of reductions without keepdims renumbers the axes";
      return {};
    }
    llvm::append_range(c.axes, axes);
    c.ops.push_back(def);
    c.intermediates.push_back({def, first ? "the mean" : "a partial sum"});
    first = false;
    cur = input;
  }
  if (first) {
    why = "the mean is not computed by a reduction";
    return {};
  }
  llvm::sort(c.axes);
  return cur;
}

/// Builds the candidate anchored at an rsqrt or sqrt op.
FailureOr<Candidate> analyze(Operation *anchor, std::string &why) {
  Candidate c;
  Value normalizer; // the value x is multiplied by (rsqrt(v) or 1/sqrt(v))
  Value varPlusEps;
  DivOp divByRoot;   // y = x / sqrt(v)
  c.ops.push_back(anchor);
  if (auto r = dyn_cast<RsqrtOp>(anchor)) {
    normalizer = r.getResult();
    varPlusEps = r.getInput();
    c.intermediates.push_back({anchor, "the rsqrt"});
  } else {
    auto s = cast<SqrtOp>(anchor);
    varPlusEps = s.getInput();
    c.intermediates.push_back({anchor, "the square root"});
    if (!s->hasOneUse()) {
      why = describe(anchor, "the square root") + " has " +
            std::to_string(std::distance(s->use_begin(), s->use_end())) + " users";
      return failure();
    }
    Operation *user = *s->user_begin();
    if (auto rec = dyn_cast<ReciprocalOp>(user)) {
      normalizer = rec.getResult();
      c.ops.push_back(rec);
      c.intermediates.push_back({rec, "the reciprocal"});
    } else if (auto div = dyn_cast<DivOp>(user); div && div.getRhs() == s.getResult()) {
      if (splatValue(div.getLhs()) == 1.0) {
        normalizer = div.getResult();
        c.ops.push_back(div);
        c.intermediates.push_back({div, "the reciprocal"});
      } else {
        divByRoot = div;
      }
    } else {
      why = "the square root is not inverted (no reciprocal or division follows)";
      return failure();
    }
  }

  // v + eps (eps may be absent).
  Value mean = varPlusEps;
  if (auto add = varPlusEps.getDefiningOp<AddOp>()) {
    std::optional<double> lhs = splatValue(add.getLhs()), rhs = splatValue(add.getRhs());
    if (!lhs && !rhs) {
      why = "epsilon is not a scalar constant";
      return failure();
    }
    c.epsilon = rhs ? *rhs : *lhs;
    mean = rhs ? add.getLhs() : add.getRhs();
    c.ops.push_back(add);
    c.intermediates.push_back({add, "the mean plus epsilon"});
  }

  double divisor = 0;
  bool explicitDivisor = false;
  Value sq = matchMean(mean, c, divisor, explicitDivisor, why);
  if (!sq)
    return failure();
  c.x = squaredInput(sq);
  if (!c.x) {
    why = "the reduced value is not a square of the input (mul(x, x), pow(x, 2) or square)";
    return failure();
  }
  c.ops.push_back(sq.getDefiningOp());
  c.intermediates.push_back({sq.getDefiningOp(), "x squared"});

  auto xType = typeOf(c.x);
  if (!xType.hasStaticShape() || !isa<FloatType>(xType.getElementType())) {
    why = "the input must be a statically shaped float tensor";
    return failure();
  }
  for (size_t i = 1; i < c.axes.size(); ++i)
    if (c.axes[i] != c.axes[i - 1] + 1) {
      why = "the reduced axes are not contiguous";
      return failure();
    }
  int64_t count = 1;
  for (int64_t a : c.axes)
    count *= xType.getDimSize(a);
  if (explicitDivisor && std::abs(divisor - count) > 1e-4 * count) {
    why = "the sum is divided by " + std::to_string(static_cast<int64_t>(std::llround(divisor))) +
          " but the reduced dims hold " + std::to_string(count) + " elements";
    return failure();
  }

  // The normalization product: x * normalizer (either order) or x / sqrt.
  Operation *product = divByRoot.getOperation();
  if (!product) {
    if (!normalizer.hasOneUse()) {
      why = describe(normalizer.getDefiningOp(), "the normalizer") + " has " +
            std::to_string(std::distance(normalizer.use_begin(), normalizer.use_end())) +
            " users";
      return failure();
    }
    product = *normalizer.user_begin();
    if (!isa<MulOp>(product)) {
      why = "the normalizer is not multiplied into the input";
      return failure();
    }
  }
  Value scaled = product == divByRoot.getOperation() ? divByRoot.getLhs()
                                                     : otherOperand(product, normalizer);
  if (scaled != c.x) {
    // (x * w) * normalizer: the weight is applied first.
    auto pre = scaled.getDefiningOp<MulOp>();
    Value w = pre ? otherOperand(pre, c.x) : Value();
    if (!w) {
      why = "the normalizer multiplies a value other than the squared input";
      return failure();
    }
    c.weight = w;
    c.ops.push_back(pre);
    c.intermediates.push_back({pre, "the weighted input"});
  }
  // The shape the normalizer broadcasts with must be x's with the reduced
  // axes at 1: otherwise it normalizes other axes than it reduced.
  Value normValue = divByRoot ? divByRoot.getRhs() : normalizer;
  ArrayRef<int64_t> ns = typeOf(normValue).getShape();
  for (int64_t d = 0; d < xType.getRank(); ++d) {
    int64_t want = llvm::is_contained(c.axes, d) ? 1 : xType.getDimSize(d);
    int64_t have = d - (xType.getRank() - static_cast<int64_t>(ns.size())) >= 0
                       ? ns[d - (xType.getRank() - ns.size())]
                       : 1;
    if (have != want && !(have == 1 && want == 1)) {
      why = "the reduced axes are not the axes the product normalizes";
      return failure();
    }
  }
  c.ops.push_back(product);
  c.root = product;

  // A weight applied after the product: (x * r) * w or w * (x * r).
  if (!c.weight && product->hasOneUse()) {
    if (auto post = dyn_cast<MulOp>(*product->user_begin())) {
      Value w = otherOperand(post, product->getResult(0));
      auto wType = typeOf(w);
      bool dependsOnChain = llvm::is_contained(c.ops, w.getDefiningOp()) || w == c.x;
      if (!dependsOnChain && post.getType() == xType &&
          isa<FloatType>(wType.getElementType())) {
        c.intermediates.push_back({product, "the normalized input"});
        c.weight = w;
        c.ops.push_back(post);
        c.root = post;
      }
    }
  }
  if (c.root->getResult(0).getType() != xType) {
    why = "the result does not have the input's type";
    return failure();
  }
  if (c.weight && typeOf(c.weight).getElementType() != xType.getElementType()) {
    why = "the weight's element type differs from the input's";
    return failure();
  }

  // Every intermediate must feed only the chain.
  llvm::SmallPtrSet<Operation *, 16> chain(c.ops.begin(), c.ops.end());
  for (auto &[op, role] : c.intermediates) {
    if (op == c.root)
      continue;
    int64_t outside = llvm::count_if(op->getUsers(), [&](Operation *u) {
      return !chain.contains(u);
    });
    if (outside) {
      why = describe(op, role) + " has " + std::to_string(outside) +
            " user(s) outside the chain; fusing would have to recompute or also return it";
      return failure();
    }
  }
  return c;
}

struct FuseRmsNormPass : mlir::neuron::impl::NeuronFuseRmsNormPassBase<FuseRmsNormPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> anchors;
    getOperation().walk([&](Operation *op) {
      if (isa<RsqrtOp, SqrtOp>(op))
        anchors.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 8> erased;
    for (Operation *anchor : anchors) {
      if (erased.contains(anchor))
        continue;
      std::string why;
      FailureOr<Candidate> c = analyze(anchor, why);
      if (failed(c)) {
        recordRejected(anchor, "rmsnorm", why);
        continue;
      }
      OpBuilder b(c->root);
      auto type = typeOf(c->x);
      auto fused = RmsNormOp::create(
          b, fusedLocation(c->ops), type, c->x, c->weight, b.getDenseI64ArrayAttr(c->axes),
          b.getF32FloatAttr(static_cast<float>(c->epsilon)));
      int64_t saved = bytesSaved(c->ops, fused);
      recordFused(fused, "rmsnorm", c->ops, saved);
      c->root->getResult(0).replaceAllUsesWith(fused.getResult());
      for (Operation *op : c->ops)
        erased.insert(op);
      eraseDeadChain(c->ops);
    }
  }
};

} // namespace
