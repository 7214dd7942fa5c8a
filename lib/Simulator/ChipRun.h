//===- ChipRun.h - The simulator's event loop, inside the library -*- C++ -*-===//
//
// Private to lib/Simulator: the timing inputs of a program, a core's state
// and ChipRun, the event loop of the timing model. Simulator.cpp runs
// single-core streams; Collectives.cpp the instructions of a core group.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_SIMULATOR_CHIPRUN_H
#define NEURONC_LIB_SIMULATOR_CHIPRUN_H

#include "Device.h"
#include "Execute.h"

#include "neuronc/Simulator/Simulator.h"

#include "llvm/ADT/DenseMap.h"

#include <deque>
#include <functional>
#include <limits>
#include <memory>

namespace neuronc::sim::detail {

constexpr double kInf = std::numeric_limits<double>::infinity();

inline llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// What the timing model needs of one instruction; it does not depend on
/// data, so it is computed once per program and profile.
struct Timing {
  double ns = 0;          ///< compute: engine occupancy; DMA: bytes at queue bandwidth
  double rate = 0;        ///< DMA: the queue's bytes per ns for this transfer
  double latencyNs = 0;   ///< compute: until results are visible
  int64_t hbmRead = 0, hbmWrite = 0, bytes = 0;
  bool sbuf = false, psum = false; ///< touches SBUF / PSUM (port sharing)
  bool dma = false, signal = false;
  /// A collective: starts when every core of its group has reached it; `ns`
  /// is the ring's time (collectiveNs()).
  bool collective = false;
  int64_t group = 0;
  isa::Engine engine = isa::Engine::dma;
  uint32_t waitFirst = 0, waitCount = 0; ///< its waits in ProgramTiming::waits
  enum Row : uint8_t { Other, Load, Multiply, Both } row = Other; ///< TensorE rows
};

/// The timing inputs of a program, and whether it writes its inputs (then
/// they cannot be bound to the caller's memory).
struct ProgramTiming {
  std::array<std::vector<Timing>, kStreams> streams;
  std::vector<isa::Wait> waits;
  bool writesInputs = false;
  const std::vector<Timing> &operator[](int64_t s) const { return streams[s]; }
};

/// Bandwidth as capacity per time bin, drawn from by transfers in any order
/// (a transfer that starts later in simulated time may be planned first).
/// A bin's capacity is fixed when it is first booked, from the bandwidth
/// (bytes/ns) `bandwidthAt` gives for the bin's start then.
class BandwidthLedger {
public:
  static constexpr double kBinNs = 256;
  explicit BandwidthLedger(std::function<double(double)> bandwidthAt)
      : bandwidthAt(std::move(bandwidthAt)) {}
  /// Bytes still free in bin `b` (bin b spans origin() + [b, b + 1) * kBinNs).
  double &bin(int64_t b) {
    while (static_cast<int64_t>(free.size()) <= b)
      free.push_back(bandwidthAt(origin_ + free.size() * kBinNs) * kBinNs);
    return free[b];
  }
  /// Starts the bins at `t` (the first job's start on the core) unless some
  /// are booked: a run's timing must not depend on where on the chip's
  /// clock it starts (the runtime starts each run where the last ended).
  void anchor(double t) {
    if (free.empty())
      origin_ = t;
  }
  double origin() const { return origin_; }

private:
  std::function<double(double)> bandwidthAt;
  std::deque<double> free;
  double origin_ = 0;
};

/// One core: its queue of jobs and the state of the running one.
struct Core {
  std::vector<size_t> jobs;
  size_t next = 0;        ///< the next job to start
  int64_t job = -1;       ///< the running job, or -1
  const ProgramTiming *timing = nullptr;
  std::unique_ptr<Device> dev;
  std::unique_ptr<Executor> exec;
  /// Per DMA queue: its slice of the core's HBM share.
  std::array<std::unique_ptr<BandwidthLedger>, kStreams> hbm;
  std::vector<Tensor> outputs; ///< bound output tensors (invalid: decode)
  int64_t remaining = 0;
  double base = 0;        ///< the running job's start
  double lastEnd = 0;     ///< the previous job's end
  std::array<size_t, kStreams> cursor{};
  std::array<double, kStreams> freeAt{}, dataFree{}, candidate{};
  std::array<bool, kStreams> dirty{};
  std::array<std::vector<double>, kStreams> signals;
  double loadFree = 0, multiplyFree = 0, lastMultiplyStart = 0, loadDone = 0;
  double sbufPortFree = 0, psumPortFree = 0;
};

/// One run of jobs on the cores of a chip: the event loop of the timing
/// model, executing each instruction's values as it starts.
class ChipRun {
public:
  ChipRun(llvm::ArrayRef<Job> jobs, const Options &options, const HardwareModel *hw)
      : jobs(jobs), options(options), hw(hw), results(jobs.size()) {}

  llvm::Expected<std::vector<Result>> run();

private:
  llvm::ArrayRef<Job> jobs;
  const Options &options;
  const HardwareModel *hw;
  std::vector<Result> results;
  llvm::DenseMap<const neff::Program *, const ProgramTiming *> timings;
  std::vector<std::unique_ptr<ProgramTiming>> owned;
  std::vector<Core> cores;

  /// Checks every job against the profile and the chip, and analyzes each
  /// program's timing once.
  llvm::Error prepare();
  /// The HBM bandwidth of one core at `t`: the chip's, divided among the
  /// cores that have work then (a core whose last transfer has completed
  /// by `t` and that has no job left frees its share).
  double hbmShareAt(double t, int64_t chip) const;
  /// Starts the next job of `c` (if any), not before `at`.
  void startJob(Core &c, double at);
  /// Finishes the running job of `c`: reads its outputs back.
  llvm::Error finishJob(Core &c);
  /// Finishes `c`'s job when its last instruction issued and starts the
  /// next ones (empty programs finish at once).
  llvm::Error advance(Core &c);
  /// When the engine (and its TensorE row or shared port) is ready for `t`,
  /// semaphores aside.
  double readyAt(Core &c, int64_t s, const Timing &t);
  /// The earliest time stream `s` of `c` can start its next instruction, or
  /// infinity when it is blocked or done.
  double candidateOf(Core &c, int64_t s);
  /// candidateOf for `c` alone: its engine and its semaphores.
  double ownCandidateOf(Core &c, int64_t s);
  /// Issues the collective at the head of stream `s` on every core of its
  /// group at `at`: its time on each core and, with values, sumParts or
  /// moveParts.
  llvm::Error issueCollective(int64_t s, double at);
  /// The values of an all_reduce (or reduce_scatter) at the head of stream
  /// `s` of cores 0..group-1: the f32 sum of the sources into each
  /// destination (its part of it), rounded to its type once.
  llvm::Error sumParts(int64_t s, int64_t group);
  /// The values of an all_gather, all_to_all or send_recv at the head of
  /// stream `s` of cores 0..group-1: elements of type T moved between the
  /// cores unchanged (zeros where nothing arrives).
  template <typename T> llvm::Error moveParts(int64_t s, int64_t group);
  /// With Options::checkReads: fails when the source of the collective at
  /// the head of stream `s` of `c` holds bytes nothing wrote.
  llvm::Error checkCollectiveSource(Core &c, int64_t s);
  /// The instruction, of any core, that can start first; false when no core
  /// has work left. Fails on a deadlock.
  llvm::Expected<bool> pick(Core *&bestCore, int64_t &best, double &bestAt);
  /// Issues the next instruction of stream `best` of `c` at `bestAt`: its
  /// timing, its values, its signal.
  llvm::Error issue(Core &c, int64_t best, double bestAt);
  /// A DMA's data phase from `start`: returns when its data has moved.
  double timeDma(Core &c, int64_t best, const Timing &t, Result &r, double &start);
  /// A compute instruction from `start`: returns when it ends.
  double timeCompute(Core &c, int64_t best, const Timing &t, Result &r, double start);
};

} // namespace neuronc::sim::detail

#endif // NEURONC_LIB_SIMULATOR_CHIPRUN_H
