//===- FoldTransposes.cpp - neuron-fold-transposes --------------------------===//
//
// A transpose of a matmul operand's matrix dims becomes the matmul's
// transpose_lhs / transpose_rhs flag, so no transposed copy is written to
// HBM: exporters write nn.Linear as transpose(W) then matmul, and attention
// as matmul(Q, transpose(K)).
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
using mlir::neuron::fusion::keepsMatrixDims;
using mlir::neuron::fusion::swapMatrixDims;
using mlir::neuron::fusion::swapsMatrixDims;

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

struct FoldTransposesPass : mlir::neuron::impl::NeuronFoldTransposesPassBase<FoldTransposesPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkTransposeBelowReshape, SinkTransposeBelowCast>(&getContext());
    patterns.add<FoldTransposeIntoMatmul>(&getContext(), fn);
    if (failed(applyPatternsGreedily(fn, std::move(patterns))))
      return signalPassFailure();
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
