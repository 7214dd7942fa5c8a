//===- ConvertLinalg.cpp - neuron-convert-linalg ---------------------------===//
//
// Raises linalg to neuron. Named ops map directly; `linalg.generic` is
// analyzed first (`analyzeGeneric`, which never touches the IR and says why
// when it cannot raise) and only then emitted, so the import check can report
// exactly what stopped a raising.
//
// Elementwise raising: every input is viewed in the output's dim order —
// unit dims dropped, dims transposed into output order, and size-1 dims
// inserted where the input does not vary — so that neuron's numpy
// broadcasting reproduces the indexing maps. The body's scalar ops then map
// one to one onto neuron ops on those views.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/ImportUtils.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Support/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCONVERTLINALGPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;

namespace {

//===----------------------------------------------------------------------===//
// Init values
//===----------------------------------------------------------------------===//

/// The splat value an output init holds (`linalg.fill` of a constant or a
/// splat constant), if any.
std::optional<double> initSplat(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return getSplatValue(fill.getInputs().front());
  return getSplatValue(init);
}

/// `acc + value`, skipping the add when the init is a splat zero.
Value accumulateInto(OpBuilder &b, Location loc, Value value, Value init) {
  if (initSplat(init) == 0.0)
    return value;
  return AddOp::create(b, loc, init.getType(), value, init);
}

//===----------------------------------------------------------------------===//
// Contractions (matmul, batch_matmul, and generics computing the same)
//===----------------------------------------------------------------------===//

/// How a LinalgOp's indexing maps describe a (batched) matmul.
struct ContractionPlan {
  bool transposeLhs = false, transposeRhs = false;
};

/// Recognizes `C[b..., m, n] += A[b..., m|k, k|m] * B[b..., k|n, n|k]` from
/// the indexing maps alone.
FailureOr<ContractionPlan> analyzeContraction(linalg::LinalgOp op, std::string &why) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) {
    why = "a contraction needs two inputs and one output";
    return failure();
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto iters = op.getIteratorTypesArray();
  int64_t k = -1;
  for (auto [i, it] : llvm::enumerate(iters)) {
    if (it == utils::IteratorType::reduction) {
      if (k >= 0) {
        why = "more than one reduction dim";
        return failure();
      }
      k = static_cast<int64_t>(i);
    }
  }
  auto dimsOf = [](AffineMap m) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> dims;
    for (AffineExpr e : m.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d)
        return std::nullopt;
      dims.push_back(d.getPosition());
    }
    return dims;
  };
  auto a = dimsOf(maps[0]), bm = dimsOf(maps[1]), c = dimsOf(maps[2]);
  if (k < 0 || !a || !bm || !c || c->size() < 2 || a->size() != c->size() ||
      bm->size() != c->size()) {
    why = "indexing maps are not those of a (batched) matmul";
    return failure();
  }
  size_t r = c->size();
  int64_t m = (*c)[r - 2], n = (*c)[r - 1];
  for (size_t i = 0; i + 2 < r; ++i)
    if ((*a)[i] != (*c)[i] || (*bm)[i] != (*c)[i]) {
      why = "batch dims are not leading and in order";
      return failure();
    }
  ContractionPlan plan;
  if ((*a)[r - 2] == m && (*a)[r - 1] == k)
    plan.transposeLhs = false;
  else if ((*a)[r - 2] == k && (*a)[r - 1] == m)
    plan.transposeLhs = true;
  else {
    why = "lhs indexing map is not [m, k] or [k, m]";
    return failure();
  }
  if ((*bm)[r - 2] == k && (*bm)[r - 1] == n)
    plan.transposeRhs = false;
  else if ((*bm)[r - 2] == n && (*bm)[r - 1] == k)
    plan.transposeRhs = true;
  else {
    why = "rhs indexing map is not [k, n] or [n, k]";
    return failure();
  }
  return plan;
}

/// Emits `init + matmul(a, b)` for a recognized contraction.
Value emitContraction(PatternRewriter &rewriter, linalg::LinalgOp op,
                      const ContractionPlan &plan) {
  Location loc = op.getLoc();
  Value init = op.getDpsInits().front();
  Value mm = MatmulOp::create(rewriter, loc, init.getType(), op.getDpsInputs()[0],
                              op.getDpsInputs()[1],
                              plan.transposeLhs ? rewriter.getUnitAttr() : nullptr,
                              plan.transposeRhs ? rewriter.getUnitAttr() : nullptr);
  return accumulateInto(rewriter, loc, mm, init);
}

/// linalg.matmul / batch_matmul (any transposing indexing maps).
template <typename OpTy>
struct ContractionPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "needs tensors of a supported type");
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    Type ea = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    Type eb = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
    Type ec = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    if (ea != eb || ea != ec)
      return rewriter.notifyMatchFailure(op, "mixed element types");
    std::string why;
    FailureOr<ContractionPlan> plan = analyzeContraction(linalgOp, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    rewriter.replaceOp(op, emitContraction(rewriter, linalgOp, *plan));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Named ops
//===----------------------------------------------------------------------===//

/// `linalg.fill ins(%c) outs(%e)` of a constant → splat `neuron.constant`.
struct FillPattern : OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::FillOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getResultTypes().front());
    std::optional<double> value = getSplatValue(op.getInputs().front());
    if (!type || !type.hasStaticShape() || !value ||
        !isSupportedElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a constant fill of a static tensor");
    // Users that read the init (matmul accumulators) look through the fill
    // first; only replace once nothing but converted ops remain.
    rewriter.replaceOp(op, createSplat(rewriter, op.getLoc(), type, *value));
    return success();
  }
};

/// `linalg.transpose permutation` → `neuron.transpose perm`.
struct TransposePattern : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "needs tensors of a supported type");
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getResultTypes().front(), op.getInput(),
                                             rewriter.getDenseI64ArrayAttr(op.getPermutation()));
    return success();
  }
};

/// `linalg.softmax dimension(d)` → `neuron.softmax axis = d`.
struct SoftmaxPattern : OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "needs tensors of a supported type");
    rewriter.replaceOpWithNewOp<SoftmaxOp>(op, op.getResult()[0].getType(), op.getInput(),
                                           rewriter.getI64IntegerAttr(op.getDimension()),
                                           /*log=*/nullptr);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// linalg.generic: analysis
//===----------------------------------------------------------------------===//

/// The reduction kinds a generic body can be raised to.
enum class Combiner { None, Sum, Max, Min };

/// `%r = combiner %in, %out; linalg.yield %r` → the combiner.
Combiner reductionCombiner(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  if (body.getOperations().size() != 2 || op.getNumDpsInputs() != 1)
    return Combiner::None;
  Operation &combine = body.front();
  BlockArgument in = body.getArgument(0), out = body.getArgument(1);
  if (combine.getNumOperands() != 2 ||
      !((combine.getOperand(0) == in && combine.getOperand(1) == out) ||
        (combine.getOperand(0) == out && combine.getOperand(1) == in)))
    return Combiner::None;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != combine.getResult(0))
    return Combiner::None;
  if (isa<arith::AddFOp, arith::AddIOp>(combine))
    return Combiner::Sum;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(combine))
    return Combiner::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(combine))
    return Combiner::Min;
  return Combiner::None;
}

/// True when the body is `out + a * b` (a matmul written as a generic).
bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  if (body.getOperations().size() != 3 || op.getNumDpsInputs() != 2)
    return false;
  Operation &mul = body.front();
  Operation &add = *std::next(body.begin());
  if (!isa<arith::MulFOp, arith::MulIOp>(mul) || !isa<arith::AddFOp, arith::AddIOp>(add))
    return false;
  BlockArgument a = body.getArgument(0), b = body.getArgument(1), out = body.getArgument(2);
  bool mulOk = (mul.getOperand(0) == a && mul.getOperand(1) == b) ||
               (mul.getOperand(0) == b && mul.getOperand(1) == a);
  bool addOk = (add.getOperand(0) == out && add.getOperand(1) == mul.getResult(0)) ||
               (add.getOperand(1) == out && add.getOperand(0) == mul.getResult(0));
  return mulOk && addOk;
}

/// In `GenericPlan::outDims`, an output dim the output map pins to 0.
constexpr int64_t kUnitOutDim = -1;

/// What `analyzeGeneric` found.
struct GenericPlan {
  enum class Kind { Elementwise, Reduction, Contraction } kind = Kind::Elementwise;
  SmallVector<int64_t> loopRanges;
  SmallVector<int64_t> outDims; // loop dims in output-dim order
  Combiner combiner = Combiner::None;
  ContractionPlan contraction;
};

/// True for the linalg ops raised from their body: `linalg.generic` and the
/// named elementwise ops (`linalg.exp`, `linalg.add`, ...), whose implicit
/// body is the same scalar op. Ops with their own pattern are not.
bool isRaisedFromBody(Operation *op) {
  if (isa<linalg::GenericOp>(op))
    return true;
  return isa<linalg::CopyOp, linalg::ExpOp, linalg::LogOp, linalg::AbsOp, linalg::CeilOp,
             linalg::FloorOp, linalg::NegFOp, linalg::ReciprocalOp, linalg::RoundOp, linalg::SqrtOp,
             linalg::RsqrtOp, linalg::SquareOp, linalg::TanhOp, linalg::ErfOp, linalg::AddOp,
             linalg::SubOp, linalg::MulOp, linalg::DivOp, linalg::DivUnsignedOp, linalg::MaxOp,
             linalg::MinOp, linalg::PowFOp, linalg::SelectOp, linalg::ElementwiseOp,
             linalg::BroadcastOp>(op);
}

/// Decides whether and how a generic (or a named elementwise op) can be
/// raised; on failure `why` says what stops it. Never changes the IR.
FailureOr<GenericPlan> analyzeGeneric(linalg::LinalgOp op, std::string &why) {
  GenericPlan plan;
  if (!op.hasPureTensorSemantics()) {
    why = "it works on memrefs, not tensors";
    return failure();
  }
  if (op.getNumDpsInits() != 1) {
    why = "it has " + std::to_string(op.getNumDpsInits()) + " outputs (only one is supported)";
    return failure();
  }
  if (!hasSupportedTypes(op)) {
    why = "an operand has an element type the device does not have";
    return failure();
  }
  plan.loopRanges = op.getStaticLoopRanges();
  if (llvm::any_of(plan.loopRanges, ShapedType::isDynamic)) {
    why = "its loop ranges are dynamic";
    return failure();
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps.back();
  // A constant 0 in the output map is a kept unit dim (a keepdims reduction
  // writing `1x12x1`).
  if (!outMap.isProjectedPermutation(/*allowZeroInResults=*/true)) {
    why = "its output indexing map is not a projected permutation";
    return failure();
  }
  for (AffineExpr e : outMap.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    plan.outDims.push_back(d ? static_cast<int64_t>(d.getPosition()) : kUnitOutDim);
  }

  auto iters = op.getIteratorTypesArray();
  Block &body = *op.getBlock();
  BlockArgument outArg = body.getArgument(op.getNumDpsInputs());
  bool usesOut = !outArg.use_empty();
  // A reduction dim of extent 1 reduces nothing.
  bool realReduction = false;
  for (auto [i, it] : llvm::enumerate(iters))
    if (it == utils::IteratorType::reduction && plan.loopRanges[i] != 1)
      realReduction = true;

  if (realReduction && usesOut) {
    if (isMultiplyAccumulate(op)) {
      std::string contractionWhy;
      FailureOr<ContractionPlan> c =
          analyzeContraction(cast<linalg::LinalgOp>(op.getOperation()), contractionWhy);
      if (failed(c)) {
        why = "it multiplies and accumulates but " + contractionWhy;
        return failure();
      }
      plan.kind = GenericPlan::Kind::Contraction;
      plan.contraction = *c;
      return plan;
    }
    plan.combiner = reductionCombiner(op);
    if (plan.combiner == Combiner::None) {
      std::string ops;
      for (Operation &inner : body.without_terminator())
        ops += (ops.empty() ? "'" : ", '") + inner.getName().getStringRef().str() + "'";
      why = "it reduces with a body of " + std::to_string(op.getNumDpsInputs()) +
            " input(s) computing " + (ops.empty() ? std::string("nothing") : ops) +
            "; a reduction body must be a single add, max or min of one input and the "
            "output: compute the rest in a separate elementwise op";
      return failure();
    }
    if (!maps.front().isPermutation()) {
      why = "its reduction input is not indexed by a permutation of all loop dims";
      return failure();
    }
    plan.kind = GenericPlan::Kind::Reduction;
    return plan;
  }
  if (usesOut) {
    why = "its body reads the output value (an accumulation)";
    return failure();
  }
  // Elementwise: every loop dim that varies must be an output dim.
  for (auto [i, range] : llvm::enumerate(plan.loopRanges))
    if (range != 1 && !llvm::is_contained(plan.outDims, static_cast<int64_t>(i))) {
      why = "loop dim d" + std::to_string(i) + " is not an output dim";
      return failure();
    }
  for (AffineMap m : ArrayRef<AffineMap>(maps).drop_back()) {
    llvm::SmallDenseSet<unsigned> seen;
    for (AffineExpr e : m.getResults()) {
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        if (c.getValue() != 0) {
          why = "an input indexing map has a non-zero constant";
          return failure();
        }
        continue;
      }
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d || !seen.insert(d.getPosition()).second) {
        why = "an input indexing map is not a projected permutation";
        return failure();
      }
    }
  }
  for (Operation &inner : body.without_terminator()) {
    // Positions (iota tables, masks) are constant tensors once shapes are
    // static; index values are computed as i32.
    if (isa<linalg::IndexOp, arith::IndexCastOp, arith::IndexCastUIOp>(inner))
      continue;
    if (!isRaisableBodyOp(&inner)) {
      why = "its body uses '" + inner.getName().getStringRef().str() +
            "', which has no neuron equivalent";
      return failure();
    }
    if (auto fpowi = dyn_cast<math::FPowIOp>(inner); fpowi && !getSplatValue(fpowi.getRhs())) {
      why = "math.fpowi has a non-constant exponent";
      return failure();
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(inner)) {
      auto p = cmp.getPredicate();
      bool onIndex = isa<IndexType>(cmp.getLhs().getType());
      if (!onIndex && (p == arith::CmpIPredicate::ult || p == arith::CmpIPredicate::ule ||
                       p == arith::CmpIPredicate::ugt || p == arith::CmpIPredicate::uge)) {
        why = "unsigned integer comparisons have no neuron equivalent";
        return failure();
      }
    }
    for (Value v : inner.getOperands()) {
      if (v.getParentRegion() == body.getParent())
        continue;
      if (!getSplatValue(v) && !matchPattern(v, m_Constant())) {
        why = "its body uses a value defined outside that is not a constant";
        return failure();
      }
      if (isa<ShapedType>(v.getType())) {
        why = "its body uses a tensor defined outside";
        return failure();
      }
    }
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// linalg.generic: emission
//===----------------------------------------------------------------------===//

/// Views input `v` (indexed by `map`) in the output's dim order: drops the
/// dims the map pins to 0 or to a unit loop dim, transposes the rest into
/// output order, then reshapes to output rank with 1s where it does not vary.
Value viewInOutputSpace(OpBuilder &b, Location loc, Value v, AffineMap map,
                        const GenericPlan &plan) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> keptShape, keptDims; // in the operand's order
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || !llvm::is_contained(plan.outDims, static_cast<int64_t>(d.getPosition())))
      continue; // constant 0 or a unit loop dim: the operand dim is 1
    keptShape.push_back(type.getDimSize(i));
    keptDims.push_back(d.getPosition());
  }
  Value view = reshapeTo(b, loc, v, keptShape);
  // Order the kept dims as they appear among the output dims.
  auto position = [&](int64_t dim) {
    return llvm::find(plan.outDims, dim) - plan.outDims.begin();
  };
  SmallVector<int64_t> perm(keptDims.size());
  std::iota(perm.begin(), perm.end(), 0);
  llvm::stable_sort(perm, [&](int64_t x, int64_t y) {
    return position(keptDims[x]) < position(keptDims[y]);
  });
  if (!llvm::is_sorted(perm)) {
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(keptShape[p]);
    view = TransposeOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), view,
                               b.getDenseI64ArrayAttr(perm));
  }
  SmallVector<int64_t> full(plan.outDims.size(), 1);
  for (int64_t d : keptDims)
    full[position(d)] = plan.loopRanges[d];
  return reshapeTo(b, loc, view, full);
}

/// A scalar constant as a rank-0 `neuron.constant` (an index as i32).
Value scalarConstant(OpBuilder &b, Location loc, Value scalar) {
  Attribute attr;
  (void)matchPattern(scalar, m_Constant(&attr));
  if (isa<IndexType>(scalar.getType())) {
    auto type = RankedTensorType::get({}, b.getI32Type());
    int64_t v = cast<IntegerAttr>(attr).getInt();
    return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, b.getI32IntegerAttr(v)));
  }
  auto type = RankedTensorType::get({}, scalar.getType());
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, attr));
}

/// `linalg.index dim` in the output's dim order: an i32 constant holding
/// 0..n-1 along that dim's output position, 1 elsewhere (0 everywhere when
/// the dim is not an output dim, so has extent 1).
Value indexTable(OpBuilder &b, Location loc, int64_t dim, const GenericPlan &plan) {
  SmallVector<int64_t> shape(plan.outDims.size(), 1);
  auto *it = llvm::find(plan.outDims, dim);
  int64_t extent = 1;
  if (it != plan.outDims.end()) {
    extent = plan.loopRanges[dim];
    shape[it - plan.outDims.begin()] = extent;
  }
  SmallVector<int32_t> values(extent);
  std::iota(values.begin(), values.end(), 0);
  auto type = RankedTensorType::get(shape, b.getI32Type());
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, ArrayRef(values)));
}

/// `arith.index_cast` between index (computed as i32) and an integer type.
Value castIndex(OpBuilder &b, Location loc, Value in, Type to) {
  if (isa<IndexType>(to))
    to = b.getI32Type();
  auto type = cast<RankedTensorType>(in.getType());
  if (type.getElementType() == to)
    return in;
  return CastOp::create(b, loc, type.clone(to), in);
}

Value emitElementwise(PatternRewriter &rewriter, linalg::LinalgOp op, const GenericPlan &plan) {
  Location loc = op.getLoc();
  Block &body = *op.getBlock();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  IRMapping values;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs()))
    values.map(body.getArgument(i), viewInOutputSpace(rewriter, loc, input, maps[i], plan));
  auto lookup = [&](Value v) -> Value {
    if (Value mapped = values.lookupOrNull(v))
      return mapped;
    Value c = scalarConstant(rewriter, loc, v); // a captured constant
    values.map(v, c);
    return c;
  };
  for (Operation &inner : body.without_terminator()) {
    if (auto c = dyn_cast<arith::ConstantOp>(inner)) {
      values.map(c.getResult(), scalarConstant(rewriter, loc, c.getResult()));
      continue;
    }
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      values.map(index.getResult(),
                 indexTable(rewriter, loc, static_cast<int64_t>(index.getDim()), plan));
      continue;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(inner)) {
      values.map(inner.getResult(0), castIndex(rewriter, loc, lookup(inner.getOperand(0)),
                                               inner.getResult(0).getType()));
      continue;
    }
    SmallVector<Value> in = llvm::map_to_vector(inner.getOperands(), lookup);
    values.map(inner.getResult(0), emitBodyOp(rewriter, &inner, in));
  }
  Value result = lookup(cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
  auto outType = cast<RankedTensorType>(op->getResultTypes().front());
  auto resultType = cast<RankedTensorType>(result.getType());
  if (resultType.getShape() != outType.getShape())
    result = BroadcastToOp::create(rewriter, loc, outType, result);
  return result;
}

Value emitReduction(PatternRewriter &rewriter, linalg::LinalgOp op, const GenericPlan &plan) {
  Location loc = op.getLoc();
  Value input = op.getDpsInputs().front();
  auto inType = cast<RankedTensorType>(input.getType());
  AffineMap inMap = op.getIndexingMapsArray().front();
  // Transpose the input into loop-dim order: result dim j is loop dim j.
  SmallVector<int64_t> perm(inMap.getNumResults());
  for (auto [i, e] : llvm::enumerate(inMap.getResults()))
    perm[cast<AffineDimExpr>(e).getPosition()] = static_cast<int64_t>(i);
  if (!llvm::is_sorted(perm))
    input = TransposeOp::create(
        rewriter, loc,
        RankedTensorType::get(neuronc::transposedShape(inType.getShape(), perm),
                              inType.getElementType()),
        input, rewriter.getDenseI64ArrayAttr(perm));
  SmallVector<int64_t> axes;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
    if (it == utils::IteratorType::reduction)
      axes.push_back(static_cast<int64_t>(i));
  auto reducedType = RankedTensorType::get(
      neuronc::reducedShape(plan.loopRanges, axes, /*keepdims=*/false), inType.getElementType());
  auto axesAttr = rewriter.getDenseI64ArrayAttr(axes);
  Value reduced;
  switch (plan.combiner) {
  case Combiner::Sum:
    reduced = ReduceSumOp::create(rewriter, loc, reducedType, input, axesAttr, nullptr);
    break;
  case Combiner::Max:
    reduced = ReduceMaxOp::create(rewriter, loc, reducedType, input, axesAttr, nullptr);
    break;
  default:
    reduced = ReduceMinOp::create(rewriter, loc, reducedType, input, axesAttr, nullptr);
    break;
  }
  // The remaining (parallel) dims are in increasing loop order; the output
  // lists them in `outDims` order.
  SmallVector<int64_t> parallel;
  for (int64_t d = 0; d < static_cast<int64_t>(plan.loopRanges.size()); ++d)
    if (!llvm::is_contained(axes, d))
      parallel.push_back(d);
  SmallVector<int64_t> outPerm;
  for (int64_t d : plan.outDims)
    if (d != kUnitOutDim)
      outPerm.push_back(llvm::find(parallel, d) - parallel.begin());
  Value init = op.getDpsInits().front();
  auto outType = cast<RankedTensorType>(init.getType());
  if (!llvm::is_sorted(outPerm))
    reduced = TransposeOp::create(
        rewriter, loc,
        RankedTensorType::get(
            neuronc::transposedShape(cast<RankedTensorType>(reduced.getType()).getShape(), outPerm),
            outType.getElementType()),
        reduced, rewriter.getDenseI64ArrayAttr(outPerm));
  // The unit dims the output map pins to 0 (keepdims).
  reduced = reshapeTo(rewriter, loc, reduced, outType.getShape());
  std::optional<double> start = initSplat(init);
  switch (plan.combiner) {
  case Combiner::Sum:
    return accumulateInto(rewriter, loc, reduced, init);
  case Combiner::Max:
    if (start && std::isinf(*start) && *start < 0)
      return reduced;
    return MaxOp::create(rewriter, loc, outType, reduced, init);
  default:
    if (start && std::isinf(*start) && *start > 0)
      return reduced;
    return MinOp::create(rewriter, loc, outType, reduced, init);
  }
}

/// Raises a `linalg.generic` or a named elementwise op (`linalg.negf`,
/// `linalg.add`, ...) that `analyzeGeneric` accepts:
/// `linalg.exp ins(%x) outs(%e)` → `neuron.exp %x`.
struct GenericPattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    if (!isRaisedFromBody(op))
      return rewriter.notifyMatchFailure(op, "not a generic or a named elementwise op");
    std::string why;
    FailureOr<GenericPlan> plan = analyzeGeneric(op, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    Value result;
    switch (plan->kind) {
    case GenericPlan::Kind::Elementwise:
      result = emitElementwise(rewriter, op, *plan);
      break;
    case GenericPlan::Kind::Reduction:
      result = emitReduction(rewriter, op, *plan);
      break;
    case GenericPlan::Kind::Contraction:
      result = emitContraction(rewriter, op, plan->contraction);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertLinalgPass : mlir::neuron::impl::NeuronConvertLinalgPassBase<ConvertLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Contractions and generics read their init operands (a linalg.fill)
    // before fills are replaced: give them a higher benefit.
    RewritePatternSet patterns(ctx);
    patterns.add<ContractionPattern<linalg::MatmulOp>, ContractionPattern<linalg::BatchMatmulOp>,
                 GenericPattern>(ctx, /*benefit=*/2);
    patterns.add<FillPattern, TransposePattern, SoftmaxPattern>(ctx);
    // No folding here: the input dialects' folders do not all agree with
    // their own lowering (tosa.cast of i1 folds true to -1.0); neuron's
    // canonicalizer folds afterwards, with the interpreter's semantics.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().enableFolding(false));
  }
};

} // namespace

std::string mlir::neuron::whyGenericIsNotRaisable(Operation *op) {
  auto generic = dyn_cast<linalg::LinalgOp>(op);
  if (!generic || !isRaisedFromBody(op))
    return {};
  std::string why;
  if (failed(analyzeGeneric(generic, why)))
    return why;
  return {};
}
