//===- NeuronDialect.h - The neuron dialect ---------------------*- C++ -*-===//

#ifndef NEURONC_DIALECT_NEURON_NEURONDIALECT_H
#define NEURONC_DIALECT_NEURON_NEURONDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include <cstdint>
#include <optional>

namespace mlir::neuron {

/// The cost of one execution of an op, as the op itself states it through
/// `CostOpInterface`. Bytes assume every operand is read from and every
/// result written to memory once (no fusion).
struct OpCost {
  int64_t flops = 0;           ///< arithmetic operations
  int64_t transcendentals = 0; ///< exp/log/tanh/erf/sqrt evaluations
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;

  int64_t bytes() const { return bytesRead + bytesWritten; }
  /// FLOPs per byte moved (0 when nothing moves).
  double intensity() const { return bytes() ? double(flops) / double(bytes()) : 0.0; }
  OpCost &operator+=(const OpCost &o) {
    flops += o.flops;
    transcendentals += o.transcendentals;
    bytesRead += o.bytesRead;
    bytesWritten += o.bytesWritten;
    return *this;
  }
};

/// The argument attribute of an entry argument that the runtime loads with
/// its last two dims swapped (`--prepack-weights`): the argument's type is
/// the device's layout, the caller gives the tensor as the source declared it.
constexpr llvm::StringLiteral kHostTransposedAttrName = "neuron.host_transposed";
/// Argument attribute `array<i64: dim, parts>` of a tensor-parallel
/// program: the caller gives the whole tensor, core r of the N-core group
/// receives part r / (N / parts) along `dim` (docs/tensor-parallel.md).
constexpr llvm::StringLiteral kShardAttrName = "neuron.shard";
/// Function attribute: the number of cores of its tensor-parallel group.
constexpr llvm::StringLiteral kTensorParallelAttrName = "neuron.tp";
/// Module attribute the lowering leaves for the fusion report: one
/// dictionary {kernel, reason, loc} per fused kernel it ran as two kernels
/// (read by neuronc::takeLoweringSplits).
constexpr llvm::StringLiteral kLoweringSplitsAttrName = "neuron.lowering_splits";

/// The value of a constant scalar or splat tensor (of any dialect's
/// constant op) as a double, or nullopt when `v` is not one.
std::optional<double> getSplatValue(Value v);

/// Bytes of one element of `t` on the device (i1 is one byte).
int64_t elementBytes(Type t);
/// Bytes of a statically shaped tensor, or nullopt when a dim is dynamic.
std::optional<int64_t> tensorBytes(Type t);

/// Whether `op` is a reduction whose reduced elements are not contiguous in
/// memory while its innermost non-unit dim is kept (reduce_sum over axis 1
/// of [B, H, Q, K]), or one that reduces every dim. With its reduced elements
/// on one partition's free axis it would read them one element per DMA run;
/// the lowering puts them on the partitions instead (LowerReduction.cpp), and
/// fusion leaves such a reduction a kernel of its own.
bool reducesAcrossRows(Operation *op);

namespace detail {
/// Shared verifier of the broadcasting binary ops (and compare).
LogicalResult verifyBroadcastBinary(Operation *op, bool resultIsBool);
/// Shared verifier of the reductions.
LogicalResult verifyReduction(Operation *op, ArrayRef<int64_t> axes, bool keepdims);
/// Cost of an elementwise op: `flops`/`trans` per result element, every
/// operand read and the result written once.
std::optional<OpCost> elementwiseCost(Operation *op, int64_t flops, int64_t trans);
/// Cost of a reduction: one flop per input element.
std::optional<OpCost> reductionCost(Operation *op);
} // namespace detail

} // namespace mlir::neuron

#include "neuronc/Dialect/Neuron/NeuronDialect.h.inc"
#include "neuronc/Dialect/Neuron/NeuronEnums.h.inc"
#include "neuronc/Dialect/Neuron/NeuronInterfaces.h.inc"

#endif // NEURONC_DIALECT_NEURON_NEURONDIALECT_H
