//===- Runtime.cpp - Load, bind, run and trace executables ----------------===//

#include "neuronc/Simulator/Runtime.h"

#include "neuronc/Host/Dispatch.h"
#include "llvm/ADT/StringExtras.h"

#include "llvm/ADT/STLExtras.h"

using namespace neuronc;
using namespace neuronc::rt;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string coreList(const std::vector<unsigned> &cores) {
  std::string s;
  for (unsigned c : cores)
    s += (s.empty() ? "" : ", ") + std::to_string(c);
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<Model>> Model::load(llvm::StringRef path) {
  llvm::Expected<neff::Executable> exe = neff::readNeffFile(path);
  if (!exe)
    return exe.takeError();
  return std::unique_ptr<Model>(new Model(std::move(*exe), path.str()));
}

std::unique_ptr<Model> Model::fromExecutable(neff::Executable exe, std::string name) {
  return std::unique_ptr<Model>(new Model(std::move(exe), std::move(name)));
}

llvm::Expected<const neff::Program *> Model::program(llvm::StringRef entry) const {
  llvm::Expected<const neff::EntryPoint *> e = entryPoint(entry);
  if (!e)
    return e.takeError();
  return &exe.programs[(*e)->buckets.front().program];
}

llvm::Expected<const neff::EntryPoint *> Model::entryPoint(llvm::StringRef entry) const {
  std::string names;
  for (const neff::EntryPoint &e : exe.entries) {
    if ((entry.empty() || e.name == entry) && !e.buckets.empty())
      return &e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  return fail(name_ + " has no entry point '" + entry + "' (it has: " +
              (names.empty() ? std::string("none") : names) + ")");
}

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

Runtime::Runtime(NeuronConfig config)
    : config_(std::move(config)), origin(std::chrono::steady_clock::now()) {}

double Runtime::hostNowNs() const {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - origin)
      .count();
}

llvm::Expected<std::unique_ptr<Runtime>> Runtime::create(NeuronConfig config) {
  if (config.cores.empty())
    return fail("the runtime needs at least one NeuronCore");
  for (size_t i = 0; i < config.cores.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (config.cores[i] == config.cores[j])
        return fail("NeuronCore " + llvm::Twine(config.cores[i]) + " is listed twice");
  std::unique_ptr<Runtime> rt(new Runtime(std::move(config)));
  if (!rt->config_.target.empty()) {
    rt->target_ = lookupHardwareModel(rt->config_.target);
    if (!rt->target_)
      return fail("unknown target '" + rt->config_.target + "' (known: " + hardwareModelNames() +
                  ")");
    for (unsigned c : rt->config_.cores)
      if (c >= static_cast<unsigned>(rt->target_->instanceCores()))
        return fail(sim::missingCoreMessage(*rt->target_, c));
  }
  return rt;
}

llvm::Expected<Model *> Runtime::load(llvm::StringRef path) {
  double start = hostNowNs();
  llvm::Expected<std::unique_ptr<Model>> model = Model::load(path);
  if (!model)
    return model.takeError();
  if (config_.traceModes & kTraceRuntime)
    host_.push_back({"load", start, hostNowNs(), 0, 0});
  models.push_back(std::move(*model));
  return models.back().get();
}

Model *Runtime::adopt(neff::Executable exe, std::string name) {
  models.push_back(Model::fromExecutable(std::move(exe), std::move(name)));
  return models.back().get();
}

llvm::Expected<uint64_t> Runtime::submit(const Model &model, llvm::StringRef entry,
                                         llvm::ArrayRef<Tensor> inputs, unsigned core) {
  if (!llvm::is_contained(config_.cores, core))
    return fail("NeuronCore " + llvm::Twine(core) + " is not one of this runtime's (" +
                coreList(config_.cores) + ")");
  llvm::Expected<const neff::EntryPoint *> ep = model.entryPoint(entry);
  if (!ep)
    return ep.takeError();
  // A bucketed entry: its inputs' shapes pick the bucket; they are padded
  // and the masks follow them.
  std::optional<BucketCall> call;
  if ((*ep)->signature.dynamic()) {
    if (inputs.empty())
      return fail("@" + (*ep)->name + " is bucketed over " +
                  llvm::join((*ep)->signature.symbols, ", ") +
                  ": give its inputs (their shapes pick the bucket)");
    llvm::Expected<BucketCall> c = prepareBucketCall((*ep)->signature, inputs, (*ep)->name);
    if (!c)
      return c.takeError();
    call = std::move(*c);
    inputs = call->args;
  }
  const neff::Program *selected =
      &model.executable().programs[(*ep)->buckets[call ? call->bucket : 0].program];
  const HardwareModel *hw = target_ ? target_ : lookupHardwareModel(selected->target);
  if (!hw)
    return fail("unknown target '" + selected->target + "'");
  if (!target_) {
    for (unsigned c : config_.cores)
      if (c >= static_cast<unsigned>(hw->instanceCores()))
        return fail(sim::missingCoreMessage(*hw, c));
    target_ = hw;
  } else if (config_.target.empty() && hw != target_) {
    return fail(model.name() + " is compiled for " + hw->name + " but this runtime's chip is " +
                target_->name + "; set the config's target to replay it");
  }

  auto run = std::make_unique<Run>();
  run->id = nextId++;
  run->model = &model;
  run->program = selected;
  run->entry = (*ep)->name;
  run->core = core;
  if (call) {
    run->bucket = static_cast<int>(call->bucket);
    run->trueSizes = call->sizes;
    run->paddingFraction = call->paddingFraction;
    run->signature = &(*ep)->signature;
  }
  // Copy-in: the inputs in the device's formats.
  double start = hostNowNs();
  std::vector<const neff::Variable *> ins = run->program->inputs();
  if (!inputs.empty() || config_.computeValues) {
    if (inputs.size() != ins.size())
      return fail("@" + run->entry + " takes " + llvm::Twine(ins.size()) + " input(s), " +
                  llvm::Twine(inputs.size()) + " given");
    for (size_t i = 0; i < ins.size(); ++i) {
      if (llvm::ArrayRef<int64_t>(ins[i]->hostShape()) != inputs[i].shape())
        return fail("input #" + llvm::Twine(i) + " ('" + ins[i]->name + "') must be " +
                    sim::variableType(*ins[i]) + ", got " + inputs[i].typeString());
      run->inputBytes.push_back(
          sim::encodeInput(inputs[i], *ins[i], core, run->program->collectiveGroup()));
    }
  }
  if (config_.traceModes & kTraceRuntime)
    host_.push_back({"copy-in", start, hostNowNs(), run->id, core});
  runs_.push_back(std::move(run));
  return runs_.back()->id;
}

llvm::Error Runtime::synchronize() {
  std::vector<Run *> pending;
  for (auto &r : runs_)
    if (!r->done)
      pending.push_back(r.get());
  if (pending.empty())
    return llvm::Error::success();
  std::vector<sim::Job> jobs;
  for (Run *r : pending) {
    sim::Job job;
    job.exe = &r->model->executable();
    job.program = r->program;
    job.inputBytes = std::move(r->inputBytes);
    job.decodeOutputs = false;
    job.core = r->core;
    // Simulated from 0 and shifted onto the chip's clock below: a run's
    // timing must not depend on where the clock stands (ties between
    // engines broke differently at other magnitudes of the clock).
    job.notBeforeNs = 0;
    jobs.push_back(std::move(job));
  }
  sim::Options options;
  options.data = config_.computeValues;
  options.target = config_.target.empty() ? nullptr : target_;
  options.trace = config_.traceModes & kTraceDevice;
  options.cache = &timingCache;
  bool traceHost = config_.traceModes & kTraceRuntime;
  double start = hostNowNs();
  for (Run *r : pending) {
    r->dispatchNs = start;
    r->chipBaseNs = chipClockNs;
    if (traceHost)
      host_.push_back({"dispatch", start, start, r->id, r->core});
  }
  llvm::Expected<std::vector<sim::Result>> results = sim::runChip(jobs, options);
  double end = hostNowNs();
  if (!results) {
    // The runs are spent either way.
    for (Run *r : pending)
      r->done = true;
    return results.takeError();
  }
  if (traceHost)
    host_.push_back({"execute", start, end, pending.size() == 1 ? pending.front()->id : 0,
                     pending.front()->core});
  double clockAfter = chipClockNs;
  for (auto [r, result] : llvm::zip(pending, *results)) {
    result.startNs += chipClockNs;
    result.endNs += chipClockNs;
    for (sim::TraceEvent &e : result.trace) {
      e.issue += chipClockNs;
      e.start += chipClockNs;
      e.end += chipClockNs;
      e.done += chipClockNs;
    }
    double copyStart = hostNowNs();
    std::vector<const neff::Variable *> outs = r->program->outputs();
    for (size_t i = 0; i < result.outputBytes.size(); ++i) // none when timing only
      r->outputs.push_back(sim::decodeOutput(result.outputBytes[i].data(), *outs[i]));
    if (r->bucket >= 0 && !r->outputs.empty()) {
      // Back to the true sizes.
      BucketCall call;
      call.sizes = r->trueSizes;
      llvm::SmallVector<Tensor> sliced = sliceBucketOutputs(*r->signature, call, r->outputs);
      r->outputs.assign(sliced.begin(), sliced.end());
    }
    result.outputBytes.clear();
    r->device = std::move(result);
    r->done = true;
    clockAfter = std::max(clockAfter, r->device.endNs);
    if (traceHost)
      host_.push_back({"copy-out", copyStart, hostNowNs(), r->id, r->core});
  }
  chipClockNs = clockAfter;
  return llvm::Error::success();
}

llvm::Expected<std::vector<Tensor>> Runtime::run(const Model &model, llvm::StringRef entry,
                                                 llvm::ArrayRef<Tensor> inputs) {
  llvm::Expected<uint64_t> id = submit(model, entry, inputs, config_.cores.front());
  if (!id)
    return id.takeError();
  if (llvm::Error err = synchronize())
    return std::move(err);
  llvm::ArrayRef<Tensor> outs = outputs(*id);
  return std::vector<Tensor>(outs.begin(), outs.end());
}

const Run *Runtime::find(uint64_t id) const {
  for (const auto &r : runs_)
    if (r->id == id)
      return r.get();
  return nullptr;
}

llvm::ArrayRef<Tensor> Runtime::outputs(uint64_t id) const {
  const Run *r = find(id);
  return r && r->done ? llvm::ArrayRef<Tensor>(r->outputs) : llvm::ArrayRef<Tensor>();
}

void Runtime::clearHistory() {
  llvm::erase_if(runs_, [](const std::unique_ptr<Run> &r) { return r->done; });
  host_.clear();
}
