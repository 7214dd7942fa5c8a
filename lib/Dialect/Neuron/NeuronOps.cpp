//===- NeuronOps.cpp - Verifiers of the neuron ops -----------------------===//
//
// The shape rules themselves live in neuronc/Support/Shape.h, shared with the
// reference kernels; this file turns them into diagnostics.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "neuronc/Dialect/BucketSignatureAttrs.h"
#include "neuronc/Support/Shape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::neuron;
using neuronc::formatShape;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Dims agree when equal or when either is dynamic.
bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x != y && x != ShapedType::kDynamic && y != ShapedType::kDynamic)
      return false;
  return true;
}

/// Checks that the result shape is `expected` (up to dynamic dims).
LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected) {
  auto result = tensorType(op->getResult(0));
  if (!shapesCompatible(result.getShape(), expected))
    return op->emitOpError("result shape ")
           << formatShape(result.getShape()) << " does not match the expected shape "
           << formatShape(expected);
  return success();
}

LogicalResult verifySameElementType(Operation *op, Value a, Value b, StringRef what) {
  Type ea = tensorType(a).getElementType(), eb = tensorType(b).getElementType();
  if (ea != eb)
    return op->emitOpError() << what << " element types differ: " << ea << " vs " << eb;
  return success();
}

LogicalResult verifyAxisList(Operation *op, ArrayRef<int64_t> axes, int64_t rank) {
  if (axes.empty())
    return op->emitOpError("needs at least one axis");
  std::string err = neuronc::checkAxes(axes, rank);
  if (!err.empty())
    return op->emitOpError() << err;
  return success();
}

/// A norm's weight/bias must broadcast to the input and share its element type.
LogicalResult verifyNormParam(Operation *op, Value input, Value param, StringRef what) {
  if (!param)
    return success();
  if (failed(verifySameElementType(op, input, param, (what + " and input").str())))
    return failure();
  if (!neuronc::isBroadcastableTo(tensorType(param).getShape(), tensorType(input).getShape()))
    return op->emitOpError() << what << " shape " << formatShape(tensorType(param).getShape())
                             << " does not broadcast to the input shape "
                             << formatShape(tensorType(input).getShape());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared verifiers
//===----------------------------------------------------------------------===//

LogicalResult mlir::neuron::detail::verifyBroadcastBinary(Operation *op, bool resultIsBool) {
  Value lhs = op->getOperand(op->getNumOperands() - 2);
  Value rhs = op->getOperand(op->getNumOperands() - 1);
  if (failed(verifySameElementType(op, lhs, rhs, "operand")))
    return failure();
  Type elem = tensorType(lhs).getElementType();
  Type resultElem = tensorType(op->getResult(0)).getElementType();
  if (!resultIsBool && resultElem != elem)
    return op->emitOpError("result element type ")
           << resultElem << " differs from the operand element type " << elem;
  if (isa<PowOp>(op) && !isa<FloatType>(elem))
    return op->emitOpError("is defined on floating-point tensors only, got ") << elem;
  if (isa<BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>(op) && !isa<IntegerType>(elem))
    return op->emitOpError("is defined on integer tensors only, got ") << elem;
  if (isa<ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp>(op) &&
      (!isa<IntegerType>(elem) || elem.isInteger(1)))
    return op->emitOpError("is defined on i32 (and i64) tensors only, got ") << elem;
  neuronc::Shape shape;
  if (!neuronc::broadcastShapes(tensorType(lhs).getShape(), tensorType(rhs).getShape(), shape))
    return op->emitOpError("operand shapes ")
           << formatShape(tensorType(lhs).getShape()) << " and "
           << formatShape(tensorType(rhs).getShape()) << " are not broadcast-compatible";
  return verifyResultShape(op, shape);
}

LogicalResult mlir::neuron::detail::verifyReduction(Operation *op, ArrayRef<int64_t> axes, bool keepdims) {
  auto input = tensorType(op->getOperand(0));
  if (failed(verifyAxisList(op, axes, input.getRank())))
    return failure();
  if (failed(verifySameElementType(op, op->getOperand(0), op->getResult(0), "input and result")))
    return failure();
  if (isa<ReduceMeanOp>(op) && !isa<FloatType>(input.getElementType()))
    return op->emitOpError("is defined on floating-point tensors only, got ")
           << input.getElementType();
  return verifyResultShape(op, neuronc::reducedShape(input.getShape(), axes, keepdims));
}

bool mlir::neuron::reducesAcrossRows(Operation *op) {
  if (!isa_and_nonnull<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op))
    return false;
  ArrayRef<int64_t> shape = tensorType(op->getOperand(0)).getShape();
  ArrayRef<int64_t> axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
  auto reduced = [&](int64_t d) { return llvm::is_contained(axes, d) && shape[d] > 1; };
  // The innermost non-unit dim decides: kept, or nothing kept at all.
  bool anyReduced = false, anyKept = false, innerReduced = false;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (shape[d] == 1)
      continue;
    innerReduced = reduced(d);
    (innerReduced ? anyReduced : anyKept) = true;
  }
  return anyReduced && (!anyKept || !innerReduced);
}

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::verify() {
  if (failed(verifySameElementType(*this, getOnTrue(), getOnFalse(), "branch")) ||
      failed(verifySameElementType(*this, getOnTrue(), getResult(), "branch and result")))
    return failure();
  neuronc::Shape values, shape;
  if (!neuronc::broadcastShapes(getOnTrue().getType().getShape(),
                                getOnFalse().getType().getShape(), values) ||
      !neuronc::broadcastShapes(getCondition().getType().getShape(), values, shape))
    return emitOpError("condition and branch shapes are not broadcast-compatible");
  return verifyResultShape(*this, shape);
}

LogicalResult MatmulOp::verify() {
  if (failed(verifySameElementType(*this, getLhs(), getRhs(), "operand")))
    return failure();
  Type in = getLhs().getType().getElementType(), out = getResult().getType().getElementType();
  bool accumulateInF32 = (in.isBF16() || in.isF16()) && out.isF32();
  if (in != out && !accumulateInF32)
    return emitOpError("result element type ")
           << out << " must equal the operand element type " << in
           << " (or be f32 for bf16/f16 operands)";
  neuronc::Shape shape;
  std::string err = neuronc::matmulShape(getLhs().getType().getShape(),
                                         getRhs().getType().getShape(), getTransposeLhs(),
                                         getTransposeRhs(), shape);
  if (!err.empty())
    return emitOpError() << err;
  return verifyResultShape(*this, shape);
}

LogicalResult ConvOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getWeight(), "input and weight")))
    return failure();
  Type in = getInput().getType().getElementType(), out = getResult().getType().getElementType();
  if (in != out && !((in.isBF16() || in.isF16()) && out.isF32()))
    return emitOpError("result element type ")
           << out << " must equal the input element type " << in
           << " (or be f32 for bf16/f16 operands)";
  neuronc::Shape shape;
  std::string err = neuronc::convShape(getInput().getType().getShape(),
                                       getWeight().getType().getShape(), getGroups(),
                                       getStrides(), getPadding(), getDilations(), shape);
  if (!err.empty())
    return emitOpError() << err;
  if (Value bias = getBias()) {
    auto bt = cast<RankedTensorType>(bias.getType());
    if (bt.getRank() != 1 || !shapesCompatible(bt.getShape(), {shape[1]}))
      return emitOpError("bias must be [") << formatShape({shape[1]}) << "], got "
                                           << formatShape(bt.getShape());
    if (bt.getElementType() != in && bt.getElementType() != out)
      return emitOpError("bias element type ") << bt.getElementType()
                                               << " must be the input's or the result's";
  }
  return verifyResultShape(*this, shape);
}

LogicalResult PoolOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getResult(), "input and result")))
    return failure();
  neuronc::Shape shape;
  std::string err = neuronc::poolShape(getInput().getType().getShape(), getKernel(),
                                       getStrides(), getPadding(), shape);
  if (!err.empty())
    return emitOpError() << err;
  return verifyResultShape(*this, shape);
}

LogicalResult TransposeOp::verify() {
  auto input = getInput().getType();
  std::string err = neuronc::checkPermutation(getPerm(), input.getRank());
  if (!err.empty())
    return emitOpError() << err;
  if (failed(verifySameElementType(*this, getInput(), getResult(), "input and result")))
    return failure();
  return verifyResultShape(*this, neuronc::transposedShape(input.getShape(), getPerm()));
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getResult(), "input and result")))
    return failure();
  int64_t in = neuronc::numElements(getInput().getType().getShape());
  int64_t out = neuronc::numElements(getResult().getType().getShape());
  if (in >= 0 && out >= 0 && in != out)
    return emitOpError("cannot reshape ")
           << in << " elements (" << formatShape(getInput().getType().getShape()) << ") into "
           << out << " elements (" << formatShape(getResult().getType().getShape()) << ")";
  return success();
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getResult(), "input and result")))
    return failure();
  if (!neuronc::isBroadcastableTo(getInput().getType().getShape(),
                                  getResult().getType().getShape()))
    return emitOpError("input shape ")
           << formatShape(getInput().getType().getShape()) << " does not broadcast to "
           << formatShape(getResult().getType().getShape());
  return success();
}

LogicalResult SliceOp::verify() {
  auto input = getInput().getType();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(getOffsets().size()) != rank ||
      static_cast<int64_t>(getSizes().size()) != rank ||
      static_cast<int64_t>(getStrides().size()) != rank)
    return emitOpError("offsets, sizes and strides need one entry per input dim (")
           << rank << ")";
  if (failed(verifySameElementType(*this, getInput(), getResult(), "input and result")))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t off = getOffsets()[d], size = getSizes()[d], stride = getStrides()[d];
    if (off < 0 || size < 0 || stride < 1)
      return emitOpError("dim ") << d << ": offset and size must be >= 0 and stride >= 1";
    int64_t dim = input.getDimSize(d);
    if (dim != ShapedType::kDynamic && size > 0 && off + (size - 1) * stride >= dim)
      return emitOpError("dim ") << d << ": slice reads index " << off + (size - 1) * stride
                                 << " of a dim of size " << dim;
  }
  return verifyResultShape(*this, getSizes());
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto first = tensorType(getInputs().front());
  int64_t rank = first.getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  neuronc::Shape shape(first.getShape().begin(), first.getShape().end());
  shape[axis] = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = tensorType(v);
    if (t.getRank() != rank)
      return emitOpError("input ") << i << " has rank " << t.getRank() << ", expected " << rank;
    if (failed(verifySameElementType(*this, getInputs().front(), v, "input")))
      return failure();
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (t.getDimSize(d) != first.getDimSize(d) && !t.isDynamicDim(d) &&
          !first.isDynamicDim(d))
        return emitOpError("input ") << i << " has size " << t.getDimSize(d) << " in dim " << d
                                     << ", expected " << first.getDimSize(d);
    }
    if (shape[axis] != ShapedType::kDynamic)
      shape[axis] = t.isDynamicDim(axis) ? ShapedType::kDynamic : shape[axis] + t.getDimSize(axis);
  }
  if (failed(verifySameElementType(*this, getInputs().front(), getResult(), "input and result")))
    return failure();
  return verifyResultShape(*this, shape);
}

LogicalResult GatherOp::verify() {
  auto table = getTable().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= table.getRank())
    return emitOpError("axis ") << axis << " is out of range for a table of rank "
                                << table.getRank();
  if (failed(verifySameElementType(*this, getTable(), getResult(), "table and result")))
    return failure();
  neuronc::Shape shape(table.getShape().begin(), table.getShape().begin() + axis);
  llvm::append_range(shape, getIndices().getType().getShape());
  shape.append(table.getShape().begin() + axis + 1, table.getShape().end());
  return verifyResultShape(*this, shape);
}

LogicalResult CastOp::verify() {
  if (!shapesCompatible(getInput().getType().getShape(), getResult().getType().getShape()))
    return emitOpError("changes the shape from ")
           << formatShape(getInput().getType().getShape()) << " to "
           << formatShape(getResult().getType().getShape()) << "; cast only converts elements";
  return success();
}

LogicalResult RmsNormOp::verify() {
  if (failed(verifyAxisList(*this, getAxes(), getInput().getType().getRank())) ||
      failed(verifyNormParam(*this, getInput(), getWeight(), "weight")))
    return failure();
  if (getInput().getType() != getResult().getType())
    return emitOpError("result type must equal the input type");
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyAxisList(*this, getAxes(), getInput().getType().getRank())) ||
      failed(verifyNormParam(*this, getInput(), getWeight(), "weight")) ||
      failed(verifyNormParam(*this, getInput(), getBias(), "bias")))
    return failure();
  if (getInput().getType() != getResult().getType())
    return emitOpError("result type must equal the input type");
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType(), k = getKey().getType(), v = getValue().getType();
  int64_t rank = q.getRank();
  if (rank < 3)
    return emitOpError("query must be [..., heads, rows, head_dim] (rank >= 3), got rank ")
           << rank;
  if (k.getRank() != rank || v.getRank() != rank)
    return emitOpError("query, key and value must have the same rank");
  if (failed(verifySameElementType(*this, getQuery(), getKey(), "query and key")) ||
      failed(verifySameElementType(*this, getKey(), getValue(), "key and value")))
    return failure();
  auto dimsMatch = [](int64_t a, int64_t b) {
    return a == b || a == ShapedType::kDynamic || b == ShapedType::kDynamic;
  };
  for (int64_t d = 0; d + 3 < rank; ++d)
    if (!dimsMatch(q.getDimSize(d), k.getDimSize(d)) ||
        !dimsMatch(q.getDimSize(d), v.getDimSize(d)))
      return emitOpError("leading dim ") << d << " differs between query, key and value";
  int64_t h = q.getDimSize(rank - 3), g = k.getDimSize(rank - 3);
  if (!dimsMatch(g, v.getDimSize(rank - 3)))
    return emitOpError("key and value have different head counts");
  if (!ShapedType::isDynamic(h) && !ShapedType::isDynamic(g) && (g <= 0 || h % g != 0))
    return emitOpError("query heads (") << h << ") must be a multiple of key/value heads ("
                                        << g << ")";
  int64_t kd = k.getDimSize(getKeyTransposed() ? rank - 2 : rank - 1);
  int64_t kn = k.getDimSize(getKeyTransposed() ? rank - 1 : rank - 2);
  if (!dimsMatch(q.getDimSize(rank - 1), kd))
    return emitOpError("query and key head dims differ: ") << q.getDimSize(rank - 1) << " vs "
                                                           << kd;
  if (!dimsMatch(kn, v.getDimSize(rank - 2)))
    return emitOpError("key and value lengths differ: ") << kn << " vs "
                                                         << v.getDimSize(rank - 2);
  neuronc::Shape scores(q.getShape());
  scores.back() = kn;
  if (getMask() && !neuronc::isBroadcastableTo(getMask().getType().getShape(), scores))
    return emitOpError("mask shape ")
           << formatShape(getMask().getType().getShape())
           << " does not broadcast to the scores' shape " << formatShape(scores);
  neuronc::Shape out(q.getShape());
  out.back() = v.getDimSize(rank - 1);
  return verifyResultShape(*this, out);
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult KernelOp::verify() {
  Block &body = getBody().front();
  if (body.getArgumentTypes() != getInputs().getTypes())
    return emitOpError("body arguments must match the kernel inputs one to one");
  // The body's terminator is not verified yet: an empty block has none.
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with neuron.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types must match the kernel results");
  return success();
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

neuronc::BucketSignature DispatchOp::getSignature() {
  return neuronc::readBucketSignature(*this);
}

void DispatchOp::setSignature(const neuronc::BucketSignature &sig, ArrayRef<StringRef> callees) {
  neuronc::writeBucketSignature(*this, sig, callees);
}

LogicalResult DispatchOp::verify() {
  neuronc::BucketSignature sig = getSignature();
  if (getWorkCoefficients().size() != getWorkExponents().size())
    return emitOpError("has ") << getWorkCoefficients().size() << " work coefficients but "
                               << getWorkExponents().size() << " exponent lists";
  if (getCallees().size() != sig.buckets.size())
    return emitOpError("has ") << getCallees().size() << " callees for " << sig.buckets.size()
                               << " buckets";
  if (sig.inputs.size() != getInputs().size() || sig.outputs.size() != getNumResults())
    return emitOpError("input_dims/output_dims must give one entry per input and result");
  if (llvm::Error e = sig.verify())
    return emitOpError(llvm::toString(std::move(e)));
  auto check = [&](TypeRange types, const std::vector<std::vector<int64_t>> &dims,
                   StringRef what) -> LogicalResult {
    for (auto [i, t, d] : llvm::enumerate(types, dims)) {
      auto shape = cast<RankedTensorType>(t).getShape();
      if (shape.size() != d.size())
        return emitOpError() << what << " #" << i << " has rank " << shape.size()
                             << " but its dims list has " << d.size();
      for (auto [have, want] : llvm::zip(shape, d))
        if (neuronc::isSymbolDim(want) ? !ShapedType::isDynamic(have)
                                       : have != want && !ShapedType::isDynamic(have))
          return emitOpError() << what << " #" << i << " type " << t
                               << " does not match its dims " << sig.formatDims(d);
    }
    return success();
  };
  if (failed(check(getInputs().getTypes(), sig.inputs, "input")) ||
      failed(check(getResultTypes(), sig.outputs, "result")))
    return failure();
  return success();
}

/// The callee must be a nisa.program whose `input k` and `output k` HBM
/// tensors have the operand and result types. The program is read through
/// the generic op API: the graph dialect does not depend on the engine one.
LogicalResult CustomKernelOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *callee = symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("calls ") << getCalleeAttr()
                                 << ", which is not defined in this module (write the kernel as a "
                                    "nisa.program in the same file)";
  if (callee->getName().getStringRef() != "nisa.program" || callee->getNumRegions() != 1 ||
      callee->getRegion(0).empty())
    return emitOpError("calls ") << getCalleeAttr() << ", which is a '" << callee->getName()
                                 << "', not a nisa.program";
  // kind: input 0, output 1 (nisa::HbmKind).
  SmallVector<Type> ins, outs;
  auto record = [](SmallVector<Type> &list, int64_t index, Type t) {
    if (index >= static_cast<int64_t>(list.size()))
      list.resize(index + 1);
    list[index] = t;
  };
  for (Operation &op : callee->getRegion(0).front()) {
    if (op.getName().getStringRef() != "nisa.hbm")
      continue;
    auto kind = op.getAttrOfType<IntegerAttr>("kind");
    auto index = op.getAttrOfType<IntegerAttr>("index");
    auto type = op.getAttrOfType<TypeAttr>("type");
    if (!kind || !index || !type || kind.getInt() > 1)
      continue;
    record(kind.getInt() == 0 ? ins : outs, index.getInt(), type.getValue());
  }
  auto check = [&](TypeRange have, ArrayRef<Type> want, StringRef what) -> LogicalResult {
    if (have.size() != want.size())
      return emitOpError("passes ") << have.size() << " " << what << "(s) to " << getCalleeAttr()
                                    << ", which has " << want.size();
    for (auto [i, pair] : llvm::enumerate(llvm::zip(have, want)))
      if (std::get<0>(pair) != std::get<1>(pair))
        return emitOpError() << what << " #" << i << " has type " << std::get<0>(pair) << " but "
                             << getCalleeAttr() << "'s " << what << " " << i << " is "
                             << std::get<1>(pair);
    return success();
  };
  if (failed(check(getInputs().getTypes(), ins, "input")) ||
      failed(check(getResultTypes(), outs, "output")))
    return failure();
  return success();
}

LogicalResult DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  neuronc::BucketSignature sig = getSignature();
  for (auto [ref, sizes] : llvm::zip(getCallees(), sig.buckets)) {
    Operation *callee =
        symbolTable.lookupNearestSymbolFrom(*this, cast<SymbolRefAttr>(ref));
    if (!callee)
      return emitOpError("bucket callee ") << ref << " is not defined in this module";
    // After lowering, a callee is a program of the backend: nothing to check.
    auto fn = dyn_cast<FunctionOpInterface>(callee);
    if (!fn)
      continue;
    ArrayRef<Type> args = fn.getArgumentTypes(), results = fn.getResultTypes();
    if (args.size() != sig.inputs.size() + sig.masks.size() ||
        results.size() != sig.outputs.size())
      return emitOpError("bucket callee ")
             << ref << " takes " << args.size() << " argument(s) and returns " << results.size()
             << "; expected " << sig.inputs.size() + sig.masks.size() << " and "
             << sig.outputs.size();
    auto expect = [&](Type have, RankedTensorType like,
                      ArrayRef<int64_t> shape) -> LogicalResult {
      auto want = RankedTensorType::get(shape, like.getElementType());
      if (have != want)
        return emitOpError("bucket callee ")
               << ref << " has type " << have << " where bucket " << sig.formatSizes(sizes)
               << " needs " << want;
      return success();
    };
    for (auto [i, in] : llvm::enumerate(getInputs()))
      if (failed(expect(args[i], cast<RankedTensorType>(in.getType()),
                        neuronc::BucketSignature::shapeAt(sig.inputs[i], sizes))))
        return failure();
    for (auto [k, s] : llvm::enumerate(sig.masks)) {
      auto i1 = RankedTensorType::get({sizes[s]}, IntegerType::get(getContext(), 1));
      if (args[sig.inputs.size() + k] != i1)
        return emitOpError("bucket callee ") << ref << " mask argument #"
                                             << sig.inputs.size() + k << " must be " << i1;
    }
    for (auto [i, r] : llvm::enumerate(getResults()))
      if (failed(expect(results[i], cast<RankedTensorType>(r.getType()),
                        neuronc::BucketSignature::shapeAt(sig.outputs[i], sizes))))
        return failure();
  }
  return success();
}

#define GET_OP_CLASSES
#include "neuronc/Dialect/Neuron/NeuronOps.cpp.inc"

LogicalResult AllReduceOp::verify() {
  if (getGroup() < 2)
    return emitOpError("group must be at least 2 cores, got ") << getGroup();
  return success();
}

/// What reduce_scatter and all_gather share: a group of at least two cores
/// and a result whose `dim` is the input's divided (`scatter`) or multiplied
/// by the group, all other dims and the element type kept.
static LogicalResult verifyAlongDim(Operation *op, int64_t group, int64_t dim, Value input,
                                    Type result, bool scatter) {
  if (group < 2)
    return op->emitOpError("group must be at least 2 cores, got ") << group;
  auto in = cast<RankedTensorType>(input.getType());
  auto out = cast<RankedTensorType>(result);
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError("dim ") << dim << " is not a dim of " << in;
  if (scatter && !ShapedType::isDynamic(in.getDimSize(dim)) && in.getDimSize(dim) % group)
    return op->emitOpError("cannot scatter dim ") << dim << " of " << in << " over " << group
                                                  << " cores";
  SmallVector<int64_t> want(in.getShape());
  if (!ShapedType::isDynamic(want[dim]))
    want[dim] = scatter ? want[dim] / group : want[dim] * group;
  if (in.getElementType() != out.getElementType() || out.getShape() != ArrayRef(want))
    return op->emitOpError(scatter ? "scatters " : "gathers ")
           << in << (scatter ? " over " : " from ") << group << " cores along dim " << dim
           << " into " << out << "; expected "
           << RankedTensorType::get(want, in.getElementType());
  return success();
}

LogicalResult ReduceScatterOp::verify() {
  return verifyAlongDim(*this, getGroup(), getDim(), getInput(), getType(), /*scatter=*/true);
}

LogicalResult AllGatherOp::verify() {
  return verifyAlongDim(*this, getGroup(), getDim(), getInput(), getType(), /*scatter=*/false);
}

LogicalResult AllToAllOp::verify() {
  int64_t group = getGroup();
  if (group < 2)
    return emitOpError("group must be at least 2 cores, got ") << group;
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  for (auto [what, dim] : {std::pair{"split", getSplit()}, {"concat", getConcat()}})
    if (dim < 0 || static_cast<int64_t>(dim) >= in.getRank())
      return emitOpError(what) << " dim " << dim << " is not a dim of " << in;
  int64_t split = getSplit(), concat = getConcat();
  if (in.isDynamicDim(split) || in.isDynamicDim(concat))
    return emitOpError("splits and concatenates static dims only, got ") << in;
  if (in.getDimSize(split) % group)
    return emitOpError("cannot split dim ") << split << " of " << in << " over " << group
                                            << " cores";
  SmallVector<int64_t> want(in.getShape());
  want[split] /= group;
  want[concat] *= group;
  if (in.getElementType() != out.getElementType() || out.getShape() != ArrayRef(want))
    return emitOpError("exchanges ") << in << " over " << group << " cores into " << out
                                     << "; expected "
                                     << RankedTensorType::get(want, in.getElementType());
  return success();
}

LogicalResult SendRecvOp::verify() {
  int64_t group = getGroupAttr().getInt(), shift = getShiftAttr().getInt();
  if (group < 2)
    return emitOpError("group must be at least 2 cores, got ") << group;
  if (shift == 0 || shift <= -group || shift >= group)
    return emitOpError("shift ") << shift << " is not in " << 1 - group << ".." << group - 1
                                 << " without 0";
  return success();
}
