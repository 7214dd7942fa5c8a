//===- Interpreter.h - Reference interpreter of neuron functions -*- C++ -*-===//
//
// Executes a `func.func` whose body is neuron ops on host tensors. It is the
// correctness oracle of the compiler: simple, op by op, with every result
// checked against the type the IR declares.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_INTERPRETER_INTERPRETER_H
#define NEURONC_INTERPRETER_INTERPRETER_H

#include "neuronc/Host/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

namespace neuronc {

/// Checks that `args` match the arguments of `func` in count, element type
/// and (static) shape, as the caller gives them (a host-transposed argument,
/// `neuron.host_transposed`, with its last two dims swapped back). The
/// error names the argument, what was expected and what was given.
llvm::Error checkArguments(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> args);

/// `args` as `func`'s body reads them: each host-transposed argument's
/// tensor with its last two dims swapped, as the runtime loads it.
llvm::SmallVector<Tensor> deviceArguments(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> args);

/// Executes `func` on `args` (which must pass checkArguments; host-transposed
/// arguments are swapped as deviceArguments says). On failure a
/// diagnostic is emitted at the op that failed. `onValue`, when given, sees
/// every result of an op of the function's body (not inside kernels) as it
/// is computed.
mlir::FailureOr<llvm::SmallVector<Tensor>>
interpret(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> args,
          llvm::function_ref<void(mlir::Value, const Tensor &)> onValue = {});

/// The results of one op of a function body (a neuron op, a kernel, a
/// dispatch) on `operands`; on failure a diagnostic is emitted at the op.
mlir::FailureOr<llvm::SmallVector<Tensor>> evaluateOperation(mlir::Operation *op,
                                                            llvm::ArrayRef<Tensor> operands);

/// The most bytes one host tensor may take ($NEURONC_MAX_TENSOR_BYTES, else
/// 8 GiB): the interpreter and neuron-run refuse larger ones before
/// allocating.
int64_t maxHostTensorBytes();
/// Whether a host tensor of `elements` elements (4 bytes each on the host,
/// whatever the element type) fits maxHostTensorBytes().
inline bool fitsHostMemory(int64_t elements) { return elements <= maxHostTensorBytes() / 4; }

/// Element type of a tensor type as a host type, with a readable error for
/// types the interpreter does not compute in (f64, i64, others).
llvm::Expected<DType> hostTypeOf(mlir::Type type);

} // namespace neuronc

#endif // NEURONC_INTERPRETER_INTERPRETER_H
