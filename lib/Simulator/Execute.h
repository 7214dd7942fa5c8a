//===- Execute.h - What each instruction computes ---------------*- C++ -*-===//

#ifndef NEURONC_LIB_SIMULATOR_EXECUTE_H
#define NEURONC_LIB_SIMULATOR_EXECUTE_H

#include "Device.h"

#include "llvm/Support/Error.h"

namespace neuronc::sim {

/// The functional half of the simulator: applies one instruction to the
/// device memory. Engines compute in f32 (i32 when every operand is an
/// integer); results are rounded to the destination's element type.
class Executor {
public:
  explicit Executor(Device &device) : dev(device) {}

  /// Executes `inst`; fails on run-time errors (an out-of-range gather
  /// index, integer division by zero).
  llvm::Error execute(const isa::Instruction &inst);

private:
  Device &dev;
  /// TensorE's stationary matrix: K partitions x M values.
  std::vector<float> stationary;
  int64_t stationaryK = 0, stationaryM = 0;
  std::vector<float> buf[5];
  /// A run of one side of a DMA: first byte, elements, stride (elements).
  struct Run {
    uint8_t *p;
    int64_t n, s;
  };
  std::vector<Run> runsFrom, runsTo;
  std::vector<int32_t> ibuf[5];

  float *fbuf(int i, int64_t n) {
    if (static_cast<int64_t>(buf[i].size()) < n)
      buf[i].resize(n);
    return buf[i].data();
  }
  int32_t *ibufOf(int i, int64_t n) {
    if (static_cast<int64_t>(ibuf[i].size()) < n)
      ibuf[i].resize(n);
    return ibuf[i].data();
  }
  llvm::Error dma(const isa::Instruction &inst);
  /// Fails when operand `index` reads bytes nothing has written (checked
  /// runs only).
  llvm::Error checkRead(const isa::Operand &o, size_t index);
  llvm::Error elementwise(const isa::Instruction &inst);
  /// A per-partition scalar operand: `o`'s value for each of `n` partitions,
  /// or `imm` everywhere when there is no operand.
  float *scalars(int slot, const isa::Operand *o, float imm, int64_t n);
  // The semantics of each instruction (Execute.cpp).
  llvm::Error loadStationary(const isa::Instruction &inst);
  llvm::Error multiplyMoving(const isa::Instruction &inst);
  llvm::Error transpose(const isa::Instruction &inst);
  llvm::Error activation(const isa::Instruction &inst);
  llvm::Error tensorTensor(const isa::Instruction &inst);
  llvm::Error tensorScalar(const isa::Instruction &inst);
  llvm::Error reduce(const isa::Instruction &inst);
  llvm::Error tensorCopy(const isa::Instruction &inst);
  llvm::Error reciprocal(const isa::Instruction &inst);
  llvm::Error select(const isa::Instruction &inst);
  llvm::Error bnStats(const isa::Instruction &inst);
  llvm::Error bnAggr(const isa::Instruction &inst);
  llvm::Error iota(const isa::Instruction &inst);
  llvm::Error affineSelect(const isa::Instruction &inst);
  llvm::Error memset(const isa::Instruction &inst);
};

} // namespace neuronc::sim

#endif // NEURONC_LIB_SIMULATOR_EXECUTE_H
