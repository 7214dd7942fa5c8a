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

#include "LinalgImport.h"

#include "neuronc/Conversion/ComposedBodyOps.h"
#include "neuronc/Conversion/ImportUtils.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Support/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
using namespace mlir::neuron::linalg_import;

namespace {

//===----------------------------------------------------------------------===//
// Named ops
//===----------------------------------------------------------------------===//

/// `linalg.fill ins(%c) outs(%e)` of a constant → splat `neuron.constant`.
struct FillPattern : OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::FillOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getResultTypes().front());
    std::optional<double> value = getSplatValue(op.getInputs().front());
    if (!type || !type.hasStaticShape() || !value || !isSupportedElementType(type.getElementType()))
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
  LogicalResult matchAndRewrite(linalg::TransposeOp op, PatternRewriter &rewriter) const override {
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

/// The combiner kind of a scalar op, if it is one.
Combiner combinerOf(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return Combiner::Sum;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    return Combiner::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    return Combiner::Min;
  return Combiner::None;
}

/// `%r = combiner %x, %out; linalg.yield %r`: the op combining the output
/// with the value `%x` the body computes from the inputs, or null.
Operation *reductionCombineOp(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  if (!out.hasOneUse())
    return nullptr;
  Operation *combine = *out.getUsers().begin();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != combine->getResult(0) ||
      combinerOf(combine) == Combiner::None)
    return nullptr;
  return combine;
}

/// `v`, or the block argument `v` converts with a signed extension.
Value throughExtension(Value v) {
  if (Operation *def = v.getDefiningOp();
      isa_and_present<arith::ExtSIOp, arith::ExtFOp, arith::SIToFPOp>(def))
    return def->getOperand(0);
  return v;
}

/// True when the body is `out + a * b`, each of `a` and `b` possibly
/// sign-extended or converted to the output type first (a matmul written as
/// a generic).
bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getNumOperands() == 1 ? yield.getOperand(0).getDefiningOp() : nullptr;
  if (!isa_and_present<arith::AddFOp, arith::AddIOp>(add))
    return false;
  BlockArgument a = body.getArgument(0), b = body.getArgument(1), out = body.getArgument(2);
  Value product = add->getOperand(0) == out ? add->getOperand(1) : add->getOperand(0);
  if (add->getOperand(0) != out && add->getOperand(1) != out)
    return false;
  Operation *mul = product.getDefiningOp();
  if (!isa_and_present<arith::MulFOp, arith::MulIOp>(mul))
    return false;
  Value x = throughExtension(mul->getOperand(0)), y = throughExtension(mul->getOperand(1));
  if (!((x == a && y == b) || (x == b && y == a)))
    return false;
  // Nothing else in the body (the extensions, the product and the add).
  size_t ops = 2 + (x != mul->getOperand(0)) + (y != mul->getOperand(1));
  return body.getOperations().size() == ops + 1;
}

/// In `GenericPlan::outDims`, an output dim the output map pins to 0.
constexpr int64_t kUnitOutDim = -1;

/// What `analyzeGeneric` found.
struct GenericPlan {
  enum class Kind { Elementwise, Reduction, Contraction, ArgReduction } kind = Kind::Elementwise;
  SmallVector<int64_t> loopRanges;
  SmallVector<int64_t> outDims; // loop dims in output-dim order
  Combiner combiner = Combiner::None;
  ContractionPlan contraction;
  /// Reduction: the op combining the output with the reduced value, and
  /// whether that value is computed by the body (then it is computed
  /// elementwise over the whole loop domain first) rather than read from
  /// the one input, indexed by a permutation of the loop dims.
  Operation *combineOp = nullptr;
  bool reducesComputedValue = false;
  /// ArgReduction: the select that keeps the running index, and the
  /// reduced loop dim.
  Operation *argSelect = nullptr;
  int64_t argDim = -1;
};

/// The plan of the elementwise computation over the whole loop domain of a
/// reduction: every loop dim is an output dim, in loop order.
GenericPlan loopDomainPlan(const GenericPlan &plan) {
  GenericPlan domain;
  domain.loopRanges = plan.loopRanges;
  for (int64_t d = 0; d < static_cast<int64_t>(plan.loopRanges.size()); ++d)
    domain.outDims.push_back(d);
  return domain;
}

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

/// True for the named contraction ops of ConvertContraction.cpp.
bool isNamedContraction(Operation *op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::MatvecOp, linalg::BatchMatvecOp,
             linalg::VecmatOp, linalg::BatchVecmatOp, linalg::DotOp>(op);
}

/// Checks what an elementwise computation over `plan`'s output space needs:
/// inputs indexed by projected permutations (or 0) and body ops with neuron
/// equivalents. Ops that read an output block argument (a reduction's
/// combiner) are not part of it.
LogicalResult checkElementwiseBody(linalg::LinalgOp op, std::string &why) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap m : ArrayRef<AffineMap>(maps).take_front(op.getNumDpsInputs())) {
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
  Block &body = *op.getBlock();
  for (Operation &inner : body.without_terminator()) {
    if (llvm::any_of(inner.getOperands(), [&](Value v) {
          auto arg = dyn_cast<BlockArgument>(v);
          return arg && arg.getOwner() == &body &&
                 arg.getArgNumber() >= static_cast<unsigned>(op.getNumDpsInputs());
        }))
      continue; // the combiner
    // Positions (iota tables, masks) are constant tensors once shapes are
    // static; index values are computed as i32.
    if (isa<linalg::IndexOp, arith::IndexCastOp, arith::IndexCastUIOp>(inner))
      continue;
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      auto table = cast<RankedTensorType>(extract.getTensor().getType());
      if (!table.hasStaticShape() || !isSupportedElementType(table.getElementType()) ||
          extract.getTensor().getParentRegion() == body.getParent()) {
        why = "its body reads with 'tensor.extract' from a tensor of dynamic shape, of an "
              "element type the device does not have, or computed in the body";
        return failure();
      }
      for (Value i : extract.getIndices())
        if (i.getParentRegion() != body.getParent() && !matchPattern(i, m_Constant())) {
          why = "its body uses a value defined outside that is not a constant";
          return failure();
        }
      continue; // a gather from the table
    }
    if (isa<math::Exp2Op, arith::UIToFPOp>(inner) && !isComposedBodyOp(&inner)) {
      why = whyComposedBodyOpFails(&inner);
      return failure();
    }
    if (!isRaisableBodyOp(&inner) && !isComposedBodyOp(&inner)) {
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
  return success();
}

/// An argmax/argmin: two outputs, one reduced loop dim `r`, and the body
///   %m = maximumf %x, %val            (or minimumf, maxsi, ...)
///   %c = cmpf ogt, %x, %val           (strictly better: the first wins)
///   %i = select %c, index_cast(linalg.index r), %idx
///   linalg.yield %m, %i
/// with `%x` computed from the inputs. Fills `plan` or says why not.
LogicalResult analyzeArgReduction(linalg::LinalgOp op, GenericPlan &plan, std::string &why) {
  why = "it has 2 outputs and reduces, but not as an argmax or argmin (several outputs are "
        "imported only when each is computed from the inputs alone)";
  Block &body = *op.getBlock();
  int64_t numInputs = op.getNumDpsInputs();
  auto iters = op.getIteratorTypesArray();
  if (op.getNumDpsInits() != 2 || llvm::count(iters, utils::IteratorType::reduction) != 1)
    return failure();
  int64_t r = llvm::find(iters, utils::IteratorType::reduction) - iters.begin();
  BlockArgument val = body.getArgument(numInputs), idx = body.getArgument(numInputs + 1);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  auto select = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  if (!combine || !select || combinerOf(combine) == Combiner::None ||
      combinerOf(combine) == Combiner::Sum || combine->getNumOperands() != 2 ||
      select.getFalseValue() != idx || !idx.hasOneUse())
    return failure();
  bool isMax = combinerOf(combine) == Combiner::Max;
  Value x = combine->getOperand(0) == val ? combine->getOperand(1) : combine->getOperand(0);
  if (x == val || (combine->getOperand(0) != val && combine->getOperand(1) != val))
    return failure();
  // The compare: x strictly better than the running value.
  Operation *cmp = select.getCondition().getDefiningOp();
  auto better = [&](Value a, Value b, bool greater) {
    if (auto f = dyn_cast_or_null<arith::CmpFOp>(cmp))
      return f.getLhs() == a && f.getRhs() == b &&
             f.getPredicate() == (greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT);
    if (auto i = dyn_cast_or_null<arith::CmpIOp>(cmp))
      return i.getLhs() == a && i.getRhs() == b &&
             i.getPredicate() == (greater ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt);
    return false;
  };
  if (!better(x, val, isMax) && !better(val, x, !isMax))
    return failure();
  if (llvm::any_of(val.getUsers(), [&](Operation *u) { return u != combine && u != cmp; }))
    return failure();
  // The index: linalg.index r, possibly cast.
  Value position = select.getTrueValue();
  while (Operation *def = position.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
      break;
    position = def->getOperand(0);
  }
  auto index = position.getDefiningOp<linalg::IndexOp>();
  if (!index || static_cast<int64_t>(index.getDim()) != r)
    return failure();
  if (op.getIndexingMapsArray()[numInputs] != op.getIndexingMapsArray()[numInputs + 1]) {
    why = "its two outputs (an argmax or argmin) are indexed differently";
    return failure();
  }
  if (failed(checkElementwiseBody(op, why)))
    return failure();
  plan.kind = GenericPlan::Kind::ArgReduction;
  plan.combiner = combinerOf(combine);
  plan.combineOp = combine;
  plan.argSelect = select;
  plan.argDim = r;
  return success();
}

/// Whether `op` is elementwise over operands that all have the output's
/// shape (identity maps, parallel loops, no positions or gathers in the
/// body): then dynamic loop ranges are the operands' own dynamic dims, which
/// the neuron ops carry to shape bucketing.
bool isSameShapeElementwise(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0)
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return false;
  return !op.getBlock()
              ->walk([](Operation *inner) {
                return isa<linalg::IndexOp, tensor::ExtractOp>(inner) ? WalkResult::interrupt()
                                                                       : WalkResult::advance();
              })
              .wasInterrupted();
}

/// Decides whether and how a generic (or a named elementwise op) can be
/// raised; on failure `why` says what stops it. Never changes the IR.
FailureOr<GenericPlan> analyzeGeneric(linalg::LinalgOp op, std::string &why) {
  GenericPlan plan;
  if (!op.hasPureTensorSemantics()) {
    why = "it works on memrefs, not tensors";
    return failure();
  }
  int64_t numInits = op.getNumDpsInits();
  if (!hasSupportedTypes(op)) {
    why = "an operand has an element type the device does not have";
    return failure();
  }
  plan.loopRanges = op.getStaticLoopRanges();
  if (llvm::any_of(plan.loopRanges, ShapedType::isDynamic) && !isSameShapeElementwise(op)) {
    why = "its loop ranges are dynamic";
    return failure();
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[op.getNumDpsInputs()];
  // A constant 0 in the output map is a kept unit dim (a keepdims reduction
  // writing `1x12x1`).
  if (!outMap.isProjectedPermutation(/*allowZeroInResults=*/true)) {
    why = "its output indexing map is not a projected permutation";
    return failure();
  }
  for (AffineMap m : ArrayRef<AffineMap>(maps).drop_front(op.getNumDpsInputs() + 1))
    if (m != outMap) {
      why = "it has " + std::to_string(numInits) +
            " outputs written through different indexing maps (several outputs are imported "
            "only when all are indexed alike)";
      return failure();
    }
  for (AffineExpr e : outMap.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    plan.outDims.push_back(d ? static_cast<int64_t>(d.getPosition()) : kUnitOutDim);
  }

  auto iters = op.getIteratorTypesArray();
  Block &body = *op.getBlock();
  bool usesOut = llvm::any_of(body.getArguments().drop_front(op.getNumDpsInputs()),
                              [](BlockArgument arg) { return !arg.use_empty(); });
  // A reduction dim of extent 1 reduces nothing.
  bool realReduction = false;
  for (auto [i, it] : llvm::enumerate(iters))
    if (it == utils::IteratorType::reduction && plan.loopRanges[i] != 1)
      realReduction = true;

  if (realReduction && usesOut) {
    if (numInits == 2 && succeeded(analyzeArgReduction(op, plan, why)))
      return plan;
    if (numInits != 1) {
      if (numInits != 2)
        why = "it has " + std::to_string(numInits) +
              " outputs and reduces (several outputs are imported only when each is computed "
              "from the inputs alone)";
      return failure();
    }
    if (isMultiplyAccumulate(op)) {
      std::string contractionWhy;
      FailureOr<ContractionPlan> c =
          analyzeContraction(cast<linalg::LinalgOp>(op.getOperation()), contractionWhy);
      if (failed(c)) {
        why = "it multiplies and accumulates but " + contractionWhy;
        return failure();
      }
      if (std::string typesWhy = whyContractionTypesFail(op); !typesWhy.empty()) {
        why = typesWhy;
        return failure();
      }
      plan.kind = GenericPlan::Kind::Contraction;
      plan.contraction = *c;
      return plan;
    }
    plan.combineOp = reductionCombineOp(op);
    if (!plan.combineOp) {
      std::string ops;
      for (Operation &inner : body.without_terminator())
        ops += (ops.empty() ? "'" : ", '") + inner.getName().getStringRef().str() + "'";
      why = "it reduces with a body of " + std::to_string(op.getNumDpsInputs()) +
            " input(s) computing " + (ops.empty() ? std::string("nothing") : ops) +
            "; a reduction body must end in a single add, max or min of the output and a "
            "value computed from the inputs, which is the output's only use";
      return failure();
    }
    plan.combiner = combinerOf(plan.combineOp);
    plan.kind = GenericPlan::Kind::Reduction;
    Value reduced = plan.combineOp->getOperand(0) == body.getArgument(op.getNumDpsInputs())
                        ? plan.combineOp->getOperand(1)
                        : plan.combineOp->getOperand(0);
    // The reduced value read straight from the one input, indexed by all
    // loop dims: reduce the input itself.
    if (op.getNumDpsInputs() == 1 && reduced == body.getArgument(0) &&
        maps.front().isPermutation() && body.getOperations().size() == 2)
      return plan;
    plan.reducesComputedValue = true;
    if (failed(checkElementwiseBody(op, why)))
      return failure();
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
  if (failed(checkElementwiseBody(op, why)))
    return failure();
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
  auto position = [&](int64_t dim) { return llvm::find(plan.outDims, dim) - plan.outDims.begin(); };
  SmallVector<int64_t> perm(keptDims.size());
  std::iota(perm.begin(), perm.end(), 0);
  llvm::stable_sort(
      perm, [&](int64_t x, int64_t y) { return position(keptDims[x]) < position(keptDims[y]); });
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

/// True when the scalar body value `v` is a position or computed from
/// positions and non-negative constants by index additions and products,
/// so it is >= 0 (and, once cast to i32, below 2^31: loop ranges are).
bool isKnownNonNegative(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<linalg::IndexOp>(def))
    return true;
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto i = dyn_cast<IntegerAttr>(c.getValue());
    return i && !i.getValue().isNegative();
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return isKnownNonNegative(def->getOperand(0));
  if (isa<arith::AddIOp, arith::MulIOp>(def) && isa<IndexType>(v.getType()))
    return llvm::all_of(def->getOperands(), isKnownNonNegative);
  return false;
}

/// `tensor.extract %table[%i, %j]` in a body, the indices computed per
/// element (i32 tensors in the output space) → `neuron.gather` from the
/// flattened table at `i * stride_i + j * stride_j`.
Value emitGather(OpBuilder &b, Location loc, tensor::ExtractOp extract,
                 llvm::function_ref<Value(Value)> lookup) {
  auto table = cast<RankedTensorType>(extract.getTensor().getType());
  Type i32 = b.getI32Type();
  Value linear;
  int64_t stride = 1;
  for (int64_t d = table.getRank() - 1; d >= 0; --d) {
    Value index = castIndex(b, loc, lookup(extract.getIndices()[d]), i32);
    auto indexType = cast<RankedTensorType>(index.getType());
    if (stride != 1)
      index = MulOp::create(b, loc, indexType, index,
                            createSplat(b, loc, RankedTensorType::get({}, i32), stride));
    linear =
        !linear
            ? index
            : AddOp::create(b, loc, broadcastType(linear, index, i32), linear, index).getResult();
    stride *= table.getDimSize(d);
  }
  if (!linear)
    linear = createSplat(b, loc, RankedTensorType::get({}, i32), 0);
  Value flat = reshapeTo(b, loc, extract.getTensor(), {table.getNumElements()});
  auto linearType = cast<RankedTensorType>(linear.getType());
  return GatherOp::create(b, loc, linearType.clone(table.getElementType()), flat, linear,
                          b.getI64IntegerAttr(0));
}

/// Emits the body's scalar ops, except the ones reading an output (the
/// combiner of a reduction), as neuron ops on the inputs viewed in `plan`'s
/// output space, and returns `wanted` computed, each broadcast to `shape`.
SmallVector<Value> emitBody(PatternRewriter &rewriter, linalg::LinalgOp op, const GenericPlan &plan,
                            ValueRange wanted, ArrayRef<int64_t> shape) {
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
  auto isOutput = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body &&
           arg.getArgNumber() >= static_cast<unsigned>(op.getNumDpsInputs());
  };
  for (Operation &inner : body.without_terminator()) {
    if (llvm::any_of(inner.getOperands(), isOutput))
      continue;
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
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      values.map(extract.getResult(), emitGather(rewriter, loc, extract, lookup));
      continue;
    }
    SmallVector<Value> in = llvm::map_to_vector(inner.getOperands(), lookup);
    Value result =
        isComposedBodyOp(&inner)
            ? emitComposedBodyOp(rewriter, &inner, in, isKnownNonNegative(inner.getOperand(0)))
            : emitBodyOp(rewriter, &inner, in);
    values.map(inner.getResult(0), result);
  }
  SmallVector<Value> results;
  for (Value v : wanted) {
    Value result = lookup(v);
    auto type = cast<RankedTensorType>(result.getType());
    if (type.getShape() != shape)
      result = BroadcastToOp::create(rewriter, loc, type.clone(shape), result);
    results.push_back(result);
  }
  return results;
}

/// The results of an elementwise generic (one per output).
SmallVector<Value> emitElementwise(PatternRewriter &rewriter, linalg::LinalgOp op,
                                   const GenericPlan &plan) {
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  auto outType = cast<RankedTensorType>(op->getResultTypes().front());
  return emitBody(rewriter, op, plan, yield.getOperands(), outType.getShape());
}

/// A reduction's result, its parallel dims in increasing loop order, put in
/// the output's dim order and shape (`outDims`, with the unit dims the
/// output map pins to 0).
Value toOutputLayout(OpBuilder &b, Location loc, const GenericPlan &plan, ArrayRef<int64_t> axes,
                     Value reduced, ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> parallel;
  for (int64_t d = 0; d < static_cast<int64_t>(plan.loopRanges.size()); ++d)
    if (!llvm::is_contained(axes, d))
      parallel.push_back(d);
  SmallVector<int64_t> outPerm;
  for (int64_t d : plan.outDims)
    if (d != kUnitOutDim)
      outPerm.push_back(llvm::find(parallel, d) - parallel.begin());
  auto type = cast<RankedTensorType>(reduced.getType());
  if (!llvm::is_sorted(outPerm))
    reduced =
        TransposeOp::create(b, loc, type.clone(neuronc::transposedShape(type.getShape(), outPerm)),
                            reduced, b.getDenseI64ArrayAttr(outPerm));
  return reshapeTo(b, loc, reduced, outShape);
}

/// An argmax (argmin) over loop dim r: the extreme value M of the computed
/// value x, the first position where x equals M (a min-reduction of the
/// positions, n where x differs), and the outputs' initial values kept
/// where M does not beat them.
SmallVector<Value> emitArgReduction(PatternRewriter &rewriter, linalg::LinalgOp op,
                                    const GenericPlan &plan) {
  Location loc = op.getLoc();
  Block &body = *op.getBlock();
  Value val = body.getArgument(op.getNumDpsInputs());
  Value x = plan.combineOp->getOperand(0) == val ? plan.combineOp->getOperand(1)
                                                 : plan.combineOp->getOperand(0);
  GenericPlan domain = loopDomainPlan(plan);
  Value xs = emitBody(rewriter, op, domain, x, plan.loopRanges).front();
  auto xType = cast<RankedTensorType>(xs.getType());
  bool isMax = plan.combiner == Combiner::Max;
  SmallVector<int64_t> axes = {plan.argDim};
  auto axesAttr = rewriter.getDenseI64ArrayAttr(axes);
  SmallVector<int64_t> reducedShape =
      neuronc::reducedShape(plan.loopRanges, axes, /*keepdims=*/false);
  SmallVector<int64_t> keptShape = neuronc::reducedShape(plan.loopRanges, axes, /*keepdims=*/true);
  auto mType = xType.clone(reducedShape);
  Value m = isMax ? ReduceMaxOp::create(rewriter, loc, mType, xs, axesAttr, nullptr).getResult()
                  : ReduceMinOp::create(rewriter, loc, mType, xs, axesAttr, nullptr).getResult();
  Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type();
  Value isExtreme = CompareOp::create(rewriter, loc, xType.clone(i1), ComparePredicate::eq, xs,
                                      reshapeTo(rewriter, loc, m, keptShape));
  int64_t n = plan.loopRanges[plan.argDim];
  Value positions = indexTable(rewriter, loc, plan.argDim, domain);
  Value candidates =
      SelectOp::create(rewriter, loc, xType.clone(i32), isExtreme, positions,
                       createSplat(rewriter, loc, RankedTensorType::get({}, i32), n));
  Value first = ReduceMinOp::create(rewriter, loc, mType.clone(i32), candidates, axesAttr, nullptr);
  Value initVal = op.getDpsInits()[0], initIdx = op.getDpsInits()[1];
  auto valType = cast<RankedTensorType>(initVal.getType());
  auto idxType = cast<RankedTensorType>(initIdx.getType());
  m = toOutputLayout(rewriter, loc, plan, axes, m, valType.getShape());
  first = toOutputLayout(rewriter, loc, plan, axes, first, idxType.getShape());
  if (idxType.getElementType() != i32)
    first = CastOp::create(rewriter, loc, idxType, first);
  Value beats = CompareOp::create(rewriter, loc, valType.clone(i1),
                                  isMax ? ComparePredicate::gt : ComparePredicate::lt, m, initVal);
  Value index = SelectOp::create(rewriter, loc, idxType, beats, first, initIdx);
  std::optional<double> start = initSplat(initVal);
  if (!start || !std::isinf(*start) || (*start < 0) != isMax)
    m = isMax ? MaxOp::create(rewriter, loc, valType, m, initVal).getResult()
              : MinOp::create(rewriter, loc, valType, m, initVal).getResult();
  return {m, index};
}

Value emitReduction(PatternRewriter &rewriter, linalg::LinalgOp op, const GenericPlan &plan) {
  Location loc = op.getLoc();
  Value input;
  AffineMap inMap;
  if (plan.reducesComputedValue) {
    // The reduced value over the whole loop domain, dims in loop order.
    Block &body = *op.getBlock();
    Value out = body.getArgument(op.getNumDpsInputs());
    Value reduced = plan.combineOp->getOperand(0) == out ? plan.combineOp->getOperand(1)
                                                         : plan.combineOp->getOperand(0);
    input = emitBody(rewriter, op, loopDomainPlan(plan), reduced, plan.loopRanges).front();
    inMap = AffineMap::getMultiDimIdentityMap(plan.loopRanges.size(), op.getContext());
  } else {
    input = op.getDpsInputs().front();
    inMap = op.getIndexingMapsArray().front();
  }
  auto inType = cast<RankedTensorType>(input.getType());
  // Transpose the input into loop-dim order: result dim j is loop dim j.
  SmallVector<int64_t> perm(inMap.getNumResults());
  for (auto [i, e] : llvm::enumerate(inMap.getResults()))
    perm[cast<AffineDimExpr>(e).getPosition()] = static_cast<int64_t>(i);
  if (!llvm::is_sorted(perm))
    input =
        TransposeOp::create(rewriter, loc,
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
  Value init = op.getDpsInits().front();
  auto outType = cast<RankedTensorType>(init.getType());
  reduced = toOutputLayout(rewriter, loc, plan, axes, reduced, outType.getShape());
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
/// `linalg.exp ins(%x) outs(%e)` → `neuron.exp %x`. A generic with several
/// outputs computed from the inputs alone becomes one value per output.
struct GenericPattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    if (!isRaisedFromBody(op))
      return rewriter.notifyMatchFailure(op, "not a generic or a named elementwise op");
    std::string why;
    FailureOr<GenericPlan> plan = analyzeGeneric(op, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    SmallVector<Value> results;
    switch (plan->kind) {
    case GenericPlan::Kind::Elementwise:
      results = emitElementwise(rewriter, op, *plan);
      break;
    case GenericPlan::Kind::Reduction:
      results.push_back(emitReduction(rewriter, op, *plan));
      break;
    case GenericPlan::Kind::Contraction:
      results.push_back(emitContraction(rewriter, op, plan->contraction));
      break;
    case GenericPlan::Kind::ArgReduction:
      results = emitArgReduction(rewriter, op, *plan);
      break;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ConvertLinalgPass : mlir::neuron::impl::NeuronConvertLinalgPassBase<ConvertLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    foldConstantShapes(getOperation());
    if (failed(resolveBodyAsserts(getOperation())))
      return signalPassFailure();
    // Contractions and generics read their init operands (a linalg.fill)
    // before fills are replaced: give them a higher benefit.
    RewritePatternSet patterns(ctx);
    populateContractionPatterns(patterns, /*benefit=*/2);
    populateWindowPatterns(patterns, /*benefit=*/2);
    patterns.add<GenericPattern>(ctx, /*benefit=*/2);
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
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return {};
  std::string why;
  if (isNamedContraction(op)) {
    if (!linalgOp.hasPureTensorSemantics())
      return "it works on memrefs, not tensors";
    if (std::string typesWhy = whyContractionTypesFail(linalgOp); !typesWhy.empty())
      return typesWhy;
    if (failed(analyzeContraction(linalgOp, why)))
      return why;
    return {};
  }
  if (!isRaisedFromBody(op))
    return {};
  if (failed(analyzeGeneric(linalgOp, why)))
    return why;
  return {};
}
