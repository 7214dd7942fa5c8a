//===- Evaluate.h - Executing one neuron op on host tensors -----*- C++ -*-===//
//
// The single mapping from a neuron op to its reference kernel. The
// interpreter calls it for every op it executes and constant folding calls it
// on constant operands, so folding and execution cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_NEURON_EVALUATE_H
#define NEURONC_DIALECT_NEURON_EVALUATE_H

#include "neuronc/Host/Tensor.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"

namespace mlir::neuron {

/// Runs the reference kernel of neuron op `op` on `operands` (one host tensor
/// per present operand, in operand order). Fails for ops that are not neuron
/// ops, for element types the interpreter does not compute in, and for
/// run-time errors such as an out-of-range gather index.
llvm::Expected<neuronc::Tensor> evaluateOp(Operation *op, ArrayRef<neuronc::Tensor> operands);

} // namespace mlir::neuron

#endif // NEURONC_DIALECT_NEURON_EVALUATE_H
