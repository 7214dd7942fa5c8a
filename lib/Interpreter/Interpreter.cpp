//===- Interpreter.cpp - Reference interpreter of neuron functions -------===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Host/Dispatch.h"
#include "neuronc/Host/Kernels.h"
#include "mlir/IR/SymbolTable.h"
#include "neuronc/Support/ByteSize.h"

#include <cstdlib>

#include "neuronc/Dialect/Neuron/Evaluate.h"
#include "neuronc/Dialect/Neuron/HostTensor.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace neuronc {

namespace {
llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// True when the host tensor fits the declared type (dynamic dims match anything).
bool fitsType(const Tensor &t, RankedTensorType type, DType dtype) {
  if (t.dtype() != dtype || t.rank() != type.getRank())
    return false;
  for (auto [have, want] : llvm::zip(t.shape(), type.getShape()))
    if (want != ShapedType::kDynamic && have != want)
      return false;
  return true;
}
} // namespace

llvm::Expected<DType> hostTypeOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return fail("only ranked tensors can be executed, got " + llvm::Twine(type ? "a non-tensor" : "none"));
  std::optional<DType> dtype = neuron::toDType(tensor.getElementType());
  if (!dtype)
    return fail("element type is not one the device has (f32, bf16, f16, i32, i1)");
  if (*dtype == DType::F64)
    return fail("f64 is not executable: the device has no fp64; convert the program to f32 "
                "first");
  if (*dtype == DType::I64)
    return fail("i64 is not executable: convert the program to i32 first");
  return *dtype;
}

llvm::Error checkArguments(func::FuncOp func, llvm::ArrayRef<Tensor> args) {
  auto inputs = func.getFunctionType().getInputs();
  if (inputs.size() != args.size())
    return fail("@" + func.getSymName() + " takes " + llvm::Twine(inputs.size()) +
                " argument(s) but " + llvm::Twine(args.size()) + " input(s) were given");
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inputs, args))) {
    auto [declared, arg] = pair;
    Type type = declared;
    if (func.getArgAttr(i, neuron::kHostTransposedAttrName)) {
      auto t = cast<RankedTensorType>(type);
      SmallVector<int64_t> shape(t.getShape());
      std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
      type = t.clone(shape);
    }
    llvm::Expected<DType> dtype = hostTypeOf(type);
    if (!dtype)
      return fail("argument #" + llvm::Twine(i) + ": " + llvm::toString(dtype.takeError()));
    std::string want;
    llvm::raw_string_ostream os(want);
    os << type;
    if (!fitsType(arg, cast<RankedTensorType>(type), *dtype))
      return fail("argument #" + llvm::Twine(i) + " of @" + func.getSymName() + " expects " +
                  want + " but the input is " + arg.typeString());
  }
  return llvm::Error::success();
}

namespace {

/// Runs the ops of `body` on `args` (bound to the block arguments) up to its
/// terminator (func.return or neuron.yield) and returns what it returns;
/// `onValue` sees every result of the block's ops.
FailureOr<llvm::SmallVector<Tensor>>
runBlock(Block &body, llvm::ArrayRef<Tensor> args,
         llvm::function_ref<void(Value, const Tensor &)> onValue = {});

} // namespace

int64_t maxHostTensorBytes() {
  static const int64_t limit = [] {
    if (const char *env = std::getenv("NEURONC_MAX_TENSOR_BYTES"))
      if (int64_t v = std::strtoll(env, nullptr, 10); v > 0)
        return v;
    return int64_t(8) << 30;
  }();
  return limit;
}

namespace {

/// Refuses, before allocating, a result larger than maxHostTensorBytes().
LogicalResult checkAllocation(Operation *op) {
  for (Type t : op->getResultTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      continue;
    int64_t n = numElements(rt.getShape());
    if (!fitsHostMemory(n))
      return op->emitError("result ")
             << t << " would need " << formatByteSize(4.0 * static_cast<double>(n))
             << " of host memory, more than the interpreter's limit of "
             << formatByteSize(static_cast<double>(maxHostTensorBytes()))
             << " (NEURONC_MAX_TENSOR_BYTES raises it)";
  }
  return success();
}

/// A bucketed call: pick the bucket for the actual sizes, pad, run it,
/// slice the results back.
FailureOr<llvm::SmallVector<Tensor>> runDispatch(neuron::DispatchOp op,
                                                 llvm::ArrayRef<Tensor> inputs) {
  auto fn = op->getParentOfType<func::FuncOp>();
  BucketSignature sig = op.getSignature();
  llvm::Expected<BucketCall> call = prepareBucketCall(sig, inputs, fn.getSymName());
  if (!call)
    return op.emitError() << llvm::toString(call.takeError());
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      op, cast<SymbolRefAttr>(op.getCallees()[call->bucket]));
  if (!callee)
    return op.emitError("bucket callee ") << op.getCallees()[call->bucket] << " is not a function";
  FailureOr<llvm::SmallVector<Tensor>> out = interpret(callee, call->args);
  if (failed(out))
    return failure();
  return sliceBucketOutputs(sig, *call, *out);
}

FailureOr<llvm::SmallVector<Tensor>>
runBlock(Block &body, llvm::ArrayRef<Tensor> args,
         llvm::function_ref<void(Value, const Tensor &)> onValue) {
  // Drop every value after its last use so that peak memory stays at the
  // live set, not the whole program.
  llvm::DenseMap<Operation *, llvm::SmallVector<Value, 2>> dying;
  {
    llvm::DenseMap<Value, Operation *> lastUse;
    for (Operation &op : body)
      for (Value v : op.getOperands())
        lastUse[v] = &op;
    for (auto &[v, op] : lastUse)
      dying[op].push_back(v);
  }

  llvm::DenseMap<Value, Tensor> env;
  for (auto [arg, t] : llvm::zip(body.getArguments(), args))
    env[arg] = t;

  llvm::SmallVector<Tensor> operands;
  for (Operation &op : body) {
    operands.clear();
    for (Value v : op.getOperands()) {
      auto it = env.find(v);
      if (it == env.end())
        return op.emitError("operand defined outside the function body cannot be executed");
      operands.push_back(it->second);
    }
    if (isa<func::ReturnOp, neuron::YieldOp>(op))
      return llvm::SmallVector<Tensor>(operands.begin(), operands.end());
    if (!isa_and_present<neuron::NeuronDialect>(op.getDialect()))
      return op.emitError("the interpreter cannot execute '")
             << op.getName() << "'; only neuron ops run"
             << (op.getParentOfType<neuron::KernelOp>()
                     ? " (a neuron.kernel body may hold only neuron ops)"
                     : " (import the program to neuron first)");
    if (auto custom = dyn_cast<neuron::CustomKernelOp>(op))
      return op.emitError("the interpreter cannot execute the hand-written kernel ")
             << custom.getCalleeAttr()
             << ": it has no graph-level semantics; compile the program and run the "
                "executable (neuron-run model.neff, or neuron-run --sim)";
    FailureOr<llvm::SmallVector<Tensor>> evaluated = evaluateOperation(&op, operands);
    if (failed(evaluated))
      return failure();
    llvm::SmallVector<Tensor> results = std::move(*evaluated);
    for (auto [value, t] : llvm::zip(op.getResults(), results)) {
      RankedTensorType type = cast<RankedTensorType>(value.getType());
      llvm::Expected<DType> dtype = hostTypeOf(type);
      if (!dtype)
        return op.emitError() << llvm::toString(dtype.takeError());
      if (!fitsType(t, type, *dtype))
        return op.emitError("computed ") << t.typeString() << " but the op declares " << type;
      if (onValue)
        onValue(value, t);
      env[value] = std::move(t);
    }
    for (Value v : dying.lookup(&op))
      env.erase(v);
  }
  return body.getParentOp()->emitError("block has no terminator");
}

} // namespace

FailureOr<llvm::SmallVector<Tensor>> evaluateOperation(Operation *op,
                                                       llvm::ArrayRef<Tensor> operands) {
  if (auto dispatch = dyn_cast<neuron::DispatchOp>(op))
    return runDispatch(dispatch, operands);
  if (auto kernel = dyn_cast<neuron::KernelOp>(op))
    return runBlock(kernel.getBody().front(), operands);
  if (op->getNumResults() != 1)
    return op->emitError("expected exactly one result");
  if (failed(checkAllocation(op)))
    return failure();
  llvm::Expected<Tensor> result = neuron::evaluateOp(op, operands);
  if (!result)
    return op->emitError() << llvm::toString(result.takeError());
  llvm::SmallVector<Tensor> results;
  results.push_back(std::move(*result));
  return results;
}

FailureOr<llvm::SmallVector<Tensor>>
interpret(func::FuncOp func, llvm::ArrayRef<Tensor> args,
          llvm::function_ref<void(Value, const Tensor &)> onValue) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("the interpreter runs functions with a single block");
  return runBlock(func.getBody().front(), deviceArguments(func, args), onValue);
}

llvm::SmallVector<Tensor> deviceArguments(func::FuncOp func, llvm::ArrayRef<Tensor> args) {
  llvm::SmallVector<Tensor> out(args.begin(), args.end());
  for (auto [i, t] : llvm::enumerate(out))
    if (i < func.getNumArguments() && func.getArgAttr(i, neuron::kHostTransposedAttrName))
      t = ref::swapLastTwoDims(t);
  return out;
}

} // namespace neuronc
