//===- FoldTransposes.cpp - neuron-fold-transposes --------------------------===//
//
// A transpose of a matmul operand's matrix dims becomes the matmul's
// transpose_lhs / transpose_rhs flag, so no transposed copy is written to
// HBM: exporters write nn.Linear as transpose(W) then matmul, and attention
// as matmul(Q, transpose(K)). A constant operand read transposed (a
// classifier's nn.Linear weight, exported as Gemm with transB) is stored
// transposed instead: the compiler swaps its dims once, and the kernel
// reads it as the multiply wants it, with no TensorE transposes at run time.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFOLDTRANSPOSESPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using mlir::neuron::fusion::constantBytes;
using mlir::neuron::fusion::keepsMatrixDims;
using mlir::neuron::fusion::swapMatrixDims;
using mlir::neuron::fusion::swapsMatrixDims;
using mlir::neuron::fusion::wholeBytes;

namespace {

/// Whether `v` reaches a matmul operand directly or through casts and
/// reshapes (what legalization and exporters put in between).
bool feedsMatmul(Value v, int depth = 0) {
  return llvm::any_of(v.getUsers(), [&](Operation *u) {
    if (isa<MatmulOp>(u))
      return true;
    return depth < 3 && isa<CastOp, ReshapeOp>(u) && feedsMatmul(u->getResult(0), depth + 1);
  });
}

/// HBM bytes a materialized transpose moves: it reads and writes its tensor.
int64_t transposeBytes(TransposeOp t) {
  auto type = cast<RankedTensorType>(t.getType());
  return 2 * type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

/// reshape(transpose(x)) → transpose(reshape(x)) when the transpose swaps
/// the matrix dims and the reshape keeps them (it only regroups batch dims).
struct SinkTransposeBelowReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp reshape, PatternRewriter &rewriter) const override {
    auto t = reshape.getInput().getDefiningOp<TransposeOp>();
    if (!t)
      return rewriter.notifyMatchFailure(reshape, "the input is not a transpose");
    if (!swapsMatrixDims(t))
      return rewriter.notifyMatchFailure(reshape, "the transpose moves more than the matrix dims");
    if (!t->hasOneUse())
      return rewriter.notifyMatchFailure(reshape, "the transpose has other users");
    auto out = cast<RankedTensorType>(reshape.getType());
    if (!keepsMatrixDims(reshape))
      return rewriter.notifyMatchFailure(reshape, "the reshape changes the matrix dims");
    if (!feedsMatmul(reshape))
      return rewriter.notifyMatchFailure(reshape, "no matmul uses the result");
    Value inner = ReshapeOp::create(rewriter, reshape.getLoc(), swapMatrixDims(out), t.getInput());
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, out.getRank()));
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    rewriter.replaceOpWithNewOp<TransposeOp>(reshape, out, inner, perm);
    rewriter.eraseOp(t);
    return success();
  }
};

/// cast(transpose(x)) → transpose(cast(x)) for a matrix-dim transpose, so
/// that a matmul operand cast by --auto-cast still shows its transpose.
struct SinkTransposeBelowCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp castOp, PatternRewriter &rewriter) const override {
    auto t = castOp.getInput().getDefiningOp<TransposeOp>();
    if (!t || !swapsMatrixDims(t) || !t->hasOneUse() || !feedsMatmul(castOp))
      return rewriter.notifyMatchFailure(castOp,
                                         "the input is not a single-use matrix transpose of a "
                                         "matmul operand");
    auto inType = cast<RankedTensorType>(t.getInput().getType());
    Type elem = castOp.getType().getElementType();
    Value converted = CastOp::create(rewriter, castOp.getLoc(), inType.clone(elem), t.getInput());
    rewriter.replaceOpWithNewOp<TransposeOp>(castOp, castOp.getType(), converted, t.getPerm());
    rewriter.eraseOp(t);
    return success();
  }
};

/// matmul(transpose(x), ...) → matmul(x, ...) with the operand's transpose
/// flag toggled, for each operand that is a matrix-dim transpose.
struct FoldTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  FoldTransposeIntoMatmul(MLIRContext *ctx, func::FuncOp fn) : OpRewritePattern(ctx), fn(fn) {}
  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    bool changed = false;
    for (unsigned i = 0; i < 2; ++i) {
      auto t = mm->getOperand(i).getDefiningOp<TransposeOp>();
      if (!t || !swapsMatrixDims(t))
        continue;
      neuronc::FusionDecision d{"transpose-into-matmul", true, "", mm.getLoc(), {t.getLoc()},
                                transposeBytes(t)};
      // The operand's rank must allow the matmul to read it untransposed:
      // a rank-2 operand stays rank 2, a batched one keeps its batch dims.
      rewriter.modifyOpInPlace(mm, [&] {
        mm->setOperand(i, t.getInput());
        if (i == 0)
          mm.setTransposeLhs(!mm.getTransposeLhs());
        else
          mm.setTransposeRhs(!mm.getTransposeRhs());
      });
      if (!t->use_empty())
        d.bytesSaved = 0; // the transpose stays for its other users
      neuronc::recordFusionDecision(fn, d);
      if (t->use_empty())
        rewriter.eraseOp(t);
      changed = true;
    }
    return success(changed);
  }
  func::FuncOp fn;
};

/// Whether swapConstantDims can transpose `value`.
bool swappable(ElementsAttr value) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!wholeBytes(value))
    return false;
  if (dense && dense.isSplat())
    return true;
  std::optional<ArrayRef<char>> raw = constantBytes(value);
  auto type = cast<ShapedType>(value.getType());
  return raw && raw->size() == static_cast<size_t>(type.getNumElements()) *
                                   (type.getElementTypeBitWidth() / 8);
}

/// The data of `value` with its last two dims swapped (each batch matrix
/// transposed); `value` must be swappable.
DenseElementsAttr swapConstantDims(ElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType out = swapMatrixDims(type);
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
    return dense.reshape(out);
  ArrayRef<char> raw = *constantBytes(value);
  size_t eb = type.getElementTypeBitWidth() / 8;
  int64_t rows = type.getDimSize(type.getRank() - 2), cols = type.getDimSize(type.getRank() - 1);
  int64_t matrices = type.getNumElements() / std::max<int64_t>(rows * cols, 1);
  std::vector<char> swapped(raw.size());
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(&swapped[((m * cols + j) * rows + i) * eb],
                    &raw[((m * rows + i) * cols + j) * eb], eb);
  return DenseElementsAttr::getFromRawBuffer(out, swapped);
}

/// matmul(constant, ...) with the operand's transpose flag set →
/// matmul(transposed constant, ...) without it: the layout the multiply
/// wants is chosen at compile time. A constant other ops read as it is
/// gets a transposed copy up to kMaxCopyBytes.
struct TransposeConstantOperand : OpRewritePattern<MatmulOp> {
  TransposeConstantOperand(MLIRContext *ctx, func::FuncOp fn) : OpRewritePattern(ctx), fn(fn) {}
  /// heuristic: a weight stored twice (tied embeddings) costs HBM capacity.
  static constexpr int64_t kMaxCopyBytes = 16 << 20;

  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    bool changed = false;
    for (unsigned i = 0; i < 2; ++i) {
      bool transposed = i == 0 ? mm.getTransposeLhs() : mm.getTransposeRhs();
      auto c = mm->getOperand(i).getDefiningOp<ConstantOp>();
      if (!transposed || !c || mm.getLhs() == mm.getRhs())
        continue;
      auto type = cast<RankedTensorType>(c.getType());
      // Every other reader must want it transposed too, or it is copied.
      bool shared = llvm::any_of(c->getUses(), [&](OpOperand &use) {
        auto other = dyn_cast<MatmulOp>(use.getOwner());
        return !other || other.getLhs() == other.getRhs() ||
               !(use.getOperandNumber() == 0 ? other.getTransposeLhs()
                                             : other.getTransposeRhs());
      });
      int64_t bytes = type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
      if (shared && bytes > kMaxCopyBytes)
        continue; // the pass says why once the patterns are done
      if (!swappable(c.getValue()))
        continue;
      DenseElementsAttr value = swapConstantDims(c.getValue());
      rewriter.setInsertionPoint(c);
      auto swapped = ConstantOp::create(rewriter, c.getLoc(), value);
      // Replace every transposed reader of the constant at once, so that
      // a weight several matmuls share is transposed (and stored) once.
      SmallVector<OpOperand *> uses = llvm::map_to_vector(c->getUses(), [](OpOperand &u) {
        return &u;
      });
      for (OpOperand *use : uses) {
        auto other = dyn_cast<MatmulOp>(use->getOwner());
        if (!other || other.getLhs() == other.getRhs())
          continue;
        unsigned n = use->getOperandNumber();
        if (!(n == 0 ? other.getTransposeLhs() : other.getTransposeRhs()))
          continue;
        rewriter.modifyOpInPlace(other, [&] {
          use->set(swapped);
          if (n == 0)
            other.setTransposeLhs(false);
          else
            other.setTransposeRhs(false);
        });
        neuronc::recordFusionDecision(
            fn, {"transpose-constant", true, "", other.getLoc(), {c.getLoc()}, 0});
      }
      if (c->use_empty())
        rewriter.eraseOp(c);
      changed = true;
      break; // the operands may have moved: look again
    }
    if (!changed)
      return rewriter.notifyMatchFailure(
          mm, "no operand is a constant read transposed that can be stored transposed");
    return success();
  }
  func::FuncOp fn;
};

struct FoldTransposesPass : mlir::neuron::impl::NeuronFoldTransposesPassBase<FoldTransposesPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkTransposeBelowReshape, SinkTransposeBelowCast>(&getContext());
    patterns.add<FoldTransposeIntoMatmul, TransposeConstantOperand>(&getContext(), fn);
    if (failed(applyPatternsGreedily(fn, std::move(patterns))))
      return signalPassFailure();
    // A constant still read transposed is one TransposeConstantOperand
    // left: say why.
    fn.walk([&](MatmulOp mm) {
      for (unsigned i = 0; i < 2; ++i) {
        auto c = mm->getOperand(i).getDefiningOp<ConstantOp>();
        if (!c || !(i == 0 ? mm.getTransposeLhs() : mm.getTransposeRhs()))
          continue;
        auto type = cast<RankedTensorType>(c.getType());
        int64_t bytes = type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
        std::string why =
            mm.getLhs() == mm.getRhs() ? "the matmul reads the constant both ways"
            : !swappable(c.getValue())
                ? "its value is not stored as a dense array of whole bytes"
                : ("other ops read the constant as it is and a transposed copy of " +
                   Twine(bytes) + " bytes would be stored beside it")
                      .str();
        neuronc::recordFusionDecision(fn, {"transpose-constant", false, why, mm.getLoc(), {}, 0});
      }
    });
    // A matrix-dim transpose left before a matmul is one the rules above
    // could not move: say why.
    fn.walk([&](TransposeOp t) {
      if (!swapsMatrixDims(t))
        return;
      for (Operation *user : t->getUsers()) {
        auto reshape = dyn_cast<ReshapeOp>(user);
        if (reshape && feedsMatmul(reshape)) {
          neuronc::recordFusionDecision(
              fn, {"transpose-into-matmul",
                   false,
                   t->hasOneUse() ? "a reshape between the transpose and the matmul changes "
                                    "the matrix dims"
                                  : "the transpose has other users, so it is materialized "
                                    "for them",
                   t.getLoc(),
                   {},
                   0});
          return;
        }
      }
    });
  }
};

} // namespace
