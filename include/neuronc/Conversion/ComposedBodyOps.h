//===- ComposedBodyOps.h - Scalar ops imported as several neuron ops -*- C++ -*-===//
//
// The arith/math ops that have no neuron op of their own but are exact
// compositions of a few (math.exp2 = exp(x ln 2), arith.uitofp through
// signed conversions). Shared by the elementwise raising of linalg bodies
// and the same ops applied to whole tensors.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_CONVERSION_COMPOSEDBODYOPS_H
#define NEURONC_CONVERSION_COMPOSEDBODYOPS_H

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::neuron::import {

/// True for the scalar ops `emitComposedBodyOp` imports: math.exp2 on
/// floats, arith.uitofp from i1 or i32 (an index computed as i32) to a float.
bool isComposedBodyOp(Operation *op);

/// Why `op`, a kind isComposedBodyOp might accept, is not accepted (e.g.
/// arith.uitofp from i8), or empty when it is.
std::string whyComposedBodyOpFails(Operation *op);

/// Emits the neuron ops computing `op` (one of isComposedBodyOp) on the
/// tensor operands `in`. `nonNegative` says the uitofp operand is known to
/// be >= 0 as a signed value (a position), so one signed conversion is exact.
Value emitComposedBodyOp(OpBuilder &b, Operation *op, ArrayRef<Value> in, bool nonNegative);

} // namespace mlir::neuron::import

#endif // NEURONC_CONVERSION_COMPOSEDBODYOPS_H
