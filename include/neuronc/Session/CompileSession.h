//===- CompileSession.h - What one neuronc invocation does ------*- C++ -*-===//
//
// The compiler driver as a library: read the input once, answer from the
// compile cache when nothing but the executable is asked for, compile stage
// by stage, write the reports and phase dumps, and write the output whole or
// not at all. `neuronc` parses its flags into a SessionOptions and calls
// runCompileSession; a program that embeds the compiler does the same.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SESSION_COMPILESESSION_H
#define NEURONC_SESSION_COMPILESESSION_H

#include "neuronc/Pipelines/Pipelines.h"

#include <string>

namespace neuronc {

/// Everything one compile needs besides the pipeline's own options.
struct SessionOptions {
  CompileOptions compile;
  std::string input = "-";   ///< '-' for stdin
  std::string output = "-";  ///< '-' for stdout
  std::string fusionReport;  ///< '' none, '-' stderr, *.json JSON
  std::string bucketReport;  ///< '' none, '-' stderr, *.json JSON
  std::string bucketHistogram;
  std::string dumpPhasesTo;  ///< directory for <input>.<n>.<stage>.mlir
  std::string cacheDir;      ///< '' the default directory
  bool noCache = false;
  std::string cacheUrl;      ///< '' no shared cache; else http://host[:port][/prefix]
  double cacheTimeout = 5;   ///< seconds each wait on the shared cache may take
  /// Prefix of every message ("neuronc").
  std::string tool = "neuronc";
};

/// Checks option combinations that contradict each other; the error names
/// the flags.
llvm::Error validateSessionOptions(const SessionOptions &options);

/// Compiles as `options` say and writes the output; diagnostics go to
/// stderr. Returns the process exit code (0 on success). Nothing is left
/// behind on failure: no output, no report, no cache entry.
int runCompileSession(const SessionOptions &options);

} // namespace neuronc

#endif // NEURONC_SESSION_COMPILESESSION_H
