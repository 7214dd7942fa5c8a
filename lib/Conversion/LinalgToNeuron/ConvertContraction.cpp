//===- ConvertContraction.cpp - matmul-like linalg ops -> neuron.matmul ---===//
//
// linalg.matmul, batch_matmul, matvec, batch_matvec, vecmat, batch_vecmat and
// dot, and generics computing the same, become one `neuron.matmul` (the
// vector operand of a matvec viewed as a one-column matrix), a reshape back
// to the output's shape, and an add of the accumulator unless it is a splat
// zero. The analysis reads the indexing maps only, so a named op and the
// generic it is short for take the same path.
//
//===----------------------------------------------------------------------===//

#include "LinalgImport.h"

#include "neuronc/Conversion/ImportUtils.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;
using namespace mlir::neuron::linalg_import;

std::optional<double> mlir::neuron::linalg_import::initSplat(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return getSplatValue(fill.getInputs().front());
  return getSplatValue(init);
}

Value mlir::neuron::linalg_import::accumulateInto(OpBuilder &b, Location loc, Value value,
                                                  Value init) {
  if (initSplat(init) == 0.0)
    return value;
  return AddOp::create(b, loc, init.getType(), value, init);
}

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

FailureOr<ContractionPlan> mlir::neuron::linalg_import::analyzeContraction(linalg::LinalgOp op,
                                                                           std::string &why) {
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
  // lhs = batch + (m?) + k, rhs = batch + k + (n?), out = batch + (m?) + (n?):
  // the ranks alone give the number of batch dims and whether m and n exist.
  int64_t nb = -1, hasM = -1, hasN = -1;
  if (a && bm && c) {
    nb = static_cast<int64_t>(a->size() + bm->size()) - 2 - static_cast<int64_t>(c->size());
    hasM = static_cast<int64_t>(a->size()) - 1 - nb;
    hasN = static_cast<int64_t>(bm->size()) - 1 - nb;
  }
  if (k < 0 || !a || !bm || !c || nb < 0 || hasM < 0 || hasM > 1 || hasN < 0 || hasN > 1 ||
      llvm::is_contained(*c, k)) {
    why = "indexing maps are not those of a (batched) matmul";
    return failure();
  }
  for (int64_t i = 0; i < nb; ++i)
    if ((*a)[i] != (*c)[i] || (*bm)[i] != (*c)[i]) {
      why = "batch dims are not leading and in order";
      return failure();
    }
  ContractionPlan plan;
  plan.hasM = hasM == 1;
  plan.hasN = hasN == 1;
  int64_t m = plan.hasM ? (*c)[nb] : -1, n = plan.hasN ? c->back() : -1;
  ArrayRef<int64_t> lhs = ArrayRef<int64_t>(*a).drop_front(nb);
  ArrayRef<int64_t> rhs = ArrayRef<int64_t>(*bm).drop_front(nb);
  if (!plan.hasM) {
    if (lhs[0] != k) {
      why = "lhs indexing map is not [k]";
      return failure();
    }
  } else if (lhs[0] == m && lhs[1] == k) {
    plan.transposeLhs = false;
  } else if (lhs[0] == k && lhs[1] == m) {
    plan.transposeLhs = true;
  } else {
    why = "lhs indexing map is not [m, k] or [k, m]";
    return failure();
  }
  if (!plan.hasN) {
    if (rhs[0] != k) {
      why = "rhs indexing map is not [k]";
      return failure();
    }
  } else if (rhs[0] == k && rhs[1] == n) {
    plan.transposeRhs = false;
  } else if (rhs[0] == n && rhs[1] == k) {
    plan.transposeRhs = true;
  } else {
    why = "rhs indexing map is not [k, n] or [n, k]";
    return failure();
  }
  return plan;
}

/// Whether the body reads input `i` as an unsigned integer (cast_unsigned:
/// its block argument feeds arith.extui or arith.uitofp).
static bool readsUnsigned(linalg::LinalgOp op, unsigned i) {
  return llvm::any_of(op.getBlock()->getArgument(i).getUsers(),
                      [](Operation *u) { return isa<arith::ExtUIOp, arith::UIToFPOp>(u); });
}

std::string mlir::neuron::linalg_import::whyContractionTypesFail(linalg::LinalgOp op) {
  // Unsigned operands narrower than 32 bits zero-extend exactly (masked in
  // i32); an unsigned i32 or i64 operand has no exact i32/f32 reading.
  for (auto [i, v] : llvm::enumerate(op.getDpsInputs()))
    if (readsUnsigned(op, i) && getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth() >= 32)
      return "its " + std::to_string(getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth()) +
             "-bit operands are extended as unsigned integers (cast_unsigned); neuronc reads "
             "only narrower operands as unsigned";
  return {};
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// `v` with element type `to` as linalg casts it, or `v` itself: unsigned
/// operands zero-extend; a signed i1 is 0 or -1 (true sign-extends).
static Value castElements(OpBuilder &b, Location loc, Value v, Type to, bool isUnsigned) {
  auto type = cast<RankedTensorType>(v.getType());
  Type from = type.getElementType();
  if (from == to)
    return v;
  if (isUnsigned)
    return import::emitZeroExtended(b, loc, v, from, to);
  Value c = CastOp::create(b, loc, type.clone(to), v);
  return from.isInteger(1) ? NegOp::create(b, loc, c.getType(), c).getResult() : c;
}

Value mlir::neuron::linalg_import::emitContraction(PatternRewriter &rewriter, linalg::LinalgOp op,
                                                   const ContractionPlan &plan) {
  Location loc = op.getLoc();
  Value init = op.getDpsInits().front();
  auto initType = cast<RankedTensorType>(init.getType());
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Type acc = initType.getElementType();
  Type ea = getElementTypeOrSelf(lhs.getType()), eb = getElementTypeOrSelf(rhs.getType());
  bool accumulatesInF32 = ea == eb && (ea.isBF16() || ea.isF16()) && acc.isF32();
  if (!accumulatesInF32) {
    lhs = castElements(rewriter, loc, lhs, acc, readsUnsigned(op, 0));
    rhs = castElements(rewriter, loc, rhs, acc, readsUnsigned(op, 1));
  }
  // A vector operand becomes a one-row (lhs) or one-column (rhs) matrix.
  auto withUnitDim = [&](Value v, int64_t fromBack) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
    shape.insert(shape.end() - fromBack, 1);
    return reshapeTo(rewriter, loc, v, shape);
  };
  if (!plan.hasM)
    lhs = withUnitDim(lhs, /*fromBack=*/1);
  if (!plan.hasN)
    rhs = withUnitDim(rhs, /*fromBack=*/0);
  SmallVector<int64_t> shape(initType.getShape());
  if (!plan.hasN)
    shape.push_back(1);
  if (!plan.hasM)
    shape.insert(shape.end() - 1, 1);
  Value mm = MatmulOp::create(rewriter, loc, RankedTensorType::get(shape, acc), lhs, rhs,
                              plan.transposeLhs ? rewriter.getUnitAttr() : nullptr,
                              plan.transposeRhs ? rewriter.getUnitAttr() : nullptr);
  mm = reshapeTo(rewriter, loc, mm, initType.getShape());
  return accumulateInto(rewriter, loc, mm, init);
}

//===----------------------------------------------------------------------===//
// Named contraction ops
//===----------------------------------------------------------------------===//

namespace {

/// A named contraction (`linalg.matvec ins(%a, %x) outs(%acc)`) →
/// `neuron.matmul` (+ reshapes for vector operands, + `neuron.add %acc`).
template <typename OpTy> struct ContractionPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "needs tensors of a supported type");
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    if (std::string why = whyContractionTypesFail(linalgOp); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    std::string why;
    FailureOr<ContractionPlan> plan = analyzeContraction(linalgOp, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    if ((!plan->hasM || !plan->hasN) && llvm::any_of(op->getOperandTypes(), [](Type t) {
          return !cast<RankedTensorType>(t).hasStaticShape();
        }))
      return rewriter.notifyMatchFailure(op, "a vector operand needs static shapes");
    rewriter.replaceOp(op, emitContraction(rewriter, linalgOp, *plan));
    return success();
  }
};

} // namespace

void mlir::neuron::linalg_import::populateContractionPatterns(RewritePatternSet &patterns,
                                                              PatternBenefit benefit) {
  patterns.add<ContractionPattern<linalg::MatmulOp>, ContractionPattern<linalg::BatchMatmulOp>,
               ContractionPattern<linalg::MatvecOp>, ContractionPattern<linalg::BatchMatvecOp>,
               ContractionPattern<linalg::VecmatOp>, ContractionPattern<linalg::BatchVecmatOp>,
               ContractionPattern<linalg::DotOp>>(patterns.getContext(), benefit);
}
