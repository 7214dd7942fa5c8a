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

void mlir::neuron::linalg_import::foldConstantShapes(func::FuncOp fn) {
  if (fn.isExternal())
    return;
  bool dynamic = false;
  fn.walk([&](Operation *op) { dynamic |= llvm::any_of(op->getResultTypes(), isDynamicTensor); });
  if (!dynamic)
    return;
  SmallVector<Operation *> ops;
  for (Operation &op : fn.getBody().front()) {
    bool scalarArith =
        isa_and_present<arith::ArithDialect>(op.getDialect()) &&
        llvm::none_of(op.getResultTypes(), [](Type t) { return isa<ShapedType>(t); });
    bool shapeOp = isa<tensor::DimOp, tensor::EmptyOp, tensor::ExtractSliceOp, tensor::CastOp>(op);
    bool dynamicGeneric =
        isa<linalg::GenericOp>(op) && llvm::any_of(op.getResultTypes(), isDynamicTensor);
    if (scalarArith || shapeOp || dynamicGeneric)
      ops.push_back(&op);
  }
  if (ops.empty())
    return;
  MLIRContext *ctx = fn.getContext();
  RewritePatternSet patterns(ctx);
  tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
  if (auto *linalgDialect = ctx->getLoadedDialect<linalg::LinalgDialect>())
    linalgDialect->getCanonicalizationPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}
