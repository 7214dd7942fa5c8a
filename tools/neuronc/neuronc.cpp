//===- neuronc.cpp - The neuronc compiler driver --------------------------===//
//
// neuronc in.mlir -o out --emit=<stage>. The pipeline grows stage by stage
// up to the requested one; see lib/Pipelines.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Program.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Transforms/FusionReport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
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
                          "imported, type-legalized and canonicalized neuron IR"),
               clEnumValN(neuronc::EmitStage::Fused, "fused",
                          "after fusion: named kernels recognized")),
    cl::cat(category));
static cl::opt<std::string> fusionReport(
    "fusion-report",
    cl::desc("Write every fusion decision and its reason to FILE ('-' for stderr); JSON "
             "when FILE ends in .json"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> entryName(
    "entry", cl::desc("Compile only this function (and what it calls)"),
    cl::value_desc("name"), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  neuronc::registerImportCLOptions();
  // --help lists this tool's flags; MLIR's (--mlir-print-ir-after-all, ...)
  // still work and show with --help-hidden.
  cl::HideUnrelatedOptions({&category, &neuronc::importCLCategory()});
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "neuronc " << neuronc::getVersionString() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "neuronc: ahead-of-time compiler for the NeuronCore\n");

  std::string error;
  std::unique_ptr<neuronc::Program> program = neuronc::Program::load(inputFilename, "neuronc");
  if (!program)
    return 1;
  ModuleOp module = program->module();
  neuronc::ImportOptions options = neuronc::importOptionsFromCL();
  if (failed(neuronc::importModule(module, entryName, options)))
    return 1;
  if (emit >= neuronc::EmitStage::Fused) {
    if (failed(neuronc::fuseModule(module)))
      return 1;
  }
  auto decisions = neuronc::collectFusionDecisions(module);
  neuronc::clearFusionDecisions(module);
  if (!fusionReport.empty()) {
    std::string text =
        llvm::StringRef(fusionReport).ends_with(".json")
            ? llvm::formatv("{0:2}\n", neuronc::formatFusionReportJSON(decisions)).str()
            : neuronc::formatFusionReportText(decisions);
    if (fusionReport == "-") {
      llvm::errs() << text;
    } else {
      std::unique_ptr<llvm::ToolOutputFile> report = openOutputFile(fusionReport, &error);
      if (!report) {
        llvm::errs() << "neuronc: error: " << error << "\n";
        return 1;
      }
      report->os() << text;
      report->keep();
    }
  }

  // Only now open the output: a failed compile leaves no file behind.
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "neuronc: error: " << error << "\n";
    return 1;
  }
  module.print(output->os());
  output->keep();
  return 0;
}
