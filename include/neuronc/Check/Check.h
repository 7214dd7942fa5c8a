//===- Check.h - Checked runs: the simulator against the interpreter -*- C++ -*-===//
//
// A checked run compiles a program, runs it on the simulator with every
// read of unwritten memory caught, runs the reference interpreter on the
// same inputs, and compares every output. Every kernel's result (every
// internal tensor keeps its own bytes for that) is compared with the
// interpreter's value of the op it computes, evaluated on the simulator's
// values of that op's operands, so the first kernel that diverges is found
// and rounding that accumulates along the program is not blamed on one.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_CHECK_CHECK_H
#define NEURONC_CHECK_CHECK_H

#include "neuronc/Host/Tensor.h"
#include "neuronc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace neuronc::check {

/// An element agrees when |got - want| <= atol * max(1, max|want|) +
/// rtol * |want| (NaN agrees only with NaN). bf16/f16 results use at least
/// kLowPrecisionRtol and an atol of two units in the last place of the
/// largest magnitude (kBf16Atol, kF16Atol): a value near zero that is a sum
/// of larger terms (an attention average, a convolution) carries the
/// rounding of those terms, not of itself.
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-5;
};
constexpr double kLowPrecisionRtol = 2e-2;
constexpr double kBf16Atol = 0x1p-7;  // 2 ulps of bf16 (8 significant bits) at 1
constexpr double kF16Atol = 0x1p-10; // 2 ulps of f16 (11 significant bits) at 1

/// How two tensors differ.
struct Difference {
  double maxAbs = 0, maxRel = 0;
  int64_t bad = 0, total = 0;
  int64_t firstBad = -1; ///< flat index of the first element outside the tolerance
  bool shapeMismatch = false;
  bool ok() const { return bad == 0 && !shapeMismatch; }
};

/// Compares `got` with `want` under `tol`.
Difference compare(const Tensor &got, const Tensor &want, Tolerance tol);

/// The first kernel whose result differs from the interpreter's.
struct Divergence {
  std::string kernel, kind, source, location;
  std::string tensor;  ///< the variable it wrote that differs
  std::string value;   ///< which value that is ("output #0", "result of neuron.add at f:3:8")
  std::string remark;  ///< how the kernel was lowered
  Difference difference;
};

/// What a checked run found.
struct Report {
  std::string entry, target;
  int64_t cores = 1; ///< the tensor-parallel group that ran
  Tolerance tolerance;
  std::vector<std::string> outputTypes;
  std::vector<Difference> outputs;
  /// The simulator refused to finish: a read of unwritten memory, an
  /// output not fully written (names the instruction, kernel and source).
  std::string simulatorError;
  /// Fusion changed the result: the fused program, interpreted, already
  /// differs from the unfused one.
  std::vector<Difference> fusedOutputs;
  std::optional<Divergence> first;
  bool ok() const;
};

struct Options {
  BackendOptions backend;
  bool fuse = false;
  /// Take arguments only read transposed in the device's layout
  /// (`--prepack-weights`); the simulator's loads swap them.
  bool prepackWeights = false;
  /// Tensor parallelism (`--tp=N`): the program is sharded over N cores,
  /// which run together on the simulator; every core's outputs are compared
  /// with the unsharded program's, and core 0's kernels with the interpreter.
  int64_t tp = 1;
  bool sequenceParallel = false; ///< with tp > 1: --tp-sequence-parallel
  Tolerance tolerance;
};

/// Checks `entry` of `module` (imported into neuron, not fused or lowered;
/// the module is consumed) on `args`.
llvm::Expected<Report> checkEntry(mlir::ModuleOp module, llvm::StringRef entry,
                                  llvm::ArrayRef<Tensor> args, const Options &options);

/// The report as text: one line per output, then the first divergence.
void printReport(llvm::raw_ostream &os, const Report &report);

} // namespace neuronc::check

#endif // NEURONC_CHECK_CHECK_H
