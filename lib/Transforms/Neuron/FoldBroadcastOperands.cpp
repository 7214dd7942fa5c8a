//===- FoldBroadcastOperands.cpp - neuron-fold-broadcast-operands -----------===//
//
// A matmul operand that is a batch-dim broadcast (grouped-query attention's
// repeat_kv) is read through the matmul's own batch broadcasting instead of
// being materialized R times in HBM.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFOLDBROADCASTOPERANDSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using mlir::neuron::fusion::broadcastSource;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// cast(reshape(x)) → reshape(cast(x)) and cast(broadcast(x)) →
/// broadcast_to(cast(x)): --auto-cast puts the cast right before the
/// matmul, after the repeat; moved above it, the cast converts the
/// unrepeated tensor and the repeat is visible to the matmul.
struct HoistCastAboveBroadcast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp castOp, PatternRewriter &rewriter) const override {
    Operation *def = castOp.getInput().getDefiningOp();
    if (!def || !def->hasOneUse())
      return rewriter.notifyMatchFailure(castOp, "the input is not a single-use op");
    Type elem = castOp.getType().getElementType();
    auto convert = [&](Value v) {
      return CastOp::create(rewriter, castOp.getLoc(),
                            cast<RankedTensorType>(v.getType()).clone(elem), v);
    };
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      if (!broadcastSource(reshape.getInput()))
        return rewriter.notifyMatchFailure(castOp, "the reshape is not of a broadcast");
      rewriter.replaceOpWithNewOp<ReshapeOp>(castOp, castOp.getType(), convert(reshape.getInput()));
      rewriter.eraseOp(reshape);
      return success();
    }
    Value src = broadcastSource(castOp.getInput());
    if (!src)
      return rewriter.notifyMatchFailure(castOp, "the input is not a broadcast");
    rewriter.replaceOpWithNewOp<BroadcastToOp>(castOp, castOp.getType(), convert(src));
    rewriter.eraseOp(def);
    return success();
  }
};

/// matmul(A, reshape(broadcast(x))) → reshape(matmul(reshape(A), x)) when the
/// broadcast only repeats batch dims and the reshape only regroups them.
struct FoldBroadcastIntoMatmul : OpRewritePattern<MatmulOp> {
  FoldBroadcastIntoMatmul(MLIRContext *ctx, func::FuncOp fn) : OpRewritePattern(ctx), fn(fn) {}

  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto reshape = mm->getOperand(i).getDefiningOp<ReshapeOp>();
      if (!reshape)
        continue;
      Value wide = reshape.getInput();
      Value src = broadcastSource(wide);
      if (!src)
        continue;
      auto wideType = cast<RankedTensorType>(wide.getType());
      auto srcType = cast<RankedTensorType>(src.getType());
      auto opType = cast<RankedTensorType>(reshape.getType());
      Value other = mm->getOperand(1 - i);
      auto otherType = cast<RankedTensorType>(other.getType());
      auto resultType = mm.getType();
      if (!wideType.hasStaticShape() || !srcType.hasStaticShape() || !otherType.hasStaticShape() ||
          srcType.getRank() != wideType.getRank() || wideType.getRank() < 3 || opType.getRank() < 3)
        continue; // not a same-rank static batch broadcast
      ArrayRef<int64_t> wideShape = wideType.getShape(), srcShape = srcType.getShape();
      // The matrix dims are neither broadcast nor regrouped.
      if (wideShape.take_back(2) != srcShape.take_back(2) ||
          wideShape.take_back(2) != opType.getShape().take_back(2))
        continue; // the broadcast or the reshape touches the matrix dims
      ArrayRef<int64_t> batch = wideShape.drop_back(2);
      int64_t batches = product(batch);
      if (product(opType.getShape().drop_back(2)) != batches ||
          product(otherType.getShape().drop_back(2)) != batches ||
          product(resultType.getShape().drop_back(2)) != batches)
        continue; // the other operand does not have the same batches
      Location loc = mm.getLoc();
      int64_t bytes = 2 * wideType.getNumElements() * ((wideType.getElementTypeBitWidth() + 7) / 8);
      // Broadcast rhs over the trailing batch dims of the lhs (GQA: the R
      // query heads of a KV head): those heads become rows of one matmul,
      // [.., KV, R*M, K] x [.., KV, K, N], which loads each K/V tile once.
      ArrayRef<int64_t> srcBatch = srcShape.drop_back(2);
      size_t lead = batch.size();
      while (lead > 0 && srcBatch[lead - 1] == 1 && batch[lead - 1] != 1)
        --lead;
      bool trailingOnly =
          lead < batch.size() && srcBatch.take_front(lead) == batch.take_front(lead);
      int64_t rep = product(batch.drop_front(lead));
      int64_t m = otherType.getShape()[otherType.getRank() - 2];
      if (i != 1 || !trailingOnly || mm.getTransposeLhs())
        continue; // not a GQA-style broadcast of the rhs
      // Only while the merged rows stay one row tile (decode): beyond, the
      // matmul's blocking changes and a reshape between it and its
      // epilogue keeps the epilogue out of its kernel, which costs more
      // than the repeated copy saves.
      int64_t rowTile = neuronc::hardwareModels().front().partitions;
      if (rep * m > rowTile) {
        if (explained.insert(mm).second) // the driver may visit it again
          neuronc::recordFusionDecision(
              fn, {"broadcast-into-matmul",
                   false,
                   (Twine(rep) + " heads x " + Twine(m) + " query rows = " + Twine(rep * m) +
                    " rows exceed one row tile (" + Twine(rowTile) + "): the repeated copy is kept")
                       .str(),
                   loc,
                   {},
                   0});
        return rewriter.notifyMatchFailure(mm, "the merged query rows exceed one row tile");
      }
      int64_t k = otherType.getShape().back();
      SmallVector<int64_t> aShape(batch.take_front(lead));
      aShape.append({rep * m, k});
      SmallVector<int64_t> bShape(batch.take_front(lead));
      llvm::append_range(bShape, srcShape.take_back(2));
      SmallVector<int64_t> cShape(batch.take_front(lead));
      cShape.append({rep * m, resultType.getShape().back()});
      Value a = ReshapeOp::create(rewriter, loc,
                                  RankedTensorType::get(aShape, otherType.getElementType()), other);
      Value b = ReshapeOp::create(rewriter, loc,
                                  RankedTensorType::get(bShape, srcType.getElementType()), src);
      auto merged = MatmulOp::create(rewriter, loc,
                                     RankedTensorType::get(cShape, resultType.getElementType()), a,
                                     b, mm.getTransposeLhsAttr(), mm.getTransposeRhsAttr());
      neuronc::recordFusionDecision(
          fn, {"broadcast-into-matmul", true, "", loc, {wide.getLoc()}, bytes});
      rewriter.replaceOpWithNewOp<ReshapeOp>(mm, resultType, merged);
      return success();
    }
    return rewriter.notifyMatchFailure(
        mm, "no operand is a GQA-style reshaped batch broadcast of the rhs with the query rows "
            "in one row tile");
  }
  func::FuncOp fn;
  /// Matmuls whose rejection is already recorded.
  mutable llvm::DenseSet<Operation *> explained;
};

struct FoldBroadcastOperandsPass
    : mlir::neuron::impl::NeuronFoldBroadcastOperandsPassBase<FoldBroadcastOperandsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBroadcastIntoMatmul>(&getContext(), getOperation());
    patterns.add<HoistCastAboveBroadcast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
