//===- Program.cpp - Loading an input program the way every tool does ----===//

#include "neuronc/Pipelines/Program.h"

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"

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
  program->sourceMgr_.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  program->diagnostics_ =
      std::make_unique<SourceMgrDiagnosticHandler>(program->sourceMgr_, &program->context_);
  program->module_ = parseInput(program->sourceMgr_, &program->context_);
  if (!program->module_)
    return nullptr;
  return program;
}
