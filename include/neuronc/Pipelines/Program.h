//===- Program.h - Loading an input program the way every tool does -*- C++ -*-===//

#ifndef NEURONC_PIPELINES_PROGRAM_H
#define NEURONC_PIPELINES_PROGRAM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace neuronc {

/// An input program with its context: every neuronc dialect registered,
/// attributes of unregistered dialects tolerated (exporters leave IREE's
/// `#hal` targets around; unregistered *ops* are reported by import), and
/// diagnostics printed as `file:line:col: error: ...` with the source line.
/// A file named `*.onnx` is an ONNX model, imported into neuron ops
/// (OnnxImport.h); its diagnostics name `model.onnx:<node number>` and the
/// node, without a source line.
class Program {
public:
  /// Opens and parses `filename` ('-' is stdin). Returns null after printing
  /// why: `<tool>: error: ...` for I/O, located diagnostics for the parser
  /// (with a note for pre-TOSA-1.0 syntax).
  static std::unique_ptr<Program> load(llvm::StringRef filename, llvm::StringRef tool);
  /// Parses a buffer already read (the driver reads the input once, to key
  /// the compile cache before parsing).
  static std::unique_ptr<Program> parse(std::unique_ptr<llvm::MemoryBuffer> buffer);

  mlir::MLIRContext &context() { return context_; }
  /// The text that was parsed.
  llvm::StringRef source() const {
    return sourceMgr_.getMemoryBuffer(sourceMgr_.getMainFileID())->getBuffer();
  }
  mlir::ModuleOp module() { return *module_; }

private:
  Program();
  mlir::MLIRContext context_;
  llvm::SourceMgr sourceMgr_;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> diagnostics_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
};

} // namespace neuronc

#endif // NEURONC_PIPELINES_PROGRAM_H
