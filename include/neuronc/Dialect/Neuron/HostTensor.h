//===- HostTensor.h - Attributes <-> host tensors ---------------*- C++ -*-===//
//
// Conversions between MLIR element attributes / types and the interpreter's
// host tensors. Used by the interpreter (constants) and by constant folding,
// so that folding computes exactly what execution computes.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_NEURON_HOSTTENSOR_H
#define NEURONC_DIALECT_NEURON_HOSTTENSOR_H

#include "neuronc/Host/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::neuron {

/// The host element type of an MLIR element type, if there is one.
std::optional<neuronc::DType> toDType(Type elementType);
/// The MLIR element type of a host element type.
Type toElementType(MLIRContext *ctx, neuronc::DType dtype);

/// Copies a statically shaped elements attribute into a host tensor. Fails
/// (returns nullopt) for element types the interpreter does not compute in
/// (f64, i64) and for opaque attributes whose values cannot be read.
std::optional<neuronc::Tensor> toHostTensor(ElementsAttr attr);

/// Builds a dense attribute of type `type` holding `t`'s values.
DenseElementsAttr toElementsAttr(const neuronc::Tensor &t, RankedTensorType type);

} // namespace mlir::neuron

#endif // NEURONC_DIALECT_NEURON_HOSTTENSOR_H
