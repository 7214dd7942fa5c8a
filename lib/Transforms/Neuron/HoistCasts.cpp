//===- HoistCasts.cpp - neuron-hoist-casts ---------------------------------===//
//
// --auto-cast narrows each matmul and convolution operand right before its
// user, so an activation reaches its cast through whatever moved it there:
// the head transposes of attention, a channel concat (SqueezeNet's fire
// modules, DenseNet, UNet's skips), a max pool, a channel shuffle's
// reshapes. Each such op moved f32 and the cast was a kernel of its own.
// Rounding to nearest commutes with moving elements and with max/min (it is
// monotone), so the cast moves above them, to the op that computes the
// value, whose kernel then writes the narrow type itself: the data movement
// moves half the bytes and the cast costs nothing. An attention, which
// rounds only its result, takes the cast as its result type.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONHOISTCASTSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// The operands of `op` that rounding commutes with (the values it only
/// moves or takes the max/min of), or none when it does not commute.
SmallVector<unsigned> commutingOperands(Operation *op) {
  if (isa<ReshapeOp, TransposeOp, BroadcastToOp, SliceOp>(op))
    return {0};
  if (auto concat = dyn_cast<ConcatOp>(op))
    return llvm::to_vector(llvm::seq<unsigned>(0, concat->getNumOperands()));
  if (auto pool = dyn_cast<PoolOp>(op); pool && pool.getKind() == PoolKind::max)
    return {0};
  // A lookup in a constant table: the table's cast folds at compile time and
  // the lookup moves narrow rows (a computed table stays: narrowing all of
  // it to gather a few rows would cost more).
  if (auto gather = dyn_cast<GatherOp>(op);
      gather && gather.getTable().getDefiningOp<ConstantOp>())
    return {0};
  return {};
}

/// Whether the single-use chain from `op` through ops that only move one
/// operand ends in a cast narrowing to `narrow`.
bool reachesCast(Operation *op, Type narrow) {
  while (op->getNumResults() == 1 && op->hasOneUse()) {
    Operation *user = *op->user_begin();
    if (auto c = dyn_cast<CastOp>(user))
      return isNarrowingFloatCast(c) && c.getType().getElementType() == narrow;
    if (!isa<ReshapeOp, TransposeOp, SliceOp>(user))
      return false;
    op = user;
  }
  return false;
}

/// Whether every user of `src` is a cast narrowing to `narrow` or a slice
/// that reaches one (a fused QKV projection split into Q, K and V, each
/// cast before its matmul): cast once, `src` is read only narrow.
bool slicesAllNarrowed(Value src, Type narrow) {
  return llvm::all_of(src.getUsers(), [&](Operation *u) {
    if (auto c = dyn_cast<CastOp>(u))
      return isNarrowingFloatCast(c) && c.getType().getElementType() == narrow;
    return isa<SliceOp>(u) && reachesCast(u, narrow);
  });
}

/// The values a cast of `v` reaches when moved as far up as it goes: through
/// every op the rounding commutes with whose value is read only through
/// casts to `narrow` (its one user, or sibling slices that each reach such a
/// cast: Q, K and V split from one projection). `shrinks` is set when one of
/// those ops has fewer elements than it reads (a slice, a pool) and its
/// siblings do not all narrow too: a cast moved above it converts more
/// elements than before.
void landings(Value v, Type narrow, SmallVectorImpl<Value> &out, bool &shrinks) {
  Operation *def = v.getDefiningOp();
  SmallVector<unsigned> operands;
  if (def && def->getNumResults() == 1 && (def->hasOneUse() || slicesAllNarrowed(v, narrow)))
    operands = commutingOperands(def);
  if (operands.empty()) {
    out.push_back(v);
    return;
  }
  int64_t read = 0;
  for (unsigned i : operands) {
    read += cast<RankedTensorType>(def->getOperand(i).getType()).getNumElements();
    landings(def->getOperand(i), narrow, out, shrinks);
  }
  // Sibling slices that all narrow and together read all of their source
  // (Q, K and V of one projection) convert no more elements above it.
  bool siblingsNarrow = false;
  if (isa<SliceOp>(def) && slicesAllNarrowed(def->getOperand(0), narrow)) {
    Value src = def->getOperand(0);
    int64_t sliced = 0;
    for (Operation *u : src.getUsers())
      sliced += cast<RankedTensorType>(u->getResult(0).getType()).getNumElements();
    siblingsNarrow = sliced >= cast<RankedTensorType>(src.getType()).getNumElements();
  }
  if (read > cast<RankedTensorType>(v.getType()).getNumElements() && !siblingsNarrow)
    shrinks = true;
}

/// Whether a cast placed right after `v` costs no kernel: it folds (a
/// constant), or general fusion takes it into the kernel of the op computing
/// `v`, whose only user it is.
bool absorbs(Value v, Type narrow) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<ConstantOp>(def))
    return true;
  if (auto r = dyn_cast<ReshapeOp>(def); r && fusion::regroupsDims(r))
    return false; // general fusion keeps it out of kernels
  // An attention read only through the cast writes the narrow type itself
  // (NarrowAttention).
  if (isa<AttentionOp>(def))
    return v.hasOneUse();
  // Read only through casts and sibling slices that reach casts: once all
  // are moved up, one cast is its only user.
  return (v.hasOneUse() || slicesAllNarrowed(v, narrow)) &&
         (fusion::isElementwise(def) || fusion::isReduction(def) || fusion::isHero(def));
}

/// cast(op(x, ...)) -> op(cast(x), ...) for an op the rounding commutes
/// with, when the cast is its only user.
struct HoistNarrowingCast : OpRewritePattern<CastOp> {
  HoistNarrowingCast(MLIRContext *ctx, func::FuncOp fn) : OpRewritePattern(ctx), fn(fn) {}

  LogicalResult matchAndRewrite(CastOp castOp, PatternRewriter &rewriter) const override {
    if (!isNarrowingFloatCast(castOp))
      return rewriter.notifyMatchFailure(castOp, "not a narrowing float cast");
    Operation *def = castOp.getInput().getDefiningOp();
    if (!def || def->getNumResults() != 1)
      return rewriter.notifyMatchFailure(castOp, "the input is not one op's only result");
    SmallVector<unsigned> operands = commutingOperands(def);
    if (operands.empty())
      return rewriter.notifyMatchFailure(castOp, "rounding does not commute with the producer");
    std::string why;
    Type narrow = castOp.getType().getElementType();
    SmallVector<Value> land;
    bool shrinks = false;
    landings(castOp.getInput(), narrow, land, shrinks);
    bool free = llvm::all_of(land, [&](Value v) { return absorbs(v, narrow); });
    if (!def->hasOneUse() && slicesAllNarrowed(def->getResult(0), narrow))
      return rewriter.notifyMatchFailure(
          castOp, "sibling slices still read the producer wide; their casts move first");
    if (!def->hasOneUse())
      why = fusion::describe(def, "the producer") +
            " has other users that read it wide: the cast stays after it";
    else if (!free && land.size() > 1)
      why = "moved up, the cast would become " + std::to_string(land.size()) +
            " casts, not all of which join a kernel";
    else if (!free && shrinks)
      why = "moved up, the cast would convert more elements (above a slice or pool) and "
            "still be a kernel of its own";
    else if (!free && onlyConvertingUses(castOp.getResult()))
      why = "its users convert the operand on chip; moved up to a value no kernel "
            "writes narrow, the cast would be a kernel of its own";
    if (!why.empty()) {
      if (explained.insert(castOp).second)
        neuronc::recordFusionDecision(fn, {"hoist-cast", false, why, castOp.getLoc(), {}, 0});
      return rewriter.notifyMatchFailure(castOp, "moving the cast up saves nothing");
    }
    IRMapping map;
    for (unsigned i : operands) {
      Value v = def->getOperand(i);
      auto type = cast<RankedTensorType>(v.getType()).clone(narrow);
      // One cast per value: a sibling slice's cast already made, placed
      // right after the value so that every user may read it.
      Value narrowed;
      for (Operation *u : v.getUsers())
        if (auto c = dyn_cast<CastOp>(u);
            c && c.getType() == type && c->getBlock() == def->getBlock() &&
            c->isBeforeInBlock(def))
          narrowed = c;
      if (!narrowed) {
        rewriter.setInsertionPointAfterValue(v);
        narrowed = CastOp::create(rewriter, castOp.getLoc(), type, v);
      }
      map.map(v, narrowed);
    }
    rewriter.setInsertionPoint(def);
    Operation *moved = rewriter.clone(*def, map);
    moved->getResult(0).setType(castOp.getType());
    auto wide = cast<RankedTensorType>(def->getResult(0).getType());
    int64_t saved = wide.getNumElements() *
                    (wide.getElementTypeBitWidth() - castOp.getType().getElementTypeBitWidth()) / 8;
    neuronc::recordFusionDecision(fn, {"hoist-cast", true, "", castOp.getLoc(), {def->getLoc()},
                                       2 * saved});
    rewriter.replaceOp(castOp, moved->getResults());
    rewriter.eraseOp(def);
    return success();
  }

  func::FuncOp fn;
  /// Casts whose refusal is already recorded (the driver may visit one again).
  mutable llvm::SmallPtrSet<Operation *, 16> explained;
};

/// cast(attention) -> an attention whose result is the narrow type: it sums
/// in f32 and rounds only its result, as the cast did (results are
/// bit-identical), and its kernel stores half the bytes, which the next
/// kernel (the out-projection) loads without converting.
struct NarrowAttention : OpRewritePattern<CastOp> {
  NarrowAttention(MLIRContext *ctx, func::FuncOp fn) : OpRewritePattern(ctx), fn(fn) {}

  LogicalResult matchAndRewrite(CastOp castOp, PatternRewriter &rewriter) const override {
    if (!isNarrowingFloatCast(castOp))
      return rewriter.notifyMatchFailure(castOp, "not a narrowing float cast");
    auto attention = castOp.getInput().getDefiningOp<AttentionOp>();
    if (!attention)
      return rewriter.notifyMatchFailure(castOp, "the input is not an attention's result");
    if (!attention->hasOneUse()) {
      if (explained.insert(castOp).second)
        neuronc::recordFusionDecision(
            fn, {"hoist-cast", false,
                 fusion::describe(attention, "the attention") +
                     " has other users that read it wide: the cast stays after it",
                 castOp.getLoc(), {}, 0});
      return rewriter.notifyMatchFailure(castOp, "the attention's result is also read wide");
    }
    auto wide = attention.getType();
    int64_t saved = wide.getNumElements() *
                    (wide.getElementTypeBitWidth() - castOp.getType().getElementTypeBitWidth()) / 8;
    rewriter.modifyOpInPlace(attention,
                             [&] { attention.getResult().setType(castOp.getType()); });
    neuronc::recordFusionDecision(
        fn, {"hoist-cast", true, "", castOp.getLoc(), {attention.getLoc()}, 2 * saved});
    rewriter.replaceOp(castOp, attention.getResult());
    return success();
  }

  func::FuncOp fn;
  /// Casts whose refusal is already recorded (the driver may visit one again).
  mutable llvm::SmallPtrSet<Operation *, 16> explained;
};

/// Moves narrowing casts above the ops they commute with.
struct HoistCastsPass : mlir::neuron::impl::NeuronHoistCastsPassBase<HoistCastsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<HoistNarrowingCast, NarrowAttention>(&getContext(), getOperation());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
