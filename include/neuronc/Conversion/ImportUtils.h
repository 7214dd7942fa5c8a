//===- ImportUtils.h - Helpers shared by the import patterns ----*- C++ -*-===//

#ifndef NEURONC_CONVERSION_IMPORTUTILS_H
#define NEURONC_CONVERSION_IMPORTUTILS_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::neuron::import {

/// True for the element types the neuron dialect accepts.
bool isSupportedElementType(Type t);
/// True when every operand and result is a ranked tensor of a supported type.
bool hasSupportedTypes(Operation *op);

using mlir::neuron::getSplatValue;

/// The integers of a constant shape operand (`tosa.const_shape`) or a
/// constant integer tensor.
std::optional<SmallVector<int64_t>> getConstantInts(Value v);

/// `neuron.constant` splat of `value` with type `type`.
Value createSplat(OpBuilder &b, Location loc, RankedTensorType type, double value);

/// `value` reshaped to `shape` (no op when it already has that shape).
Value reshapeTo(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape);

/// The numpy-broadcast shape of two tensor values with element type `elem`.
RankedTensorType broadcastType(Value a, Value b, Type elem);

/// True for the scalar arith/math ops that map one to one onto neuron ops
/// (the body ops of an elementwise linalg.generic, or the same ops on tensors).
bool isRaisableBodyOp(Operation *op);

/// `x`, whose integer element type was `from`, read as unsigned and converted
/// to element type `to` (arith.extui, arith.uitofp).
Value emitZeroExtended(OpBuilder &b, Location loc, Value x, Type from, Type to);

/// Emits the neuron op computing `op` (one of isRaisableBodyOp, but not
/// arith.constant) on tensor operands `in`, which broadcast against each other.
Value emitBodyOp(OpBuilder &b, Operation *op, ArrayRef<Value> in);

} // namespace mlir::neuron::import

#endif // NEURONC_CONVERSION_IMPORTUTILS_H
