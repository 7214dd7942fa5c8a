//===- FuseAttention.cpp - neuron-fuse-attention ----------------------------===//
//
// Scaled dot-product attention as exporters write it, into neuron.attention:
//   matmul(q, kᵀ) [× or ÷ scale] [+ mask] → softmax(last axis) [→ cast]
//   → matmul(·, v)
// with the scale also on q (or k) before the first matmul, kᵀ as the
// matmul's transpose_rhs (neuron-fold-transposes runs first), casts of
// --auto-cast anywhere on the way, and grouped-query attention's repeated
// K/V (repeat_kv: reshape, broadcast, reshape) read from the unrepeated
// heads. A constant mask that is 0 on and below a diagonal and very negative
// above it becomes the op's causal offset, so the mask is never read. The
// anchor is the softmax; every one next to a matmul gets a fusion-report
// entry, fused or with the reason it was not.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Support/Shape.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSEATTENTIONPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// A masked score at or below this is a dropped key: exp underflows to 0 in
/// f32 unless the unmasked scores of a row spread over 10⁴.
constexpr double kMaskedScore = -1.0e4;

/// The single user of `v`, if it has exactly one.
Operation *soleUser(Value v) { return v.hasOneUse() ? *v.user_begin() : nullptr; }

/// A float→float cast feeding `v`'s walk (--auto-cast's), or null.
CastOp floatCast(Value v) {
  auto c = v.getDefiningOp<CastOp>();
  if (c && isa<FloatType>(c.getInput().getType().getElementType()) &&
      isa<FloatType>(c.getType().getElementType()))
    return c;
  return {};
}

/// x for `x + 0` with a splat zero that does not broadcast x (a no-op
/// exporters leave), else null.
Value addsZero(Value v) { return zeroAddOperand(v, /*sameShape=*/true); }

/// True for a reshape that only regroups the leading (batch and head) dims
/// of a matrix stack: the last two dims stay.
bool regroupsBatch(ReshapeOp r) {
  auto in = r.getInput().getType(), out = r.getType();
  return in.hasStaticShape() && out.hasStaticShape() && in.getRank() >= 2 && out.getRank() >= 2 &&
         in.getShape().take_back(2) == out.getShape().take_back(2);
}

/// An operand of the attention before --auto-cast's cast and grouped-query
/// attention's repeat: `source`, to be cast to `castTo` (null: kept) and
/// viewed as `shape` (the matmul operand's shape with R times fewer heads).
struct Operand {
  Value source;
  Type castTo;
  SmallVector<int64_t> shape;
  SmallVector<Operation *> ops; ///< the peeled cast and repeat ops
};

/// The value a repeat_kv pattern repeats, and the repeat count R:
/// `outer` = reshape of [.., G, R, N, D], which broadcasts (broadcast_to, or
/// an add of a splat zero) [.., G, 1, N, D], a reshape of the source. The
/// reshape may merge batch and head dims ([B·G·R, N, D], TOSA's rank-3
/// matmuls) as long as the heads dim stays a multiple of R.
std::pair<Value, int64_t> repeatSource(ReshapeOp outer, SmallVectorImpl<Operation *> &ops) {
  Value wide = outer.getInput();
  Operation *bcast = wide.getDefiningOp();
  Value src = broadcastSource(wide);
  if (!src)
    return {};
  auto inner = src.getDefiningOp<ReshapeOp>();
  if (!inner)
    return {};
  auto wideType = cast<RankedTensorType>(wide.getType());
  auto unitType = cast<RankedTensorType>(src.getType());
  auto headsType = cast<RankedTensorType>(inner.getInput().getType());
  auto outType = cast<RankedTensorType>(outer.getType());
  int64_t w = wideType.getRank(), r = outType.getRank();
  if (!wideType.hasStaticShape() || !headsType.hasStaticShape() || !outType.hasStaticShape() ||
      w < 4 || r < 3 || unitType.getRank() != w)
    return {};
  ArrayRef<int64_t> unit = unitType.getShape(), wd = wideType.getShape(), out = outType.getShape(),
                    heads = headsType.getShape();
  int64_t rep = wd[w - 3];
  for (int64_t d = 0; d < w; ++d)
    if (d != w - 3 && unit[d] != wd[d])
      return {};
  if (unit[w - 3] != 1 || rep < 2 || heads.size() < 2 || heads.take_back(2) != wd.take_back(2) ||
      out.take_back(2) != wd.take_back(2) || out[r - 3] % rep != 0)
    return {};
  ops.append({outer, bcast, inner});
  return {inner.getInput(), rep};
}

/// Peels a cast and a repeat_kv off a matmul operand (in either order).
Operand peel(Value v) {
  Operand o;
  o.shape.assign(cast<RankedTensorType>(v.getType()).getShape().begin(),
                 cast<RankedTensorType>(v.getType()).getShape().end());
  auto skipNoOps = [&](Value x) {
    while (Value y = addsZero(x)) {
      if (!x.hasOneUse())
        break;
      o.ops.push_back(x.getDefiningOp());
      x = y;
    }
    return x;
  };
  v = skipNoOps(v);
  if (CastOp c = floatCast(v)) {
    o.castTo = c.getType().getElementType();
    o.ops.push_back(c);
    v = c.getInput();
  }
  if (auto r = v.getDefiningOp<ReshapeOp>())
    if (auto [src, rep] = repeatSource(r, o.ops); src) {
      v = src;
      o.shape[o.shape.size() - 3] /= rep;
      if (CastOp c = floatCast(v); c && !o.castTo) {
        o.castTo = c.getType().getElementType();
        o.ops.push_back(c);
        v = c.getInput();
      }
    }
  v = skipNoOps(v);
  // A batch regrouping of the source (the matmul's [B·H, N, D] view of a
  // [B, H, N, D] tensor) moves no data: read the source as the operand's shape.
  while (auto r = v.getDefiningOp<ReshapeOp>()) {
    if (!regroupsBatch(r) || !r->hasOneUse())
      break;
    o.ops.push_back(r);
    v = skipNoOps(r.getInput());
  }
  o.source = v;
  return o;
}

/// The causal offset `c` of a constant mask over [M, N] (leading dims 1) that
/// is 0 where j <= i + c and at most kMaskedScore elsewhere.
std::optional<int64_t> causalOffset(Value mask) {
  while (auto r = mask.getDefiningOp<ReshapeOp>())
    mask = r.getInput();
  auto c = mask.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  auto type = cast<RankedTensorType>(mask.getType());
  if (!dense || dense.isSplat() || type.getRank() < 2 || !type.hasStaticShape())
    return std::nullopt;
  for (int64_t d = 0; d + 2 < type.getRank(); ++d)
    if (type.getDimSize(d) != 1)
      return std::nullopt;
  int64_t m = type.getDimSize(type.getRank() - 2), n = type.getDimSize(type.getRank() - 1);
  SmallVector<double> values;
  values.reserve(m * n);
  for (APFloat f : dense.getValues<APFloat>())
    values.push_back(f.convertToDouble());
  // Row 0's visible prefix fixes the offset; every row must agree.
  int64_t visible0 = 0;
  while (visible0 < n && values[visible0] == 0.0)
    ++visible0;
  int64_t offset = visible0 - 1;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double x = values[i * n + j];
      bool seen = j <= i + offset;
      if (seen ? x != 0.0 : !(x <= kMaskedScore))
        return std::nullopt;
    }
  if (offset + m - 1 < 0)
    return std::nullopt; // some row sees nothing
  return offset;
}

/// One recognized attention.
struct Match {
  Value q; ///< the query as the scores matmul reads it (its own casts kept)
  /// Set when a power-of-two scale was peeled from under q's cast: q is
  /// the unscaled value, cast to this type by the fused op's builder.
  Type qCastTo;
  Operand k, v;
  Value mask;
  RankedTensorType maskScores;    ///< the shape the mask was added at
  SmallVector<int64_t> maskShape; ///< the mask as the attention reads it
  double scale = 1.0;
  bool keyTransposed = false;
  MatmulOp scores, output;
  SmallVector<Operation *> ops; ///< every op the fused op replaces
};

/// Folds a multiply or divide by a splat into `scale`; false otherwise.
bool foldScale(Operation *op, Value chain, double &scale) {
  if (!op || op->getNumOperands() != 2)
    return false;
  Value other = op->getOperand(0) == chain ? op->getOperand(1) : op->getOperand(0);
  std::optional<double> c = getSplatValue(other);
  // 1 / √d as an exporter writes it: reciprocal(splat √d).
  if (auto rec = other.getDefiningOp<ReciprocalOp>(); rec && !c)
    if (std::optional<double> d = getSplatValue(rec.getInput()); d && *d != 0.0)
      c = 1.0 / *d;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto chainType = cast<RankedTensorType>(chain.getType());
  // The splat may regroup leading dims (a [1, B, M, N] splat times [B, M, N]
  // scores), never repeat the scores.
  if (!c || other == chain || !result.hasStaticShape() || !chainType.hasStaticShape() ||
      result.getNumElements() != chainType.getNumElements() || result.getRank() < 2 ||
      chainType.getRank() < 2 ||
      result.getShape().take_back(2) != chainType.getShape().take_back(2))
    return false;
  if (isa<MulOp>(op)) {
    scale *= *c;
    return true;
  }
  if (isa<DivOp>(op) && op->getOperand(0) == chain && *c != 0.0) {
    scale /= *c;
    return true;
  }
  return false;
}

/// Analyzes the attention around `sm`.
FailureOr<Match> analyze(SoftmaxOp sm, std::string &why) {
  Match m;
  auto xType = sm.getInput().getType();
  if (sm.getLog() || static_cast<int64_t>(sm.getAxis()) != xType.getRank() - 1) {
    why = "the softmax is not a plain softmax over the last axis";
    return failure();
  }
  m.ops.push_back(sm);
  // Down: [cast] → matmul(p, v).
  Value p = sm.getResult();
  Operation *user = soleUser(p);
  while (user && !isa<MatmulOp>(user)) {
    auto r = dyn_cast<ReshapeOp>(user);
    bool noOp = (r && regroupsBatch(r)) || isa<CastOp>(user) ||
                (isa<AddOp>(user) && addsZero(user->getResult(0)) == p);
    if (!noOp)
      break;
    m.ops.push_back(user);
    p = user->getResult(0);
    user = soleUser(p);
  }
  m.output = dyn_cast_or_null<MatmulOp>(user);
  if (!m.output || m.output.getLhs() != p) {
    why = "the probabilities do not feed one matmul as its left operand";
    return failure();
  }
  if (m.output.getTransposeLhs() || m.output.getTransposeRhs()) {
    why = "the second matmul has transposed operands";
    return failure();
  }
  // Up: [cast | mul/div by a splat | + mask]* → matmul(q, kᵀ).
  Value x = sm.getInput();
  while (true) {
    Operation *def = x.getDefiningOp();
    if (!def) {
      why = "the scores are not computed by a matmul";
      return failure();
    }
    if (auto mm = dyn_cast<MatmulOp>(def)) {
      m.scores = mm;
      break;
    }
    if (!x.hasOneUse()) {
      why = describe(def, "an intermediate") + " has users outside the attention";
      return failure();
    }
    m.ops.push_back(def);
    if (CastOp c = floatCast(x)) {
      x = c.getInput();
      continue;
    }
    if (auto r = dyn_cast<ReshapeOp>(def); r && regroupsBatch(r)) {
      x = r.getInput();
      continue;
    }
    if (Value y = addsZero(x)) {
      x = y;
      continue;
    }
    if (auto add = dyn_cast<AddOp>(def)) {
      if (m.mask) {
        why = "more than one mask is added to the scores";
        return failure();
      }
      // The chain side is the one a matmul produces on the way up.
      auto chainSide = [&](Value c) {
        for (Operation *d = c.getDefiningOp(); d; d = d->getOperand(0).getDefiningOp()) {
          if (isa<MatmulOp>(d))
            return true;
          if (!isa<CastOp, MulOp, DivOp, AddOp, ReshapeOp>(d))
            return false;
        }
        return false;
      };
      bool lhsChain = chainSide(add.getLhs());
      x = lhsChain ? add.getLhs() : add.getRhs();
      m.mask = lhsChain ? add.getRhs() : add.getLhs();
      m.maskScores = add.getType();
      continue;
    }
    Value chain = def->getNumOperands() == 2 && getSplatValue(def->getOperand(0))
                      ? def->getOperand(1)
                      : def->getOperand(0);
    if (foldScale(def, chain, m.scale)) {
      x = chain;
      continue;
    }
    why = describe(def, "an op between the matmul and the softmax") +
          " is not a scale, a mask or a cast";
    return failure();
  }
  if (!m.scores->hasOneUse()) {
    why = "the scores matmul has other users";
    return failure();
  }
  m.ops.push_back(m.scores);
  if (m.scores.getTransposeLhs()) {
    why = "the first matmul reads q transposed";
    return failure();
  }
  m.keyTransposed = !m.scores.getTransposeRhs(); // kᵀ given as [.., D, N]
  // A scale on q (or k) before the matmul, as q * d^-0.5 or both by d^-0.25.
  auto peelScale = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && v.hasOneUse() && isa<MulOp, DivOp>(def)) {
      Value chain = getSplatValue(def->getOperand(0)) ? def->getOperand(1) : def->getOperand(0);
      if (chain.getType() == v.getType() && foldScale(def, chain, m.scale)) {
        m.ops.push_back(def);
        return chain;
      }
    }
    return v;
  };
  m.q = peelScale(m.scores.getLhs());
  // --auto-cast's cast of a scaled q: the scale folds into the attention
  // and the cast applies to the unscaled q, which then shares its cast with
  // K and V (one cast of a fused projection, --neuron-hoist-casts). A
  // power-of-two scale (head dims 4^n) commutes with the rounding: the
  // results are bit-identical. Any other rounds q instead of q·scale and
  // applies the scale in f32 to the scores: one bf16 rounding of q either
  // way, as close to the f32 model.
  if (CastOp c = floatCast(m.q); c && m.q.hasOneUse()) {
    Value unscaled = peelScale(c.getInput());
    if (unscaled != c.getInput()) {
      m.ops.push_back(c);
      m.qCastTo = c.getType().getElementType();
      m.q = unscaled;
    }
  }
  m.k = peel(peelScale(m.scores.getRhs()));
  m.v = peel(m.output.getRhs());
  for (Operand *o : {&m.k, &m.v})
    for (Operation *op : o->ops)
      if (!op->getResult(0).hasOneUse()) {
        why = describe(op, "the repeated key/value") + " has other users";
        return failure();
      }
  m.ops.append(m.k.ops.begin(), m.k.ops.end());
  m.ops.append(m.v.ops.begin(), m.v.ops.end());
  m.ops.push_back(m.output);

  auto qT = cast<RankedTensorType>(m.q.getType());
  auto kT = RankedTensorType::get(m.k.shape,
                                  cast<RankedTensorType>(m.k.source.getType()).getElementType());
  auto vT = RankedTensorType::get(m.v.shape,
                                  cast<RankedTensorType>(m.v.source.getType()).getElementType());
  auto outT = m.output.getType();
  int64_t rank = qT.getRank();
  if (!qT.hasStaticShape() || !kT.hasStaticShape() || !vT.hasStaticShape() ||
      !outT.hasStaticShape()) {
    why = "the shapes are not static (bucket the dynamic dims first)";
    return failure();
  }
  if (rank < 3 || kT.getRank() != rank || vT.getRank() != rank || outT.getRank() != rank) {
    why = "query, key and value are not [.., heads, rows, head_dim] of one rank";
    return failure();
  }
  int64_t kd = kT.getDimSize(rank - (m.keyTransposed ? 2 : 1));
  if (kd != qT.getDimSize(rank - 1)) {
    why = "query and key head dims differ";
    return failure();
  }
  if (qT.getShape().drop_back(3) != kT.getShape().drop_back(3) ||
      qT.getShape().drop_back(3) != vT.getShape().drop_back(3)) {
    why = "query, key and value have different batch dims (a broadcast batch)";
    return failure();
  }
  int64_t h = qT.getDimSize(rank - 3), g = kT.getDimSize(rank - 3);
  if (vT.getDimSize(rank - 3) != g || h % g != 0) {
    why = "the key/value heads do not divide the query heads";
    return failure();
  }
  // The fused kernel accumulates P·V of a block in one PSUM bank.
  int64_t bank = neuronc::hardwareModels().front().psumBankFp32();
  if (vT.getDimSize(rank - 1) > bank) {
    why = "the value head dim " + std::to_string(vT.getDimSize(rank - 1)) +
          " exceeds one PSUM bank (" + std::to_string(bank) + " f32)";
    return failure();
  }
  Type kElem = m.k.castTo ? m.k.castTo : kT.getElementType();
  Type vElem = m.v.castTo ? m.v.castTo : vT.getElementType();
  Type qElem = m.qCastTo ? m.qCastTo : qT.getElementType();
  if (qElem != kElem || kElem != vElem) {
    why = "query, key and value reach the matmuls in different element types";
    return failure();
  }
  if (m.mask) {
    SmallVector<int64_t> scores(qT.getShape());
    scores.back() = vT.getDimSize(rank - 2);
    auto maskT = cast<RankedTensorType>(m.mask.getType());
    if (!isa<FloatType>(maskT.getElementType()) || !maskT.hasStaticShape()) {
      why = "the mask is not a statically shaped float tensor";
      return failure();
    }
    m.maskShape.assign(maskT.getShape().begin(), maskT.getShape().end());
    if (m.maskScores.getShape() != ArrayRef<int64_t>(scores)) {
      // Added where the scores had other batch dims: a mask shared by all
      // of them is its last two dims; one per score is the scores' shape.
      ArrayRef<int64_t> ms = maskT.getShape();
      bool shared =
          ms.size() >= 2 && llvm::all_of(ms.drop_back(2), [](int64_t d) { return d == 1; });
      if (shared)
        m.maskShape.assign(ms.take_back(2).begin(), ms.take_back(2).end());
      else if (maskT.getShape() == m.maskScores.getShape())
        m.maskShape = scores;
      else {
        why = "the mask broadcasts over batch dims that a reshape regroups";
        return failure();
      }
    }
    if (!neuronc::isBroadcastableTo(m.maskShape, scores)) {
      why = "the mask does not broadcast to the scores";
      return failure();
    }
  }
  return m;
}

/// kᵀ made by a transpose `t` that moves k's contiguous dim (a projection
/// [S, H, D] read as [H, D, S]) would be its own kernel and an HBM round
/// trip, element by element; the attention transposes key rows on TensorE
/// itself. Returns k as rows, [.., N, D]: `t`'s input permuted with D kept
/// innermost (whole rows move, which the attention's loads absorb), or
/// null when `t` moves more than that.
Value keyRows(OpBuilder &b, Location loc, TransposeOp t) {
  SmallVector<int64_t> perm(t.getPerm());
  auto kT = cast<RankedTensorType>(t.getType());
  int64_t r = static_cast<int64_t>(perm.size());
  if (r < 2 || perm[r - 2] != r - 1)
    return {};
  // A transpose that only moves unit dims (kᵀ of one key, a decode step's
  // [1, H, D] as [H, D, 1]) is a reshape: kᵀ is already contiguous.
  ArrayRef<int64_t> in = t.getInput().getType().getShape();
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    if (in[p] != 1)
      moved.push_back(p);
  if (llvm::is_sorted(moved))
    return {};
  std::swap(perm[r - 1], perm[r - 2]);
  if (llvm::equal(perm, llvm::seq<int64_t>(0, r)))
    return t.getInput();
  SmallVector<int64_t> shape(kT.getShape());
  std::swap(shape[r - 1], shape[r - 2]);
  return TransposeOp::create(b, loc, kT.clone(shape), t.getInput(), b.getDenseI64ArrayAttr(perm));
}

struct FuseAttentionPass : mlir::neuron::impl::NeuronFuseAttentionPassBase<FuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<SoftmaxOp> anchors;
    getOperation().walk([&](SoftmaxOp op) { anchors.push_back(op); });
    for (SoftmaxOp sm : anchors) {
      std::string why;
      FailureOr<Match> m = analyze(sm, why);
      if (failed(m)) {
        // Only softmaxes next to a matmul are attention candidates.
        bool nearMatmul = false;
        for (Operation *d = sm.getInput().getDefiningOp(); d && !nearMatmul;
             d = d->getNumOperands() ? d->getOperand(0).getDefiningOp() : nullptr) {
          nearMatmul = isa<MatmulOp>(d);
          if (!isa<MatmulOp, CastOp, MulOp, DivOp, AddOp>(d))
            break;
        }
        for (Operation *u : sm->getUsers())
          nearMatmul |= isa<MatmulOp>(u) ||
                        llvm::any_of(u->getUsers(), [](Operation *w) { return isa<MatmulOp>(w); });
        if (nearMatmul)
          recordRejected(sm, "attention", why);
        continue;
      }
      OpBuilder b(m->output);
      Location loc = fusedLocation(m->ops);
      auto operand = [&](Operand &o) -> Value {
        Value x = o.source;
        auto t = cast<RankedTensorType>(x.getType());
        if (o.castTo && o.castTo != t.getElementType())
          x = CastOp::create(b, loc, t.clone(o.castTo), x);
        auto want =
            RankedTensorType::get(o.shape, cast<RankedTensorType>(x.getType()).getElementType());
        if (x.getType() != want)
          x = ReshapeOp::create(b, loc, want, x);
        return x;
      };
      bool keyTransposed = m->keyTransposed;
      if (keyTransposed)
        if (auto t = m->k.source.getDefiningOp<TransposeOp>(); t && t->hasOneUse())
          if (Value rows = keyRows(b, loc, t)) {
            m->k.source = rows;
            int64_t r = static_cast<int64_t>(m->k.shape.size());
            std::swap(m->k.shape[r - 1], m->k.shape[r - 2]);
            keyTransposed = false;
            m->ops.push_back(t);
          }
      Value q = m->q, k = operand(m->k), v = operand(m->v);
      if (m->qCastTo)
        q = CastOp::create(b, loc, cast<RankedTensorType>(q.getType()).clone(m->qCastTo), q);
      std::optional<int64_t> causal = m->mask ? causalOffset(m->mask) : std::nullopt;
      Value mask = causal ? Value() : m->mask;
      if (mask) {
        auto mt = cast<RankedTensorType>(mask.getType());
        if (mt.getShape() != ArrayRef<int64_t>(m->maskShape))
          mask = ReshapeOp::create(b, loc, RankedTensorType::get(m->maskShape, mt.getElementType()),
                                   mask);
      }
      auto fused = AttentionOp::create(b, loc, m->output.getType(), q, k, v, mask,
                                       b.getF32FloatAttr(m->scale),
                                       causal ? b.getI64IntegerAttr(*causal) : IntegerAttr(),
                                       keyTransposed ? b.getUnitAttr() : UnitAttr());
      recordFused(fused, causal ? "attention (causal)" : "attention", m->ops,
                  bytesSaved(m->ops, fused));
      m->output.getResult().replaceAllUsesWith(fused.getResult());
      eraseDeadChain(m->ops);
    }
  }
};

} // namespace
