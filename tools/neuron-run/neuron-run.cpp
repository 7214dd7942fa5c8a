//===- neuron-run.cpp - Execute a neuron program on .npy inputs ----------===//
//
// neuron-run model.mlir [--entry NAME] [--input a.npy ...] [--output o.npy ...]
//                       [--random-inputs [--seed N]]
// Runs the reference interpreter and prints a summary of every output.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Interpreter/Npy.h"
#include "neuronc/Pipelines/Entry.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Program.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using neuronc::DType;
using neuronc::Tensor;
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
static cl::opt<uint64_t> seed("seed", cl::desc("Seed for --random-inputs"), cl::init(0),
                              cl::cat(category));
static cl::opt<bool> fuse("fuse",
                          cl::desc("Run the fusion passes before executing (compare with and "
                                   "without to check that fusion keeps the results)"),
                          cl::cat(category));

namespace {

int fail(const llvm::Twine &msg) {
  llvm::errs() << "neuron-run: error: " << msg << "\n";
  return 1;
}

void warn(const llvm::Twine &msg) { llvm::errs() << "neuron-run: warning: " << msg << "\n"; }

/// Reads input `i` from its .npy file and converts it to what the argument
/// expects where that loses nothing a user would care about.
llvm::Expected<Tensor> loadInput(size_t i, const std::string &path, DType want) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buf = openInputFile(path, &error);
  if (!buf)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  DType file;
  llvm::Expected<Tensor> t = neuronc::decodeNpy(buf->getBuffer(), &file);
  if (!t)
    return t.takeError();
  std::string what = "input #" + std::to_string(i) + " (" + path + ")";
  if (file == DType::F64)
    warn(what + ": float64 data converted to float32 (the device has no fp64)");
  if (file == DType::I64)
    warn(what + ": int64 data converted to int32");
  if (t->dtype() == want)
    return t;
  // f32 files feed bf16/f16 arguments (numpy has no bf16): round to the type.
  if (t->isFloat() && neuronc::isFloat(want) && want != DType::F64) {
    Tensor r = Tensor::empty(want, t->shape());
    std::copy_n(t->f(), t->numel(), r.f());
    r.roundToType();
    return r;
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "holds " + neuronc::dtypeName(t->dtype()).str() +
                                     " data but the argument is " +
                                     neuronc::dtypeName(want).str());
}

void printSummary(size_t i, const Tensor &t) {
  neuronc::TensorStats s = neuronc::computeStats(t);
  llvm::outs() << "  output #" << i << ": " << t.typeString()
               << llvm::format("  min=%.6g max=%.6g mean=%.6g", s.min, s.max, s.mean);
  if (s.nans || s.infs)
    llvm::outs() << "  nan=" << s.nans << " inf=" << s.infs;
  llvm::outs() << "\n    first: [";
  for (int64_t k = 0; k < std::min<int64_t>(t.numel(), 6); ++k)
    llvm::outs() << (k ? ", " : "") << llvm::format("%.6g", t.get(k));
  llvm::outs() << (t.numel() > 6 ? ", ...]\n" : "]\n");
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIRContextCLOptions();
  neuronc::registerImportCLOptions();
  // --help lists this tool's flags; MLIR's (--mlir-print-ir-after-all, ...)
  // still work and show with --help-hidden.
  cl::HideUnrelatedOptions({&category, &neuronc::importCLCategory()});
  registerPassManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "neuron-run " << neuronc::getVersionString() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "neuron-run: execute a neuron program\n");

  std::string error;
  std::unique_ptr<neuronc::Program> program = neuronc::Program::load(inputFilename, "neuron-run");
  if (!program)
    return 1;
  ModuleOp module = program->module();
  // Pick the entry, import it (and what it calls) into neuron, then run it.
  FailureOr<func::FuncOp> entry = neuronc::selectEntry(module, entryName);
  if (failed(entry))
    return 1;
  std::string name = entry->getSymName().str();
  neuronc::ImportOptions options = neuronc::importOptionsFromCL();
  if (failed(neuronc::importModule(module, name, options)))
    return 1;
  if (fuse) {
    if (failed(neuronc::fuseModule(module)))
      return 1;
  }
  func::FuncOp fn = module.lookupSymbol<func::FuncOp>(name);
  ArrayRef<Type> argTypes = fn.getFunctionType().getInputs();
  size_t numResults = fn.getFunctionType().getNumResults();

  if (randomInputs && !inputFiles.empty())
    return fail("give either --input files or --random-inputs, not both");
  if (!randomInputs && inputFiles.size() != argTypes.size())
    return fail("@" + fn.getSymName() + " takes " + llvm::Twine(argTypes.size()) +
                " argument(s) but " + llvm::Twine(inputFiles.size()) +
                " --input file(s) were given (or use --random-inputs)");
  if (outputFiles.size() > numResults)
    return fail(llvm::Twine(outputFiles.size()) + " --output file(s) given but @" +
                fn.getSymName() + " has " + llvm::Twine(numResults) + " result(s)");

  llvm::SmallVector<Tensor> args;
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    llvm::Expected<DType> dtype = neuronc::hostTypeOf(type);
    if (!dtype)
      return fail("argument #" + llvm::Twine(i) + ": " + llvm::toString(dtype.takeError()));
    if (randomInputs) {
      auto shaped = cast<RankedTensorType>(type);
      if (!shaped.hasStaticShape())
        return fail("argument #" + llvm::Twine(i) +
                    " has a dynamic shape; give it with --input instead of --random-inputs");
      uint64_t argSeed = seed ^ (0x9e3779b97f4a7c15ull * (i + 1));
      args.push_back(neuronc::randomTensor(*dtype, shaped.getShape(), argSeed));
      continue;
    }
    llvm::Expected<Tensor> t = loadInput(i, inputFiles[i], *dtype);
    if (!t)
      return fail("input #" + llvm::Twine(i) + " (" + inputFiles[i] +
                  "): " + llvm::toString(t.takeError()));
    args.push_back(std::move(*t));
  }
  if (llvm::Error err = neuronc::checkArguments(fn, args))
    return fail(llvm::toString(std::move(err)));

  FailureOr<llvm::SmallVector<Tensor>> results = neuronc::interpret(fn, args);
  if (failed(results))
    return 1;

  llvm::outs() << "@" << fn.getSymName() << ": " << results->size() << " output(s)\n";
  for (auto [i, t] : llvm::enumerate(*results))
    printSummary(i, t);

  // Write every file, and keep them only when all were written.
  std::vector<std::unique_ptr<llvm::ToolOutputFile>> files;
  for (auto [i, path] : llvm::enumerate(outputFiles)) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(path, &error);
    if (!out)
      return fail("cannot write " + path + ": " + error);
    out->os() << neuronc::encodeNpy((*results)[i]);
    out->os().flush();
    if (out->os().has_error())
      return fail("cannot write " + path);
    files.push_back(std::move(out));
  }
  for (auto &f : files)
    f->keep();
  return 0;
}
