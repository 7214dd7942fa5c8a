//===- NisaPasses.h - Passes over nisa programs ------------------*- C++ -*-===//
//
// The engine-level transforms (`nisa-*` flags): memory allocation,
// synchronization and the race check.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TRANSFORMS_NISAPASSES_H
#define NEURONC_TRANSFORMS_NISAPASSES_H

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/Pass/Pass.h"

namespace mlir::nisa {

#define GEN_PASS_DECL
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"

} // namespace mlir::nisa

#endif // NEURONC_TRANSFORMS_NISAPASSES_H
