//===- Interpreter.cpp - Reference interpreter of neuron functions -------===//

#include "neuronc/Interpreter/Interpreter.h"

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
    auto [type, arg] = pair;
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

FailureOr<llvm::SmallVector<Tensor>> interpret(func::FuncOp func, llvm::ArrayRef<Tensor> args) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("the interpreter runs functions with a single block");
  Block &body = func.getBody().front();

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
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      return llvm::SmallVector<Tensor>(operands.begin(), operands.end());
    if (!isa_and_present<neuron::NeuronDialect>(op.getDialect()))
      return op.emitError("the interpreter cannot execute '")
             << op.getName() << "'; only neuron ops run (import the program to neuron first)";
    if (op.getNumResults() != 1)
      return op.emitError("expected exactly one result");
    RankedTensorType type = cast<RankedTensorType>(op.getResult(0).getType());
    llvm::Expected<DType> dtype = hostTypeOf(type);
    if (!dtype)
      return op.emitError() << llvm::toString(dtype.takeError());
    llvm::Expected<Tensor> result = neuron::evaluateOp(&op, operands);
    if (!result)
      return op.emitError() << llvm::toString(result.takeError());
    if (!fitsType(*result, type, *dtype))
      return op.emitError("computed ") << result->typeString() << " but the op declares "
                                       << type;
    env[op.getResult(0)] = std::move(*result);
    for (Value v : dying.lookup(&op))
      env.erase(v);
  }
  return func.emitError("function body has no func.return");
}

} // namespace neuronc
