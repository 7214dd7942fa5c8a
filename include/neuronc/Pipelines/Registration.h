//===- Registration.h - Dialects and passes the tools know ------*- C++ -*-===//

#ifndef NEURONC_PIPELINES_REGISTRATION_H
#define NEURONC_PIPELINES_REGISTRATION_H

#include "neuronc/Support/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringRef.h"

namespace neuronc {

/// The dialects every neuronc tool parses: neuron plus the input dialects
/// exporters emit (func, arith, math, tensor, linalg, tosa) and those of the
/// host code around their kernels (vector, scf, llvm, memref, cf,
/// bufferization, affine), which the entry selection drops.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every neuron pass (and the upstream canonicalize/cse) for
/// command-line use.
void registerAllPasses();

} // namespace neuronc

#endif // NEURONC_PIPELINES_REGISTRATION_H
