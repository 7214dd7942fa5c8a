//===- neuronc.cpp - The neuronc compiler driver --------------------------===//
//
// neuronc in.mlir -o out --emit=<stage>. The pipeline grows stage by stage
// up to the requested one (lib/Pipelines: compileModule); executables go
// through the compile cache unless --no-cache.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/Pipelines/CompileCache.h"
#include "neuronc/Pipelines/Entry.h"
#include "neuronc/Support/AtomicWrite.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Program.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"
#include "neuronc/Transforms/BucketReport.h"
#include "neuronc/Transforms/FusionReport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
namespace cl = llvm::cl;
using neuronc::EmitStage;

static cl::OptionCategory category("neuronc options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file ('-' for stdout)"),
                                           cl::value_desc("file"), cl::init("-"),
                                           cl::cat(category));
static cl::opt<EmitStage> emit(
    "emit",
    cl::desc("Stage to stop after and print (default: neff when -o names a .neff file, else "
             "legalized)"),
    cl::values(clEnumValN(EmitStage::Neuron, "neuron",
                          "imported into neuron ops and canonicalized"),
               clEnumValN(EmitStage::Legalized, "legalized",
                          "types legalized: no f64/i64, optional bf16/f16 auto-cast"),
               clEnumValN(EmitStage::Bucketed, "bucketed",
                          "dynamic dims specialized into static buckets, and the dispatcher"),
               clEnumValN(EmitStage::Fused, "fused", "after fusion: named kernels recognized"),
               clEnumValN(EmitStage::Lowered, "lowered",
                          "engine instructions before allocation and synchronization"),
               clEnumValN(EmitStage::Nisa, "nisa",
                          "engine instructions: tiled, allocated, synchronized"),
               clEnumValN(EmitStage::Neff, "neff", "the executable")),
    cl::cat(category));
static cl::opt<std::string> target("target",
                                   cl::desc("Target profile: trn1 (NeuronCore-v2) or trn2 "
                                            "(NeuronCore-v3)"),
                                   cl::init("trn1"), cl::cat(category));
static cl::opt<unsigned> optLevel("O",
                                  cl::desc("Optimization level: -O0 lowers every op as its own "
                                           "kernel (no fusion), -O1 recognizes named kernels "
                                           "(RMSNorm, softmax, SiLU, GELU), -O2 and -O3 also fuse "
                                           "producer-consumer chains"),
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
static cl::opt<std::string> dumpPhasesTo(
    "dump-phases-to",
    cl::desc("Write the IR after every stage to DIR as <input>.<n>.<stage>.mlir"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Compile cache for executables (default $XDG_CACHE_HOME/neuronc or "
             "~/.cache/neuronc)"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> noCache("no-cache", cl::desc("Neither read nor write the compile cache"),
                             cl::cat(category));

/// Prints `neuronc: error: <msg>` and returns 1.
static int fail(const llvm::Twine &msg) {
  llvm::errs() << "neuronc: error: " << msg << "\n";
  return 1;
}

/// Writes `text` to `path` ('-': stderr), whole or not at all.
static int writeReport(llvm::StringRef path, llvm::StringRef text) {
  if (path == "-") {
    llvm::errs() << text;
    return 0;
  }
  if (llvm::Error err = neuronc::writeFileAtomically(path, text.str()))
    return fail(llvm::toString(std::move(err))); // "cannot write <path>: <why>"
  return 0;
}

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
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "neuronc " << neuronc::getVersionString() << "\n"
       << "  executable format " << neuronc::neff::kMajorVersion << "."
       << neuronc::neff::kMinorVersion << ", targets " << neuronc::hardwareModelNames()
       << "\n  built with LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "neuronc: ahead-of-time compiler for the NeuronCore\n");

  if (!neuronc::lookupHardwareModel(target))
    return fail("unknown target '" + target + "'; known targets: " +
                neuronc::hardwareModelNames());
  if (optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel) + " is not a level; use -O0 to -O3");
  if (!bucketHistogram.empty() && bucketReport.empty())
    return fail("--bucket-histogram is read by --bucket-report; give --bucket-report too");
  if (noCache && !cacheDir.empty())
    return fail("--no-cache and --cache-dir contradict each other; give one");

  neuronc::CompileOptions options;
  options.stage = emit.getNumOccurrences() ? emit.getValue()
                  : llvm::StringRef(outputFilename).ends_with(".neff") ? EmitStage::Neff
                                                                       : EmitStage::Legalized;
  options.optLevel = optLevel;
  options.entry = entryName;
  options.import = neuronc::importOptionsFromCL();
  options.bucket = neuronc::bucketOptionsFromCL();
  options.backend.target = target;
  options.backend.remarks = lowerRemarks;

  // The input is read once: its bytes key the cache, then it is parsed.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFilename, &error);
  if (!input)
    return fail(error);

  // The compile cache: executables only, and only when nothing else (a
  // report, the phases, remarks) needs the compilation itself.
  bool sideOutputs = !fusionReport.empty() || !bucketReport.empty() || !dumpPhasesTo.empty() ||
                     lowerRemarks;
  std::optional<neuronc::CompileCache> cache;
  std::string key;
  if (options.stage == EmitStage::Neff && !noCache) {
    cache.emplace(cacheDir.empty() ? neuronc::CompileCache::defaultDir() : cacheDir.getValue());
    key = neuronc::CompileCache::key(input->getBuffer(), options.fingerprint());
    if (!sideOutputs) {
      neuronc::CompileCache::Lookup found = cache->lookup(key);
      if (!found.corrupt.empty())
        llvm::errs() << "neuronc: warning: discarded a corrupted cache entry ("
                     << found.corrupt << "); compiling again\n";
      if (found.bytes) {
        if (llvm::Error err = neuronc::writeFileAtomically(
                outputFilename, std::string(found.bytes->begin(), found.bytes->end())))
          return fail(llvm::toString(std::move(err)));
        llvm::errs() << "neuronc: cache hit " << key << " in " << cache->pathOf(key)
                     << ": compilation skipped\n";
        return 0;
      }
    }
  }

  std::unique_ptr<neuronc::Program> program = neuronc::Program::parse(std::move(input));
  if (!program)
    return 1;
  ModuleOp module = program->module();
  // Without --entry every entry candidate is compiled: say so when there is
  // none, instead of failing later with nothing to assemble. A module of
  // hand-written nisa.programs has no functions and is fine.
  if (entryName.empty() && options.stage == EmitStage::Neff &&
      neuronc::entryCandidates(module).empty() &&
      module.getOps<mlir::nisa::ProgramOp>().empty()) {
    std::string names;
    for (func::FuncOp f : module.getOps<func::FuncOp>())
      names += (names.empty() ? "@" : ", @") + f.getSymName().str();
    module.emitError("nothing to compile: no public func.func with a body other than a "
                     "host-side `main` with no arguments (functions: ")
        << (names.empty() ? "none" : names) << "); make one public or name it with --entry";
    return 1;
  }

  // The bucket histogram is read before compiling: a bad file fails fast.
  std::optional<std::string> histogramText;
  if (!bucketHistogram.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(bucketHistogram);
    if (!buf)
      return fail("cannot read " + bucketHistogram + ": " + buf.getError().message());
    histogramText = (*buf)->getBuffer().str();
  }

  std::string stem = inputFilename == "-" ? "stdin"
                                          : llvm::sys::path::stem(inputFilename).str();
  if (!dumpPhasesTo.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpPhasesTo))
      return fail("cannot create " + dumpPhasesTo + ": " + ec.message());
  llvm::SmallVector<neuronc::FusionDecision> decisions;
  int rc = 0;
  auto afterStage = [&](EmitStage stage) -> LogicalResult {
    if (stage == EmitStage::Fused) {
      decisions = neuronc::collectFusionDecisions(module);
      neuronc::clearFusionDecisions(module);
    }
    if (!dumpPhasesTo.empty()) {
      llvm::SmallString<256> path(dumpPhasesTo);
      llvm::sys::path::append(path, llvm::formatv("{0}.{1}.{2}.mlir", stem,
                                                  static_cast<int>(stage) + 1,
                                                  neuronc::stageName(stage))
                                        .str());
      std::string text;
      llvm::raw_string_ostream os(text);
      module.print(os);
      if ((rc = writeReport(path, text)))
        return failure();
    }
    return success();
  };
  if (failed(neuronc::compileModule(module, options, afterStage)))
    return rc ? rc : 1;

  if (!fusionReport.empty()) {
    std::string text =
        llvm::StringRef(fusionReport).ends_with(".json")
            ? llvm::formatv("{0:2}\n", neuronc::formatFusionReportJSON(decisions)).str()
            : neuronc::formatFusionReportText(decisions);
    if (int r = writeReport(fusionReport, text))
      return r;
  }
  if (!bucketReport.empty()) {
    auto entries = neuronc::collectBucketedEntries(module);
    std::optional<neuronc::SizeHistogram> histogram;
    if (histogramText) {
      if (entries.empty())
        return fail("--bucket-histogram given but nothing is bucketed (give --buckets)");
      auto h = neuronc::parseSizeHistogram(*histogramText,
                                           entries.front().signature.symbols.size(),
                                           bucketHistogram);
      if (!h)
        return fail(llvm::toString(h.takeError()));
      histogram = std::move(*h);
    }
    const neuronc::SizeHistogram *h = histogram ? &*histogram : nullptr;
    std::string text =
        llvm::StringRef(bucketReport).ends_with(".json")
            ? llvm::formatv("{0:2}\n", neuronc::formatBucketReportJSON(entries, h)).str()
            : neuronc::formatBucketReportText(entries, h);
    if (int r = writeReport(bucketReport, text))
      return r;
  }

  if (options.stage == EmitStage::Neff) {
    FailureOr<neuronc::neff::Executable> exe =
        neuronc::assemble(module, neuronc::getVersionString());
    if (failed(exe))
      return 1;
    // Written to a temporary file and renamed: never a partial executable.
    if (llvm::Error err = neuronc::neff::writeNeffFile(outputFilename, *exe))
      return fail(llvm::toString(std::move(err)));
    if (cache)
      if (llvm::Error err = cache->store(key, *exe))
        llvm::errs() << "neuronc: warning: the compile cache was not updated: "
                     << llvm::toString(std::move(err)) << "\n";
    return 0;
  }

  // Only now write the output: a failed compile leaves no file behind, and
  // a failed write (a full disk) leaves none either.
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  if (llvm::Error err = neuronc::writeFileAtomically(outputFilename, std::move(text)))
    return fail(llvm::toString(std::move(err)));
  return 0;
}
