//===- Entry.h - Choosing the function to compile or run --------*- C++ -*-===//

#ifndef NEURONC_PIPELINES_ENTRY_H
#define NEURONC_PIPELINES_ENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace neuronc {

/// True for a host-side driver, never an entry candidate: a `main` without
/// arguments (exported programs wrap the kernel in one that builds inputs).
bool isHostFunction(mlir::func::FuncOp f);

/// The functions that can be an entry point: public, with a body, not a
/// host function, and not a dispatcher's bucket function.
llvm::SmallVector<mlir::func::FuncOp> entryCandidates(mlir::ModuleOp module);

/// Erases the module-level host symbols (`llvm.mlir.global`, `llvm.func`,
/// `memref.global`) that nothing references any more, e.g. once the host
/// functions that used them are dropped.
void dropUnreferencedHostSymbols(mlir::ModuleOp module);

/// Returns the function named `name`, or when `name` is empty the only one of
/// entryCandidates(). Emits an error listing the candidates when there is no
/// single choice.
mlir::FailureOr<mlir::func::FuncOp> selectEntry(mlir::ModuleOp module, llvm::StringRef name);

} // namespace neuronc

#endif // NEURONC_PIPELINES_ENTRY_H
