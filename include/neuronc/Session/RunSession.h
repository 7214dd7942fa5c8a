//===- RunSession.h - What one neuron-run invocation does -------*- C++ -*-===//
//
// neuron-run as a library: the reference interpreter on a function, the
// simulator on an executable (read from a .neff, or compiled in-process),
// profiles, and checked runs. `neuron-run` parses its flags into a
// RunSessionOptions and calls runRunSession.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SESSION_RUNSESSION_H
#define NEURONC_SESSION_RUNSESSION_H

#include "neuronc/Pipelines/Pipelines.h"

#include <cstdint>
#include <string>
#include <vector>

namespace neuronc {

/// Everything one run needs; the fields are neuron-run's flags.
struct RunSessionOptions {
  std::string input = "-";               ///< a .mlir program or an executable
  std::string entry;                     ///< function or entry point ('' the only one)
  std::vector<std::string> inputFiles;   ///< one .npy per argument
  std::vector<std::string> outputFiles;  ///< one .npy per result
  bool randomInputs = false;
  std::string sizes;                     ///< `seq=300,...` for random bucketed inputs
  uint64_t seed = 0;
  bool simulate = false;                 ///< compile a .mlir and run it on the simulator
  std::string target;                    ///< compile for / replay on ('' the executable's)
  bool noData = false;                   ///< timing only
  std::vector<unsigned> cores;
  unsigned warmup = 0;
  unsigned iterations = 1;
  std::string profileDir;
  bool fuse = false;
  bool prepackWeights = false; ///< --check / --sim: compile with --prepack-weights
  bool check = false;
  /// --sim / --check: shard over this many cores (neuronc --tp=N).
  int64_t tp = 1;
  bool sequenceParallel = false;         ///< with tp: --tp-sequence-parallel
  double checkRtol = 1e-3;
  double checkAtol = 1e-5;
  ImportOptions import;
  BucketOptions bucket;
  /// Prefix of every message ("neuron-run").
  std::string tool = "neuron-run";
};

/// Runs as `options` say, printing summaries to stdout and diagnostics to
/// stderr. Returns the process exit code (0 on success; 1 on an error or a
/// failed check). Output files are written all or none.
int runRunSession(const RunSessionOptions &options);

} // namespace neuronc

#endif // NEURONC_SESSION_RUNSESSION_H
