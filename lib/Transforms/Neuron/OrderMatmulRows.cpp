//===- OrderMatmulRows.cpp - neuron-order-matmul-rows ----------------------===//
//
// A matmul by a shared [K, N] weight computes each row of its result from
// the same row of its lhs, so its rows may run in any order; the lowering
// runs them in the order of the leading dims, 128 per tile. An attention
// reading the result through slices, head reshapes and transposes wants each
// head's query (key, value) rows on consecutive partitions. The
// sequence-first layout nn.MultiheadAttention and nn.TransformerEncoderLayer
// use by default (and export with batch_first=True too, transposing the
// input first) puts the sequence dim outermost: [L, B, E] rows interleave
// the batches, so no output tile of the in-projection is a head's rows and
// the attention reloads them from HBM in runs of one head's width.
//
// Here such a matmul's leading dims are permuted so that the dim the
// attention reads as rows is innermost: matmul(x) becomes
// transpose⁻¹(matmul(transpose(x))), with the row-wise ops after it (casts,
// bias adds, activations) computed in the new order too. Both transposes
// fold into the kernels' loads and stores (nisa-fold-copy-kernels); the
// attention's row tiles are then the matmul's output tiles, partition for
// partition, which nisa-forward-stores reads from SBUF.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONORDERMATMULROWSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// How many view ops a path from the matmul to its attention may cross.
constexpr int kMaxViewDepth = 8;

/// Whether `op` computes each element of its result from the same element
/// of `v` (and operands broadcast along every dim but the last), so that it
/// runs in any order of `v`'s leading dims.
bool rowWise(Operation *op, Value v) {
  auto vt = cast<RankedTensorType>(v.getType());
  auto rt = op->getNumResults() == 1 ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                                     : RankedTensorType();
  if (!rt || rt.getShape() != vt.getShape())
    return false;
  if (isa<CastOp>(op))
    return true;
  if (!fusion::isElementwise(op) || isa<ReshapeOp, BroadcastToOp>(op))
    return false;
  for (Value operand : op->getOperands()) {
    if (operand == v)
      continue;
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return false;
    // Every dim aligned with a leading dim of the result must be 1.
    for (int64_t d = 0; d + 1 < type.getRank(); ++d)
      if (type.getDimSize(d) != 1)
        return false;
  }
  return true;
}

/// Where dim `dim` of `user`'s operand is in its result, when the user only
/// moves elements and keeps that dim whole.
std::optional<int64_t> followDim(Operation *user, int64_t dim) {
  if (isa<CastOp>(user))
    return dim;
  if (auto slice = dyn_cast<SliceOp>(user)) {
    auto in = cast<RankedTensorType>(slice.getInput().getType());
    if (slice.getOffsets()[dim] != 0 || slice.getStrides()[dim] != 1 ||
        slice.getSizes()[dim] != in.getDimSize(dim))
      return std::nullopt;
    return dim;
  }
  if (auto t = dyn_cast<TransposeOp>(user)) {
    for (auto [j, p] : llvm::enumerate(t.getPerm()))
      if (p == dim)
        return static_cast<int64_t>(j);
    return std::nullopt;
  }
  if (auto r = dyn_cast<ReshapeOp>(user)) {
    // The dim survives when some result dim has its size and the same
    // number of elements before it.
    auto in = cast<RankedTensorType>(r.getInput().getType());
    auto out = cast<RankedTensorType>(r.getType());
    if (!in.hasStaticShape() || !out.hasStaticShape())
      return std::nullopt;
    int64_t before = 1;
    for (int64_t d = 0; d < dim; ++d)
      before *= in.getDimSize(d);
    int64_t prefix = 1;
    for (int64_t j = 0; j < out.getRank(); ++j) {
      if (prefix == before && out.getDimSize(j) == in.getDimSize(dim))
        return j;
      prefix *= out.getDimSize(j);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// What tracing a value's uses to attentions found.
struct Trace {
  bool attention = false; ///< some use reaches an attention
  std::string why;        ///< the first path that does not end in its rows
};

/// Whether every use of `v` reaches an attention's query, key or value
/// through views that keep dim `dim` whole, and arrives there as the rows
/// (the dim before the head dim).
bool reachesRows(Value v, int64_t dim, Trace &trace, int depth = 0) {
  bool ok = true;
  auto refuse = [&](const std::string &why) {
    if (trace.why.empty())
      trace.why = why;
    ok = false;
  };
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto att = dyn_cast<AttentionOp>(user)) {
      trace.attention = true;
      unsigned idx = use.getOperandNumber();
      int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
      if (idx > 2)
        refuse("the attention reads it as its mask");
      else if (idx == 1 && att.getKeyTransposed())
        refuse("the attention reads it as transposed keys");
      else if (dim != rank - 2)
        refuse("the attention's rows are not one dim of the matmul's rows");
      continue;
    }
    std::optional<int64_t> next = followDim(user, dim);
    if (!next || depth >= kMaxViewDepth) {
      refuse(fusion::describe(user, "the reader") +
             " is neither an attention nor a view that keeps the rows whole");
      continue;
    }
    // Followed on after a refusal too: whether an attention is reached
    // decides if the refusal is worth a report entry.
    if (!reachesRows(user->getResult(0), *next, trace, depth + 1))
      ok = false;
  }
  return ok;
}

/// `type` with its dims permuted: result dim i is dim perm[i].
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return type.clone(shape);
}

struct OrderMatmulRowsPass
    : mlir::neuron::impl::NeuronOrderMatmulRowsPassBase<OrderMatmulRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    SmallVector<MatmulOp> candidates;
    fn.walk([&](MatmulOp mm) { candidates.push_back(mm); });
    for (MatmulOp mm : candidates)
      order(fn, mm);
  }

  /// Permutes `mm`'s leading dims (and its row-wise epilogue's) so that the
  /// dim its attention reads as rows is innermost.
  void order(func::FuncOp fn, MatmulOp mm) {
    auto lhsType = dyn_cast<RankedTensorType>(mm.getLhs().getType());
    auto rhsType = dyn_cast<RankedTensorType>(mm.getRhs().getType());
    RankedTensorType type = mm.getType();
    if (!lhsType || !rhsType || rhsType.getRank() != 2 || mm.getTransposeLhs() ||
        lhsType.getRank() < 3 || !type.hasStaticShape())
      return;
    // The row-wise ops that follow it, as one chain.
    SmallVector<Operation *> chain;
    Value head = mm.getResult();
    while (head.hasOneUse() && rowWise(*head.user_begin(), head)) {
      chain.push_back(*head.user_begin());
      head = chain.back()->getResult(0);
    }
    int64_t lead = type.getRank() - 1;
    // The leading dim the attention reads as rows, tried from the
    // innermost non-unit one (already in place: nothing to do) outwards.
    Trace trace;
    std::optional<int64_t> rows;
    bool innermost = true;
    for (int64_t d = lead - 1; d >= 0 && !rows; --d) {
      if (type.getDimSize(d) == 1)
        continue;
      Trace t;
      if (reachesRows(head, d, t)) {
        if (innermost)
          return;
        rows = d;
      }
      // The refusal worth reporting: the innermost that reached an attention.
      if (t.attention && !trace.attention)
        trace = t;
      innermost = false;
    }
    if (!rows) {
      if (trace.attention && !trace.why.empty())
        neuronc::recordFusionDecision(
            fn, {"matmul-row-order", false, trace.why, mm.getLoc(), {}, 0});
      return;
    }
    // perm moves dim *rows to the last leading place.
    SmallVector<int64_t> perm, inverse(type.getRank());
    for (int64_t d = 0; d < lead; ++d)
      if (d != *rows)
        perm.push_back(d);
    perm.append({*rows, lead});
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = static_cast<int64_t>(i);

    OpBuilder b(mm);
    // The lhs: under its single-use casts, so that a transpose it came
    // through folds with this one.
    SmallVector<CastOp> casts;
    Value src = mm.getLhs();
    while (auto c = src.getDefiningOp<CastOp>()) {
      if (!c->hasOneUse())
        break;
      casts.push_back(c);
      src = c.getInput();
    }
    auto srcType = cast<RankedTensorType>(src.getType());
    // (Folds with a transpose the lhs came through: batch_first's.)
    Value lhs = b.createOrFold<TransposeOp>(mm.getLoc(), permuted(srcType, perm), src,
                                            b.getDenseI64ArrayAttr(perm));
    for (CastOp c : llvm::reverse(casts))
      lhs = CastOp::create(b, c.getLoc(), permuted(c.getType(), perm), lhs);
    mm.getLhsMutable().assign(lhs);
    for (CastOp c : casts)
      if (c->use_empty())
        c->erase();
    if (Operation *old = src.getDefiningOp(); old && isOpTriviallyDead(old))
      old->erase();
    mm.getResult().setType(permuted(type, perm));
    for (Operation *op : chain)
      op->getResult(0).setType(
          permuted(cast<RankedTensorType>(op->getResult(0).getType()), perm));
    b.setInsertionPointAfterValue(head);
    auto back = TransposeOp::create(
        b, mm.getLoc(), permuted(cast<RankedTensorType>(head.getType()), inverse), head,
        b.getDenseI64ArrayAttr(inverse));
    head.replaceAllUsesExcept(back, back);
    neuronc::recordFusionDecision(
        fn, {"matmul-row-order", true, "", mm.getLoc(), {}, 0});
  }
};

} // namespace
