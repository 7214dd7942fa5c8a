//===- NisaToNeff.h - nisa programs to an executable ------------*- C++ -*-===//
//
// Encodes allocated, synchronized nisa programs as the executable's
// in-memory form: every operand resolved to addresses, per-engine streams,
// DMA descriptors, constants, the debug map and per-kernel cost tables.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_CONVERSION_NISATONEFF_H
#define NEURONC_CONVERSION_NISATONEFF_H

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"

#include "mlir/IR/BuiltinOps.h"

namespace neuronc {

/// The executable of every nisa.program in `module` (one entry point each,
/// one bucket). Fails with an error on the op that cannot be encoded (an
/// unallocated tile, a target mismatch).
mlir::FailureOr<neff::Executable> assemble(mlir::ModuleOp module,
                                           llvm::StringRef compilerVersion);

/// The text of a location as the debug map records it: `file:line:col`,
/// several joined by `; ` for a fused location.
std::string formatSourceLocation(mlir::Location loc);
/// The source op name a location carries (`neuron.mul`, or an exporter's
/// `aten::mul`), or "".
std::string locationOpName(mlir::Location loc);
/// The source ops a fused op's location names (fusion names each member
/// after its op), in source order; empty for a location of one op.
std::vector<neff::AbsorbedOp> absorbedSourceOps(mlir::Location loc);

} // namespace neuronc

#endif // NEURONC_CONVERSION_NISATONEFF_H
