//===- ConvertTensor.cpp - neuron-convert-tensor --------------------------===//
//
// tensor-dialect shape ops and arith tensor constants → neuron. The shape
// helpers that only feed converted ops (tensor.empty, tensor.dim,
// tosa.const_shape) become dead and are removed by canonicalization.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/ComposedBodyOps.h"
#include "neuronc/Conversion/ImportUtils.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCONVERTTENSORPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;

namespace {

/// expand_shape / collapse_shape / reshape / cast all keep the row-major
/// element order: `neuron.reshape` to the result type.
template <typename SrcOp>
struct ToReshape : OpRewritePattern<SrcOp> {
  using OpRewritePattern<SrcOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SrcOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!type || !in || !isSupportedElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs ranked tensors of a supported type");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, op->getOperand(0));
    return success();
  }
};

/// `arith.constant dense<...> : tensor<...>` → `neuron.constant`.
struct ConstantPattern : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto value = dyn_cast<ElementsAttr>(op.getValue());
    if (!type || !value || !isSupportedElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "not a tensor constant of a supported type");
    rewriter.replaceOpWithNewOp<ConstantOp>(op, type, value);
    return success();
  }
};

/// `tensor.splat %c` of a constant scalar → a splat `neuron.constant`.
struct SplatPattern : OpRewritePattern<tensor::SplatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::SplatOp op, PatternRewriter &rewriter) const override {
    Attribute scalar;
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !matchPattern(op.getInput(), m_Constant(&scalar)) ||
        !isSupportedElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a constant scalar and a static shape");
    rewriter.replaceOpWithNewOp<ConstantOp>(op, type, DenseElementsAttr::get(type, scalar));
    return success();
  }
};

/// `tensor.extract_slice` with static offsets/sizes/strides → `neuron.slice`,
/// then a reshape when the slice drops unit dims.
struct ExtractSlicePattern : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasUnitStride() && ShapedType::isDynamicShape(op.getStaticStrides()))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    if (ShapedType::isDynamicShape(op.getStaticOffsets()) ||
        ShapedType::isDynamicShape(op.getStaticSizes()) ||
        ShapedType::isDynamicShape(op.getStaticStrides()))
      return rewriter.notifyMatchFailure(op, "needs static offsets, sizes and strides");
    auto source = op.getSourceType();
    if (!isSupportedElementType(source.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto sliceType = RankedTensorType::get(op.getStaticSizes(), source.getElementType());
    Value slice = SliceOp::create(rewriter, op.getLoc(), sliceType, op.getSource(),
                                  rewriter.getDenseI64ArrayAttr(op.getStaticOffsets()),
                                  rewriter.getDenseI64ArrayAttr(op.getStaticSizes()),
                                  rewriter.getDenseI64ArrayAttr(op.getStaticStrides()));
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), slice, op.getType().getShape()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tensor.insert_slice
//===----------------------------------------------------------------------===//

/// The `tensor.insert_slice`s that fill a `tensor.empty` piece by piece up to
/// `op`, first to last, or empty when `op`'s destination is not such a chain.
SmallVector<tensor::InsertSliceOp> chainIntoEmpty(tensor::InsertSliceOp op) {
  SmallVector<tensor::InsertSliceOp> chain = {op};
  Value dest = op.getDest();
  while (auto prev = dest.getDefiningOp<tensor::InsertSliceOp>()) {
    chain.push_back(prev);
    dest = prev.getDest();
  }
  if (!dest.getDefiningOp<tensor::EmptyOp>())
    return {};
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// The insert_slice that continues the chain `op` is in, if any.
tensor::InsertSliceOp nextInChain(tensor::InsertSliceOp op) {
  for (Operation *user : op->getUsers())
    if (auto next = dyn_cast<tensor::InsertSliceOp>(user); next && next.getDest() == op.getResult())
      return next;
  return {};
}

/// The dim along which an insert_slice's slice differs from its destination
/// (-1 when it covers all of it), or failure when it differs in several.
FailureOr<int64_t> sliceAxis(tensor::InsertSliceOp op, std::string &why) {
  auto dest = op.getDestType();
  if (!dest.hasStaticShape() || !op.hasUnitStride() ||
      ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes())) {
    why = "it needs static shapes, offsets and sizes and unit strides";
    return failure();
  }
  if (!isSupportedElementType(dest.getElementType())) {
    why = "its element type is not one the device has";
    return failure();
  }
  ArrayRef<int64_t> offsets = op.getStaticOffsets(), sizes = op.getStaticSizes();
  int64_t axis = -1;
  for (int64_t d = 0; d < dest.getRank(); ++d) {
    if (offsets[d] == 0 && sizes[d] == dest.getDimSize(d))
      continue;
    if (axis >= 0) {
      why = "the slice differs from its destination in more than one dim (" + std::to_string(axis) +
            " and " + std::to_string(d) + ")";
      return failure();
    }
    axis = d;
  }
  return axis;
}

/// How the pieces of a chain into `tensor.empty` tile the result: along one
/// axis, in offset order.
struct Assembly {
  int64_t axis = -1;
  SmallVector<tensor::InsertSliceOp> pieces; // sorted by offset along `axis`
};

/// Checks that the chain ending at `last` writes every element of its
/// `tensor.empty` exactly once, each piece a band along one common axis.
FailureOr<Assembly> analyzeAssembly(tensor::InsertSliceOp last, std::string &why) {
  SmallVector<tensor::InsertSliceOp> chain = chainIntoEmpty(last);
  Assembly plan;
  for (tensor::InsertSliceOp piece : chain) {
    FailureOr<int64_t> axis = sliceAxis(piece, why);
    if (failed(axis))
      return failure();
    if (*axis < 0 && chain.size() == 1) // one piece, the whole tensor
      return Assembly{0, {piece}};
    if (*axis < 0 || (plan.axis >= 0 && *axis != plan.axis)) {
      why = "the pieces written into the tensor.empty are not bands along one common dim";
      return failure();
    }
    if (piece != last && !piece->hasOneUse()) {
      why = "the tensor.empty is read before all its pieces are written";
      return failure();
    }
    plan.axis = *axis;
    plan.pieces.push_back(piece);
  }
  int64_t axis = plan.axis;
  llvm::stable_sort(plan.pieces, [&](tensor::InsertSliceOp a, tensor::InsertSliceOp b) {
    return a.getStaticOffsets()[axis] < b.getStaticOffsets()[axis];
  });
  int64_t next = 0;
  for (tensor::InsertSliceOp piece : plan.pieces) {
    int64_t offset = piece.getStaticOffsets()[axis];
    if (offset != next) {
      why = offset > next
                ? "elements " + std::to_string(next) + " to " + std::to_string(offset - 1) +
                      " of dim " + std::to_string(axis) + " of the tensor.empty are never written"
                : "two pieces written into the tensor.empty overlap along dim " +
                      std::to_string(axis);
      return failure();
    }
    next = offset + piece.getStaticSizes()[axis];
  }
  if (next != last.getDestType().getDimSize(axis)) {
    why = "elements " + std::to_string(next) + " to " +
          std::to_string(last.getDestType().getDimSize(axis) - 1) + " of dim " +
          std::to_string(axis) + " of the tensor.empty are never written";
    return failure();
  }
  return plan;
}

/// A `tensor.empty` filled band by band with `tensor.insert_slice` (the
/// rotate-half of RoPE: `[-x2, x1]`) → `neuron.concat` of the bands:
///   %a = tensor.insert_slice %n into %e[0, 0] [4, 2] [1, 1]
///   %b = tensor.insert_slice %p into %a[0, 2] [4, 2] [1, 1]
/// → %b = neuron.concat %n, %p axis = 1. Matches the last insert of the chain.
struct AssemblePiecesPattern : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    if (chainIntoEmpty(op).empty())
      return rewriter.notifyMatchFailure(op, "its destination is not built from a tensor.empty");
    if (nextInChain(op))
      return rewriter.notifyMatchFailure(op, "not the last insert into the tensor.empty");
    std::string why;
    FailureOr<Assembly> plan = analyzeAssembly(op, why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    Location loc = op.getLoc();
    SmallVector<Value> parts;
    for (tensor::InsertSliceOp piece : plan->pieces)
      parts.push_back(reshapeTo(rewriter, loc, piece.getSource(), piece.getStaticSizes()));
    if (parts.size() == 1) {
      rewriter.replaceOp(op, parts.front());
      return success();
    }
    rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getDestType(), parts,
                                          rewriter.getI64IntegerAttr(plan->axis));
    return success();
  }
};

/// `tensor.insert_slice %src into %dest` where the slice covers `dest`
/// except along one dim (a cache update, a padding) → slices of `dest`
/// around `src`, concatenated along that dim.
struct InsertSlicePattern : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    if (!chainIntoEmpty(op).empty())
      return rewriter.notifyMatchFailure(op, "builds a tensor.empty from pieces (see "
                                             "AssemblePiecesPattern)");
    auto dest = op.getDestType();
    if (!dest.hasStaticShape() || !op.hasUnitStride() ||
        ShapedType::isDynamicShape(op.getStaticOffsets()) ||
        ShapedType::isDynamicShape(op.getStaticSizes()) ||
        !isSupportedElementType(dest.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs static shapes, offsets and unit strides");
    ArrayRef<int64_t> offsets = op.getStaticOffsets(), sizes = op.getStaticSizes();
    int64_t axis = -1;
    for (int64_t d = 0; d < dest.getRank(); ++d) {
      if (offsets[d] == 0 && sizes[d] == dest.getDimSize(d))
        continue;
      if (axis >= 0)
        return rewriter.notifyMatchFailure(op, "the slice differs from dest in more than one dim");
      axis = d;
    }
    Location loc = op.getLoc();
    Value src = reshapeTo(rewriter, loc, op.getSource(), sizes);
    if (axis < 0) { // the slice is the whole tensor
      rewriter.replaceOp(op, src);
      return success();
    }
    auto piece = [&](int64_t begin, int64_t end) -> Value {
      SmallVector<int64_t> off(dest.getRank(), 0), size(dest.getShape()),
          stride(dest.getRank(), 1);
      off[axis] = begin;
      size[axis] = end - begin;
      return SliceOp::create(rewriter, loc, RankedTensorType::get(size, dest.getElementType()),
                             op.getDest(), rewriter.getDenseI64ArrayAttr(off),
                             rewriter.getDenseI64ArrayAttr(size),
                             rewriter.getDenseI64ArrayAttr(stride));
    };
    SmallVector<Value> parts;
    if (offsets[axis] > 0)
      parts.push_back(piece(0, offsets[axis]));
    parts.push_back(src);
    if (offsets[axis] + sizes[axis] < dest.getDimSize(axis))
      parts.push_back(piece(offsets[axis] + sizes[axis], dest.getDimSize(axis)));
    Value result = parts.size() == 1 ? parts.front()
                                     : ConcatOp::create(rewriter, loc, dest, parts,
                                                        rewriter.getI64IntegerAttr(axis))
                                           .getResult();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// True when `op` writes a static, strided or multi-dim slice into a
/// destination of static shape that is not a tensor.empty being assembled.
bool isMaskedInsert(tensor::InsertSliceOp op) {
  auto dest = op.getDestType();
  if (!dest.hasStaticShape() || !isSupportedElementType(dest.getElementType()) ||
      ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes()) ||
      ShapedType::isDynamicShape(op.getStaticStrides()) || !chainIntoEmpty(op).empty())
    return false;
  for (int64_t d = 0; d < dest.getRank(); ++d) {
    int64_t offset = op.getStaticOffsets()[d], size = op.getStaticSizes()[d],
            stride = op.getStaticStrides()[d];
    if (offset < 0 || stride < 1 || size < 1 || offset + (size - 1) * stride >= dest.getDimSize(d))
      return false;
  }
  return true;
}

/// `tensor.insert_slice %src into %dest[offsets] [sizes] [strides]` that is
/// not a band along one dim (strided, or differing in several dims) →
/// `select(mask, spread, dest)`: `spread` is `src` with each element
/// repeated `stride` times along each dim (reshape, broadcast_to, reshape,
/// slice) and padded with zeros to `dest`'s shape at `offsets` (concat);
/// `mask` is true exactly where the slice writes, built from one small i1
/// constant per dim that is not written whole.
///   %r = tensor.insert_slice %s into %d[1, 2] [3, 3] [2, 3]
///     → neuron.select %mask, concat(0, spread(%s), 0), %d
struct MaskedInsertSlicePattern : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isMaskedInsert(op))
      return rewriter.notifyMatchFailure(op, "needs static shapes, offsets, sizes and strides");
    std::string why;
    if (op.hasUnitStride() && succeeded(sliceAxis(op, why)))
      return rewriter.notifyMatchFailure(op, "a band along one dim (see InsertSlicePattern)");
    Location loc = op.getLoc();
    auto dest = op.getDestType();
    Type elem = dest.getElementType();
    int64_t rank = dest.getRank();
    ArrayRef<int64_t> offsets = op.getStaticOffsets(), sizes = op.getStaticSizes(),
                      strides = op.getStaticStrides();
    // Spread: element i of dim d lands at i * stride.
    SmallVector<int64_t> split, repeated, merged, extent;
    for (int64_t d = 0; d < rank; ++d) {
      split.append({sizes[d], 1});
      repeated.append({sizes[d], strides[d]});
      merged.push_back(sizes[d] * strides[d]);
      extent.push_back(sizes[d] == 0 ? 0 : (sizes[d] - 1) * strides[d] + 1);
    }
    Value spread = reshapeTo(rewriter, loc, op.getSource(), split);
    if (split != repeated)
      spread = BroadcastToOp::create(rewriter, loc, RankedTensorType::get(repeated, elem), spread);
    spread = reshapeTo(rewriter, loc, spread, merged);
    if (merged != extent)
      spread = SliceOp::create(rewriter, loc, RankedTensorType::get(extent, elem), spread,
                               rewriter.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 0)),
                               rewriter.getDenseI64ArrayAttr(extent),
                               rewriter.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 1)));
    // Pad with zeros to the destination's shape, one dim at a time.
    SmallVector<int64_t> shape = extent;
    for (int64_t d = 0; d < rank; ++d) {
      SmallVector<Value> parts;
      auto zeros = [&](int64_t n) {
        SmallVector<int64_t> zshape = shape;
        zshape[d] = n;
        parts.push_back(createSplat(rewriter, loc, RankedTensorType::get(zshape, elem), 0));
      };
      int64_t after = dest.getDimSize(d) - offsets[d] - extent[d];
      if (offsets[d] > 0)
        zeros(offsets[d]);
      parts.push_back(spread);
      if (after > 0)
        zeros(after);
      shape[d] = dest.getDimSize(d);
      if (parts.size() > 1)
        spread = ConcatOp::create(rewriter, loc, RankedTensorType::get(shape, elem), parts,
                                  rewriter.getI64IntegerAttr(d));
    }
    // The mask: along each dim, true at offset + i * stride for i < size.
    Value mask;
    auto boolType = [&](ArrayRef<int64_t> s) {
      return RankedTensorType::get(s, rewriter.getI1Type());
    };
    for (int64_t d = 0; d < rank; ++d) {
      int64_t n = dest.getDimSize(d);
      if (offsets[d] == 0 && strides[d] == 1 && sizes[d] == n)
        continue; // written whole along this dim
      SmallVector<bool> bits(n, false);
      for (int64_t i = 0; i < sizes[d]; ++i)
        bits[offsets[d] + i * strides[d]] = true;
      SmallVector<int64_t> mshape(rank, 1);
      mshape[d] = n;
      Value dimMask = ConstantOp::create(rewriter, loc, boolType(mshape),
                                         DenseElementsAttr::get(boolType(mshape), ArrayRef(bits)));
      if (!mask) {
        mask = dimMask;
        continue;
      }
      // mask && dimMask
      RankedTensorType both = broadcastType(mask, dimMask, rewriter.getI1Type());
      mask = SelectOp::create(rewriter, loc, both, mask, dimMask,
                              createSplat(rewriter, loc, boolType({}), 0));
    }
    if (!mask) {
      rewriter.replaceOp(op, spread);
      return success();
    }
    rewriter.replaceOpWithNewOp<SelectOp>(op, dest, mask, spread, op.getDest());
    return success();
  }
};

/// `tensor.insert %c into %dest[%i, %j]` of a constant scalar at constant
/// indices → `select(mask, %c, %dest)`, the mask true at that one element
/// (one small i1 constant per dim).
struct InsertScalarPattern : OpRewritePattern<tensor::InsertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertOp op, PatternRewriter &rewriter) const override {
    auto dest = op.getDest().getType();
    Attribute scalarAttr;
    if (!dest.hasStaticShape() || !isSupportedElementType(dest.getElementType()) ||
        !matchPattern(op.getScalar(), m_Constant(&scalarAttr)))
      return rewriter.notifyMatchFailure(op, "needs a static destination and a constant scalar");
    SmallVector<int64_t> indices;
    for (Value i : op.getIndices()) {
      std::optional<int64_t> c = getConstantIntValue(i);
      if (!c || *c < 0 || *c >= dest.getDimSize(indices.size()))
        return rewriter.notifyMatchFailure(op, "needs constant indices in bounds");
      indices.push_back(*c);
    }
    Location loc = op.getLoc();
    auto scalarType = RankedTensorType::get({}, dest.getElementType());
    Value scalar = ConstantOp::create(rewriter, loc, scalarType,
                                      DenseElementsAttr::get(scalarType, scalarAttr));
    auto boolType = [&](ArrayRef<int64_t> s) {
      return RankedTensorType::get(s, rewriter.getI1Type());
    };
    Value mask;
    for (int64_t d = 0; d < dest.getRank(); ++d) {
      if (dest.getDimSize(d) == 1)
        continue;
      SmallVector<bool> bits(dest.getDimSize(d), false);
      bits[indices[d]] = true;
      SmallVector<int64_t> mshape(dest.getRank(), 1);
      mshape[d] = dest.getDimSize(d);
      Value dimMask = ConstantOp::create(rewriter, loc, boolType(mshape),
                                         DenseElementsAttr::get(boolType(mshape), ArrayRef(bits)));
      mask = !mask ? dimMask
                   : SelectOp::create(rewriter, loc,
                                      broadcastType(mask, dimMask, rewriter.getI1Type()), mask,
                                      dimMask, createSplat(rewriter, loc, boolType({}), 0))
                         .getResult();
    }
    if (!mask) { // a single element
      rewriter.replaceOpWithNewOp<BroadcastToOp>(op, dest, scalar);
      return success();
    }
    rewriter.replaceOpWithNewOp<SelectOp>(op, dest, mask, scalar, op.getDest());
    return success();
  }
};

/// `tensor.concat dim(d)` → `neuron.concat axis = d`.
struct ConcatPattern : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getType(), op.getInputs(),
                                          rewriter.getI64IntegerAttr(op.getDim()));
    return success();
  }
};

/// `tensor.pad` with static pads and a constant pad value (the padding a
/// convolution or pooling did not absorb) → per padded dim, a
/// `neuron.concat` of splat blocks around the tensor.
struct PadPattern : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp op, PatternRewriter &rewriter) const override {
    if (!hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    std::optional<double> value = getSplatValue(op.getConstantPaddingValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "the pad value is not a constant");
    ArrayRef<int64_t> lo = op.getStaticLow(), hi = op.getStaticHigh();
    if (!op.getResultType().hasStaticShape() || ShapedType::isDynamicShape(lo) ||
        ShapedType::isDynamicShape(hi) ||
        llvm::any_of(llvm::concat<const int64_t>(lo, hi), [](int64_t p) { return p < 0; }))
      return rewriter.notifyMatchFailure(op, "needs static shapes and non-negative static pads");
    rewriter.replaceOp(op, padWithConstant(rewriter, op.getLoc(), op.getSource(), lo, hi, *value));
    return success();
  }
};

/// arith/math ops applied to whole tensors (`%e = math.exp %t : tensor<...>`)
/// → the same neuron ops an elementwise linalg.generic body raises to.
struct ElementwiseOnTensors : RewritePattern {
  explicit ElementwiseOnTensors(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    bool composed = isComposedBodyOp(op);
    if ((!isRaisableBodyOp(op) && !composed) || isa<arith::ConstantOp>(op) ||
        op->getNumResults() != 1 || !isa<RankedTensorType>(op->getResult(0).getType()) ||
        !hasSupportedTypes(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise arith/math op on tensors");
    if (auto fpowi = dyn_cast<math::FPowIOp>(op); fpowi && !getSplatValue(fpowi.getRhs()))
      return rewriter.notifyMatchFailure(op, "math.fpowi needs a constant exponent");
    SmallVector<Value> in = llvm::to_vector(op->getOperands());
    // A whole tensor's values are not known to be >= 0 (see ComposedBodyOps).
    rewriter.replaceOp(op, composed ? emitComposedBodyOp(rewriter, op, in, /*nonNegative=*/false)
                                    : emitBodyOp(rewriter, op, in));
    return success();
  }
};

struct ConvertTensorPass : mlir::neuron::impl::NeuronConvertTensorPassBase<ConvertTensorPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ToReshape<tensor::ExpandShapeOp>, ToReshape<tensor::CollapseShapeOp>,
                 ToReshape<tensor::ReshapeOp>, ToReshape<tensor::CastOp>, ConstantPattern,
                 SplatPattern, ExtractSlicePattern, AssemblePiecesPattern, InsertSlicePattern,
                 MaskedInsertSlicePattern, InsertScalarPattern, ConcatPattern, PadPattern,
                 ElementwiseOnTensors>(ctx);
    // No folding here: the input dialects' folders do not all agree with
    // their own lowering (tosa.cast of i1 folds true to -1.0); neuron's
    // canonicalizer folds afterwards, with the interpreter's semantics.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().enableFolding(false));
  }
};

} // namespace

std::string mlir::neuron::whyInsertSliceIsNotRaisable(Operation *op) {
  auto insert = dyn_cast<tensor::InsertSliceOp>(op);
  if (!insert)
    return {};
  std::string why;
  if (chainIntoEmpty(insert).empty()) {
    if (isMaskedInsert(insert))
      return {};
    if (!isSupportedElementType(insert.getDestType().getElementType()))
      return "its element type is not one the device has";
    return "it needs static shapes, offsets, sizes and strides";
  }
  while (tensor::InsertSliceOp next = nextInChain(insert))
    insert = next;
  (void)analyzeAssembly(insert, why);
  return why;
}
