//===- neuronc.cpp - The neuronc compiler driver --------------------------===//
//
// neuronc in.mlir -o out --emit=<stage>. The pipeline grows stage by stage
// up to the requested one; see lib/Pipelines.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("neuronc options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file ('-' for stdout)"),
                                           cl::value_desc("file"), cl::init("-"),
                                           cl::cat(category));
static cl::opt<neuronc::EmitStage> emit(
    "emit", cl::desc("Stage to stop after and print"), cl::init(neuronc::EmitStage::Neuron),
    cl::values(clEnumValN(neuronc::EmitStage::Neuron, "neuron",
                          "verified and canonicalized neuron IR")),
    cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "neuronc " << neuronc::getVersionString() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "neuronc: ahead-of-time compiler for the NeuronCore\n");

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "neuronc: error: " << error << "\n";
    return 1;
  }
  DialectRegistry registry;
  neuronc::registerAllDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module || failed(neuronc::verifyNeuronOnly(*module)))
    return 1;

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  neuronc::buildNeuronCleanupPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;

  // Only now open the output: a failed compile leaves no file behind.
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "neuronc: error: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->keep();
  return 0;
}
