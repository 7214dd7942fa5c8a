//===- ComposedBodyOps.cpp - Scalar ops imported as several neuron ops ----===//
//
// math.exp2 and arith.uitofp have no neuron op; each is an exact
// composition of neuron ops on whole tensors:
//   exp2(x)          = exp(x * ln 2)
//   uitofp(x : i1)   = cast(x)                      (true is 1)
//   uitofp(x : i32)  = cast(x)  when x is known >= 0 (a position)
//                    = cast(hi) * 65536 + cast(lo)  otherwise, where
//                      hi, lo are the upper and lower 16 bits of x read as
//                      unsigned: both convert exactly, the sum rounds once,
//                      so the result is the correctly rounded 2^32 + x.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/ComposedBodyOps.h"

#include "neuronc/Conversion/ImportUtils.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::import;

bool mlir::neuron::import::isComposedBodyOp(Operation *op) {
  return isa<math::Exp2Op, arith::UIToFPOp>(op) && whyComposedBodyOpFails(op).empty();
}

std::string mlir::neuron::import::whyComposedBodyOpFails(Operation *op) {
  if (auto u = dyn_cast<arith::UIToFPOp>(op)) {
    Type in = getElementTypeOrSelf(u.getIn().getType());
    if (!in.isInteger(1) && !in.isInteger(32))
      return "arith.uitofp converts from an unsigned integer type other than i1 and i32";
  }
  return {};
}

/// A rank-0 constant of element type `elem` holding `value`.
static Value scalar(OpBuilder &b, Location loc, Type elem, double value) {
  return createSplat(b, loc, RankedTensorType::get({}, elem), value);
}

/// `x` converted from unsigned 32-bit integers to floats of type `to`
/// (see the file comment).
static Value unsignedToFloat(OpBuilder &b, Location loc, Value x, Type to, bool nonNegative) {
  auto type = cast<RankedTensorType>(x.getType());
  Type elem = type.getElementType();
  if (elem.isInteger(1) || nonNegative)
    return CastOp::create(b, loc, type.clone(to), x);
  Type f32 = b.getF32Type();
  auto lt = [&](Value v, Value c) {
    return CompareOp::create(b, loc, type.clone(b.getI1Type()), ComparePredicate::lt, v, c);
  };
  Value zero = scalar(b, loc, elem, 0), one = scalar(b, loc, elem, 1);
  Value base = scalar(b, loc, elem, 65536);
  // Truncating division: q * 65536 + r = x with r of x's sign.
  Value q = DivOp::create(b, loc, type, x, base);
  Value r = SubOp::create(b, loc, type, x, MulOp::create(b, loc, type, q, base));
  Value negative = lt(r, zero);
  Value lo = SelectOp::create(b, loc, type, negative, AddOp::create(b, loc, type, r, base), r);
  Value floor = SelectOp::create(b, loc, type, negative, SubOp::create(b, loc, type, q, one), q);
  // floor in [-32768, 32767]: the upper 16 bits read unsigned.
  Value hi = SelectOp::create(b, loc, type, lt(floor, zero),
                              AddOp::create(b, loc, type, floor, base), floor);
  auto ftype = type.clone(f32);
  Value high =
      MulOp::create(b, loc, ftype, CastOp::create(b, loc, ftype, hi), scalar(b, loc, f32, 65536.0));
  Value result = AddOp::create(b, loc, ftype, high, CastOp::create(b, loc, ftype, lo));
  if (to != f32)
    result = CastOp::create(b, loc, type.clone(to), result);
  return result;
}

Value mlir::neuron::import::emitComposedBodyOp(OpBuilder &b, Operation *op, ArrayRef<Value> in,
                                               bool nonNegative) {
  Location loc = op->getLoc();
  if (isa<math::Exp2Op>(op)) {
    auto type = cast<RankedTensorType>(in[0].getType());
    Value scaled =
        MulOp::create(b, loc, type, in[0], scalar(b, loc, type.getElementType(), std::log(2.0)));
    return ExpOp::create(b, loc, type, scaled);
  }
  auto u = cast<arith::UIToFPOp>(op);
  return unsignedToFloat(b, loc, in[0], getElementTypeOrSelf(u.getType()), nonNegative);
}
