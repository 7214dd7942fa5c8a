//===- Entry.h - Choosing the function to compile or run --------*- C++ -*-===//

#ifndef NEURONC_PIPELINES_ENTRY_H
#define NEURONC_PIPELINES_ENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace neuronc {

/// Returns the function named `name`, or when `name` is empty the only public
/// function with a body that is not a `main` without arguments (exported
/// programs often wrap the kernel in such a host-side `main`). Emits an error
/// listing the candidates when there is no single choice.
mlir::FailureOr<mlir::func::FuncOp> selectEntry(mlir::ModuleOp module, llvm::StringRef name);

} // namespace neuronc

#endif // NEURONC_PIPELINES_ENTRY_H
