//===- FoldConstantShapes.cpp - dynamic shapes that are constants ---------===//
//
// Programs that compute slice bounds with scalar arithmetic on constants
// and `tensor.dim` of static tensors (IREE's issue_8825: a slice of
// `[%start] [%size]` where both fold to numbers) carry `?` dims that are
// known. Before the linalg import, on a function that has dynamic tensor
// types, the scalar code at the top level and the shape ops are folded and
// canonicalized with upstream patterns only, so the slices, tensor.empty
// and generics become static. Only those ops are touched: the input
// dialects' folders are not applied elsewhere (see ConvertLinalgPass).
//
//===----------------------------------------------------------------------===//

#include "LinalgImport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

/// True for a tensor type with a `?` dim.
static bool isDynamicTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && !tensor.hasStaticShape();
}

namespace {
/// `linalg.generic ins(tensor.cast %static : T to ?)`: the input read from
/// the more static value directly (the loop ranges come from it).
struct FoldStaticCastIntoInputs : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    bool changed = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto cast = input->get().getDefiningOp<tensor::CastOp>();
      if (!cast || !tensor::canFoldIntoConsumerOp(cast))
        continue;
      rewriter.modifyOpInPlace(op, [&] { input->set(cast.getSource()); });
      changed = true;
    }
    return success(changed);
  }
};
} // namespace

void mlir::neuron::linalg_import::foldConstantShapes(func::FuncOp fn) {
  if (fn.isExternal())
    return;
  bool dynamic = false;
  fn.walk([&](Operation *op) { dynamic |= llvm::any_of(op->getResultTypes(), isDynamicTensor); });
  if (!dynamic)
    return;
  // The ops to fold: top-level scalar arith, shape ops, and linalg ops on
  // dynamic tensors.
  auto collect = [&] {
    SmallVector<Operation *> ops;
    for (Operation &op : fn.getBody().front()) {
      bool scalarArith =
          isa_and_present<arith::ArithDialect>(op.getDialect()) &&
          llvm::none_of(op.getResultTypes(), [](Type t) { return isa<ShapedType>(t); });
      bool shapeOp =
          isa<tensor::DimOp, tensor::EmptyOp, tensor::ExtractSliceOp, tensor::CastOp>(op);
      bool dynamicLinalg =
          isa<linalg::LinalgOp>(op) && (llvm::any_of(op.getResultTypes(), isDynamicTensor) ||
                                        llvm::any_of(op.getOperandTypes(), isDynamicTensor));
      if (scalarArith || shapeOp || dynamicLinalg)
        ops.push_back(&op);
    }
    return ops;
  };
  MLIRContext *ctx = fn.getContext();
  RewritePatternSet patterns(ctx);
  tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
  if (auto *linalgDialect = ctx->getLoadedDialect<linalg::LinalgDialect>())
    linalgDialect->getCanonicalizationPatterns(patterns);
  patterns.add<FoldStaticCastIntoInputs>(ctx);
  FrozenRewritePatternSet frozen(std::move(patterns));
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  // A static type found for one op makes its users' casts foldable: a few
  // rounds, each over the ops that are still dynamic.
  for (int round = 0; round < 4; ++round) {
    SmallVector<Operation *> ops = collect();
    bool changed = false;
    if (ops.empty() || failed(applyOpPatternsGreedily(ops, frozen, config, &changed)) || !changed)
      return;
  }
}
