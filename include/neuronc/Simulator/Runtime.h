//===- Runtime.h - Load, bind, run and trace executables --------*- C++ -*-===//
//
// The small runtime API that neuron-run is built on, for programs that embed
// the simulator:
//
//   std::unique_ptr<rt::Runtime> rt = cantFail(rt::Runtime::create(config));
//   rt::Model *model = cantFail(rt->load("model.neff")); // validated executable
//   uint64_t id = cantFail(rt->submit(*model, "main", inputs, /*core=*/0));
//   cantFail(rt->synchronize());                       // runs everything queued
//   llvm::ArrayRef<Tensor> outs = rt->outputs(id);
//
// Runs queued on different cores execute concurrently on the simulated chip
// and share its HBM bandwidth; runs on one core execute in order. With
// tracing on, every run keeps its device timeline and the runtime records
// its host phases (load, copy-in, dispatch and execute, copy-out), each
// tagged with the run's correlation id; lib/Profile turns them into a
// profile.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SIMULATOR_RUNTIME_H
#define NEURONC_SIMULATOR_RUNTIME_H

#include "neuronc/Simulator/Simulator.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neuronc::rt {

/// What a runtime traces.
enum TraceMode : unsigned {
  kTraceNone = 0,
  kTraceDevice = 1 << 0,  ///< every instruction's timeline on the device
  kTraceRuntime = 1 << 1, ///< host-side phases of the runtime
  kTraceAll = kTraceDevice | kTraceRuntime,
};

/// How a runtime is set up, in the spirit of the real stack's NeuronConfig.
struct NeuronConfig {
  /// The logical NeuronCores of the simulated chip this runtime may use
  /// (trn1 has 2 per chip, trn2 has 8).
  std::vector<unsigned> cores = {0};
  /// TraceMode bits.
  unsigned traceModes = kTraceNone;
  /// Replay executables on this profile instead of their own target ("").
  std::string target;
  /// false: timing only; runs have no outputs.
  bool computeValues = true;
};

/// A loaded, validated executable.
class Model {
public:
  /// Reads and validates a .neff file.
  static llvm::Expected<std::unique_ptr<Model>> load(llvm::StringRef path);
  /// Wraps an executable built in-process.
  static std::unique_ptr<Model> fromExecutable(neff::Executable exe, std::string name);

  const neff::Executable &executable() const { return exe; }
  /// The file it came from (or the name it was given).
  llvm::StringRef name() const { return name_; }
  /// The entry point `entry` (the first when empty); the error lists the
  /// entries.
  llvm::Expected<const neff::EntryPoint *> entryPoint(llvm::StringRef entry) const;
  /// The program of `entry` (the first entry when empty) for static inputs,
  /// or its first bucket's; the error lists the entries.
  llvm::Expected<const neff::Program *> program(llvm::StringRef entry) const;

private:
  Model(neff::Executable exe, std::string name) : exe(std::move(exe)), name_(std::move(name)) {}
  neff::Executable exe;
  std::string name_;
};

/// A host-side phase of the runtime, on the host's wall clock (ns since the
/// runtime was created).
struct HostEvent {
  std::string name;     ///< "load", "copy-in", "execute", "copy-out"
  double startNs, endNs;
  uint64_t run = 0;     ///< correlation id (0: not tied to one run)
  unsigned core = 0;
};

/// One submitted run and, once synchronized, what it did.
struct Run {
  uint64_t id;                 ///< correlation id, from 1
  const Model *model;
  const neff::Program *program;
  std::string entry;
  unsigned core;
  std::vector<std::vector<uint8_t>> inputBytes;
  bool done = false;
  sim::Result device;          ///< the device's account (chip clock)
  std::vector<Tensor> outputs;
  /// For a bucketed entry: the bucket that ran (-1: a static entry), the
  /// true size of each symbol and the fraction of the bucket's work that was
  /// padding. The outputs are sliced back to the true sizes.
  int bucket = -1;
  std::vector<int64_t> trueSizes;
  double paddingFraction = 0;
  const BucketSignature *signature = nullptr;
  double dispatchNs = 0;       ///< host time the run was dispatched
  double chipBaseNs = 0;       ///< where the chip's clock stood at that dispatch
};

/// A runtime over the cores of one simulated chip.
class Runtime {
public:
  /// Checks the config (cores exist on the target, when it is known).
  static llvm::Expected<std::unique_ptr<Runtime>> create(NeuronConfig config);

  const NeuronConfig &config() const { return config_; }

  /// Loads and validates a .neff (a "load" host event when tracing).
  llvm::Expected<Model *> load(llvm::StringRef path);
  /// Adopts an executable built in-process.
  Model *adopt(neff::Executable exe, std::string name);

  /// Queues a run of `entry` on `core` (one of the config's cores) with
  /// `inputs` copied in now. A bucketed entry picks its bucket from the
  /// inputs' shapes and pads them (and passes the masks). Returns the run's
  /// correlation id.
  llvm::Expected<uint64_t> submit(const Model &model, llvm::StringRef entry,
                                  llvm::ArrayRef<Tensor> inputs, unsigned core);
  /// Executes every queued run and copies their outputs out.
  llvm::Error synchronize();
  /// submit + synchronize on the first configured core; the outputs.
  llvm::Expected<std::vector<Tensor>> run(const Model &model, llvm::StringRef entry,
                                          llvm::ArrayRef<Tensor> inputs);

  /// A run by correlation id (nullptr when unknown).
  const Run *find(uint64_t id) const;
  /// The outputs of a synchronized run.
  llvm::ArrayRef<Tensor> outputs(uint64_t id) const;
  /// Every run since the last clear, in submission order.
  const std::vector<std::unique_ptr<Run>> &runs() const { return runs_; }
  const std::vector<HostEvent> &hostEvents() const { return host_; }
  /// Forgets finished runs and host events (a profiler's start).
  void clearHistory();
  /// Turns tracing on or off from now on.
  void setTraceModes(unsigned modes) { config_.traceModes = modes; }

  /// The profile runs are timed on: the config's target or the first
  /// model's.
  const HardwareModel *target() const { return target_; }
  /// Host time since creation, ns.
  double hostNowNs() const;

private:
  explicit Runtime(NeuronConfig config);
  NeuronConfig config_;
  const HardwareModel *target_ = nullptr;
  std::vector<std::unique_ptr<Model>> models;
  std::vector<std::unique_ptr<Run>> runs_;
  std::vector<HostEvent> host_;
  uint64_t nextId = 1;
  double chipClockNs = 0; ///< where the chip's clock stands after the last synchronize
  sim::TimingCache timingCache; ///< programs prepared once, for every later run
  std::chrono::steady_clock::time_point origin;
};

} // namespace neuronc::rt

#endif // NEURONC_SIMULATOR_RUNTIME_H
