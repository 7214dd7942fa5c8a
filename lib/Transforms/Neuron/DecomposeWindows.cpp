//===- DecomposeWindows.cpp - neuron-decompose-windows -------------------===//
//
// The device lowering tiles convolutions and poolings over one or two
// spatial dims. A window over k > 2 dims (a video or volumetric model's
// conv3d, max_pool3d) is rewritten here into windows over k - 1 dims, and
// the greedy driver repeats that until two are left:
//   conv:  the first spatial dim joins the batch (transpose + zero planes
//          for its padding); depth tap kd convolves the planes
//          kd * dilation + od * stride (a strided slice) with the weight's
//          slice kd; the KD partial results are added; the dim moves back.
//   pool:  separable; pool the trailing k - 1 dims of [N, C*D, S...], then
//          the first of [N, C, D, R] with a [KD, 1] window.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONDECOMPOSEWINDOWSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// `shape` with the product of dims [from, to) in place of them.
SmallVector<int64_t> collapse(ArrayRef<int64_t> shape, size_t from, size_t to) {
  SmallVector<int64_t> out(shape.begin(), shape.begin() + from);
  int64_t n = 1;
  for (size_t i = from; i < to; ++i)
    n *= shape[i];
  out.push_back(n);
  out.append(shape.begin() + to, shape.end());
  return out;
}

/// The permutation that swaps dims 1 and 2 of a rank-`rank` tensor.
SmallVector<int64_t> swapOneTwo(int64_t rank) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[1], perm[2]);
  return perm;
}

/// A small builder of the ops the decompositions write.
struct Writer {
  PatternRewriter &r;
  Location loc;

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == shape)
      return v;
    return ReshapeOp::create(r, loc, t.clone(shape), v);
  }
  Value transpose(Value v, ArrayRef<int64_t> perm) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return TransposeOp::create(r, loc, t.clone(shape), v, r.getDenseI64ArrayAttr(perm));
  }
  Value slice(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == sizes)
      return v;
    return SliceOp::create(r, loc, t.clone(sizes), v, r.getDenseI64ArrayAttr(offsets),
                           r.getDenseI64ArrayAttr(sizes), r.getDenseI64ArrayAttr(strides));
  }
  /// `v` with `lo` zero slices before and `hi` after along `axis`.
  Value zeroPad(Value v, int64_t axis, int64_t lo, int64_t hi) {
    if (lo == 0 && hi == 0)
      return v;
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<Value> parts;
    auto zeros = [&](int64_t n) {
      SmallVector<int64_t> shape(t.getShape());
      shape[axis] = n;
      auto zt = t.clone(shape);
      return ConstantOp::create(r, loc, zt,
                                cast<ElementsAttr>(DenseElementsAttr::get(
                                    zt, r.getZeroAttr(t.getElementType()))));
    };
    if (lo > 0)
      parts.push_back(zeros(lo));
    parts.push_back(v);
    if (hi > 0)
      parts.push_back(zeros(hi));
    SmallVector<int64_t> shape(t.getShape());
    shape[axis] += lo + hi;
    return ConcatOp::create(r, loc, t.clone(shape), parts, r.getI64IntegerAttr(axis));
  }
};

/// Rewrites a convolution over k > 2 spatial dims into KD convolutions over
/// k - 1 dims whose results are added.
struct DecomposeConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    auto xt = conv.getInput().getType();
    auto wt = conv.getWeight().getType();
    auto yt = conv.getResult().getType();
    int64_t k = xt.getRank() - 2;
    if (k <= 2)
      return rewriter.notifyMatchFailure(conv, "the device lowering takes 1-D and 2-D windows");
    if (!xt.hasStaticShape() || !wt.hasStaticShape() || !yt.hasStaticShape())
      return rewriter.notifyMatchFailure(conv, "a dynamic dim (bucketing makes them static)");
    ArrayRef<int64_t> strides = conv.getStrides(), pads = conv.getPadding(),
                      dil = conv.getDilations();
    int64_t n = xt.getDimSize(0), kd = wt.getDimSize(2), od = yt.getDimSize(2);
    int64_t sd = strides[0], dd = dil[0], padLo = pads[0], padHi = pads[k];
    Writer w{rewriter, conv.getLoc()};

    // [N, C, D, S...] -> [N, Dp, C, S...] with the depth padding as zeros.
    Value x = w.transpose(conv.getInput(), swapOneTwo(xt.getRank()));
    x = w.zeroPad(x, 1, padLo, padHi);
    auto padded = cast<RankedTensorType>(x.getType());

    // The (k-1)-D window attributes: the trailing dims of each.
    SmallVector<int64_t> subPads(pads.begin() + 1, pads.begin() + k);
    subPads.append(pads.begin() + k + 1, pads.end());
    auto subStrides = rewriter.getDenseI64ArrayAttr(strides.drop_front());
    auto subDil = rewriter.getDenseI64ArrayAttr(dil.drop_front());
    SmallVector<int64_t> partShape{n * od, yt.getDimSize(1)};
    partShape.append(yt.getShape().begin() + 3, yt.getShape().end());
    auto partType = yt.clone(partShape);

    Value sum;
    for (int64_t t = 0; t < kd; ++t) {
      // The planes tap t reads for every output depth: [N, OD, C, S...].
      SmallVector<int64_t> offsets(padded.getRank(), 0), sizes(padded.getShape()),
          steps(padded.getRank(), 1);
      offsets[1] = t * dd;
      sizes[1] = od;
      steps[1] = sd;
      Value planes = w.reshape(w.slice(x, offsets, sizes, steps),
                               collapse(sizes, 0, 2));
      // The weight's depth slice t: [F, C/g, K...].
      SmallVector<int64_t> wOff(wt.getRank(), 0), wSizes(wt.getShape()), wSteps(wt.getRank(), 1);
      wOff[2] = t;
      wSizes[2] = 1;
      Value tap = w.slice(conv.getWeight(), wOff, wSizes, wSteps);
      SmallVector<int64_t> tapShape(wSizes);
      tapShape.erase(tapShape.begin() + 2);
      tap = w.reshape(tap, tapShape);
      Value part = ConvOp::create(rewriter, conv.getLoc(), partType, planes, tap,
                                  t == 0 ? conv.getBias() : Value(), subStrides,
                                  rewriter.getDenseI64ArrayAttr(subPads), subDil,
                                  conv.getGroupsAttr());
      sum = sum ? AddOp::create(rewriter, conv.getLoc(), partType, sum, part).getResult() : part;
    }
    // [N*OD, F, O...] -> [N, OD, F, O...] -> [N, F, OD, O...].
    SmallVector<int64_t> split{n, od};
    split.append(partShape.begin() + 1, partShape.end());
    Value y = w.transpose(w.reshape(sum, split), swapOneTwo(yt.getRank()));
    rewriter.replaceOp(conv, y);
    return success();
  }
};

/// Rewrites a pooling over k > 2 spatial dims into one over the trailing
/// k - 1 dims and a [KD, 1] one over the first.
struct DecomposePool : OpRewritePattern<PoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOp pool, PatternRewriter &rewriter) const override {
    auto xt = pool.getInput().getType();
    auto yt = pool.getResult().getType();
    int64_t k = xt.getRank() - 2;
    if (k <= 2)
      return rewriter.notifyMatchFailure(pool, "the device lowering takes 1-D and 2-D windows");
    if (!xt.hasStaticShape() || !yt.hasStaticShape())
      return rewriter.notifyMatchFailure(pool, "a dynamic dim (bucketing makes them static)");
    ArrayRef<int64_t> kernel = pool.getKernel(), strides = pool.getStrides(),
                      pads = pool.getPadding();
    Writer w{rewriter, pool.getLoc()};
    int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), d = xt.getDimSize(2),
            od = yt.getDimSize(2);

    // The trailing dims of [N, C*D, S...].
    Value x = w.reshape(pool.getInput(), collapse(xt.getShape(), 1, 3));
    SmallVector<int64_t> inner{n, c * d};
    inner.append(yt.getShape().begin() + 3, yt.getShape().end());
    SmallVector<int64_t> subPads(pads.begin() + 1, pads.begin() + k);
    subPads.append(pads.begin() + k + 1, pads.end());
    Value p = PoolOp::create(rewriter, pool.getLoc(), yt.clone(inner), x, pool.getKind(),
                             kernel.drop_front(), strides.drop_front(), subPads,
                             pool.getCountIncludePad());

    // The first dim of [N, C, D, R].
    int64_t rest = 1;
    for (int64_t i = 3; i < yt.getRank(); ++i)
      rest *= yt.getDimSize(i);
    p = w.reshape(p, {n, c, d, rest});
    SmallVector<int64_t> kd{kernel[0], 1}, sd{strides[0], 1}, pd{pads[0], 0, pads[k], 0};
    p = PoolOp::create(rewriter, pool.getLoc(), yt.clone({n, c, od, rest}), p, pool.getKind(),
                       kd, sd, pd, pool.getCountIncludePad());
    rewriter.replaceOp(pool, w.reshape(p, yt.getShape()));
    return success();
  }
};

/// Applies DecomposeConv and DecomposePool until every window is 1-D or 2-D.
struct DecomposeWindowsPass
    : mlir::neuron::impl::NeuronDecomposeWindowsPassBase<DecomposeWindowsPass> {
  using Base::Base;
  void runOnOperation() override {
    // Nothing to split: leave the function exactly as it is (the greedy
    // driver would also fold, and the lowering pipeline runs this pass on
    // programs no other pass has touched at -O0).
    auto wide = [](Operation *op) {
      return isa<ConvOp, PoolOp>(op) &&
             cast<RankedTensorType>(op->getOperand(0).getType()).getRank() > 4;
    };
    if (!getOperation()->walk([&](Operation *op) {
          return wide(op) ? WalkResult::interrupt() : WalkResult::advance();
        }).wasInterrupted())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeConv, DecomposePool>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
