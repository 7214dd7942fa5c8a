//===- Simulator.h - Running an executable on the simulated core -*- C++ -*-===//
//
// Executes one program of an executable: every engine and DMA queue is a
// sequencer with its own stream, blocked by semaphore waits and released by
// signals; instructions take the cycles of the target's cost formulas and
// DMA the queue's bandwidth after a fixed start latency. Instructions are
// executed, with real data, in the order the timing model runs them, so
// results are what the synchronized program computes.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SIMULATOR_SIMULATOR_H
#define NEURONC_SIMULATOR_SIMULATOR_H

#include "neuronc/Interpreter/Tensor.h"
#include "neuronc/Target/HardwareModel.h"
#include "neuronc/Target/Neff.h"

#include "llvm/Support/Error.h"

#include <array>
#include <vector>

namespace neuronc::sim {

struct Options {
  /// Compute values (false: timing only, outputs left zero).
  bool data = true;
  /// Replay on another profile than the executable's target.
  const HardwareModel *target = nullptr;
  /// Record one TraceEvent per instruction.
  bool trace = false;
};

/// One executed instruction, for profiles.
struct TraceEvent {
  uint8_t stream;
  uint32_t index;     ///< position in its stream
  double start, end;  ///< ns; DMA: the data phase
  double issue;       ///< ns the instruction was issued (waits satisfied)
  double waitNs;      ///< ns it waited on semaphores after the engine was free
};

struct Result {
  std::vector<Tensor> outputs;
  double deviceNs = 0;                       ///< last completion
  std::array<double, mlir::nisa::kMaxStreams> busyNs{}; ///< per stream
  std::array<int64_t, mlir::nisa::kMaxStreams> instructions{};
  std::vector<TraceEvent> trace;
};

/// Runs `program` of `exe` on `inputs` (one host tensor per input variable,
/// in order, with matching shapes; element types are converted).
llvm::Expected<Result> run(const neff::Executable &exe, const neff::Program &program,
                           llvm::ArrayRef<Tensor> inputs, const Options &options = {});

} // namespace neuronc::sim

#endif // NEURONC_SIMULATOR_SIMULATOR_H
