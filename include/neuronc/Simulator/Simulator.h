//===- Simulator.h - Running executables on the simulated chip --*- C++ -*-===//
//
// Executes programs of an executable on the NeuronCores of one simulated
// chip. Every engine and DMA queue of a core is a sequencer with its own
// stream, blocked by semaphore waits and released by signals; instructions
// take the cycles of the target's cost formulas, DMA the queue's bandwidth
// after a fixed start latency, and every byte to or from HBM passes the
// core's share of the chip's HBM bandwidth (divided evenly among the cores
// that run together, and at most the core's own share).
// Instructions are executed, with real data, in the order the timing model
// starts them, so results are what the synchronized program computes.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SIMULATOR_SIMULATOR_H
#define NEURONC_SIMULATOR_SIMULATOR_H

#include "neuronc/Host/Tensor.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"

#include "llvm/Support/Error.h"

#include <array>
#include <memory>
#include <vector>

namespace neuronc::sim {

constexpr int64_t kStreams = isa::kMaxStreams;

/// What the timing model derives from a program before running it (costs,
/// waits, TensorE rows, ports), kept for later runs of the same program on
/// the same profile, as a runtime prepares an executable once when it loads
/// it. The programs must outlive the cache.
class TimingCache {
public:
  TimingCache();
  ~TimingCache();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

struct Options {
  /// Reuse per-program timing inputs across calls (optional).
  TimingCache *cache = nullptr;
  /// Compute values (false: timing only, and no outputs).
  bool data = true;
  /// Replay on another profile than the executable's target.
  const HardwareModel *target = nullptr;
  /// Record one TraceEvent per instruction.
  bool trace = false;
  /// Checked run (with data): every read of SBUF, PSUM or scratch bytes
  /// that nothing wrote fails the run, naming the instruction. Outputs are
  /// checked in every run with data: one not fully written is an error.
  bool checkReads = false;
  /// Keep the scratch area's bytes after the run (Result::scratch), so
  /// that internal tensors can be read back (compile them with distinct
  /// scratch bytes).
  bool keepScratch = false;
};

/// One executed instruction, for profiles. Times are ns on the chip's clock.
struct TraceEvent {
  uint8_t stream;
  uint32_t index;    ///< position in its stream
  double issue;      ///< the instruction left its queue (engine free, waits satisfied)
  double start, end; ///< compute: busy on the engine; DMA: the data phase
  double done;       ///< results visible (signal sent)
  double waitNs;     ///< how long semaphores held it after its engine (row, port) was ready
};

/// What one program run did.
struct Result {
  std::vector<Tensor> outputs;             ///< when the job decodes them
  std::vector<std::vector<uint8_t>> outputBytes; ///< otherwise: device bytes per output
  unsigned core = 0;
  double startNs = 0, endNs = 0;           ///< on the chip's clock
  double deviceNs = 0;                     ///< endNs - startNs
  std::array<double, kStreams> busyNs{};   ///< per stream (DMA: data phases)
  std::array<int64_t, kStreams> instructions{};
  int64_t hbmReadBytes = 0, hbmWriteBytes = 0;
  int64_t dmaTransfers = 0, dmaBytes = 0;
  double waitNs = 0;                       ///< summed semaphore waits
  double collectiveNs = 0;                 ///< summed collective (ring) times
  int64_t collectiveBytes = 0;             ///< bytes this core gave to collectives
  /// Summed time this core's collectives waited for the group's last core
  /// to reach them (load imbalance, or the others' earlier work).
  double collectiveWaitNs = 0;
  std::vector<TraceEvent> trace;
  std::vector<uint8_t> scratch;            ///< with Options::keepScratch
};

/// One program to run on one core of the chip.
struct Job {
  const neff::Executable *exe = nullptr;
  const neff::Program *program = nullptr;
  /// One host tensor per input variable, in order, with matching shapes
  /// (element types are converted). May be empty when `Options::data` is
  /// false.
  std::vector<Tensor> inputs;
  /// Or the inputs already in device format (encodeInput), which take
  /// precedence when given.
  std::vector<std::vector<uint8_t>> inputBytes;
  /// Decode outputs into Result::outputs (else Result::outputBytes).
  bool decodeOutputs = true;
  unsigned core = 0;
  /// Earliest start on the chip's clock. Jobs on one core run one after the
  /// other, in the order given.
  double notBeforeNs = 0;
};

/// `t` in the device format of `v` (bf16/f16 rounded to nearest even,
/// integers truncated and saturated, the last two dims swapped for a
/// host-transposed input); the shape must be v's host shape. A sharded
/// input of a tensor-parallel program is the part core `rank` of its
/// `group` receives.
std::vector<uint8_t> encodeInput(const Tensor &t, const neff::Variable &v, int64_t rank = 0,
                                 int64_t group = 1);
/// The part of the caller's tensor `t` core `rank` of a `group`-core
/// tensor-parallel group receives for input `v` (`t` itself when `v` is not
/// sharded).
Tensor shardInput(const Tensor &t, const neff::Variable &v, int64_t rank, int64_t group);
/// The caller's whole tensor of output `v` from the parts the cores of a
/// `group`-core group returned (`parts[r]` core r's): the shardParts parts
/// joined along shardDim; `parts[0]` itself when `v` is not sharded.
Tensor gatherOutput(llvm::ArrayRef<Tensor> parts, const neff::Variable &v, int64_t group);
/// "NeuronCore 40 does not exist: ...": the error for a core number past
/// the target's instance (its chips joined by NeuronLink).
std::string missingCoreMessage(const HardwareModel &hw, unsigned core);
/// The host element type of a device element type.
DType hostDType(isa::DType t);
/// "tensor<4096x4096xf32>": the host type of `v` (its host shape).
std::string variableType(const neff::Variable &v);
/// The host tensor of device bytes of `v`.
Tensor decodeOutput(const uint8_t *bytes, const neff::Variable &v);

/// Runs every job on the chip, cores concurrently, sharing the chip's HBM
/// bandwidth; results are in job order.
llvm::Expected<std::vector<Result>> runChip(llvm::ArrayRef<Job> jobs,
                                            const Options &options = {});

/// Runs `program` of `exe` alone on core 0.
llvm::Expected<Result> run(const neff::Executable &exe, const neff::Program &program,
                           llvm::ArrayRef<Tensor> inputs, const Options &options = {});

} // namespace neuronc::sim

#endif // NEURONC_SIMULATOR_SIMULATOR_H
