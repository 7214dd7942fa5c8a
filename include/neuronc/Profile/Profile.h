//===- Profile.h - Where device time went, and why ---------------*- C++ -*-===//
//
// Turns what a runtime recorded (every run's device timeline, the host
// phases) into a profile:
//
// - device time attributed to kernels and to the source ops they came from
//   (the key-averages table, like torch.profiler's key_averages().table());
// - summary metrics named like the Neuron profiler's (total_time, engine
//   active time, MFU, MBU, arithmetic intensity against the ridge point,
//   DMA transfer sizes) and a verdict per kernel from the utilization
//   measured in its own time span;
// - a Chrome Trace Event file (Perfetto, chrome://tracing), a self-contained
//   HTML report, and the per-instruction times neuron-inspect annotates a
//   disassembly with.
//
// Attribution. Every kernel run spans from its first instruction's start (a
// DMA's start is its issue) to its last instruction's end. Device time is
// cut into the pieces between span boundaries; a piece is shared equally by
// the kernels active in it, and pieces where none is are idle. A kernel's
// time is split among its source ops in proportion to the busy time of
// their instructions. So the rows add up to the device time exactly.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_PROFILE_PROFILE_H
#define NEURONC_PROFILE_PROFILE_H

#include "neuronc/Simulator/Runtime.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace neuronc::profile {

/// Utilization of each resource over a span of time, as fractions.
struct Utilization {
  double tensor = 0, vector = 0, scalar = 0, gpsimd = 0;
  double dma = 0; ///< any DMA queue moving data
  /// HBM-MBU: HBM bytes (read + written) over time against the HBM bandwidth
  /// the core could draw (the chip's, divided among the cores running).
  double hbm = 0;
  /// DMA-MBU: bytes the DMA queues moved over time against their peak.
  double dmaMbu = 0;
  /// MBU, the busier of the two memory paths.
  double mbu() const { return hbm > dmaMbu ? hbm : dmaMbu; }
  double mfu = 0; ///< matmul FLOPs over time at TensorE's bf16 peak
};

/// What bounds a kernel, judged from its measured timeline
/// (Bottleneck.cpp): a resource busy most of the kernel's time, the DMA's
/// efficiency when the queues are busy but move few bytes, the semaphore
/// waits that left the engines idle, or latency when the kernel is short.
struct Verdict {
  std::string verdict;    ///< "memory-bound (HBM)", "compute-bound (TensorE)", ...
  std::string evidence;   ///< "MBU 96.1 % (>= 60 % is good)"
  std::string hint;       ///< what would move the bound, or empty
};

/// The timeline facts of one kernel, summed over its calls, that decide its
/// verdict.
struct KernelEvidence {
  double spanNs = 0;
  Utilization utilization;
  double dmaBusyNs = 0;    ///< data phases summed over the queues
  int64_t dmaBytes = 0;
  int64_t dmaRuns = 0;     ///< contiguous runs of the transfers (descriptor elements)
  /// Time each consumer (compute engines 0-3, then the DMA queues as one)
  /// spent held by semaphores: the union of its instructions' waits within
  /// the kernel's spans, by what the binding wait was for: compute engines
  /// 0-3, DMA loads into SBUF/PSUM (4), DMA stores and HBM-to-HBM copies (5).
  std::array<std::array<double, 6>, 5> waitNs{};
  /// The source op and location of the producer whose signals held the
  /// busiest consumer longest ("neuron.matmul at m.mlir:5:8"), and of the
  /// consumer instructions it held.
  std::string topProducer, topConsumer;
  /// HBM bytes read by direct transfers (not gathers), and the distinct HBM
  /// bytes those reads cover: reads above the distinct bytes re-read
  /// operands that did not stay in SBUF.
  int64_t hbmReadBytes = 0, hbmDistinctReadBytes = 0;
  /// Busy time of each compute engine's instructions that read PSUM (the
  /// evictions of matmul results), and TensorE's split: load_stationary,
  /// multiply_moving and PE transposes.
  std::array<double, 4> psumReadNs{};
  double stationaryNs = 0, multiplyNs = 0, transposeNs = 0;
  /// Cores whose runs shared the chip's HBM with this kernel's (1: alone).
  int hbmSharers = 1;
  /// Per DMA queue: its data phases within the kernel, and which transfers
  /// it carried (bit 0: loads into SBUF/PSUM, bit 1: stores and HBM-to-HBM
  /// copies), so a wait on stores can be judged against the queues that
  /// carried them.
  std::array<double, isa::kMaxQueues> queueBusyNs{};
  std::array<uint8_t, isa::kMaxQueues> queueCarries{};
  /// Collectives (a tensor-parallel program's all-reduces): their ring time,
  /// the time they waited for the group's last core, the bytes each core
  /// gave and the group's size.
  double collectiveNs = 0, collectiveWaitNs = 0;
  double collectiveModelNs = 0; ///< what the ring model gives them (collectiveNs())
  int64_t collectiveBytes = 0, collectiveGroup = 0, collectives = 0;
};

/// Device time of one kernel, over every call.
struct KernelStats {
  std::string program, name, kind, source, location;
  int64_t calls = 0;
  double deviceNs = 0;                ///< attributed (see the file comment)
  double spanNs = 0;                  ///< summed spans of its calls
  std::array<double, 4> busyNs{};     ///< per compute engine
  /// TensorE active: the union of its instructions' intervals (a
  /// load_stationary overlaps the multiply before it, so busyNs counts twice).
  double tensorActiveNs = 0;
  double dmaBusyNs = 0;               ///< summed data phases on every queue
  std::array<int64_t, 4> instructions{};
  int64_t dmaTransfers = 0, dmaBytes = 0;
  int64_t hbmReadBytes = 0, hbmWriteBytes = 0;
  int64_t matmulFlops = 0, transposeFlops = 0, vectorScalarElements = 0;
  Utilization utilization;            ///< within its own spans
  KernelEvidence evidence;            ///< the timeline facts of its verdict
  Verdict verdict;
  /// The static roofline of its calls (the busiest resource at its peak,
  /// every resource overlapping the others) and the resource it names.
  double boundNs = 0;
  std::string boundResource;
  /// neuron-inspect's prediction: the span and verdict of the kernel in a
  /// replay of its program alone on one core, without data (replay()).
  /// Zero and empty when there is none (the profile itself is a replay).
  double predictedNs = 0;
  std::string predictedVerdict;
  /// Why the measured span is more than 1.5x the prediction (or below it),
  /// or the verdicts differ; empty when they agree (Prediction.cpp).
  std::string predictionNote;
};

/// Kernels that share a verdict, and what fixing it could save: the
/// program-level view of the bottlenecks (ProgramView.cpp).
struct Opportunity {
  std::string verdict;              ///< the kernels' shared verdict
  std::vector<std::string> kernels; ///< program/kernel, by device time
  double deviceNs = 0;              ///< their device time
  /// Device time above each kernel's roofline lower bound, summed: what
  /// reaching the bounds would save.
  double savableNs = 0;
  std::string hint;                 ///< the hint of the largest kernel
};

/// Device time of one source op (by name and location: two ops of one
/// name at two lines are two), over every kernel it is in.
struct OpStats {
  std::string name;
  /// As the debug map records it: file:line:col, several joined by "; "
  /// for a fused op (empty when the source had none).
  std::string location;
  /// The source ops a fused op absorbed, in source order (its kernel's).
  std::vector<neff::AbsorbedOp> absorbed;
  int64_t calls = 0;     ///< kernel runs it took part in
  double deviceNs = 0;   ///< attributed
  double busyNs = 0;     ///< its instructions' engine and DMA busy time
  int64_t instructions = 0;
  int64_t hbmReadBytes = 0, hbmWriteBytes = 0;
  std::vector<std::string> kernels; ///< which kernels (program/kernel)
};

/// One run of a tensor-parallel program (one core of its group): where its
/// device time went, from its trace.
struct CoreCommunication {
  uint64_t run = 0;
  unsigned core = 0;
  int64_t group = 1;
  double deviceNs = 0;
  double computeNs = 0;    ///< union of every other instruction's interval
  double collectiveNs = 0; ///< union of its collectives' intervals
  /// Collective time while nothing else ran on the core: communication the
  /// program did not hide behind compute.
  double exposedNs = 0;
  double waitNs = 0;       ///< collectives waiting for the group's last core
  int64_t bytes = 0;       ///< bytes the core gave to its collectives
};

/// The whole profile.
struct Profile {
  const HardwareModel *hw = nullptr;
  const rt::Runtime *runtime = nullptr;
  std::vector<const rt::Run *> runs;  ///< the profiled runs
  std::vector<double> runDeviceNs;    ///< device time per run
  double deviceNs = 0;                ///< summed over runs
  double idleNs = 0;                  ///< no kernel active
  std::vector<KernelStats> kernels;   ///< by device time, largest first
  std::vector<OpStats> ops;           ///< by device time, largest first
  std::map<std::string, double> summary; ///< the summary metrics
  /// Kernels grouped by verdict, by the time reaching their bounds would
  /// save, largest first.
  std::vector<Opportunity> opportunities;
  /// The roofline lower bound of every run: max(matmul FLOPs / TensorE's
  /// bf16 peak, HBM bytes / memory bandwidth) per kernel, summed.
  double lowerBoundNs = 0;
  /// Per run of a tensor-parallel program, in run order (empty when no
  /// profiled program has collectives).
  std::vector<CoreCommunication> communication;
  /// The runs of a replay (replay()), which `runs` points into.
  std::vector<std::shared_ptr<rt::Run>> replayed;
};

/// Why `kernel`'s measurement and `alone`, the same kernel in its
/// program's replay, differ (spans more than 1.5x apart, or another
/// verdict), in words, or empty when they agree.
std::string explainPrediction(const KernelStats &kernel, const KernelStats &alone);
/// Fills every kernel's prediction (predictedNs, predictedVerdict,
/// predictionNote) from a replay of each profiled program alone.
llvm::Error predictKernels(Profile &profile);
/// The kernels whose measurement and prediction differ, largest gap first
/// (at most `limit`), one line each with the explanation.
std::string predictionText(const Profile &profile, size_t limit = 5);

/// The roofline lower bound of one kernel (all its calls) on `hw`.
double kernelLowerBoundNs(const KernelStats &kernel, const HardwareModel &hw);
/// Fills profile.opportunities and profile.lowerBoundNs from its kernels.
void summarizeBottlenecks(Profile &profile);
/// "Where the time goes" lines: the lower bound and the gap, then the
/// top `limit` opportunities with their kernels and hints.
std::string bottleneckText(const Profile &profile, size_t limit = 3);

/// Runs of one bucket of a bucketed entry point.
struct BucketUse {
  std::string entry;
  std::string bucket;     ///< "seq=128"
  std::string trueSizes;  ///< "seq=100" (the last run's; "several" when they differ)
  int64_t runs = 0;
  double paddingFraction = 0; ///< of the bucket's work, averaged over its runs
};
/// Which buckets the profiled runs used, in first-use order.
std::vector<BucketUse> bucketUses(const Profile &profile);
/// One line per bucket use ("bucket seq=128 ran 3 time(s) for seq=100:
/// 21.9 % of its work was padding"), empty for static programs.
std::string bucketSummaryText(const Profile &profile);
/// For tensor-parallel runs, one line per core and one for the group: device
/// time split into compute, collective and exposed communication (empty
/// when no profiled program has collectives).
std::string communicationText(const Profile &profile);

/// The waits that explain a kernel, as indices of KernelEvidence::waitNs:
/// the consumer (the busiest compute engine that waited at all, else 4,
/// the DMA queues) and the producer class it waited on longest.
std::pair<int, int> dominantWait(const KernelEvidence &evidence);
/// The verdict of a kernel from its timeline evidence on `hw`.
Verdict diagnose(const KernelEvidence &evidence, const HardwareModel &hw);

/// Builds the profile of every finished run the runtime holds (it must have
/// traced the device), each kernel with its prediction (replay()).
llvm::Expected<Profile> analyze(const rt::Runtime &runtime);
/// Builds the profile of `runs` (finished, device-traced) timed on `hw`.
/// With `predict`, each kernel's prediction comes from replaying its
/// program alone.
llvm::Expected<Profile> analyzeRuns(const HardwareModel &hw, std::vector<const rt::Run *> runs,
                                    bool predict);
/// neuron-inspect's prediction (Replay.cpp): every program of `exe` replayed
/// alone on core 0 of `hw` without data, timing only. What its instruction
/// streams and the cost formulas say (DMA efficiency, semaphore
/// dependencies, ports), with no other core's traffic; its kernels carry
/// the verdicts a profile would give.
llvm::Expected<Profile> replay(const neff::Executable &exe, const HardwareModel &hw);

/// The key-averages table: one row per source op, then one per kernel,
/// sorted by device time; at most `rowLimit` rows each (0: all).
std::string keyAveragesTable(const Profile &profile, size_t rowLimit = 0);
/// Summary metrics, per-kernel verdicts and per-run device times.
llvm::json::Value summaryJson(const Profile &profile);
/// The Chrome Trace Event document: host phases, one track per engine
/// (TensorE as LoadStationary and MultiplyMoving rows), one per DMA queue,
/// semaphore counters; the host on its wall clock and the devices on the
/// simulated clock from the first profiled run, apart (ChromeTrace.cpp).
llvm::json::Value chromeTrace(const Profile &profile);
/// The self-contained HTML report (no network): summary, engine timeline,
/// key-averages, roofline chart.
std::string htmlReport(const Profile &profile);
/// Measured start, duration and semaphore wait of every instruction of
/// every profiled program (averaged over runs), keyed by the executable's
/// content hash, for `neuron-inspect --profile`.
llvm::json::Value instructionTimes(const Profile &profile);

/// Measured [start, duration, wait] (ns) of each instruction, per program
/// name and stream: what an instructions.json holds.
using MeasuredTimes =
    std::map<std::string, std::array<std::vector<std::array<double, 3>>, sim::kStreams>>;
/// Parses the text of an instructions.json (`name` is its path, for the
/// messages) and checks it measured `exe`: the content hash, program names,
/// and one finite, non-negative triple per instruction of each stream.
llvm::Expected<MeasuredTimes> parseInstructionTimes(llvm::StringRef text, llvm::StringRef name,
                                                    const neff::Executable &exe);
/// Reads `path` (a profile directory or its instructions.json) with
/// parseInstructionTimes.
llvm::Expected<MeasuredTimes> readInstructionTimes(llvm::StringRef path,
                                                   const neff::Executable &exe);

/// Collects a runtime's runs between start() and stop() and exports them.
class Profiler {
public:
  explicit Profiler(rt::Runtime &runtime) : runtime(runtime) {}
  /// Forgets earlier runs and turns device and runtime tracing on.
  void start();
  /// Turns tracing back to what it was.
  void stop();
  /// Synchronizes the device (so no run is left without its device time),
  /// then analyzes.
  llvm::Expected<Profile> collect();
  /// collect(), then writes into `dir` (created if needed): key_averages.txt,
  /// summary.json, trace.json, report.html and instructions.json. Each file
  /// is written whole or not at all.
  llvm::Expected<Profile> exportTo(llvm::StringRef dir);

private:
  rt::Runtime &runtime;
  unsigned savedModes = 0;
};

/// The median of sorted values (the mean of the middle two for an even
/// count; 0 for none): what neuron-run, summary.json and the report print.
double medianOf(llvm::ArrayRef<double> sorted);

/// "1.234 ms", "56.7 us", "890 ns".
std::string formatNs(double ns);
/// "64.0 MiB".
std::string formatBytes(double bytes);

} // namespace neuronc::profile

#endif // NEURONC_PROFILE_PROFILE_H
