//===- Entry.h - Choosing the function to compile or run --------*- C++ -*-===//

#ifndef NEURONC_PIPELINES_ENTRY_H
#define NEURONC_PIPELINES_ENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace neuronc {

/// The functions that can be an entry point: public, with a body, not a
/// host-side `main` without arguments (exported programs often wrap the
/// kernel in one), and not a dispatcher's bucket function.
llvm::SmallVector<mlir::func::FuncOp> entryCandidates(mlir::ModuleOp module);

/// Returns the function named `name`, or when `name` is empty the only one of
/// entryCandidates(). Emits an error listing the candidates when there is no
/// single choice.
mlir::FailureOr<mlir::func::FuncOp> selectEntry(mlir::ModuleOp module, llvm::StringRef name);

} // namespace neuronc

#endif // NEURONC_PIPELINES_ENTRY_H
