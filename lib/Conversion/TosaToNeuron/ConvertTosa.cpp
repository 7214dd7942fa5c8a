//===- ConvertTosa.cpp - neuron-convert-tosa ------------------------------===//
//
// TOSA 1.0 → neuron. TOSA's broadcasting (equal ranks, size-1 dims stretch)
// is a special case of neuron's numpy broadcasting, so elementwise ops map
// one to one; the reshapes TOSA exporters insert to match ranks are left to
// the neuron canonicalizer, which folds them into the consuming op.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/ImportUtils.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCONVERTTOSAPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;

namespace {

/// `tosa.X %a, %b` → `neuron.Y %a, %b` for ops whose operands map one to one.
template <typename SrcOp, typename DstOp>
struct OneToOne : OpRewritePattern<SrcOp> {
  using OpRewritePattern<SrcOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SrcOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<DstOp>(op, op->getResultTypes(), op->getOperands());
    return success();
  }
};

/// `tosa.const` → `neuron.constant`.
struct ConstPattern : OpRewritePattern<tosa::ConstOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::ConstOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<ConstantOp>(op, op.getType(), op.getValues());
    return success();
  }
};

/// `tosa.mul %a, %b, %shift` → `neuron.mul %a, %b`; the shift must be a
/// constant zero (it only means something for integer fixed point).
struct MulPattern : OpRewritePattern<tosa::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::MulOp op, PatternRewriter &rewriter) const override {
    // The shift operand is i8 by definition; only the data types matter.
    if (!isSupportedElementType(getElementTypeOrSelf(op.getType())))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    std::optional<double> shift = getSplatValue(op.getShift());
    if (!shift)
      return rewriter.notifyMatchFailure(op, "shift is not a constant");
    if (*shift != 0) // reported by --neuron-check-import
      return rewriter.notifyMatchFailure(op, "non-zero shift");
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), op.getInput1(), op.getInput2());
    return success();
  }
};

/// `tosa.negate %x, %zp_in, %zp_out` → `neuron.neg %x` when both zero points are 0.
struct NegatePattern : OpRewritePattern<tosa::NegateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::NegateOp op, PatternRewriter &rewriter) const override {
    if (getSplatValue(op.getInput1Zp()) != 0.0 || getSplatValue(op.getOutputZp()) != 0.0)
      return rewriter.notifyMatchFailure(op, "zero points must be constant 0");
    if (!isSupportedElementType(getElementTypeOrSelf(op.getType())))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<NegOp>(op, op.getType(), op.getInput1());
    return success();
  }
};

/// `tosa.clamp %x {min_val, max_val}` → `neuron.relu` for [0, +max], else
/// `neuron.max(neuron.min(x, hi), lo)`.
struct ClampPattern : OpRewritePattern<tosa::ClampOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::ClampOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto value = [](Attribute a) -> double {
      if (auto f = dyn_cast<FloatAttr>(a))
        return f.getValueAsDouble();
      return static_cast<double>(cast<IntegerAttr>(a).getValue().getSExtValue());
    };
    double lo = value(op.getMinValAttr()), hi = value(op.getMaxValAttr());
    auto type = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    bool isFloat = isa<FloatType>(type.getElementType());
    double top = isFloat ? 3.4028234663852886e38 : 2147483647.0;
    if (lo == 0 && hi >= top) {
      rewriter.replaceOpWithNewOp<ReluOp>(op, type, op.getInput());
      return success();
    }
    auto scalarType = RankedTensorType::get({}, type.getElementType());
    Value result = op.getInput();
    if (hi < top)
      result = MinOp::create(rewriter, loc, type, result, createSplat(rewriter, loc, scalarType, hi));
    result = MaxOp::create(rewriter, loc, type, result, createSplat(rewriter, loc, scalarType, lo));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Comparisons: `tosa.greater` → `neuron.compare gt`, etc.
template <typename SrcOp, ComparePredicate predicate>
struct ComparePattern : OpRewritePattern<SrcOp> {
  using OpRewritePattern<SrcOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SrcOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<CompareOp>(op, op.getType(), predicate, op.getInput1(),
                                           op.getInput2());
    return success();
  }
};

/// `tosa.cast`: float → int rounds to nearest even in TOSA, so a
/// `neuron.round` goes first; everything else is a plain `neuron.cast`.
struct CastPattern : OpRewritePattern<tosa::CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::CastOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Value input = op.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type outElem = cast<RankedTensorType>(op.getType()).getElementType();
    if (isa<FloatType>(inType.getElementType()) && outElem.isInteger() && !outElem.isInteger(1))
      input = RoundOp::create(rewriter, op.getLoc(), inType, input);
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), input);
    return success();
  }
};

/// TOSA reductions keep the reduced axis as size 1.
template <typename SrcOp, typename DstOp>
struct ReducePattern : OpRewritePattern<SrcOp> {
  using OpRewritePattern<SrcOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SrcOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<DstOp>(op, op.getType(), op.getInput(),
                                       rewriter.getDenseI64ArrayAttr({op.getAxis()}),
                                       /*keepdims=*/rewriter.getUnitAttr());
    return success();
  }
};

/// `tosa.matmul %a, %b, %a_zp, %b_zp` ([N,H,C] x [N,C,W]) → `neuron.matmul`
/// when both zero points are 0. Operands and result share a type, or 16-bit
/// float operands accumulate into an f32 result (TOSA's bf16/fp16 profiles).
struct MatmulPattern : OpRewritePattern<tosa::MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::MatMulOp op, PatternRewriter &rewriter) const override {
    Type result = getElementTypeOrSelf(op.getType());
    Type operand = getElementTypeOrSelf(op.getA().getType());
    bool widening = (operand.isBF16() || operand.isF16()) && result.isF32();
    if (!isSupportedElementType(result) || (operand != result && !widening))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    if (getSplatValue(op.getAZp()) != 0.0 || getSplatValue(op.getBZp()) != 0.0)
      return rewriter.notifyMatchFailure(op, "non-zero zero points"); // reported by the check
    rewriter.replaceOpWithNewOp<MatmulOp>(op, op.getType(), op.getA(), op.getB(),
                                          /*transpose_lhs=*/nullptr, /*transpose_rhs=*/nullptr);
    return success();
  }
};

/// `tosa.transpose {perms}` → `neuron.transpose perm`.
struct TransposePattern : OpRewritePattern<tosa::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::TransposeOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    SmallVector<int64_t> perm(op.getPerms().begin(), op.getPerms().end());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), op.getInput1(),
                                             rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// `tosa.reshape %x, %shape` → `neuron.reshape %x` (the result type carries the shape).
struct ReshapePattern : OpRewritePattern<tosa::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::ReshapeOp op, PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getType()) ||
        !isSupportedElementType(cast<RankedTensorType>(op.getType()).getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported result type");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput1());
    return success();
  }
};

/// `tosa.slice %x, %start, %size` → `neuron.slice` with unit strides.
struct SlicePattern : OpRewritePattern<tosa::SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::SliceOp op, PatternRewriter &rewriter) const override {
    auto start = getConstantInts(op.getStart());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!start || !type || !type.hasStaticShape() ||
        !isSupportedElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs constant start and a static result");
    SmallVector<int64_t> strides(start->size(), 1);
    rewriter.replaceOpWithNewOp<SliceOp>(op, type, op.getInput1(),
                                         rewriter.getDenseI64ArrayAttr(*start),
                                         rewriter.getDenseI64ArrayAttr(type.getShape()),
                                         rewriter.getDenseI64ArrayAttr(strides));
    return success();
  }
};

/// `tosa.pad %x, %padding, %pad_const` with constant padding and pad value:
/// per padded dim, `neuron.concat` of a splat block, the tensor so far and
/// another splat block (a negative padding slices instead).
struct PadPattern : OpRewritePattern<tosa::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::PadOp op, PatternRewriter &rewriter) const override {
    if (!isSupportedElementType(op.getType().getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto padding = getConstantInts(op.getPadding());
    std::optional<double> value = getSplatValue(op.getPadConst());
    auto type = cast<RankedTensorType>(op.getType());
    if (!padding || !value || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs constant padding, pad value and shapes");
    if (llvm::any_of(*padding, [](int64_t p) { return p < 0; }))
      return rewriter.notifyMatchFailure(op, "negative padding");
    SmallVector<int64_t> lo, hi;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      lo.push_back((*padding)[2 * d]);
      hi.push_back((*padding)[2 * d + 1]);
    }
    Value x = padWithConstant(rewriter, op.getLoc(), op.getInput1(), lo, hi, *value);
    rewriter.replaceOp(op, x);
    return success();
  }
};

/// `tosa.table %x, %table` as gathers from the table. i8: `table[x + 128]`.
/// i16 (513 entries, i32 result): with `u = x + 32768`, the entry
/// `b = table[u >> 7]`, its successor `n`, `(b << 7) + (n - b) * (u & 127)`.
struct TablePattern : OpRewritePattern<tosa::TableOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::TableOp op, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getInput1().getType());
    auto table = dyn_cast<RankedTensorType>(op.getTable().getType());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!in || !table || !type || !in.hasStaticShape() || !table.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    unsigned width = in.getElementType().getIntOrFloatBitWidth();
    if (!in.getElementType().isSignlessInteger() || (width != 8 && width != 16))
      return rewriter.notifyMatchFailure(op, "input is neither i8 nor i16");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto i32Type = RankedTensorType::get(in.getShape(), i32);
    auto scalar = RankedTensorType::get({}, i32);
    auto splat = [&](int64_t v) { return createSplat(rewriter, loc, scalar, double(v)); };
    auto gather = [&](Value ids, Type elem) {
      return GatherOp::create(rewriter, loc, RankedTensorType::get(in.getShape(), elem),
                              op.getTable(), ids, rewriter.getI64IntegerAttr(0))
          .getResult();
    };
    // TOSA's layout: entries from the most negative input up; an i16 input
    // indexes with its top 9 bits and interpolates with the low 7.
    constexpr int64_t kFractionBits = 7;
    Value x = CastOp::create(rewriter, loc, i32Type, op.getInput1());
    Value u = AddOp::create(rewriter, loc, i32Type, x, splat(int64_t(1) << (width - 1)));
    if (width == 8) {
      rewriter.replaceOp(op, gather(u, table.getElementType()));
      return success();
    }
    Value index = ShiftRightOp::create(rewriter, loc, i32Type, u, splat(kFractionBits));
    Value fraction = BitwiseAndOp::create(rewriter, loc, i32Type, u,
                                          splat((int64_t(1) << kFractionBits) - 1));
    Value base = CastOp::create(rewriter, loc, i32Type, gather(index, table.getElementType()));
    Value next = CastOp::create(
        rewriter, loc, i32Type,
        gather(AddOp::create(rewriter, loc, i32Type, index, splat(1)), table.getElementType()));
    Value slope = MulOp::create(rewriter, loc, i32Type,
                                SubOp::create(rewriter, loc, i32Type, next, base), fraction);
    Value scaled = ShiftLeftOp::create(rewriter, loc, i32Type, base, splat(kFractionBits));
    rewriter.replaceOpWithNewOp<AddOp>(op, type, scaled, slope);
    return success();
  }
};

/// `tosa.max_pool2d` of an integer type (neuron.pool is float-only) as the
/// maximum of its kernel's taps, each a strided `neuron.slice` of the input
/// padded with the type's lowest value: kh·kw slices and maxes. Float inputs
/// take `PoolPattern` instead.
struct IntMaxPool2dPattern : OpRewritePattern<tosa::MaxPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::MaxPool2dOp op, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!in || !type || !in.hasStaticShape() || !type.hasStaticShape() ||
        !isSupportedElementType(in.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs static shapes of a supported type");
    Type elem = in.getElementType();
    if (isa<FloatType>(elem))
      return rewriter.notifyMatchFailure(op, "float max pooling is a neuron.pool");
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(), pad = op.getPad();
    Location loc = op.getLoc();
    double lowest = -std::ldexp(1.0, static_cast<int>(elem.getIntOrFloatBitWidth()) - 1);
    // Pad H (dim 1) and W (dim 2) with the lowest value.
    Value x = padWithConstant(rewriter, loc, op.getInput(), {0, pad[0], pad[2], 0},
                              {0, pad[1], pad[3], 0}, lowest);
    Value result;
    SmallVector<int64_t> sizes(type.getShape());
    SmallVector<int64_t> strides = {1, stride[0], stride[1], 1};
    for (int64_t i = 0; i < kernel[0]; ++i)
      for (int64_t j = 0; j < kernel[1]; ++j) {
        SmallVector<int64_t> offsets = {0, i, j, 0};
        Value tap = SliceOp::create(rewriter, loc, type, x, rewriter.getDenseI64ArrayAttr(offsets),
                                    rewriter.getDenseI64ArrayAttr(sizes),
                                    rewriter.getDenseI64ArrayAttr(strides));
        result = result ? MaxOp::create(rewriter, loc, type, result, tap).getResult() : tap;
      }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolutions and pooling (NHWC / NDHWC, weights [F, K..., C])
//===----------------------------------------------------------------------===//

/// TOSA's pads `[lo0, hi0, lo1, hi1, ...]` as neuron's `[lo0, lo1, ..., hi0, hi1, ...]`.
static SmallVector<int64_t> leadingThenTrailing(ArrayRef<int64_t> pad) {
  SmallVector<int64_t> out;
  for (size_t i = 0; i < pad.size(); i += 2)
    out.push_back(pad[i]);
  for (size_t i = 1; i < pad.size(); i += 2)
    out.push_back(pad[i]);
  return out;
}

/// `v` reshaped to `shape`: a new constant when `v` is a dense constant,
/// else a `neuron.reshape`.
static Value reshapeValue(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  Attribute attr;
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  auto outType = RankedTensorType::get(shape, type.getElementType());
  if (matchPattern(v, m_Constant(&attr)))
    if (auto dense = dyn_cast<DenseElementsAttr>(attr))
      return ConstantOp::create(b, loc, outType, dense.reshape(outType));
  return ReshapeOp::create(b, loc, outType, v);
}

/// `v` with type `type`: itself, or a reshape that only changes which dims
/// are static (the op's declared result type may be less refined than ours).
static Value withType(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return ReshapeOp::create(b, loc, type, v);
}

/// Why the element types or zero points of a TOSA convolution or pooling op
/// keep it from importing, or empty when they do not.
static std::string whyTosaWindowTypesFail(Operation *op, Value input, Value inputZp,
                                          Value otherZp) {
  Type elem = getElementTypeOrSelf(input.getType());
  if (!isa<FloatType>(elem))
    return "its input is " + [&] {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << elem;
      return s;
    }() + " (a quantized operation): neuron.conv and neuron.pool compute in floating point; "
          "dequantize the operands to f32 first or export the float model";
  for (Value zp : {inputZp, otherZp})
    if (zp && getSplatValue(zp) != 0.0)
      return "its zero points are not constant 0 (a float operation's are always 0)";
  return {};
}

/// `tosa.conv2d / conv3d / depthwise_conv2d %x, %w, %b` (NHWC, weights
/// [F, K..., C] or depthwise [KH, KW, C, M]) → `neuron.transpose` to NCHW,
/// `neuron.conv` (depthwise: groups = C, weight [C·M, 1, KH, KW]) and a
/// transpose back; constant weights are transposed at import.
template <typename OpTy> struct ConvPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (std::string why = whyTosaWindowOpFails(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getType());
    int64_t rank = inType.getRank();
    Value x = transposeValue(rewriter, loc, op.getInput(), channelsFirstPerm(rank));
    Value w;
    int64_t groups = 1;
    if constexpr (std::is_same_v<OpTy, tosa::DepthwiseConv2DOp>) {
      // [KH, KW, C, M] → [C, M, KH, KW] → [C·M, 1, KH, KW]: output channel c·M + m.
      auto wt = cast<RankedTensorType>(op.getWeight().getType());
      if (!wt.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "depthwise weight needs a static shape");
      int64_t kh = wt.getDimSize(0), kw = wt.getDimSize(1), c = wt.getDimSize(2),
              m = wt.getDimSize(3);
      w = transposeValue(rewriter, loc, op.getWeight(), {2, 3, 0, 1});
      w = reshapeValue(rewriter, loc, w, {c * m, 1, kh, kw});
      groups = c;
    } else {
      w = transposeValue(rewriter, loc, op.getWeight(), channelsFirstPerm(rank));
    }
    int64_t f = cast<RankedTensorType>(w.getType()).getDimSize(0);
    Value bias = op.getBias(), addAfter;
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (getSplatValue(bias) == 0.0)
      bias = nullptr;
    else if (biasType.getDimSize(0) != f) // a [1] bias broadcasts over the channels
      std::swap(bias, addAfter);
    SmallVector<int64_t> ones(rank - 2, 1);
    SmallVector<int64_t> dilation(op.getDilation());
    std::string why;
    Value y = emitConv(rewriter, loc, x, w, bias, op.getStride(), leadingThenTrailing(op.getPad()),
                       dilation, groups, outType.getElementType(), why);
    if (!y)
      return rewriter.notifyMatchFailure(op, why);
    y = transposeValue(rewriter, loc, y, channelsFirstPerm(rank, /*inverse=*/true));
    if (addAfter)
      y = AddOp::create(rewriter, loc, y.getType(), y, addAfter);
    rewriter.replaceOp(op, withType(rewriter, loc, y, outType));
    return success();
  }
};

/// `tosa.transpose_conv2d %x, %w, %b {out_pad, stride}` (weight [F, KH, KW,
/// C], constant) as a convolution: the input upsampled by inserting
/// stride - 1 zeros between elements (reshape, concat with zeros, reshape,
/// slice), padded by kernel - 1 + out_pad on each side, and convolved with
/// the spatially flipped weight, transposed at import.
struct TransposeConv2dPattern : OpRewritePattern<tosa::TransposeConv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::TransposeConv2DOp op,
                                PatternRewriter &rewriter) const override {
    if (std::string why = whyTosaWindowOpFails(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Location loc = op.getLoc();
    auto outType = cast<RankedTensorType>(op.getType());
    Type elem = cast<RankedTensorType>(op.getInput().getType()).getElementType();
    // [F, KH, KW, C] → [F, C, KH, KW], flipped in KH and KW.
    std::optional<DenseElementsAttr> flipped =
        permuteConstant(op.getWeight(), {0, 3, 1, 2}, {2, 3});
    Value w = ConstantOp::create(rewriter, loc, flipped->getType(), *flipped);
    auto wType = cast<RankedTensorType>(w.getType());
    Value x = transposeValue(rewriter, loc, op.getInput(), channelsFirstPerm(4));
    ArrayRef<int64_t> stride = op.getStride(), outPad = op.getOutPad();
    for (int64_t i = 0; i < 2; ++i) {
      int64_t s = stride[i], d = 2 + i;
      if (s == 1)
        continue;
      // [.., H, ..] → [.., H, 1, ..] ++ zeros [.., H, s-1, ..] → [.., H·s, ..] → (H-1)·s + 1.
      SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
      int64_t h = shape[d];
      SmallVector<int64_t> unit = shape, zeros = shape, spread = shape;
      unit.insert(unit.begin() + d + 1, 1);
      zeros.insert(zeros.begin() + d + 1, s - 1);
      spread.insert(spread.begin() + d + 1, s);
      Value parts[] = {reshapeTo(rewriter, loc, x, unit),
                       createSplat(rewriter, loc, RankedTensorType::get(zeros, elem), 0.0)};
      x = ConcatOp::create(rewriter, loc, RankedTensorType::get(spread, elem), parts,
                           rewriter.getI64IntegerAttr(d + 1));
      shape[d] = h * s;
      x = reshapeTo(rewriter, loc, x, shape);
      SmallVector<int64_t> sizes = shape, offsets(shape.size(), 0), steps(shape.size(), 1);
      sizes[d] = (h - 1) * s + 1;
      x = SliceOp::create(rewriter, loc, RankedTensorType::get(sizes, elem), x,
                          rewriter.getDenseI64ArrayAttr(offsets),
                          rewriter.getDenseI64ArrayAttr(sizes),
                          rewriter.getDenseI64ArrayAttr(steps));
    }
    int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
    SmallVector<int64_t> padding = {kh - 1 + outPad[0], kw - 1 + outPad[2], kh - 1 + outPad[1],
                                    kw - 1 + outPad[3]};
    Value bias = op.getBias(), addAfter;
    if (getSplatValue(bias) == 0.0)
      bias = nullptr;
    else if (cast<RankedTensorType>(bias.getType()).getDimSize(0) != wType.getDimSize(0))
      std::swap(bias, addAfter);
    std::string why;
    Value y = emitConv(rewriter, loc, x, w, bias, {1, 1}, padding, {1, 1}, /*groups=*/1,
                       outType.getElementType(), why);
    if (!y)
      return rewriter.notifyMatchFailure(op, why);
    y = transposeValue(rewriter, loc, y, channelsFirstPerm(4, /*inverse=*/true));
    if (addAfter)
      y = AddOp::create(rewriter, loc, y.getType(), y, addAfter);
    rewriter.replaceOp(op, withType(rewriter, loc, y, outType));
    return success();
  }
};

/// `tosa.max_pool2d` / `tosa.avg_pool2d` (NHWC, float) → transposes around
/// `neuron.pool max|avg`. TOSA's average divides by the positions inside the
/// input (padding excluded), neuron.pool's default.
template <typename OpTy, PoolKind kind> struct PoolPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (std::string why = whyTosaWindowOpFails(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    if (!hasSupportedTypes(op) || !isa<FloatType>(getElementTypeOrSelf(op.getType())))
      return rewriter.notifyMatchFailure(op, "neuron.pool needs a float type");
    Location loc = op.getLoc();
    Value x = transposeValue(rewriter, loc, op.getInput(), channelsFirstPerm(4));
    std::string why;
    Value y = emitPool(rewriter, loc, x, kind, op.getKernel(), op.getStride(),
                       leadingThenTrailing(op.getPad()), /*countIncludePad=*/false, why);
    if (!y)
      return rewriter.notifyMatchFailure(op, why);
    y = transposeValue(rewriter, loc, y, channelsFirstPerm(4, /*inverse=*/true));
    rewriter.replaceOp(op, withType(rewriter, loc, y, op.getType()));
    return success();
  }
};

/// `tosa.concat {axis}` → `neuron.concat axis`.
struct ConcatPattern : OpRewritePattern<tosa::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::ConcatOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getType(), op.getInput1(),
                                          rewriter.getI64IntegerAttr(op.getAxis()));
    return success();
  }
};

/// `tosa.gather %values[N,K,C], %indices[N,W]` → `[N,W,C]`. Each batch is a
/// numpy.take along axis 0 of its [K,C] table; N=1 (every embedding lookup)
/// is one `neuron.gather`, larger N gathers per batch and concatenates.
struct GatherPattern : OpRewritePattern<tosa::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::GatherOp op, PatternRewriter &rewriter) const override {
    auto values = cast<RankedTensorType>(op.getValues().getType());
    auto indices = cast<RankedTensorType>(op.getIndices().getType());
    if (!hasSupportedTypes(op) || !values.hasStaticShape() || !indices.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes of supported types");
    int64_t n = values.getDimSize(0), k = values.getDimSize(1), c = values.getDimSize(2);
    int64_t w = indices.getDimSize(1);
    Location loc = op.getLoc();
    Type elem = values.getElementType();
    SmallVector<Value> pieces;
    for (int64_t b = 0; b < n; ++b) {
      Value table = op.getValues(), ids = op.getIndices();
      if (n > 1) {
        table = SliceOp::create(rewriter, loc, RankedTensorType::get({1, k, c}, elem), table,
                                rewriter.getDenseI64ArrayAttr({b, 0, 0}),
                                rewriter.getDenseI64ArrayAttr({1, k, c}),
                                rewriter.getDenseI64ArrayAttr({1, 1, 1}));
        ids = SliceOp::create(rewriter, loc,
                              RankedTensorType::get({1, w}, indices.getElementType()), ids,
                              rewriter.getDenseI64ArrayAttr({b, 0}),
                              rewriter.getDenseI64ArrayAttr({1, w}),
                              rewriter.getDenseI64ArrayAttr({1, 1}));
      }
      table = reshapeTo(rewriter, loc, table, {k, c});
      pieces.push_back(GatherOp::create(rewriter, loc, RankedTensorType::get({1, w, c}, elem),
                                        table, ids, rewriter.getI64IntegerAttr(0)));
    }
    Value result = pieces.size() == 1
                       ? pieces.front()
                       : ConcatOp::create(rewriter, loc, op.getType(), pieces,
                                          rewriter.getI64IntegerAttr(0))
                             .getResult();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `tosa.arithmetic_right_shift %a, %b {round}`: `a >> b`, and with `round`
/// plus the last bit shifted out, `(a >> (b - 1)) & 1`, where b > 0.
struct ArithmeticRightShiftPattern : OpRewritePattern<tosa::ArithmeticRightShiftOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::ArithmeticRightShiftOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value a = op.getInput1(), b = op.getInput2();
    Value shifted = ShiftRightOp::create(rewriter, loc, type, a, b);
    if (!op.getRound()) {
      rewriter.replaceOp(op, shifted);
      return success();
    }
    auto scalar = RankedTensorType::get({}, type.getElementType());
    Value one = createSplat(rewriter, loc, scalar, 1);
    Value zero = createSplat(rewriter, loc, scalar, 0);
    RankedTensorType bType = cast<RankedTensorType>(b.getType());
    Value bMinus1 = SubOp::create(rewriter, loc, bType, b, one);
    Value last = BitwiseAndOp::create(rewriter, loc, type,
                                      ShiftRightOp::create(rewriter, loc, type, a, bMinus1), one);
    Value positive = CompareOp::create(
        rewriter, loc, RankedTensorType::get(bType.getShape(), rewriter.getI1Type()),
        ComparePredicate::gt, b, zero);
    Value bit = SelectOp::create(rewriter, loc, type, positive, last, zero);
    rewriter.replaceOpWithNewOp<AddOp>(op, type, shifted, bit);
    return success();
  }
};

/// `tosa.bitwise_not %x` → `x ^ -1`; `tosa.logical_not %m` → `m ^ true`.
template <typename SrcOp> struct NotPattern : OpRewritePattern<SrcOp> {
  using OpRewritePattern<SrcOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SrcOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto type = cast<RankedTensorType>(op.getType());
    auto scalar = RankedTensorType::get({}, type.getElementType());
    Value ones = createSplat(rewriter, op.getLoc(), scalar, -1);
    rewriter.replaceOpWithNewOp<BitwiseXorOp>(op, type, op->getOperand(0), ones);
    return success();
  }
};

/// `tosa.identity %x` → `%x`.
struct IdentityPattern : OpRewritePattern<tosa::IdentityOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::IdentityOp op, PatternRewriter &rewriter) const override {
    if (op.getInput1().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "identity changes the type");
    rewriter.replaceOp(op, op.getInput1());
    return success();
  }
};

struct ConvertTosaPass : mlir::neuron::impl::NeuronConvertTosaPassBase<ConvertTosaPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ConstPattern, MulPattern, NegatePattern, ClampPattern, CastPattern,
                 MatmulPattern, TransposePattern, ReshapePattern, SlicePattern, ConcatPattern,
                 GatherPattern, IdentityPattern, ArithmeticRightShiftPattern, PadPattern,
                 TablePattern, IntMaxPool2dPattern, TransposeConv2dPattern,
                 ConvPattern<tosa::Conv2DOp>, ConvPattern<tosa::Conv3DOp>,
                 ConvPattern<tosa::DepthwiseConv2DOp>,
                 PoolPattern<tosa::MaxPool2dOp, PoolKind::max>,
                 PoolPattern<tosa::AvgPool2dOp, PoolKind::avg>,
                 NotPattern<tosa::BitwiseNotOp>, NotPattern<tosa::LogicalNotOp>>(ctx);
    patterns.add<OneToOne<tosa::AddOp, AddOp>, OneToOne<tosa::SubOp, SubOp>,
                 OneToOne<tosa::MaximumOp, MaxOp>, OneToOne<tosa::MinimumOp, MinOp>,
                 OneToOne<tosa::PowOp, PowOp>, OneToOne<tosa::AbsOp, AbsOp>,
                 OneToOne<tosa::ExpOp, ExpOp>, OneToOne<tosa::LogOp, LogOp>,
                 OneToOne<tosa::RsqrtOp, RsqrtOp>, OneToOne<tosa::ReciprocalOp, ReciprocalOp>,
                 OneToOne<tosa::TanhOp, TanhOp>, OneToOne<tosa::SigmoidOp, SigmoidOp>,
                 OneToOne<tosa::ErfOp, ErfOp>, OneToOne<tosa::SinOp, SinOp>,
                 OneToOne<tosa::CosOp, CosOp>, OneToOne<tosa::SelectOp, SelectOp>,
                 OneToOne<tosa::FloorOp, FloorOp>, OneToOne<tosa::CeilOp, CeilOp>,
                 OneToOne<tosa::BitwiseAndOp, BitwiseAndOp>,
                 OneToOne<tosa::BitwiseOrOp, BitwiseOrOp>,
                 OneToOne<tosa::BitwiseXorOp, BitwiseXorOp>,
                 OneToOne<tosa::LogicalAndOp, BitwiseAndOp>,
                 OneToOne<tosa::LogicalOrOp, BitwiseOrOp>,
                 OneToOne<tosa::LogicalXorOp, BitwiseXorOp>,
                 OneToOne<tosa::LogicalLeftShiftOp, ShiftLeftOp>,
                 OneToOne<tosa::LogicalRightShiftOp, ShiftRightLogicalOp>>(ctx);
    patterns.add<ComparePattern<tosa::GreaterOp, ComparePredicate::gt>,
                 ComparePattern<tosa::GreaterEqualOp, ComparePredicate::ge>,
                 ComparePattern<tosa::EqualOp, ComparePredicate::eq>>(ctx);
    patterns.add<ReducePattern<tosa::ReduceSumOp, ReduceSumOp>,
                 ReducePattern<tosa::ReduceMaxOp, ReduceMaxOp>,
                 ReducePattern<tosa::ReduceMinOp, ReduceMinOp>,
                 ReducePattern<tosa::ReduceProductOp, ReduceProdOp>>(ctx);
    // What does not convert stays and is reported by --neuron-check-import.
    // No folding here: the input dialects' folders do not all agree with
    // their own lowering (tosa.cast of i1 folds true to -1.0); neuron's
    // canonicalizer folds afterwards, with the interpreter's semantics.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().enableFolding(false));
  }
};

} // namespace

/// Why `op` (a TOSA convolution or pooling op) cannot be imported, or empty.
std::string mlir::neuron::whyTosaWindowOpFails(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case<tosa::Conv2DOp, tosa::Conv3DOp, tosa::DepthwiseConv2DOp>([](auto c) {
        return whyTosaWindowTypesFail(c, c.getInput(), c.getInputZp(), c.getWeightZp());
      })
      .Case([](tosa::TransposeConv2DOp c) -> std::string {
        if (std::string why =
                whyTosaWindowTypesFail(c, c.getInput(), c.getInputZp(), c.getWeightZp());
            !why.empty())
          return why;
        Attribute weight;
        if (!matchPattern(c.getWeight(), m_Constant(&weight)) || !isa<DenseElementsAttr>(weight))
          return "its weight is not a constant: neuronc computes a transposed convolution as a "
                 "convolution with the flipped weight, flipped at import (make the weight a "
                 "tosa.const, or write the convolution as tosa.conv2d)";
        auto in = cast<RankedTensorType>(c.getInput().getType());
        ArrayRef<int64_t> stride = c.getStride();
        if ((stride[0] > 1 || stride[1] > 1) && !in.hasStaticShape())
          return "its input has dynamic dims and a stride > 1: the zero-insertion upsampling "
                 "needs static shapes";
        auto w = cast<RankedTensorType>(c.getWeight().getType());
        ArrayRef<int64_t> pad = c.getOutPad();
        for (int64_t i = 0; i < 4; ++i)
          if (w.getDimSize(1 + i / 2) - 1 + pad[i] < 0)
            return "its out_pad " + std::to_string(pad[i]) +
                   " crops more than the kernel's span; neuronc supports out_pad >= 1 - kernel "
                   "size";
        return {};
      })
      .Case([](tosa::AvgPool2dOp p) {
        return whyTosaWindowTypesFail(p, p.getInput(), p.getInputZp(), p.getOutputZp());
      })
      .Default([](Operation *) { return std::string(); });
}
