//===- neuron-run.cpp - Execute a neuron program on .npy inputs ----------===//
//
// Parses the flags into a RunSessionOptions; lib/Session/RunSession.cpp
// does the rest.
//
// neuron-run model.mlir [--entry NAME] [--input a.npy ...] [--output o.npy ...]
//                       [--random-inputs [--seed N]]
// Runs the reference interpreter and prints a summary of every output.
//
// neuron-run model.neff (or model.mlir --sim) [--target T] [--no-data]
//            [--cores 0,1] [--warmup N] [--iterations M] [--profile DIR]
// Runs the executable on the simulated chip through the runtime API, prints
// its device time, and with --profile writes the profile into DIR.
//
// neuron-run model.mlir --check [--fuse] [--tp N] [--target T] [--check-rtol R]
// Compiles the program, runs it on the simulator (every read of memory
// nothing wrote is an error) and on the interpreter, compares every output
// and names the first kernel that diverges. Exits 1 when they differ. On an
// executable, --check runs it with every read checked.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Session/RunSession.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("neuron-run options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<program .mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string> entryName("entry", cl::desc("Function to run"),
                                      cl::value_desc("name"), cl::cat(category));
static cl::list<std::string> inputFiles("input", cl::desc("A .npy file per argument, in order"),
                                        cl::value_desc("file.npy"), cl::cat(category));
static cl::list<std::string> outputFiles("output",
                                         cl::desc("A .npy file per result, in order"),
                                         cl::value_desc("file.npy"), cl::cat(category));
static cl::opt<bool> randomInputs("random-inputs",
                                  cl::desc("Fill every argument with seeded random values"),
                                  cl::cat(category));
static cl::opt<std::string> sizesOpt(
    "sizes",
    cl::desc("With --random-inputs on a bucketed program: the size of each dynamic dim, e.g. "
             "seq=300 or batch=2,seq=100"),
    cl::value_desc("name=N,..."), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed for --random-inputs"), cl::init(0),
                              cl::cat(category));
static cl::opt<bool> simulate("sim",
                              cl::desc("Compile the program for the target and run it on the "
                                       "simulator instead of the reference interpreter"),
                              cl::cat(category));
static cl::opt<std::string> target("target",
                                   cl::desc("Target to compile for (--sim) or to replay an "
                                            "executable on: trn1 or trn2"),
                                   cl::cat(category));
static cl::opt<bool> noData("no-data",
                            cl::desc("Simulate timing only: skip the arithmetic (outputs are "
                                     "zero)"),
                            cl::cat(category));
static cl::list<unsigned> cores("cores",
                               cl::desc("NeuronCores of the simulated chip to run on, each "
                                        "running the program on the same inputs (default 0)"),
                               cl::CommaSeparated, cl::value_desc("0,1,..."), cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::desc("Runs before the measured ones"),
                                cl::init(0), cl::value_desc("N"), cl::cat(category));
static cl::opt<unsigned> iterations("iterations",
                                    cl::desc("Measured runs (device time min/median/max)"),
                                    cl::init(1), cl::value_desc("M"), cl::cat(category));
static cl::opt<std::string> profileDir(
    "profile",
    cl::desc("Profile the measured runs into DIR: key_averages.txt, summary.json, trace.json "
             "(Chrome/Perfetto), report.html, instructions.json"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> fuse("fuse",
                          cl::desc("Run the fusion passes before executing (compare with and "
                                   "without to check that fusion keeps the results)"),
                          cl::cat(category));

static cl::opt<bool> prepackWeights(
    "prepack-weights",
    cl::desc("With --check or --sim: compile as neuronc --prepack-weights does (arguments only "
             "read transposed are loaded in the device's layout)"),
    cl::cat(category));

static cl::opt<bool> check(
    "check",
    cl::desc("Compile the program, run it on the simulator (reads of unwritten memory are "
             "errors) and on the interpreter, compare the outputs and name the first kernel "
             "that diverges; exit 1 when they differ"),
    cl::cat(category));
static cl::opt<int64_t> tensorParallel(
    "tp",
    cl::desc("With --sim or --check: shard the program over N NeuronCores as neuronc --tp=N does "
             "and run the per-core programs together on cores 0..N-1 (an executable compiled "
             "with --tp runs on its group's cores without this flag)"),
    cl::init(1), cl::value_desc("N"), cl::cat(category));
static cl::opt<bool> tpSequenceParallel(
    "tp-sequence-parallel",
    cl::desc("With --tp: shard with sequence parallelism, as neuronc --tp-sequence-parallel"),
    cl::cat(category));
static cl::opt<double> checkRtol("check-rtol",
                                 cl::desc("--check: relative tolerance (default 1e-3; 2e-2 at "
                                          "least for bf16/f16 results)"),
                                 cl::init(1e-3), cl::cat(category));
static cl::opt<double> checkAtol(
    "check-atol", cl::desc("--check: absolute tolerance, times max(1, max|expected|)"),
    cl::init(1e-5), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIRContextCLOptions();
  neuronc::registerImportCLOptions();
  neuronc::registerBucketCLOptions();
  // --help lists this tool's flags; MLIR's (--mlir-print-ir-after-all, ...)
  // still work and show with --help-hidden.
  cl::HideUnrelatedOptions({&category, &neuronc::importCLCategory()});
  registerPassManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "neuron-run " << neuronc::getVersionString() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv,
                              "neuron-run: execute a neuron program (reference interpreter) or "
                              "an executable (simulator)\n");

  neuronc::RunSessionOptions session;
  session.input = inputFilename;
  session.entry = entryName;
  session.inputFiles.assign(inputFiles.begin(), inputFiles.end());
  session.outputFiles.assign(outputFiles.begin(), outputFiles.end());
  session.randomInputs = randomInputs;
  session.sizes = sizesOpt;
  session.seed = seed;
  session.simulate = simulate;
  session.target = target;
  session.noData = noData;
  session.cores.assign(cores.begin(), cores.end());
  session.warmup = warmup;
  session.iterations = iterations;
  session.profileDir = profileDir;
  session.fuse = fuse;
  session.prepackWeights = prepackWeights;
  session.check = check;
  session.tp = tensorParallel;
  session.sequenceParallel = tpSequenceParallel;
  session.checkRtol = checkRtol;
  session.checkAtol = checkAtol;
  session.import = neuronc::importOptionsFromCL();
  session.bucket = neuronc::bucketOptionsFromCL();
  return neuronc::runRunSession(session);
}
