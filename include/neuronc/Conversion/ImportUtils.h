//===- ImportUtils.h - Helpers shared by the import patterns ----*- C++ -*-===//

#ifndef NEURONC_CONVERSION_IMPORTUTILS_H
#define NEURONC_CONVERSION_IMPORTUTILS_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

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

//===----------------------------------------------------------------------===//
// Windows: convolutions and pooling
//===----------------------------------------------------------------------===//

/// The values of a dense constant `v` (any constant-like op: tosa.const,
/// arith.constant, neuron.constant) with its dims permuted by `perm` (result
/// dim i is dim perm[i]) and the result dims in `flip` reversed; nullopt
/// when `v` is not a dense constant.
std::optional<DenseElementsAttr> permuteConstant(Value v, ArrayRef<int64_t> perm,
                                                 ArrayRef<int64_t> flip = {});

/// `v` transposed by `perm`: a new constant when `v` is a dense constant
/// (weights are transposed once, at import), else a `neuron.transpose`.
Value transposeValue(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm);

/// `x` padded by `lo[d]` / `hi[d]` elements of `value` on each dim, as
/// `neuron.concat`s of splat blocks (static shapes, non-negative pads).
Value padWithConstant(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> lo,
                      ArrayRef<int64_t> hi, double value);

/// A `neuron.conv` of channels-first `input` and `weight` ([F, C / groups,
/// K...]) with an optional bias, its result type computed by the verifier's
/// shape rule; null (and `why` set) when the operands do not fit the rule.
Value emitConv(OpBuilder &b, Location loc, Value input, Value weight, Value bias,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
               ArrayRef<int64_t> dilations, int64_t groups, Type resultElem, std::string &why);

/// A `neuron.pool` of channels-first `input`, as emitConv; null with `why`
/// set when the window does not fit the rule.
Value emitPool(OpBuilder &b, Location loc, Value input, PoolKind kind, ArrayRef<int64_t> kernel,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> padding, bool countIncludePad,
               std::string &why);

/// The permutation that moves the last dim of a rank-`rank` tensor to
/// position 1 (NHWC → NCHW), or back with `inverse` (NCHW → NHWC).
SmallVector<int64_t> channelsFirstPerm(int64_t rank, bool inverse = false);

} // namespace mlir::neuron::import

#endif // NEURONC_CONVERSION_IMPORTUTILS_H
