//===- RunSession.cpp - What one neuron-run invocation does ---------------===//
//
// The interpreter on a function, the simulator on an executable (read, or
// compiled in-process with `sim`), or a checked run of both; inputs from
// .npy files or seeded random values, outputs summarized and written as .npy
// (every file or none).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Session/RunSession.h"

#include "neuronc/Check/Check.h"
#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Host/Npy.h"
#include "neuronc/ISA/InstructionCost.h"
#include "neuronc/ISA/Neff.h"
#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Entry.h"
#include "neuronc/Pipelines/Program.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Profile/Profile.h"
#include "neuronc/Simulator/Runtime.h"
#include "neuronc/Simulator/Simulator.h"
#include "neuronc/Support/AtomicWrite.h"
#include "neuronc/Support/ByteSize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace mlir;
using neuronc::DType;
using neuronc::Tensor;

namespace {


/// Reads input `i` from its .npy file and converts it to what the argument
/// expects where that loses nothing a user would care about.
llvm::Expected<Tensor> loadInput(size_t i, const std::string &path, DType want,
                                 llvm::StringRef tool) {
  auto warn = [&](const llvm::Twine &msg) {
    llvm::errs() << tool << ": warning: " << msg << "\n";
  };
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

/// What an argument must be: a host element type and a static shape.
struct ArgSpec {
  DType dtype;
  llvm::SmallVector<int64_t> shape;
  std::vector<int64_t> dims; ///< a bucketed input's signature dims (symbols < 0)
};

/// `seq=300,batch=2`: a size for every symbol of `sig`.
llvm::Expected<std::vector<int64_t>> parseSizes(const neuronc::BucketSignature &sig,
                                                llvm::StringRef text) {
  std::vector<int64_t> sizes(sig.symbols.size(), -1);
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    auto [name, value] = part.split('=');
    auto it = llvm::find(sig.symbols, name.trim().str());
    int64_t n = 0;
    if (it == sig.symbols.end())
      return llvm::createStringError("--sizes names '" + name.trim().str() +
                                     "', which is not a dynamic dim (they are: " +
                                     llvm::join(sig.symbols, ", ") + ")");
    if (value.trim().getAsInteger(10, n) || n < 0)
      return llvm::createStringError("--sizes: '" + part.str() + "' is not NAME=SIZE");
    sizes[it - sig.symbols.begin()] = n;
  }
  for (auto [name, n] : llvm::zip(sig.symbols, sizes))
    if (n < 0)
      return llvm::createStringError("--sizes gives no size for '" + name + "'");
  return sizes;
}

/// True when `path` is an executable (by name, or by its first bytes).
bool isExecutable(llvm::StringRef path) {
  if (path.ends_with(".neff"))
    return true;
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  return buf && (*buf)->getBufferSize() >= 8 &&
         std::memcmp((*buf)->getBufferStart(), neuronc::neff::kMagic, 8) == 0;
}


/// One invocation: the options under the names the code uses.
struct RunSession {
  const neuronc::RunSessionOptions &o;
  const std::string &inputFilename = o.input;
  const std::string &entryName = o.entry;
  const std::vector<std::string> &inputFiles = o.inputFiles;
  const std::vector<std::string> &outputFiles = o.outputFiles;
  const bool randomInputs = o.randomInputs;
  const std::string &sizesOpt = o.sizes;
  const uint64_t seed = o.seed;
  const bool simulate = o.simulate;
  const std::string &target = o.target;
  const bool noData = o.noData;
  const std::vector<unsigned> &cores = o.cores;
  const unsigned warmup = o.warmup;
  const unsigned iterations = o.iterations;
  const std::string &profileDir = o.profileDir;
  const bool fuse = o.fuse;
  const bool prepackWeights = o.prepackWeights;
  const bool check = o.check;
  const int64_t tp = o.tp;
  const bool sequenceParallel = o.sequenceParallel;
  const double checkRtol = o.checkRtol;
  const double checkAtol = o.checkAtol;

  /// Prints `<tool>: error: <msg>` and returns 1.
  int fail(const llvm::Twine &msg) const {
    llvm::errs() << o.tool << ": error: " << msg << "\n";
    return 1;
  }

  int runOnDevice(neuronc::neff::Executable exe, const std::string &name,
                  llvm::ArrayRef<Tensor> args, const neuronc::HardwareModel *hw,
                  llvm::SmallVector<Tensor> &results);
  int run();
};

/// Runs `name` of `exe` on the simulated chip through the runtime: warm-up
/// runs, then the measured ones on every requested core, profiled into
/// --profile when asked. Prints the device times; `results` are the outputs
/// of the last measured run on the first core.
int RunSession::runOnDevice(neuronc::neff::Executable exe, const std::string &name,
                llvm::ArrayRef<Tensor> args, const neuronc::HardwareModel *hw,
                llvm::SmallVector<Tensor> &results) {
  namespace rt = neuronc::rt;
  rt::NeuronConfig config;
  // A tensor-parallel program runs on every core of its group.
  int64_t group = 1;
  for (const auto &e : exe.entries)
    if (e.name == name)
      group = exe.programs[e.buckets.front().program].collectiveGroup();
  if (!cores.empty()) {
    config.cores.assign(cores.begin(), cores.end());
  } else if (group > 1) {
    config.cores.clear();
    for (int64_t c = 0; c < group; ++c)
      config.cores.push_back(static_cast<unsigned>(c));
  }
  if (hw)
    config.target = hw->name.str();
  config.computeValues = !noData;
  llvm::Expected<std::unique_ptr<rt::Runtime>> created = rt::Runtime::create(config);
  if (!created)
    return fail(llvm::toString(created.takeError()));
  rt::Runtime &runtime = **created;
  const rt::Model *model = runtime.adopt(std::move(exe), inputFilename);
  auto runAll = [&](std::vector<uint64_t> &ids) -> llvm::Error {
    for (unsigned core : runtime.config().cores) {
      llvm::Expected<uint64_t> id = runtime.submit(*model, name, args, core);
      if (!id)
        return id.takeError();
      ids.push_back(*id);
    }
    return runtime.synchronize();
  };
  for (unsigned i = 0; i < warmup; ++i) {
    std::vector<uint64_t> ids;
    if (llvm::Error err = runAll(ids))
      return fail(llvm::toString(std::move(err)));
  }
  std::optional<neuronc::profile::Profiler> profiler;
  if (!profileDir.empty()) {
    profiler.emplace(runtime);
    profiler->start();
  }
  std::vector<std::vector<double>> perCore(runtime.config().cores.size());
  std::vector<uint64_t> last;
  for (unsigned i = 0; i < iterations; ++i) {
    last.clear();
    if (llvm::Error err = runAll(last))
      return fail(llvm::toString(std::move(err)));
    for (size_t c = 0; c < last.size(); ++c)
      perCore[c].push_back(runtime.find(last[c])->device.deviceNs);
  }
  const rt::Run &first = *runtime.find(last.front());
  if (first.bucket >= 0)
    llvm::outs() << "@" << name << ": bucket "
                 << first.signature->formatSizes(first.signature->buckets[first.bucket])
                 << " for " << first.signature->formatSizes(first.trueSizes) << ", "
                 << llvm::format("%.1f", 100 * first.paddingFraction)
                 << " % of its work is padding\n";
  llvm::ArrayRef<Tensor> outs = runtime.outputs(last.front());
  results.assign(outs.begin(), outs.end());
  // A group's output split over its cores is joined into the caller's
  // tensor from every core's part.
  std::vector<const neuronc::neff::Variable *> outVars = first.program->outputs();
  for (size_t i = 0; group > 1 && !noData && i < results.size() && i < outVars.size(); ++i) {
    if (!outVars[i]->sharded())
      continue;
    std::vector<Tensor> parts;
    for (uint64_t id : last)
      parts.push_back(runtime.outputs(id)[i]);
    results[i] = neuronc::sim::gatherOutput(parts, *outVars[i], group);
  }
  int64_t instructions = first.program->instructionCount();
  llvm::StringRef targetName = runtime.target()->name;
  for (size_t c = 0; c < perCore.size(); ++c) {
    std::vector<double> t = perCore[c];
    llvm::sort(t);
    llvm::outs() << "@" << name << ": ";
    if (noData)
      llvm::outs() << "timing only, device time ";
    else
      llvm::outs() << results.size() << " output(s), device time ";
    if (t.size() == 1)
      llvm::outs() << llvm::format("%.3f", t.front() / 1000.0) << " us";
    else
      llvm::outs() << "min " << llvm::format("%.3f", t.front() / 1000.0) << " / median "
                   << llvm::format("%.3f", neuronc::profile::medianOf(t) / 1000.0) << " / max "
                   << llvm::format("%.3f", t.back() / 1000.0) << " us over " << t.size()
                   << " iterations";
    llvm::outs() << " on " << targetName;
    if (perCore.size() > 1 || !cores.empty())
      llvm::outs() << " core " << runtime.config().cores[c];
    llvm::outs() << " (" << instructions << " instructions)\n";
  }
  if (group > 1) {
    // The group's time is its slowest core's; the ring's share of it.
    double slowest = 0, collective = 0, wait = 0;
    int64_t bytes = 0;
    for (uint64_t id : last) {
      const neuronc::sim::Result &d = runtime.find(id)->device;
      slowest = std::max(slowest, d.deviceNs);
      collective = std::max(collective, d.collectiveNs);
      wait = std::max(wait, d.collectiveWaitNs);
      bytes = std::max(bytes, d.collectiveBytes);
    }
    // The analytic model (ring, or tree for small all-reduces) of the same
    // collectives.
    double model = 0;
    for (const auto &stream : first.program->streams)
      for (const neuronc::isa::Instruction &inst : stream)
        if (neuronc::isa::isCollective(inst.opcode))
          model += neuronc::collectiveNs(*runtime.target(), inst);
    llvm::outs() << "@" << name << ": tensor parallel over " << group << " cores: device time "
                 << llvm::format("%.3f", slowest / 1000.0) << " us; collectives "
                 << llvm::format("%.3f", collective / 1000.0) << " us per core ("
                 << llvm::format("%.1f", slowest > 0 ? 100 * collective / slowest : 0.0)
                 << " %; model " << llvm::format("%.3f", model / 1000.0) << " us), "
                 << neuronc::formatByteSize(static_cast<double>(bytes))
                 << " per core, waiting for other cores "
                 << llvm::format("%.3f", wait / 1000.0) << " us\n";
  }
  if (profiler) {
    llvm::Expected<neuronc::profile::Profile> prof = profiler->exportTo(profileDir);
    profiler->stop();
    if (!prof)
      return fail("cannot write the profile: " + llvm::toString(prof.takeError()));
    llvm::outs() << neuronc::profile::keyAveragesTable(*prof, 12);
    llvm::outs() << "profile written to " << profileDir
                 << " (key_averages.txt, summary.json, trace.json, report.html, "
                    "instructions.json)\n";
  }
  return 0;
}


int RunSession::run() {
  std::string error;
  const neuronc::HardwareModel *hw = nullptr;
  if (!target.empty() && !(hw = neuronc::lookupHardwareModel(target)))
    return fail("unknown target '" + target + "'; known targets: " +
                neuronc::hardwareModelNames());

  // The program to run: a function for the interpreter, or a program of an
  // executable for the simulator (read from a .neff, or compiled with --sim).
  std::unique_ptr<neuronc::Program> program;
  func::FuncOp fn;
  std::optional<neuronc::neff::Executable> exe;
  const neuronc::neff::Program *device = nullptr;
  std::string name;
  ModuleOp checkedModule;
  if (inputFilename != "-" && isExecutable(inputFilename)) {

    if (tp > 1)
      return fail("--tp compiles a program: an executable built with neuronc --tp=N already "
                  "holds the per-core program and runs on cores 0..N-1 by itself");
    auto read = neuronc::neff::readNeffFile(inputFilename);
    if (!read)
      return fail(llvm::toString(read.takeError()));
    exe = std::move(*read);
  } else {
    program = neuronc::Program::load(inputFilename, o.tool);
    if (!program)
      return 1;
    ModuleOp module = program->module();
    // Pick the entry, import it (and what it calls) into neuron, then run it.
    FailureOr<func::FuncOp> entry = neuronc::selectEntry(module, entryName);
    if (failed(entry))
      return 1;
    name = entry->getSymName().str();
    neuronc::ImportOptions options = o.import;
    if (failed(neuronc::importModule(module, name, options)))
      return 1;
    neuronc::BucketOptions bucketOptions = o.bucket;
    if (!bucketOptions.buckets.empty() || (simulate && neuronc::hasDynamicFunctions(module)))
      if (failed(neuronc::bucketModule(module, bucketOptions)))
        return 1;
    if (prepackWeights && !check && !simulate)
      return fail("--prepack-weights compiles: give it with --check or --sim");
    if (tp < 1)
      return fail("--tp=" + llvm::Twine(tp) + ": the number of cores must be at least 1");
    if (tp > 1 && !check && !simulate)
      return fail("--tp shards the program for the device: give it with --check or --sim "
                  "(the interpreter runs the unsharded program)");
    if (sequenceParallel && tp < 2)
      return fail("--tp-sequence-parallel needs --tp=N with N >= 2");
    if (tp > 1 && !check && failed(neuronc::shardModule(module, tp, sequenceParallel)))
      return 1;
    if (prepackWeights && !check && failed(neuronc::prepackWeights(module)))
      return 1;
    if (fuse && !check) {
      if (failed(neuronc::fuseModule(module)))
        return 1;
    }
    fn = module.lookupSymbol<func::FuncOp>(name);
    if (check) {
      if (simulate || !profileDir.empty() || noData || !outputFiles.empty() || !cores.empty())
        return fail("--check compiles and runs the program itself: leave out --sim, --profile, "
                    "--no-data, --output and --cores");
      checkedModule = module;
    }
    if (simulate) {
      neuronc::BackendOptions backend;
      backend.target = hw ? hw->name.str() : "trn1";
      backend.forwardStores = fuse; // unfused, every kernel round-trips HBM as at -O0
      backend.prefetchLoads = fuse;
      backend.foldCopies = fuse;
      if (failed(neuronc::lowerModule(module, backend)))
        return 1;
      FailureOr<neuronc::neff::Executable> built =
          neuronc::assemble(module, neuronc::getVersionString());
      if (failed(built))
        return 1;
      exe = std::move(*built);
      fn = {};
    }
  }
  llvm::SmallVector<ArgSpec> specs;
  size_t numResults = 0;
  std::optional<neuronc::BucketSignature> signature; // of a bucketed entry
  if (exe) {
    const neuronc::neff::EntryPoint *ep = nullptr;
    for (const auto &e : exe->entries)
      if (name.empty() ? (entryName.empty() || e.name == entryName) : e.name == name) {
        ep = &e;
        break;
      }
    if (!ep) {
      std::string names;
      for (const auto &e : exe->entries)
        names += (names.empty() ? "" : ", ") + e.name;
      return fail("the executable has no entry point '" + entryName + "' (it has: " + names +
                  ")");
    }
    name = ep->name;
    device = &exe->programs[ep->buckets.front().program];
    const neuronc::BucketSignature &sig = ep->signature;
    if (sig.dynamic()) {
      // The inputs' shapes pick the bucket; the masks are the runtime's.
      std::vector<const neuronc::neff::Variable *> ins = device->inputs();
      for (auto [i, dims] : llvm::enumerate(sig.inputs)) {
        llvm::SmallVector<int64_t> shape;
        for (int64_t d : dims)
          shape.push_back(neuronc::isSymbolDim(d) ? ShapedType::kDynamic : d);
        specs.push_back({neuronc::sim::hostDType(ins[i]->dtype), shape, dims});
      }
      signature = sig;
      numResults = sig.outputs.size();
    } else {
      for (const auto *v : device->inputs()) {
        std::vector<int64_t> shape = v->hostShape();
        specs.push_back({neuronc::sim::hostDType(v->dtype),
                         llvm::SmallVector<int64_t>(shape.begin(), shape.end())});
      }
      numResults = device->outputs().size();
    }
  } else {
    for (Type type : fn.getFunctionType().getInputs()) {
      llvm::Expected<DType> dtype = neuronc::hostTypeOf(type);
      if (!dtype)
        return fail("argument #" + llvm::Twine(specs.size()) + ": " +
                    llvm::toString(dtype.takeError()));
      auto shaped = cast<RankedTensorType>(type);
      specs.push_back({*dtype, llvm::SmallVector<int64_t>(shaped.getShape()), {}});
    }
    numResults = fn.getFunctionType().getNumResults();
    for (auto d : fn.getOps<neuron::DispatchOp>()) {
      signature = d.getSignature();
      for (auto [spec, dims] : llvm::zip(specs, signature->inputs))
        spec.dims = dims;
    }
  }

  if (randomInputs && !inputFiles.empty())
    return fail("give either --input files or --random-inputs, not both");
  // Timing-only runs need no inputs.
  bool noInputs = exe && noData && !randomInputs && inputFiles.empty();
  if (!randomInputs && !noInputs && inputFiles.size() != specs.size())
    return fail("@" + name + " takes " + llvm::Twine(specs.size()) + " argument(s) but " +
                llvm::Twine(inputFiles.size()) +
                " --input file(s) were given (or use --random-inputs)");
  if (outputFiles.size() > numResults)
    return fail(llvm::Twine(outputFiles.size()) + " --output file(s) given but @" + name +
                " has " + llvm::Twine(numResults) + " result(s)");

  if (!exe && (!profileDir.empty() || warmup || iterations != 1 || !cores.empty() || noData))
    return fail("--profile, --warmup, --iterations, --cores and --no-data run an executable: "
                "give a .neff file or --sim");
  if (iterations == 0)
    return fail("--iterations must be at least 1");
  if (noData && !outputFiles.empty())
    return fail("--no-data computes no values to write to --output files");

  llvm::SmallVector<Tensor> args;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    if (noInputs)
      break;
    if (randomInputs) {
      if (llvm::is_contained(spec.shape, ShapedType::kDynamic)) {
        if (!signature || sizesOpt.empty())
          return fail("argument #" + llvm::Twine(i) +
                      " has a dynamic shape; give it with --input instead of --random-inputs" +
                      (signature ? " or give --sizes=" + signature->symbols.front() + "=N"
                                 : std::string("")));
        llvm::Expected<std::vector<int64_t>> sizes = parseSizes(*signature, sizesOpt);
        if (!sizes)
          return fail(llvm::toString(sizes.takeError()));
        std::vector<int64_t> shape = neuronc::BucketSignature::shapeAt(spec.dims, *sizes);
        spec.shape.assign(shape.begin(), shape.end());
      }
      if (!neuronc::fitsHostMemory(neuronc::numElements(spec.shape)))
        return fail("argument #" + llvm::Twine(i) + " (" + neuronc::formatShape(spec.shape) +
                    ") is larger than the " +
                    neuronc::formatByteSize(static_cast<double>(neuronc::maxHostTensorBytes())) +
                    " a host tensor may take (NEURONC_MAX_TENSOR_BYTES raises it)");
      uint64_t argSeed = seed ^ (0x9e3779b97f4a7c15ull * (i + 1));
      args.push_back(neuronc::randomTensor(spec.dtype, spec.shape, argSeed));
      continue;
    }
    llvm::Expected<Tensor> t = loadInput(i, inputFiles[i], spec.dtype, o.tool);
    if (!t)
      return fail("input #" + llvm::Twine(i) + " (" + inputFiles[i] +
                  "): " + llvm::toString(t.takeError()));
    args.push_back(std::move(*t));
  }

  if (checkedModule) {
    if (llvm::Error err = neuronc::checkArguments(fn, args))
      return fail(llvm::toString(std::move(err)));
    neuronc::check::Options options;
    options.backend.target = hw ? hw->name.str() : "trn1";
    options.fuse = fuse;
    options.prepackWeights = prepackWeights;
    options.tp = tp;
    options.sequenceParallel = sequenceParallel;
    options.tolerance = {checkRtol, checkAtol};
    llvm::Expected<neuronc::check::Report> report =
        neuronc::check::checkEntry(checkedModule, name, args, options);
    if (!report)
      return fail(llvm::toString(report.takeError()));
    neuronc::check::printReport(llvm::outs(), *report);
    return report->ok() ? 0 : 1;
  }

  if (check && exe) {
    // No source: the executable runs with every read checked; comparing
    // with the interpreter needs the .mlir.
    if (signature)
      return fail("--check on a bucketed executable: check the source program instead");
    neuronc::sim::Options options;
    options.checkReads = true;
    options.target = hw;
    // Every core of a tensor-parallel group, on the whole arguments.
    std::vector<neuronc::sim::Job> jobs(std::max<int64_t>(1, device->collectiveGroup()));
    for (auto [core, job] : llvm::enumerate(jobs)) {
      job.exe = &*exe;
      job.program = device;
      job.inputs.assign(args.begin(), args.end());
      job.core = static_cast<unsigned>(core);
    }
    llvm::Expected<std::vector<neuronc::sim::Result>> run = neuronc::sim::runChip(jobs, options);
    if (!run) {
      llvm::outs() << "check @" << name << ": the simulator stopped: "
                   << llvm::toString(run.takeError()) << "\ncheck: FAILED\n";
      return 1;
    }
    llvm::outs() << "check @" << name << ": every read of the run found written memory and "
                 << "every output was written (give the source .mlir to compare the values "
                    "with the interpreter)\ncheck: ok\n";
    return 0;
  }

  llvm::SmallVector<Tensor> results;
  if (exe) {
    if (int rc = runOnDevice(std::move(*exe), name, args, hw, results))
      return rc;
  } else {
    if (llvm::Error err = neuronc::checkArguments(fn, args))
      return fail(llvm::toString(std::move(err)));
    FailureOr<llvm::SmallVector<Tensor>> interpreted = neuronc::interpret(fn, args);
    if (failed(interpreted))
      return 1;
    results = std::move(*interpreted);
    llvm::outs() << "@" << name << ": " << results.size() << " output(s)\n";
  }
  for (auto [i, t] : llvm::enumerate(results))
    printSummary(i, t);

  // Every file or none (an earlier result file stays as it was).
  std::vector<neuronc::OutputFile> files;
  for (auto [i, path] : llvm::enumerate(outputFiles))
    files.push_back({path, neuronc::encodeNpy(results[i])});
  if (llvm::Error err = neuronc::writeFilesAtomically(files))
    return fail(llvm::toString(std::move(err)));
  return 0;
}

} // namespace

int neuronc::runRunSession(const RunSessionOptions &options) {
  return RunSession{options}.run();
}
