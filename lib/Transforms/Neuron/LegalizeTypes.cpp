//===- LegalizeTypes.cpp - neuron-legalize-types ----------------------------===//
//
// f64 → f32, i64 → i32 and the narrow integers (i2, i4, i8, i16) → i32
// everywhere in neuron functions (the device has none of them), with one
// warning per function saying what was converted; and the optional auto-cast
// of matmuls or all float compute to bf16/f16. Narrow integers keep their
// semantics: every result that could leave its type's range wraps to it.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/AutoCast.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONLEGALIZETYPESPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// Element type replacements, e.g. {f64 → f32, i64 → i32}.
using TypeMap = llvm::SmallDenseMap<Type, Type, 4>;

/// Converts a constant's values to a new element type. Integers must fit.
FailureOr<ElementsAttr> convertConstant(ConstantOp op, RankedTensorType to) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense) {
    op.emitError("cannot convert a constant that is not a dense attribute to ") << to;
    return failure();
  }
  Type elem = to.getElementType();
  if (auto floatType = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> values;
    for (APFloat v : dense.getValues<APFloat>()) {
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return cast<ElementsAttr>(DenseElementsAttr::get(to, values));
  }
  unsigned width = elem.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (const APInt &v : dense.getValues<APInt>()) {
    if (!v.isSignedIntN(width)) {
      op.emitError("constant value ")
          << v.getSExtValue() << " does not fit in " << elem
          << "; the device computes integers in 32 bits";
      return failure();
    }
    values.push_back(v.sextOrTrunc(width));
  }
  return cast<ElementsAttr>(DenseElementsAttr::get(to, values));
}

/// The tensor type with its element type replaced according to `map`, or
/// null when nothing changes.
RankedTensorType convertedType(Type t, const TypeMap &map) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor)
    return {};
  auto it = map.find(tensor.getElementType());
  if (it == map.end())
    return {};
  return RankedTensorType::get(tensor.getShape(), it->second);
}

/// Retypes every block argument (when `args`) and op result of `fn` per `map`,
/// converting constants. Counts converted values per source element type.
LogicalResult retype(func::FuncOp fn, const TypeMap &map, bool args,
                     llvm::SmallDenseMap<Type, int64_t, 4> &counts) {
  if (args)
    for (BlockArgument arg : fn.getArguments())
      if (RankedTensorType t = convertedType(arg.getType(), map)) {
        ++counts[cast<RankedTensorType>(arg.getType()).getElementType()];
        arg.setType(t);
      }
  WalkResult walk = fn.walk([&](Operation *op) {
    for (OpResult r : op->getResults()) {
      RankedTensorType t = convertedType(r.getType(), map);
      if (!t)
        continue;
      ++counts[cast<RankedTensorType>(r.getType()).getElementType()];
      if (auto c = dyn_cast<ConstantOp>(op)) {
        FailureOr<ElementsAttr> value = convertConstant(c, t);
        if (failed(value))
          return WalkResult::interrupt();
        c.setValueAttr(*value);
      }
      r.setType(t);
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The narrow integer widths the device computes in i32 (i1 stays: it is a
/// mask type of its own).
bool isNarrowInteger(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() > 1 && i.getWidth() < 32;
}

/// Width of `v`'s element type when it is a narrow integer, else 0.
unsigned narrowWidth(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isNarrowInteger(t.getElementType()) ? t.getElementType().getIntOrFloatBitWidth()
                                                  : 0;
}

/// Whether an op with a narrow integer result can leave the type's range
/// from in-range operands (bitwise ops, max/min, select and the arithmetic
/// right shift cannot; the logical right shift can by exposing the high bit).
bool mayOverflow(Operation *op) {
  return !isa<MaxOp, MinOp, SelectOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftRightOp,
              ReluOp, ConstantOp, ReshapeOp, TransposeOp, BroadcastToOp, SliceOp, ConcatOp,
              GatherOp, ReduceMaxOp, ReduceMinOp>(op);
}

/// What retyping narrow integers to i32 must add to keep their semantics:
/// results that may overflow, and the zero-extended inputs of logical right
/// shifts, each with the narrow width.
struct NarrowFixups {
  SmallVector<std::pair<Value, unsigned>> wrap;
  SmallVector<std::pair<OpOperand *, unsigned>> zeroExtend;
};

NarrowFixups findNarrowFixups(func::FuncOp fn) {
  NarrowFixups f;
  fn.walk([&](Operation *op) {
    if (op->getNumResults() == 1 && !isa<func::FuncOp>(op))
      if (unsigned w = narrowWidth(op->getResult(0)); w && mayOverflow(op))
        f.wrap.push_back({op->getResult(0), w});
    if (auto shr = dyn_cast<ShiftRightLogicalOp>(op))
      if (unsigned w = narrowWidth(shr.getLhs()))
        f.zeroExtend.push_back({&shr.getLhsMutable(), w});
  });
  return f;
}

/// `v` (i32 now) wrapped to a signed `width`-bit value: (v << k) >> k with
/// k = 32 - width, an arithmetic shift.
Value wrapTo(OpBuilder &b, Location loc, Value v, unsigned width) {
  auto type = cast<RankedTensorType>(v.getType());
  auto scalar = RankedTensorType::get({}, type.getElementType());
  Value k = ConstantOp::create(
      b, loc, scalar, DenseElementsAttr::get(scalar, b.getI32IntegerAttr(32 - width)));
  Value up = ShiftLeftOp::create(b, loc, type, v, k);
  return ShiftRightOp::create(b, loc, type, up, k);
}

/// Applies `f` after the retyping to i32.
void applyNarrowFixups(const NarrowFixups &f) {
  for (auto [v, width] : f.wrap) {
    OpBuilder b(v.getContext());
    b.setInsertionPointAfterValue(v);
    Value wrapped = wrapTo(b, v.getLoc(), v, width);
    v.replaceAllUsesExcept(wrapped, wrapped.getDefiningOp()->getOperand(0).getDefiningOp());
  }
  for (auto [operand, width] : f.zeroExtend) {
    OpBuilder b(operand->getOwner());
    Location loc = operand->getOwner()->getLoc();
    auto type = cast<RankedTensorType>(operand->get().getType());
    auto scalar = RankedTensorType::get({}, type.getElementType());
    Value mask = ConstantOp::create(
        b, loc, scalar,
        DenseElementsAttr::get(scalar, b.getI32IntegerAttr(static_cast<int32_t>(
                                           (uint64_t(1) << width) - 1))));
    operand->set(BitwiseAndOp::create(b, loc, type, operand->get(), mask));
  }
}

/// Makes the function type agree with its (retyped) arguments and returns.
void updateSignature(func::FuncOp fn) {
  SmallVector<Type> results;
  fn.walk([&](func::ReturnOp ret) { results.assign(ret.getOperandTypes().begin(),
                                                   ret.getOperandTypes().end()); });
  fn.setFunctionType(
      FunctionType::get(fn.getContext(), fn.getBody().getArgumentTypes(), results));
}

struct LegalizeTypesPass : mlir::neuron::impl::NeuronLegalizeTypesPassBase<LegalizeTypesPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    Type half;
    if (autoCastType == "bf16")
      half = b.getBF16Type();
    else if (autoCastType == "f16")
      half = b.getF16Type();
    else {
      getOperation().emitError("unknown auto-cast-type '")
          << autoCastType << "'; expected bf16 or f16";
      return signalPassFailure();
    }
    if (autoCast != "none" && autoCast != "matmult" && autoCast != "all") {
      getOperation().emitError("unknown auto-cast '")
          << autoCast << "'; expected none, matmult or all";
      return signalPassFailure();
    }

    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      llvm::SmallDenseMap<Type, int64_t, 4> counts;
      TypeMap device = {{b.getF64Type(), b.getF32Type()}, {b.getI64Type(), b.getI32Type()}};
      fn.walk([&](Operation *op) {
        auto add = [&](Type t) {
          if (auto tensor = dyn_cast<RankedTensorType>(t);
              tensor && isNarrowInteger(tensor.getElementType()))
            device[tensor.getElementType()] = b.getI32Type();
        };
        llvm::for_each(op->getResultTypes(), add);
        if (auto f = dyn_cast<func::FuncOp>(op))
          llvm::for_each(f.getArgumentTypes(), add);
      });
      NarrowFixups fixups = findNarrowFixups(fn);
      if (failed(retype(fn, device, /*args=*/true, counts)))
        return signalPassFailure();
      applyNarrowFixups(fixups);
      updateSignature(fn);
      warnAboutConversions(fn, counts);
      if (autoCast == "matmult")
        castMatmuls(fn, half);
      else if (autoCast == "all" && failed(castAll(fn, half)))
        return signalPassFailure();
    }
  }

  /// One warning per function, e.g. "3 values of type f64 were converted to
  /// f32: the device has no fp64".
  void warnAboutConversions(func::FuncOp fn, llvm::SmallDenseMap<Type, int64_t, 4> &counts) {
    Builder b(fn.getContext());
    SmallVector<std::string> parts;
    if (int64_t n = counts.lookup(b.getF64Type()))
      parts.push_back(std::to_string(n) + (n == 1 ? " value of type f64 was" : " values of type f64 were") +
                      " converted to f32: the device has no fp64");
    if (int64_t n = counts.lookup(b.getI64Type()))
      parts.push_back(std::to_string(n) + (n == 1 ? " value of type i64 was" : " values of type i64 were") +
                      " converted to i32: the device computes integers in 32 bits");
    llvm::SmallVector<std::pair<unsigned, int64_t>> narrow;
    for (auto [type, n] : counts)
      if (isNarrowInteger(type))
        narrow.push_back({type.getIntOrFloatBitWidth(), n});
    llvm::sort(narrow);
    for (auto [width, n] : narrow)
      parts.push_back(std::to_string(n) +
                      (n == 1 ? " value of type i" : " values of type i") + std::to_string(width) +
                      (n == 1 ? " was" : " were") +
                      " converted to i32: the device computes integers in 32 bits (results "
                      "wrap to " +
                      std::to_string(width) + " bits as before)");
    if (!parts.empty())
      fn.emitWarning() << llvm::join(parts, "; ");
  }

  /// matmul(f32, f32) -> f32 becomes matmul(cast(a), cast(b)) -> f32 (and a
  /// convolution likewise): 16-bit operands, f32 accumulation.
  void castMatmuls(func::FuncOp fn, Type half) {
    auto toHalf = [&](OpBuilder &builder, Location loc, Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return CastOp::create(builder, loc, RankedTensorType::get(t.getShape(), half), v)
          .getResult();
    };
    fn.walk([&](MatmulOp mm) {
      if (!mm.getLhs().getType().getElementType().isF32() || mm->hasAttr(kKeepPrecisionAttr))
        return;
      OpBuilder builder(mm);
      mm.getLhsMutable().assign(toHalf(builder, mm.getLoc(), mm.getLhs()));
      mm.getRhsMutable().assign(toHalf(builder, mm.getLoc(), mm.getRhs()));
    });
    // Convolutions alike: 16-bit input and weight, f32 accumulation (the
    // bias stays f32: it is added to the f32 result).
    fn.walk([&](ConvOp conv) {
      if (!conv.getInput().getType().getElementType().isF32())
        return;
      OpBuilder builder(conv);
      conv.getInputMutable().assign(toHalf(builder, conv.getLoc(), conv.getInput()));
      conv.getWeightMutable().assign(toHalf(builder, conv.getLoc(), conv.getWeight()));
    });
  }

  /// Computes everything in `half`: f32 arguments are cast on entry, values
  /// retyped, and results cast back to f32 before returning.
  LogicalResult castAll(func::FuncOp fn, Type half) {
    Builder b(fn.getContext());
    Block &entry = fn.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    TypeMap toHalf = {{b.getF32Type(), half}};
    llvm::SmallDenseMap<Type, int64_t, 4> counts;
    if (failed(retype(fn, toHalf, /*args=*/false, counts)))
      return failure();
    for (BlockArgument arg : fn.getArguments()) {
      RankedTensorType t = convertedType(arg.getType(), toHalf);
      if (!t)
        continue;
      Value cast = CastOp::create(builder, arg.getLoc(), t, arg);
      arg.replaceAllUsesExcept(cast, cast.getDefiningOp());
    }
    fn.walk([&](func::ReturnOp ret) {
      OpBuilder atReturn(ret);
      for (auto [i, type] : llvm::enumerate(fn.getFunctionType().getResults())) {
        Value v = ret.getOperand(i);
        if (v.getType() != type)
          ret.setOperand(i, CastOp::create(atReturn, ret.getLoc(), type, v));
      }
    });
    // Matmuls keep 16-bit results here; everything else follows its operands.
    return success();
  }
};

} // namespace
