//===- neuronc.cpp - The neuronc compiler driver --------------------------===//
//
// neuronc in.mlir -o out --emit=<stage>. The pipeline grows stage by stage
// up to the requested one; see lib/Pipelines.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Program.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Target/Assemble.h"
#include "neuronc/Target/HardwareModel.h"
#include "neuronc/Target/Neff.h"
#include "neuronc/Transforms/BucketReport.h"
#include "neuronc/Transforms/FusionReport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
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
    "emit",
    cl::desc("Stage to stop after and print (default: neff when -o names a .neff file, else "
             "neuron)"),
    cl::values(clEnumValN(neuronc::EmitStage::Neuron, "neuron",
                          "imported, type-legalized and canonicalized neuron IR"),
               clEnumValN(neuronc::EmitStage::Bucketed, "bucketed",
                          "dynamic dims specialized into static buckets, and the dispatcher"),
               clEnumValN(neuronc::EmitStage::Fused, "fused",
                          "after fusion: named kernels recognized"),
               clEnumValN(neuronc::EmitStage::Nisa, "nisa",
                          "engine instructions: tiled, allocated, synchronized"),
               clEnumValN(neuronc::EmitStage::Neff, "neff", "the executable")),
    cl::cat(category));
static cl::opt<std::string> target("target",
                                   cl::desc("Target profile: trn1 (NeuronCore-v2) or trn2 "
                                            "(NeuronCore-v3)"),
                                   cl::init("trn1"), cl::cat(category));
static cl::opt<unsigned> optLevel("O",
                                  cl::desc("Optimization level: -O0 lowers every op as its own "
                                           "kernel (no fusion), -O1 to -O3 fuse"),
                                  cl::Prefix, cl::init(2), cl::cat(category));
static cl::opt<bool> lowerRemarks("lowering-remarks",
                                  cl::desc("Say how each kernel was lowered (and why a fused "
                                           "kernel was split)"),
                                  cl::cat(category));
static cl::opt<std::string> fusionReport(
    "fusion-report",
    cl::desc("Write every fusion decision and its reason to FILE ('-' for stderr); JSON "
             "when FILE ends in .json"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> bucketReport(
    "bucket-report",
    cl::desc("Write each bucket's shape, kernels and padding waste to FILE ('-' for stderr); "
             "JSON when FILE ends in .json"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> bucketHistogram(
    "bucket-histogram",
    cl::desc("Sizes seen in real traffic for --bucket-report: per line a size per dynamic dim "
             "and a count"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> entryName(
    "entry", cl::desc("Compile only this function (and what it calls)"),
    cl::value_desc("name"), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  neuronc::registerImportCLOptions();
  neuronc::registerBucketCLOptions();
  // --help lists this tool's flags; MLIR's (--mlir-print-ir-after-all, ...)
  // still work and show with --help-hidden.
  cl::HideUnrelatedOptions({&category, &neuronc::importCLCategory()});
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "neuronc " << neuronc::getVersionString() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "neuronc: ahead-of-time compiler for the NeuronCore\n");

  std::string error;
  if (!neuronc::lookupHardwareModel(target)) {
    llvm::errs() << "neuronc: error: unknown target '" << target
                 << "'; known targets: " << neuronc::hardwareModelNames() << "\n";
    return 1;
  }
  if (optLevel > 3) {
    llvm::errs() << "neuronc: error: -O" << optLevel << " is not a level; use -O0 to -O3\n";
    return 1;
  }
  neuronc::EmitStage stage = emit.getNumOccurrences() ? emit.getValue()
                             : llvm::StringRef(outputFilename).ends_with(".neff")
                                 ? neuronc::EmitStage::Neff
                                 : neuronc::EmitStage::Neuron;
  std::unique_ptr<neuronc::Program> program = neuronc::Program::load(inputFilename, "neuronc");
  if (!program)
    return 1;
  ModuleOp module = program->module();
  neuronc::ImportOptions options = neuronc::importOptionsFromCL();
  if (failed(neuronc::importModule(module, entryName, options)))
    return 1;
  // Bucketing when asked for, and whenever the device needs static shapes.
  neuronc::BucketOptions bucketOptions = neuronc::bucketOptionsFromCL();
  if (stage >= neuronc::EmitStage::Bucketed &&
      (!bucketOptions.buckets.empty() ||
       (stage >= neuronc::EmitStage::Nisa && neuronc::hasDynamicFunctions(module)))) {
    if (failed(neuronc::bucketModule(module, bucketOptions)))
      return 1;
  }
  std::optional<neuronc::SizeHistogram> histogram;
  if (!bucketHistogram.empty()) {
    if (bucketReport.empty()) {
      llvm::errs() << "neuronc: error: --bucket-histogram is read by --bucket-report; give "
                      "--bucket-report too\n";
      return 1;
    }
    auto buf = llvm::MemoryBuffer::getFile(bucketHistogram);
    if (!buf) {
      llvm::errs() << "neuronc: error: cannot read " << bucketHistogram << ": "
                   << buf.getError().message() << "\n";
      return 1;
    }
    auto entries = neuronc::collectBucketedEntries(module);
    size_t symbols = entries.empty() ? 0 : entries.front().signature.symbols.size();
    if (entries.empty()) {
      llvm::errs() << "neuronc: error: --bucket-histogram given but nothing is bucketed\n";
      return 1;
    }
    auto h = neuronc::parseSizeHistogram((*buf)->getBuffer(), symbols, bucketHistogram);
    if (!h) {
      llvm::errs() << "neuronc: error: " << llvm::toString(h.takeError()) << "\n";
      return 1;
    }
    histogram = std::move(*h);
  }
  if (stage >= neuronc::EmitStage::Fused && optLevel > 0) {
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

  if (stage >= neuronc::EmitStage::Nisa) {
    neuronc::BackendOptions backend;
    backend.target = target;
    backend.remarks = lowerRemarks;
    if (failed(neuronc::lowerModule(module, backend)))
      return 1;
  }
  if (!bucketReport.empty()) {
    auto entries = neuronc::collectBucketedEntries(module);
    const neuronc::SizeHistogram *h = histogram ? &*histogram : nullptr;
    std::string text = llvm::StringRef(bucketReport).ends_with(".json")
                           ? llvm::formatv("{0:2}\n", neuronc::formatBucketReportJSON(entries, h)).str()
                           : neuronc::formatBucketReportText(entries, h);
    if (bucketReport == "-") {
      llvm::errs() << text;
    } else {
      std::unique_ptr<llvm::ToolOutputFile> report = openOutputFile(bucketReport, &error);
      if (!report) {
        llvm::errs() << "neuronc: error: " << error << "\n";
        return 1;
      }
      report->os() << text;
      report->keep();
    }
  }
  if (stage == neuronc::EmitStage::Neff) {
    FailureOr<neuronc::neff::Executable> exe =
        neuronc::assemble(module, neuronc::getVersionString());
    if (failed(exe))
      return 1;
    // Written to a temporary file and renamed: never a partial executable.
    if (llvm::Error err = neuronc::neff::writeNeffFile(outputFilename, *exe)) {
      llvm::errs() << "neuronc: error: cannot write " << outputFilename << ": "
                   << llvm::toString(std::move(err)) << "\n";
      return 1;
    }
    return 0;
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
