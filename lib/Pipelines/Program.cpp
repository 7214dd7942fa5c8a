//===- Program.cpp - Loading an input program the way every tool does ----===//

#include "neuronc/Pipelines/Program.h"

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"

#include "neuronc/Conversion/OnnxImport.h"

#include "mlir/Support/FileUtilities.h"

using namespace mlir;

namespace {
DialectRegistry allDialects() {
  DialectRegistry registry;
  neuronc::registerAllDialects(registry);
  return registry;
}
} // namespace

neuronc::Program::Program() : context_(allDialects()) {
  context_.allowUnregisteredDialects();
  context_.printOpOnDiagnostic(false); // the location says where; IR dumps are noise here
}

std::unique_ptr<neuronc::Program> neuronc::Program::load(StringRef filename, StringRef tool) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(filename, &error);
  if (!buffer) {
    llvm::errs() << tool << ": error: " << error << "\n";
    return nullptr;
  }
  return parse(std::move(buffer));
}

std::unique_ptr<neuronc::Program>
neuronc::Program::parse(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::unique_ptr<Program> program(new Program());
  if (isOnnxBuffer(*buffer)) {
    // A binary model: locations are node numbers, with no line to quote.
    program->diagnostics_ = std::make_unique<ScopedDiagnosticHandler>(
        &program->context_, [](Diagnostic &d) {
          llvm::raw_ostream &os = llvm::errs();
          Location loc = d.getLocation();
          while (auto name = dyn_cast<NameLoc>(loc))
            loc = name.getChildLoc();
          if (auto file = dyn_cast<FileLineColLoc>(loc)) {
            os << file.getFilename().getValue();
            if (file.getLine())
              os << ":" << file.getLine() << ":" << file.getColumn();
            os << ": ";
          }
          switch (d.getSeverity()) {
          case DiagnosticSeverity::Error: os << "error: "; break;
          case DiagnosticSeverity::Warning: os << "warning: "; break;
          case DiagnosticSeverity::Remark: os << "remark: "; break;
          case DiagnosticSeverity::Note: os << "note: "; break;
          }
          os << d << "\n";
          return success();
        });
    program->module_ = importOnnx(*buffer, &program->context_);
    program->sourceMgr_.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    if (!program->module_)
      return nullptr;
    return program;
  }
  program->sourceMgr_.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  program->diagnostics_ =
      std::make_unique<SourceMgrDiagnosticHandler>(program->sourceMgr_, &program->context_);
  program->module_ = parseInput(program->sourceMgr_, &program->context_);
  if (!program->module_)
    return nullptr;
  return program;
}
