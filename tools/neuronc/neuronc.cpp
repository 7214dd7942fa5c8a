//===- neuronc.cpp - The neuronc compiler driver --------------------------===//
//
// neuronc in.mlir -o out --emit=<stage>. Parses the flags into a
// SessionOptions; lib/Pipelines/CompileSession.cpp does the rest (the
// pipeline grows stage by stage up to the requested one; executables go
// through the compile cache unless --no-cache, and through the shared one of
// --cache-url).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/OnnxImport.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"
#include "neuronc/Session/CompileSession.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;
namespace cl = llvm::cl;
using neuronc::EmitStage;

static cl::OptionCategory category("neuronc options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir or .onnx>"),
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
static cl::list<std::string> disableFusion(
    "disable-fusion",
    cl::desc("Skip these fusion rules (comma-separated): transposes, batchnorm, groups, siblings, "
             "activations, softmax, attention, rows, broadcast, rmsnorm, layernorm, casts, elementwise, "
             "pool, sums, chains; to measure what one saves"),
    cl::value_desc("rules"), cl::CommaSeparated, cl::cat(category));
static cl::opt<bool> prepackWeights(
    "prepack-weights",
    cl::desc("Take entry arguments that are only read transposed (nn.Linear weights [out, in]) "
             "in the device's layout: the runtime swaps their last two dims once, when it loads "
             "them, and the program streams them without transposes. For weights loaded once "
             "and called many times"),
    cl::cat(category));
static cl::opt<bool> forwardStores(
    "forward-stores",
    cl::desc("Above -O0, a kernel reads an earlier kernel's result from the SBUF tile that "
             "computed it instead of a store and a load through HBM (--nisa-forward-stores); "
             "=false to measure what that saves"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> prefetchLoads(
    "prefetch-loads",
    cl::desc("Above -O0, a kernel's loads of constants and inputs start during the kernel before "
             "it instead of queueing behind its stores (--nisa-prefetch-loads); =false to "
             "measure what that saves"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> foldCopies(
    "fold-copies",
    cl::desc("Above -O0, a kernel that only copies HBM tensors (a slice, a permute keeping the "
             "contiguous dim, a concat's parts) is absorbed into the stores of its sources or the "
             "loads that read the copy (--nisa-fold-copy-kernels); =false to measure what that "
             "saves"),
    cl::init(true), cl::cat(category));
static cl::opt<unsigned> tensorParallel(
    "tp",
    cl::desc("Tensor parallelism: compile the program one of N cores runs, Megatron-style "
             "(column-parallel Q/K/V and gate/up projections, row-parallel output and down "
             "projections with an all-reduce, heads split); split arguments are marked "
             "neuron.shard with their local shape. The executable runs on cores 0..N-1 "
             "together (neuron-run does so by itself), each given its part of the caller's "
             "tensors. 1: no sharding"),
    cl::value_desc("N"), cl::init(1), cl::cat(category));
static cl::opt<bool> tpSequenceParallel(
    "tp-sequence-parallel",
    cl::desc("With --tp: sequence parallelism (the all-reduces become reduce-scatters along the "
             "sequence, the norms and residual adds work on 1/N of it, an all-gather before "
             "each column-parallel projection)"),
    cl::cat(category));
static cl::opt<std::string> tpReport(
    "tp-report",
    cl::desc("With --tp: write each argument's sharding and each all-reduce to FILE ('-' for "
             "stderr)"),
    cl::value_desc("file"), cl::cat(category));
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
static cl::opt<std::string> cacheUrl(
    "cache-url",
    cl::desc("Share executables through an HTTP remote cache (Bazel's protocol: bazel-remote, "
             "or any server taking PUT): looked up after the local cache, uploaded after a "
             "compile; a failing server costs one warning, never the compile"),
    cl::value_desc("http://host[:port][/prefix]"), cl::cat(category));
static cl::opt<double> cacheTimeout(
    "cache-timeout",
    cl::desc("Seconds the remote cache may take to connect, or to make progress sending or "
             "receiving, before it is given up for this run"),
    cl::value_desc("seconds"), cl::init(5), cl::cat(category));
static cl::opt<bool> listOnnxOps("list-onnx-ops",
                                 cl::desc("Print the ONNX op types the importer supports and exit"),
                                 cl::cat(category));

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
  if (listOnnxOps) {
    for (llvm::StringRef op : neuronc::supportedOnnxOps())
      llvm::outs() << op << "\n";
    return 0;
  }

  neuronc::SessionOptions session;
  neuronc::CompileOptions &options = session.compile;
  options.stage = emit.getNumOccurrences() ? emit.getValue()
                  : llvm::StringRef(outputFilename).ends_with(".neff") ? EmitStage::Neff
                                                                       : EmitStage::Legalized;
  options.optLevel = optLevel;
  options.disabledFusions.assign(disableFusion.begin(), disableFusion.end());
  options.prepackWeights = prepackWeights;
  options.entry = entryName;
  options.import = neuronc::importOptionsFromCL();
  options.bucket = neuronc::bucketOptionsFromCL();
  options.backend.target = target;
  options.backend.remarks = lowerRemarks;
  options.backend.forwardStores = forwardStores;
  options.backend.prefetchLoads = prefetchLoads;
  options.backend.foldCopies = foldCopies;
  if (tensorParallel == 0) {
    llvm::errs() << "neuronc: error: --tp=0: the number of cores must be at least 1\n";
    return 1;
  }
  if (!tpReport.empty() && tensorParallel == 1) {
    llvm::errs() << "neuronc: error: --tp-report needs --tp=N with N >= 2\n";
    return 1;
  }
  if (tpSequenceParallel && tensorParallel == 1) {
    llvm::errs() << "neuronc: error: --tp-sequence-parallel needs --tp=N with N >= 2\n";
    return 1;
  }
  options.tp = tensorParallel;
  options.tpReport = tpReport;
  options.sequenceParallel = tpSequenceParallel;

  session.input = inputFilename;
  session.output = outputFilename;
  session.fusionReport = fusionReport;
  session.bucketReport = bucketReport;
  session.bucketHistogram = bucketHistogram;
  session.dumpPhasesTo = dumpPhasesTo;
  session.cacheDir = cacheDir;
  session.noCache = noCache;
  session.cacheUrl = cacheUrl;
  session.cacheTimeout = cacheTimeout;
  // The tensor-parallel report comes from the compilation: a cached
  // executable has none.
  if (!tpReport.empty())
    session.noCache = true;
  return neuronc::runCompileSession(session);
}
