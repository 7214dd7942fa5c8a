//===- ConvertWindows.cpp - linalg convolutions and pooling -> neuron -----===//
//
// The named linalg convolutions (conv_1d/2d/3d in channels-first and
// channels-last layouts, depthwise, grouped) become one `neuron.conv`, the
// named max and sum poolings one `neuron.pool`, with transposes (folded into
// constant weights) around them for channels-last layouts. linalg windows
// have no padding: a `tensor.pad` of the right value feeding the input
// becomes the op's padding. The init operand is accumulated into: a zero
// (or -inf for max) fill disappears, a broadcast 1-D bias becomes the conv's
// bias, anything else is added (or max-ed) afterwards.
//
//===----------------------------------------------------------------------===//

#include "LinalgImport.h"

#include "neuronc/Conversion/ImportUtils.h"
#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;
using namespace mlir::neuron::linalg_import;

namespace {

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// How a named linalg window op's operands map onto neuron's channels-first
/// `[N, C, spatial...]` input and `[F, C / groups, K...]` weight.
struct WindowLayout {
  enum class Weight { Plain, Depthwise, GroupedFirst, GroupedSecond };
  /// Input dims in the order [N, C, spatial...] (for grouped convs [N, G,
  /// C, spatial...], merged to [N, G·C, spatial...]).
  SmallVector<int64_t> inputPerm;
  /// Weight dims in the order [F, C, K...] (depthwise: [C, K...]; grouped:
  /// [G, F, C, K...]).
  SmallVector<int64_t> weightPerm;
  Weight weight = Weight::Plain;
  bool isPool = false;
  PoolKind poolKind = PoolKind::max;
  /// The op's output channel dim (where a broadcast bias varies).
  int64_t channelDim = 1;
  /// Number of spatial dims.
  int64_t spatial = 2;
};

/// The layout of `op`, or nullopt when it is no convolution or pooling the
/// import knows.
std::optional<WindowLayout> layoutOf(Operation *op) {
  using W = WindowLayout::Weight;
  auto conv = [](int64_t k, bool channelsLast, SmallVector<int64_t> weightPerm,
                 W weight = W::Plain) {
    WindowLayout l;
    l.spatial = k;
    l.inputPerm = channelsLast ? channelsFirstPerm(k + 2)
                               : llvm::to_vector(llvm::seq<int64_t>(0, k + 2));
    l.weightPerm = std::move(weightPerm);
    l.weight = weight;
    l.channelDim = channelsLast ? k + 1 : 1;
    return l;
  };
  auto pool = [&](bool channelsLast, PoolKind kind) {
    WindowLayout l = conv(2, channelsLast, {});
    l.isPool = true;
    l.poolKind = kind;
    return l;
  };
  return llvm::TypeSwitch<Operation *, std::optional<WindowLayout>>(op)
      .Case([&](linalg::Conv1DNcwFcwOp) {
        return conv(1, false, {0, 1, 2});
      })
      .Case([&](linalg::Conv1DNwcWcfOp) {
        return conv(1, true, {2, 1, 0});
      })
      .Case([&](linalg::Conv2DNchwFchwOp) {
        return conv(2, false, {0, 1, 2, 3});
      })
      .Case([&](linalg::Conv2DNhwcHwcfOp) {
        return conv(2, true, {3, 2, 0, 1});
      })
      .Case([&](linalg::Conv2DNhwcFhwcOp) {
        return conv(2, true, {0, 3, 1, 2});
      })
      .Case([&](linalg::Conv3DNcdhwFcdhwOp) {
        return conv(3, false, {0, 1, 2, 3, 4});
      })
      .Case([&](linalg::Conv3DNdhwcDhwcfOp) {
        return conv(3, true, {4, 3, 0, 1, 2});
      })
      .Case([&](linalg::DepthwiseConv2DNhwcHwcOp) {
        return conv(2, true, {2, 0, 1}, W::Depthwise);
      })
      .Case([&](linalg::DepthwiseConv2DNchwChwOp) {
        return conv(2, false, {0, 1, 2}, W::Depthwise);
      })
      .Case([&](linalg::Conv2DNgchwFgchwOp) {
        WindowLayout l = conv(2, false, {1, 0, 2, 3, 4}, W::GroupedFirst);
        l.inputPerm = {0, 1, 2, 3, 4};
        l.channelDim = -1; // [G, F]: no 1-D bias
        return l;
      })
      .Case([&](linalg::Conv2DNgchwGfchwOp) {
        WindowLayout l = conv(2, false, {0, 1, 2, 3, 4}, W::GroupedSecond);
        l.inputPerm = {0, 1, 2, 3, 4};
        l.channelDim = -1;
        return l;
      })
      .Case(
          [&](linalg::PoolingNchwMaxOp) { return pool(false, PoolKind::max); })
      .Case([&](linalg::PoolingNhwcMaxOp) { return pool(true, PoolKind::max); })
      .Case(
          [&](linalg::PoolingNchwSumOp) { return pool(false, PoolKind::avg); })
      .Case([&](linalg::PoolingNhwcSumOp) { return pool(true, PoolKind::avg); })
      .Default([](Operation *) { return std::nullopt; });
}

/// The integers of `op`'s `name` attribute (strides, dilations), ones when
/// absent.
SmallVector<int64_t> intsAttr(Operation *op, StringRef name, int64_t n) {
  SmallVector<int64_t> out;
  if (auto a = op->getAttrOfType<DenseIntElementsAttr>(name))
    for (const APInt &v : a.getValues<APInt>())
      out.push_back(v.getSExtValue());
  if (out.empty())
    out.assign(n, 1);
  return out;
}

/// The op's spatial input dims, in its own layout.
SmallVector<int64_t> spatialDims(const WindowLayout &l) {
  int64_t first = l.weight == WindowLayout::Weight::GroupedFirst ||
                          l.weight == WindowLayout::Weight::GroupedSecond
                      ? 3
                      : 2;
  return SmallVector<int64_t>(ArrayRef<int64_t>(l.inputPerm).drop_front(first));
}

/// True for -inf or the lowest finite value of float type `t` (what
/// exporters pad max pooling with).
bool isLowest(double v, Type t) {
  if (std::isinf(v) && v < 0)
    return true;
  auto f = dyn_cast<FloatType>(t);
  return f && v <= APFloat::getLargest(f.getFloatSemantics(), /*Negative=*/true)
                       .convertToDouble();
}

/// A `tensor.pad` of `input` whose padding the window op can take: static
/// pads on spatial dims only, the pad value `accepts` (0 for convs and sums,
/// -inf for max), pads smaller than the window for pooling. Fills `padding`
/// (neuron order: leading, then trailing) and returns the unpadded source.
Value foldablePad(Value input, const WindowLayout &l, ArrayRef<int64_t> kernel,
                  SmallVector<int64_t> &padding) {
  padding.assign(2 * l.spatial, 0);
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return input;
  Value v = pad.getConstantPaddingValue();
  std::optional<double> value = getSplatValue(v);
  Type elem = getElementTypeOrSelf(input.getType());
  bool ok =
      value && (l.isPool && l.poolKind == PoolKind::max ? isLowest(*value, elem)
                                                        : *value == 0.0);
  ArrayRef<int64_t> lo = pad.getStaticLow(), hi = pad.getStaticHigh();
  if (!ok || ShapedType::isDynamicShape(lo) || ShapedType::isDynamicShape(hi))
    return input;
  SmallVector<int64_t> spatial = spatialDims(l);
  for (int64_t d = 0; d < static_cast<int64_t>(lo.size()); ++d) {
    auto at = llvm::find(spatial, d);
    if (at == spatial.end()) {
      if (lo[d] || hi[d])
        return input;
      continue;
    }
    int64_t i = at - spatial.begin();
    if (lo[d] < 0 || hi[d] < 0 ||
        (l.isPool && (lo[d] >= kernel[i] || hi[d] >= kernel[i])))
      return input;
    padding[i] = lo[d];
    padding[l.spatial + i] = hi[d];
  }
  return pad.getSource();
}

/// The 1-D bias `init` broadcasts along `channelDim` (a `neuron.broadcast_to`
/// or `linalg.broadcast` of it), or null.
Value broadcastBias(OpBuilder &b, Location loc, Value init, int64_t channelDim,
                    int64_t f) {
  if (channelDim < 0 || ShapedType::isDynamic(f))
    return {};
  if (auto bc = init.getDefiningOp<BroadcastToOp>()) {
    auto in = cast<RankedTensorType>(bc.getInput().getType());
    int64_t offset =
        cast<RankedTensorType>(init.getType()).getRank() - in.getRank();
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (in.getDimSize(d) != (d + offset == channelDim ? f : 1))
        return {};
    return reshapeTo(b, loc, bc.getInput(), {f});
  }
  if (auto bc = init.getDefiningOp<linalg::BroadcastOp>()) {
    auto in = cast<RankedTensorType>(bc.getInput().getType());
    int64_t rank = cast<RankedTensorType>(init.getType()).getRank();
    if (in.getRank() == 1 && in.getDimSize(0) == f &&
        static_cast<int64_t>(bc.getDimensions().size()) == rank - 1 &&
        !llvm::is_contained(bc.getDimensions(), channelDim))
      return bc.getInput();
  }
  return {};
}

/// Why a window op of layout `l` cannot be imported (types, dilated
/// pooling, a dynamic window), or empty.
std::string whyWindowFails(linalg::LinalgOp op, const WindowLayout &l) {
  if (!op.hasPureTensorSemantics())
    return "it works on memrefs, not tensors";
  auto typeName = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  Type in = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type out = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!isa<FloatType>(in) || !isa<FloatType>(out))
    return "its operands are " + typeName(in) + " and its result " +
           typeName(out) +
           ": neuron.conv and neuron.pool compute in floating point; convert "
           "the operands to "
           "f32 first (or dequantize a quantized model)";
  if (l.isPool) {
    if (in != out)
      return "it pools " + typeName(in) + " into " + typeName(out) +
             "; neuron.pool keeps the element type (cast the input first)";
    auto window = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    if (!window.hasStaticShape())
      return "its window operand has a dynamic shape; the window sizes must be "
             "static";
    if (llvm::any_of(intsAttr(op, "dilations", l.spatial),
                     [](int64_t d) { return d != 1; }))
      return "it is a dilated pooling; neuron.pool has no dilations (use "
             "dilations of 1)";
    return {};
  }
  Type w = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  if (w != in)
    return "its input is " + typeName(in) + " and its weight " + typeName(w) +
           "; neuron.conv needs one operand type (cast one of them first)";
  if (in != out && !((in.isBF16() || in.isF16()) && out.isF32()))
    return "it accumulates " + typeName(in) + " operands into " +
           typeName(out) +
           "; neuron.conv's result has the operands' type or f32 for 16-bit "
           "operands";
  auto wt = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  if (l.weight != WindowLayout::Weight::Plain && !wt.hasStaticShape())
    return "its weight has a dynamic shape; a depthwise or grouped weight must "
           "be static";
  return {};
}

/// A named linalg convolution → `neuron.conv` (+ transposes for
/// channels-last layouts, a reshape for depthwise and grouped weights, an
/// add of the init unless it is zero or a broadcast bias):
/// `linalg.conv_2d_nchw_fchw ins(%x, %w) outs(%zero)` → `neuron.conv %x, %w`.
/// Named poolings → `neuron.pool` (+ the init combined unless it is the
/// identity); a sum pool is an average that counts padding, times the window.
struct WindowPattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<WindowLayout> l = layoutOf(op);
    if (!l)
      return rewriter.notifyMatchFailure(op,
                                         "not a named convolution or pooling");
    if (std::string why = whyWindowFails(op, *l); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op.getLoc();
    Value init = op.getDpsInits().front();
    auto outType = cast<RankedTensorType>(init.getType());
    Value second = op.getDpsInputs()[1];
    SmallVector<int64_t> kernel;
    if (l->isPool)
      kernel.assign(cast<RankedTensorType>(second.getType()).getShape().begin(),
                    cast<RankedTensorType>(second.getType()).getShape().end());
    SmallVector<int64_t> padding;
    Value x = foldablePad(op.getDpsInputs()[0], *l, kernel, padding);
    x = transposeValue(rewriter, loc, x, l->inputPerm);
    bool grouped = l->weight == WindowLayout::Weight::GroupedFirst ||
                   l->weight == WindowLayout::Weight::GroupedSecond;
    if (grouped) { // [N, G, C, H, W] → [N, G·C, H, W]
      SmallVector<int64_t> s(cast<RankedTensorType>(x.getType()).getShape());
      if (ShapedType::isDynamic(s[1]) || ShapedType::isDynamic(s[2]))
        return rewriter.notifyMatchFailure(
            op, "grouped input needs static groups and channels");
      s[1] *= s[2];
      s.erase(s.begin() + 2);
      x = reshapeTo(rewriter, loc, x, s);
    }
    SmallVector<int64_t> strides = intsAttr(op, "strides", l->spatial);
    std::string why;
    Value y;
    SmallVector<int64_t> outPerm(l->inputPerm.size());
    for (auto [i, p] : llvm::enumerate(l->inputPerm))
      outPerm[p] = static_cast<int64_t>(i);
    if (l->isPool) {
      y = emitPool(rewriter, loc, x, l->poolKind, kernel, strides, padding,
                   /*countIncludePad=*/l->poolKind == PoolKind::avg, why);
      if (y && l->poolKind == PoolKind::avg) {
        int64_t window = 1;
        for (int64_t k : kernel)
          window *= k;
        auto scalar = RankedTensorType::get({}, outType.getElementType());
        y = MulOp::create(
            rewriter, loc, y.getType(), y,
            createSplat(rewriter, loc, scalar, static_cast<double>(window)));
      }
    } else {
      Value w = transposeValue(rewriter, loc, second, l->weightPerm);
      auto wt = cast<RankedTensorType>(w.getType());
      int64_t groups = 1;
      SmallVector<int64_t> ws(wt.getShape());
      if (l->weight ==
          WindowLayout::Weight::Depthwise) { // [C, K...] → [C, 1, K...]
        groups = ws[0];
        ws.insert(ws.begin() + 1, 1);
      } else if (grouped) { // [G, F, C, K...] → [G·F, C, K...]
        groups = ws[0];
        ws[1] *= ws[0];
        ws.erase(ws.begin());
      }
      w = reshapeTo(rewriter, loc, w, ws);
      int64_t f = ws[0];
      Value bias;
      if (initSplat(init) != 0.0)
        bias = broadcastBias(rewriter, loc, init, l->channelDim, f);
      y = emitConv(rewriter, loc, x, w, bias, strides, padding,
                   intsAttr(op, "dilations", l->spatial), groups,
                   outType.getElementType(), why);
      if (y && bias)
        init = Value(); // consumed as the bias
    }
    if (!y)
      return rewriter.notifyMatchFailure(op, why);
    if (grouped) { // [N, G·F, O...] → [N, G, F, O...]
      SmallVector<int64_t> s(cast<RankedTensorType>(y.getType()).getShape());
      int64_t g = outType.getDimSize(1);
      s[1] /= g;
      s.insert(s.begin() + 1, g);
      y = reshapeTo(rewriter, loc, y, s);
    }
    y = transposeValue(rewriter, loc, y, outPerm);
    // linalg sizes the output; the window may fit more positions than it asks
    // for.
    auto yType = cast<RankedTensorType>(y.getType());
    if (yType.getShape() != outType.getShape()) {
      bool sliceable =
          yType.hasStaticShape() && outType.hasStaticShape() &&
          llvm::all_of(llvm::zip(yType.getShape(), outType.getShape()),
                       [](auto p) { return std::get<0>(p) >= std::get<1>(p); });
      if (sliceable) {
        SmallVector<int64_t> zeros(outType.getRank(), 0),
            ones(outType.getRank(), 1);
        y = SliceOp::create(rewriter, loc, outType, y,
                            rewriter.getDenseI64ArrayAttr(zeros),
                            rewriter.getDenseI64ArrayAttr(outType.getShape()),
                            rewriter.getDenseI64ArrayAttr(ones));
      } else if (succeeded(verifyCompatibleShape(yType, outType))) {
        y = ReshapeOp::create(rewriter, loc, outType,
                              y); // only the dynamic dims differ
      } else {
        return rewriter.notifyMatchFailure(
            op, "the window's positions do not fit the output");
      }
    }
    if (init) {
      std::optional<double> start = initSplat(init);
      if (l->isPool && l->poolKind == PoolKind::max) {
        if (!start || !isLowest(*start, outType.getElementType()))
          y = MaxOp::create(rewriter, loc, outType, y, init);
      } else {
        y = accumulateInto(rewriter, loc, y, init);
      }
    }
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mlir::neuron::linalg_import::populateWindowPatterns(
    RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<WindowPattern>(patterns.getContext(), benefit);
}

std::string mlir::neuron::whyLinalgWindowOpFails(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return {};
  if (std::optional<WindowLayout> l = layoutOf(op))
    return whyWindowFails(linalgOp, *l);
  return {};
}
