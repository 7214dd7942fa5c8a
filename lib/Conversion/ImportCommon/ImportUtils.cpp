//===- ImportUtils.cpp - Helpers shared by the import patterns -----------===//

#include "neuronc/Conversion/ImportUtils.h"

#include "neuronc/Support/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;

bool mlir::neuron::import::isSupportedElementType(Type t) {
  // Narrow integers (i2, i4, i8, i16) import as they are; neuron-legalize-types
  // computes them in i32 with their wrap-around kept.
  return t.isF32() || t.isBF16() || t.isF16() || t.isF64() || t.isSignlessInteger(1) ||
         t.isSignlessInteger(2) || t.isSignlessInteger(4) || t.isSignlessInteger(8) ||
         t.isSignlessInteger(16) || t.isSignlessInteger(32) || t.isSignlessInteger(64);
}

bool mlir::neuron::import::hasSupportedTypes(Operation *op) {
  auto ok = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && isSupportedElementType(tensor.getElementType());
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

std::optional<SmallVector<int64_t>> mlir::neuron::import::getConstantInts(Value v) {
  Attribute attr;
  if (auto shape = v.getDefiningOp<tosa::ConstShapeOp>())
    attr = shape.getValues();
  else if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &i : dense.getValues<APInt>())
    out.push_back(i.getSExtValue());
  return out;
}

Value mlir::neuron::import::createSplat(OpBuilder &b, Location loc, RankedTensorType type,
                                        double value) {
  Type elem = type.getElementType();
  Attribute scalar;
  if (auto f = dyn_cast<FloatType>(elem))
    scalar = b.getFloatAttr(f, value);
  else
    scalar = b.getIntegerAttr(elem, static_cast<int64_t>(value));
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, scalar));
}

Value mlir::neuron::import::reshapeTo(OpBuilder &b, Location loc, Value value,
                                      ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), value);
}

RankedTensorType mlir::neuron::import::broadcastType(Value a, Value b, Type elem) {
  neuronc::Shape shape;
  bool ok = neuronc::broadcastShapes(cast<RankedTensorType>(a.getType()).getShape(),
                                     cast<RankedTensorType>(b.getType()).getShape(), shape);
  (void)ok;
  return RankedTensorType::get(shape, elem);
}

/// True for the scalar body ops the elementwise raising knows.
bool mlir::neuron::import::isRaisableBodyOp(Operation *op) {
  return isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp, arith::MulFOp,
             arith::MulIOp, arith::DivFOp, arith::DivSIOp, arith::MaximumFOp, arith::MaxNumFOp,
             arith::MaxSIOp, arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp, arith::NegFOp,
             arith::CmpFOp, arith::CmpIOp, arith::SelectOp, arith::ExtFOp, arith::TruncFOp,
             arith::SIToFPOp, arith::FPToSIOp, arith::ExtSIOp, arith::TruncIOp, arith::ConstantOp,
             math::ExpOp, math::LogOp, math::SqrtOp, math::RsqrtOp, math::TanhOp, math::ErfOp,
             math::SinOp, math::CosOp, math::AbsFOp, math::AbsIOp, math::PowFOp, math::FPowIOp,
             math::FloorOp, math::CeilOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
             arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp, arith::ExtUIOp, arith::UIToFPOp,
             arith::FPToUIOp>(op);
}

/// A tensor of the broadcast shape of `operands` with element type `elem`.
static RankedTensorType resultTypeOf(ArrayRef<Value> operands, Type elem) {
  neuronc::Shape shape;
  for (Value v : operands) {
    neuronc::Shape next;
    (void)neuronc::broadcastShapes(shape, cast<RankedTensorType>(v.getType()).getShape(), next);
    shape = next;
  }
  return RankedTensorType::get(shape, elem);
}

/// `x` (of integer element type `from`) read as unsigned and converted to
/// `to`: i1 is 0 or 1 already; a narrower integer is masked to its width in
/// i32. (uitofp of i32 is composed exactly in ComposedBodyOps, which the
/// importers try first; i64 is computed in i32 on the device.)
Value mlir::neuron::import::emitZeroExtended(OpBuilder &b, Location loc, Value x, Type from,
                                             Type to) {
  auto type = cast<RankedTensorType>(x.getType());
  unsigned width = getElementTypeOrSelf(from).getIntOrFloatBitWidth();
  auto as = [&](Type elem) { return RankedTensorType::get(type.getShape(), elem); };
  if (width == 1 || width >= 32)
    return CastOp::create(b, loc, as(to), x);
  Type i32 = b.getI32Type();
  Value wide = CastOp::create(b, loc, as(i32), x);
  Value mask =
      createSplat(b, loc, RankedTensorType::get({}, i32), double((uint64_t(1) << width) - 1));
  Value z = BitwiseAndOp::create(b, loc, as(i32), wide, mask);
  return to == i32 ? z : CastOp::create(b, loc, as(to), z).getResult();
}

/// Emits the neuron op for one scalar body op over tensor operands.
Value mlir::neuron::import::emitBodyOp(OpBuilder &b, Operation *op, ArrayRef<Value> in) {
  Location loc = op->getLoc();
  Type elem = getElementTypeOrSelf(op->getResult(0).getType());
  if (isa<IndexType>(elem)) // positions (linalg.index) are computed as i32
    elem = b.getI32Type();
  RankedTensorType type = resultTypeOf(in, elem);
  auto binary = [&](auto tag) -> Value {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, type, in[0], in[1]);
  };
  auto unary = [&](auto tag) -> Value {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, type, in[0]);
  };
  auto compare = [&](ComparePredicate p, bool negate) -> Value {
    Value c = CompareOp::create(b, loc, type, p, in[0], in[1]);
    if (!negate)
      return c;
    auto scalar = RankedTensorType::get({}, b.getI1Type());
    return SelectOp::create(b, loc, type, c, createSplat(b, loc, scalar, 0),
                            createSplat(b, loc, scalar, 1));
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::AddFOp, arith::AddIOp>([&](auto) { return binary(AddOp()); })
      .Case<arith::SubFOp, arith::SubIOp>([&](auto) { return binary(SubOp()); })
      .Case<arith::MulFOp, arith::MulIOp>([&](auto) { return binary(MulOp()); })
      .Case<arith::DivFOp, arith::DivSIOp>([&](auto) { return binary(DivOp()); })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
          [&](auto) { return binary(MaxOp()); })
      .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
          [&](auto) { return binary(MinOp()); })
      .Case<math::PowFOp>([&](auto) { return binary(PowOp()); })
      .Case<arith::NegFOp>([&](auto) { return unary(NegOp()); })
      .Case<math::AbsFOp, math::AbsIOp>([&](auto) { return unary(AbsOp()); })
      .Case<math::ExpOp>([&](auto) { return unary(ExpOp()); })
      .Case<math::LogOp>([&](auto) { return unary(LogOp()); })
      .Case<math::SqrtOp>([&](auto) { return unary(SqrtOp()); })
      .Case<math::RsqrtOp>([&](auto) { return unary(RsqrtOp()); })
      .Case<math::TanhOp>([&](auto) { return unary(TanhOp()); })
      .Case<math::ErfOp>([&](auto) { return unary(ErfOp()); })
      .Case<math::SinOp>([&](auto) { return unary(SinOp()); })
      .Case<math::CosOp>([&](auto) { return unary(CosOp()); })
      .Case<math::FloorOp>([&](auto) { return unary(FloorOp()); })
      .Case<math::CeilOp>([&](auto) { return unary(CeilOp()); })
      .Case<arith::AndIOp>([&](auto) { return binary(BitwiseAndOp()); })
      .Case<arith::OrIOp>([&](auto) { return binary(BitwiseOrOp()); })
      .Case<arith::XOrIOp>([&](auto) { return binary(BitwiseXorOp()); })
      .Case<arith::ShLIOp>([&](auto) { return binary(ShiftLeftOp()); })
      .Case<arith::ShRSIOp>([&](auto) { return binary(ShiftRightOp()); })
      .Case<arith::ShRUIOp>([&](auto) { return binary(ShiftRightLogicalOp()); })
      .Case<arith::ExtUIOp, arith::UIToFPOp>([&](Operation *o) -> Value {
        return emitZeroExtended(b, loc, in[0], o->getOperand(0).getType(), elem);
      })
      // fptoui is defined where the value fits the unsigned range, and there
      // it truncates as fptosi does (the bits of a narrow result are the same).
      .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp, arith::FPToUIOp,
            arith::ExtSIOp, arith::TruncIOp>([&](auto) { return unary(CastOp()); })
      .Case<arith::SelectOp>([&](auto) -> Value {
        RankedTensorType t = resultTypeOf(in, elem);
        return SelectOp::create(b, loc, t, in[0], in[1], in[2]);
      })
      .Case<math::FPowIOp>([&](math::FPowIOp p) -> Value {
        // x^n by a constant: the common small powers get their own op.
        double n = *getSplatValue(p.getRhs());
        RankedTensorType t = cast<RankedTensorType>(in[0].getType());
        if (n == 1)
          return in[0];
        if (n == 2)
          return SquareOp::create(b, loc, t, in[0]);
        if (n == -1)
          return ReciprocalOp::create(b, loc, t, in[0]);
        auto scalar = RankedTensorType::get({}, t.getElementType());
        return PowOp::create(b, loc, t, in[0], createSplat(b, loc, scalar, n));
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp c) -> Value {
        using P = arith::CmpFPredicate;
        switch (c.getPredicate()) {
        case P::OEQ: case P::UEQ: return compare(ComparePredicate::eq, false);
        case P::ONE: case P::UNE: return compare(ComparePredicate::eq, true);
        case P::OLT: case P::ULT: return compare(ComparePredicate::lt, false);
        case P::OLE: case P::ULE: return compare(ComparePredicate::le, false);
        case P::OGT: case P::UGT: return compare(ComparePredicate::gt, false);
        case P::OGE: case P::UGE: return compare(ComparePredicate::ge, false);
        default: return compare(ComparePredicate::eq, false); // ord/uno: not raisable
        }
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) -> Value {
        using P = arith::CmpIPredicate;
        switch (c.getPredicate()) {
        case P::eq: return compare(ComparePredicate::eq, false);
        case P::ne: return compare(ComparePredicate::eq, true);
        // Unsigned predicates only reach here on indices, which are >= 0.
        case P::slt: case P::ult: return compare(ComparePredicate::lt, false);
        case P::sle: case P::ule: return compare(ComparePredicate::le, false);
        case P::sgt: case P::ugt: return compare(ComparePredicate::gt, false);
        default: return compare(ComparePredicate::ge, false);
        }
      })
      .Default([&](Operation *) -> Value { return {}; });
}


//===----------------------------------------------------------------------===//
// Windows: convolutions and pooling
//===----------------------------------------------------------------------===//

std::optional<DenseElementsAttr>
mlir::neuron::import::permuteConstant(Value v, ArrayRef<int64_t> perm, ArrayRef<int64_t> flip) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!dense || !type || !type.hasStaticShape() || type.getElementType().isInteger(1) ||
      static_cast<int64_t>(perm.size()) != type.getRank())
    return std::nullopt;
  neuronc::Shape shape = neuronc::transposedShape(type.getShape(), perm);
  auto outType = RankedTensorType::get(shape, type.getElementType());
  if (dense.isSplat())
    return DenseElementsAttr::get(outType, dense.getSplatValue<Attribute>());
  // Permute the raw bytes: every supported non-i1 element is whole bytes.
  size_t width = type.getElementType().getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = dense.getRawData();
  neuronc::Shape inStrides = neuronc::rowMajorStrides(type.getShape());
  int64_t rank = type.getRank(), count = type.getNumElements();
  std::vector<char> out(raw.size());
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t at = llvm::is_contained(flip, d) ? shape[d] - 1 - index[d] : index[d];
      src += at * inStrides[perm[d]];
    }
    std::memcpy(out.data() + i * width, raw.data() + src * width, width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(outType, out);
}

Value mlir::neuron::import::transposeValue(OpBuilder &b, Location loc, Value v,
                                           ArrayRef<int64_t> perm) {
  if (llvm::is_sorted(perm))
    return v;
  if (std::optional<DenseElementsAttr> folded = permuteConstant(v, perm))
    return ConstantOp::create(b, loc, folded->getType(), *folded);
  auto type = cast<RankedTensorType>(v.getType());
  auto outType = RankedTensorType::get(neuronc::transposedShape(type.getShape(), perm),
                                       type.getElementType());
  return TransposeOp::create(b, loc, outType, v, b.getDenseI64ArrayAttr(perm));
}

Value mlir::neuron::import::padWithConstant(OpBuilder &b, Location loc, Value x,
                                            ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                                            double value) {
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  for (size_t d = 0; d < lo.size(); ++d) {
    if (lo[d] == 0 && hi[d] == 0)
      continue;
    SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
    SmallVector<Value> parts;
    auto block = [&](int64_t n) {
      SmallVector<int64_t> s = shape;
      s[d] = n;
      parts.push_back(createSplat(b, loc, RankedTensorType::get(s, elem), value));
    };
    if (lo[d])
      block(lo[d]);
    parts.push_back(x);
    if (hi[d])
      block(hi[d]);
    shape[d] += lo[d] + hi[d];
    x = ConcatOp::create(b, loc, RankedTensorType::get(shape, elem), parts,
                         b.getI64IntegerAttr(static_cast<int64_t>(d)));
  }
  return x;
}

Value mlir::neuron::import::emitConv(OpBuilder &b, Location loc, Value input, Value weight,
                                     Value bias, ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> padding, ArrayRef<int64_t> dilations,
                                     int64_t groups, Type resultElem, std::string &why) {
  neuronc::Shape shape;
  why = neuronc::convShape(cast<RankedTensorType>(input.getType()).getShape(),
                           cast<RankedTensorType>(weight.getType()).getShape(), groups, strides,
                           padding, dilations, shape);
  if (!why.empty())
    return {};
  return ConvOp::create(b, loc, RankedTensorType::get(shape, resultElem), input, weight, bias,
                        b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(padding),
                        b.getDenseI64ArrayAttr(dilations), b.getI64IntegerAttr(groups));
}

Value mlir::neuron::import::emitPool(OpBuilder &b, Location loc, Value input, PoolKind kind,
                                     ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> padding, bool countIncludePad,
                                     std::string &why) {
  auto type = cast<RankedTensorType>(input.getType());
  neuronc::Shape shape;
  why = neuronc::poolShape(type.getShape(), kernel, strides, padding, shape);
  if (!why.empty())
    return {};
  return PoolOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), input,
                        PoolKindAttr::get(b.getContext(), kind), b.getDenseI64ArrayAttr(kernel),
                        b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(padding),
                        countIncludePad ? b.getUnitAttr() : nullptr);
}

SmallVector<int64_t> mlir::neuron::import::channelsFirstPerm(int64_t rank, bool inverse) {
  SmallVector<int64_t> perm;
  if (!inverse) {
    perm = {0, rank - 1};
    for (int64_t d = 1; d + 1 < rank; ++d)
      perm.push_back(d);
  } else {
    perm = {0};
    for (int64_t d = 2; d < rank; ++d)
      perm.push_back(d);
    perm.push_back(1);
  }
  return perm;
}
