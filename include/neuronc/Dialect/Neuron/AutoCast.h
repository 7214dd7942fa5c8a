//===- AutoCast.h - Where --auto-cast's casts cost nothing ------*- C++ -*-===//
//
// --auto-cast narrows every matmul and convolution operand with a cast right
// before its user. Some consumers convert a wider operand on chip for free
// (docs/lowering.md); the fusion passes and the lowering agree on which
// through these predicates.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_NEURON_AUTOCAST_H
#define NEURONC_DIALECT_NEURON_AUTOCAST_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"

namespace mlir::neuron {

/// The discardable unit attribute on a matmul that moves data rather than
/// computes the model's products (an interpolation matrix of Resize): its
/// operands keep their precision under --auto-cast=matmult.
inline constexpr llvm::StringLiteral kKeepPrecisionAttr = "neuron.keep_precision";

/// Whether `c` rounds a float to a narrower float (what --auto-cast inserts).
bool isNarrowingFloatCast(CastOp c);

/// Whether every use of `v` (through reshapes and into fused kernels) reads
/// it through a lowering that converts a wider float on chip: a float
/// matmul's rhs (transposed on TensorE and converted on its way out of
/// PSUM, or staged a K tile at a time and converted in SBUF), its lhs when
/// transposed on TensorE, or a convolution's input (each block converted in
/// SBUF as it loads).
bool onlyConvertingUses(Value v);

} // namespace mlir::neuron

#endif // NEURONC_DIALECT_NEURON_AUTOCAST_H
