//===- FusionUtils.h - Helpers shared by the fusion passes ------*- C++ -*-===//

#ifndef NEURONC_LIB_TRANSFORMS_FUSIONUTILS_H
#define NEURONC_LIB_TRANSFORMS_FUSIONUTILS_H

#include "neuronc/Dialect/Neuron/AutoCast.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/FusionReport.h"

#include <optional>
#include <string>

namespace mlir::neuron::fusion {

/// The value of a splat constant operand, if it is one.
inline std::optional<double> splatValue(Value v) { return getSplatValue(v); }

/// x when `v` is x + a splat 0 (either order) and x has `v`'s shape
/// (`sameShape`: the add is a no-op) or the zero alone has it (otherwise: the
/// add broadcasts x); else null.
Value zeroAddOperand(Value v, bool sameShape);

/// The value `v` broadcasts when `v` is broadcast_to(x) or x + a splat 0 of
/// the result's shape; else null. How exporters write grouped-query
/// attention's repeat_kv.
Value broadcastSource(Value v);

/// True when every user of `v` is in `chain`.
bool onlyUsedBy(Value v, const llvm::SmallPtrSetImpl<Operation *> &chain);

/// Ops that compute elementwise (or only relabel) and so fuse freely.
bool isElementwise(Operation *op);
/// The reductions general fusion takes in.
bool isReduction(Operation *op);
/// Ops a kernel is built around: one per kernel, fused with its epilogue.
bool isHero(Operation *op);

/// Whether `value`'s elements are whole bytes the compiler can move.
bool wholeBytes(ElementsAttr value);
/// The bytes of a non-splat `value` (a dense array or a resource blob), or
/// std::nullopt when the compiler does not hold them.
std::optional<ArrayRef<char>> constantBytes(ElementsAttr value);

/// "the mean (neuron.reduce_sum at f.mlir:5:8)": an op named by its role.
std::string describe(Operation *op, llvm::StringRef role);

/// HBM bytes the chain moves minus what `fused` moves, per the ops' costs.
int64_t bytesSaved(ArrayRef<Operation *> chain, Operation *fused);

/// A fused location of all the chain's locations (so later stages can name
/// the original ops): each op's location inside a NameLoc of its op name
/// (`loc("neuron.mul"("m.mlir":6:9))`), an already fused op's members as
/// they are.
Location fusedLocation(ArrayRef<Operation *> chain);

/// Erases the chain's ops that are now dead, users first.
void eraseDeadChain(ArrayRef<Operation *> chain);

/// Records a formed kernel on the function of `fused`.
void recordFused(Operation *fused, llvm::StringRef kernel, ArrayRef<Operation *> chain,
                 int64_t saved);
/// Records a rejected candidate anchored at `anchor`.
void recordRejected(Operation *anchor, llvm::StringRef kernel, const std::string &reason);

/// Whether `t` swaps the last two dims and keeps every other in place.
bool swapsMatrixDims(TransposeOp t);
/// Whether `r` merges or splits dims (more than adding or dropping unit
/// dims): a row kernel cannot run it, so general fusion keeps it out of
/// kernels (outside one, it is a free view of its input's buffer).
bool regroupsDims(ReshapeOp r);
/// Whether `r` keeps the last two (static) dims: it only regroups batch dims.
bool keepsMatrixDims(ReshapeOp r);
/// `type` (rank >= 2) with its last two dims swapped.
RankedTensorType swapMatrixDims(RankedTensorType type);

} // namespace mlir::neuron::fusion

#endif // NEURONC_LIB_TRANSFORMS_FUSIONUTILS_H
