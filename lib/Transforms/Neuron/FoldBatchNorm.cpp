//===- FoldBatchNorm.cpp - neuron-fold-batchnorm -------------------------===//
//
// Batch normalization in inference form is a per-channel affine map,
// y = x * a + b (exporters also write (x - mean) / sqrt(var + eps) * gamma
// + beta with constants, which canonicalization and the importers reduce
// to multiplies and adds by constants). After a convolution with constant
// weights it folds into the convolution at compile time:
//   conv(x, W, c) * s  ->  conv(x, W * s[f], c * s[f])
//   conv(x, W, c) / s  ->  conv(x, W / s[f], c / s[f])
//   conv(x, W, c) + t  ->  conv(x, W, c + t[f])   (and - t)
// where s and t are constants that vary at most along the channel dim.
// The weight may be a constant or a cast of one (--auto-cast): the fold is
// computed in f64 from the wider constant and cast again.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFOLDBATCHNORMPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// A constant's values as doubles, or nothing when `v` is not a float
/// constant.
std::optional<std::vector<double>> constantValues(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  std::vector<double> out;
  out.reserve(dense.getNumElements());
  if (dense.getElementType().isF32() && !dense.isSplat()) {
    for (float f : dense.getValues<float>())
      out.push_back(f);
    return out;
  }
  for (const APFloat &f : dense.getValues<APFloat>())
    out.push_back(f.convertToDouble());
  return out;
}

/// `values` as a constant of `type` (rounded to its element type).
Value makeConstant(OpBuilder &b, Location loc, RankedTensorType type, ArrayRef<double> values) {
  auto ft = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> fs;
  fs.reserve(values.size());
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    fs.push_back(f);
  }
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, fs));
}

/// The per-channel values of a constant that varies at most along dim 1 of
/// a rank-`rank` result with `channels` channels (a splat, [F], [1, F, 1...]
/// or [F, 1...] aligned numpy-style); nothing otherwise.
std::optional<SmallVector<double>> perChannel(Value v, int64_t rank, int64_t channels) {
  std::optional<std::vector<double>> values = constantValues(v);
  if (!values)
    return std::nullopt;
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  if (static_cast<int64_t>(shape.size()) > rank)
    return std::nullopt;
  int64_t channelDim = 1 - (rank - static_cast<int64_t>(shape.size())); // aligned right
  for (auto [i, d] : llvm::enumerate(shape))
    if (d != 1 && !(static_cast<int64_t>(i) == channelDim && d == channels))
      return std::nullopt;
  SmallVector<double> out(channels);
  bool varies = channelDim >= 0 && channelDim < static_cast<int64_t>(shape.size()) &&
                shape[channelDim] == channels && channels > 1;
  for (int64_t f = 0; f < channels; ++f)
    out[f] = (*values)[varies ? f : 0];
  return out;
}

/// Folds a multiply, divide, add or subtract by per-channel constants into
/// the convolution producing its other operand.
struct FoldAffineIntoConv : RewritePattern {
  FoldAffineIntoConv(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    bool scale = isa<MulOp, DivOp>(op), shift = isa<AddOp, SubOp>(op);
    if (!scale && !shift)
      return rewriter.notifyMatchFailure(op, "not a multiply, divide, add or subtract");
    // The convolution operand (either side of a commutative op).
    int convSide = -1;
    for (int i = 0; i < 2; ++i)
      if (op->getOperand(i).getDefiningOp<ConvOp>() &&
          (i == 0 || isa<MulOp, AddOp>(op)))
        convSide = convSide < 0 ? i : convSide;
    if (convSide < 0)
      return rewriter.notifyMatchFailure(op, "no convolution operand it can fold into");
    auto conv = op->getOperand(convSide).getDefiningOp<ConvOp>();
    Value other = op->getOperand(1 - convSide);
    auto type = conv.getResult().getType();
    if (!conv->hasOneUse() || op->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(op, "the convolution has other users, or the op "
                                             "broadcasts it");
    int64_t channels = type.getDimSize(1);
    std::optional<SmallVector<double>> k = perChannel(other, type.getRank(), channels);
    if (!k)
      return rewriter.notifyMatchFailure(op, "the other operand is not a per-channel constant");
    // The weight (possibly through an --auto-cast cast) and bias constants.
    Value weight = conv.getWeight();
    auto weightCast = weight.getDefiningOp<CastOp>();
    Value weightSource = weightCast ? weightCast.getInput() : weight;
    std::optional<std::vector<double>> w;
    if (scale && !(w = constantValues(weightSource)))
      return rewriter.notifyMatchFailure(op, "the convolution's weight is not a constant");
    SmallVector<double> bias(channels, 0.0);
    if (Value b = conv.getBias()) {
      std::optional<std::vector<double>> bv = constantValues(b);
      if (!bv)
        return rewriter.notifyMatchFailure(op, "the convolution's bias is not a constant");
      bias.assign(bv->begin(), bv->end());
    }
    bool divide = isa<DivOp>(op), subtract = isa<SubOp>(op);
    for (int64_t f = 0; f < channels; ++f) {
      double kf = (*k)[f];
      if (scale)
        bias[f] = divide ? bias[f] / kf : bias[f] * kf;
      else
        bias[f] = subtract ? bias[f] - kf : bias[f] + kf;
    }
    Location loc = rewriter.getFusedLoc({conv.getLoc(), op->getLoc()});
    Value newWeight = weight;
    if (scale) {
      int64_t per = static_cast<int64_t>(w->size()) / channels;
      for (int64_t f = 0; f < channels; ++f)
        for (int64_t i = 0; i < per; ++i)
          (*w)[f * per + i] = divide ? (*w)[f * per + i] / (*k)[f] : (*w)[f * per + i] * (*k)[f];
      auto st = cast<RankedTensorType>(weightSource.getType());
      newWeight = makeConstant(rewriter, loc, st, *w);
      if (weightCast)
        newWeight = CastOp::create(rewriter, loc, weight.getType(), newWeight);
    }
    Type biasElt = conv.getBias()
                       ? cast<RankedTensorType>(conv.getBias().getType()).getElementType()
                       : type.getElementType();
    Value newBias = makeConstant(rewriter, loc, RankedTensorType::get({channels}, biasElt), bias);
    auto folded = ConvOp::create(rewriter, loc, type, conv.getInput(), newWeight, newBias,
                                 conv.getStridesAttr(), conv.getPaddingAttr(),
                                 conv.getDilationsAttr(), conv.getGroupsAttr());
    recordFused(folded, "batchnorm-fold", {conv, op}, bytesSaved({conv, op}, folded));
    rewriter.replaceOp(op, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// Applies FoldAffineIntoConv until nothing more folds.
struct FoldBatchNormPass : mlir::neuron::impl::NeuronFoldBatchNormPassBase<FoldBatchNormPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAffineIntoConv>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
