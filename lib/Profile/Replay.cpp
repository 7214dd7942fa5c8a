//===- Replay.cpp - Predicted verdicts from a replay of the streams -------===//
//
// neuron-inspect's prediction, and the one a profile compares each kernel
// with: every program replayed alone on core 0 (a tensor-parallel one with
// its group on the next cores), without data (the timing
// model only), so the instruction streams and the cost formulas decide its
// time, DMA efficiency included, with the semaphore dependencies, the ports
// and the core's own HBM bandwidth, and no other core's traffic. The replay
// is analyzed as a profile, so a kernel's predicted verdict is the one the
// profile gives when nothing else runs; a measured profile differs from it
// when other cores shared the chip's HBM.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include <map>

using namespace neuronc;
using namespace neuronc::profile;

namespace {

/// One timing-only run of `program`, alone on core 0 of `hw`; a
/// tensor-parallel program with the rest of its group on cores 1..N-1 (it
/// cannot run without them), core 0's run.
llvm::Expected<std::shared_ptr<rt::Run>> replayProgram(const neff::Executable &exe,
                                                       const neff::Program &program,
                                                       const HardwareModel &hw, uint64_t id) {
  sim::Options options;
  options.data = false;
  options.trace = true;
  options.target = &hw;
  std::vector<sim::Job> jobs(std::max<int64_t>(1, program.collectiveGroup()));
  for (auto [core, job] : llvm::enumerate(jobs)) {
    job.exe = &exe;
    job.program = &program;
    job.core = static_cast<unsigned>(core);
  }
  auto results = sim::runChip(jobs, options);
  if (!results)
    return results.takeError();
  auto result = std::make_optional(std::move(results->front()));
  auto run = std::make_shared<rt::Run>();
  run->id = id;
  run->model = nullptr;
  run->program = &program;
  run->entry = program.name;
  run->core = 0;
  run->done = true;
  run->device = std::move(*result);
  return run;
}

} // namespace

llvm::Expected<Profile> neuronc::profile::replay(const neff::Executable &exe,
                                                 const HardwareModel &hw) {
  std::vector<std::shared_ptr<rt::Run>> replayed;
  std::vector<const rt::Run *> runs;
  for (const neff::Program &p : exe.programs) {
    auto run = replayProgram(exe, p, hw, runs.size() + 1);
    if (!run)
      return run.takeError();
    runs.push_back(run->get());
    replayed.push_back(std::move(*run));
  }
  auto prof = analyzeRuns(hw, std::move(runs), /*predict=*/false);
  if (prof)
    prof->replayed = std::move(replayed);
  return prof;
}

llvm::Error neuronc::profile::predictKernels(Profile &prof) {
  // Each profiled program replayed once; its kernels by name.
  std::map<std::string, std::map<std::string, const KernelStats *>> predicted;
  std::vector<Profile> replays;
  replays.reserve(prof.runs.size());
  for (const rt::Run *run : prof.runs) {
    if (!run->model || predicted.count(run->program->name))
      continue;
    auto alone = replayProgram(run->model->executable(), *run->program, *prof.hw, 1);
    if (!alone)
      return alone.takeError();
    auto replayed = analyzeRuns(*prof.hw, {alone->get()}, /*predict=*/false);
    if (!replayed)
      return replayed.takeError();
    replayed->replayed.push_back(std::move(*alone));
    replays.push_back(std::move(*replayed));
    auto &byName = predicted[run->program->name];
    for (const KernelStats &k : replays.back().kernels)
      byName[k.name] = &k;
  }
  for (KernelStats &k : prof.kernels) {
    auto program = predicted.find(k.program);
    if (program == predicted.end())
      continue;
    auto it = program->second.find(k.name);
    if (it == program->second.end())
      continue;
    const KernelStats &alone = *it->second;
    k.predictedNs = alone.spanNs / alone.calls * k.calls;
    k.predictedVerdict = alone.verdict.verdict;
    k.predictionNote = explainPrediction(k, alone);
  }
  return llvm::Error::success();
}
