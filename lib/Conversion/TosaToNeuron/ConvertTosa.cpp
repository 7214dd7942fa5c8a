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
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
    Location loc = op.getLoc();
    Value x = op.getInput1();
    Type elem = type.getElementType();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t lo = (*padding)[2 * d], hi = (*padding)[2 * d + 1];
      if (lo == 0 && hi == 0)
        continue;
      SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
      SmallVector<Value> parts;
      auto block = [&](int64_t n) {
        SmallVector<int64_t> s = shape;
        s[d] = n;
        parts.push_back(createSplat(rewriter, loc, RankedTensorType::get(s, elem), *value));
      };
      if (lo)
        block(lo);
      parts.push_back(x);
      if (hi)
        block(hi);
      shape[d] += lo + hi;
      x = ConcatOp::create(rewriter, loc, RankedTensorType::get(shape, elem), parts,
                           rewriter.getI64IntegerAttr(d));
    }
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

/// `tosa.max_pool2d` (NHWC) as the maximum of its kernel's taps, each a
/// strided `neuron.slice` of the input padded with the type's lowest value:
/// kh·kw slices and maxes, a decomposition for small kernels (the pooling
/// kernel of its own is [R2-7/8]'s).
struct MaxPool2dPattern : OpRewritePattern<tosa::MaxPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::MaxPool2dOp op, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!in || !type || !in.hasStaticShape() || !type.hasStaticShape() ||
        !isSupportedElementType(in.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs static shapes of a supported type");
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(), pad = op.getPad();
    Location loc = op.getLoc();
    Type elem = in.getElementType();
    double lowest = isa<FloatType>(elem)
                        ? -std::numeric_limits<double>::infinity()
                        : -std::ldexp(1.0, static_cast<int>(elem.getIntOrFloatBitWidth()) - 1);
    // Pad H (dim 1) and W (dim 2) with the lowest value.
    Value x = op.getInput();
    for (int64_t d = 1; d <= 2; ++d) {
      int64_t lo = pad[2 * (d - 1)], hi = pad[2 * (d - 1) + 1];
      if (lo == 0 && hi == 0)
        continue;
      SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
      SmallVector<Value> parts;
      auto block = [&](int64_t n) {
        SmallVector<int64_t> s = shape;
        s[d] = n;
        parts.push_back(createSplat(rewriter, loc, RankedTensorType::get(s, elem), lowest));
      };
      if (lo)
        block(lo);
      parts.push_back(x);
      if (hi)
        block(hi);
      shape[d] += lo + hi;
      x = ConcatOp::create(rewriter, loc, RankedTensorType::get(shape, elem), parts,
                           rewriter.getI64IntegerAttr(d));
    }
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
                 TablePattern, MaxPool2dPattern,
                 NotPattern<tosa::BitwiseNotOp>, NotPattern<tosa::LogicalNotOp>>(ctx);
    patterns.add<OneToOne<tosa::AddOp, AddOp>, OneToOne<tosa::SubOp, SubOp>,
                 OneToOne<tosa::MaximumOp, MaxOp>, OneToOne<tosa::MinimumOp, MinOp>,
                 OneToOne<tosa::PowOp, PowOp>, OneToOne<tosa::AbsOp, AbsOp>,
                 OneToOne<tosa::ExpOp, ExpOp>, OneToOne<tosa::LogOp, LogOp>,
                 OneToOne<tosa::RsqrtOp, RsqrtOp>, OneToOne<tosa::ReciprocalOp, ReciprocalOp>,
                 OneToOne<tosa::TanhOp, TanhOp>, OneToOne<tosa::SigmoidOp, SigmoidOp>,
                 OneToOne<tosa::ErfOp, ErfOp>, OneToOne<tosa::SelectOp, SelectOp>,
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
