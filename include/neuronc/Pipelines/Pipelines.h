//===- Pipelines.h - The compiler's pass pipelines ---------------*- C++ -*-===//
//
// Pipelines live here, not in the tools, so that neuronc, neuron-opt and the
// tests all build exactly the same pass lists.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_PIPELINES_PIPELINES_H
#define NEURONC_PIPELINES_PIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace neuronc {

/// The stages `neuronc --emit=` can stop after, in pipeline order.
enum class EmitStage {
  Neuron, ///< verified, canonicalized neuron IR
};

/// Canonicalization and CSE over every function: what `--emit=neuron` runs.
void buildNeuronCleanupPipeline(mlir::OpPassManager &pm);

/// Fails with an error on every op inside a function body that is neither a
/// neuron op nor `func.return`, naming the op.
mlir::LogicalResult verifyNeuronOnly(mlir::ModuleOp module);

} // namespace neuronc

#endif // NEURONC_PIPELINES_PIPELINES_H
