//===- InstructionCost.h - Engine cycles of one instruction -----*- C++ -*-===//
//
// The cost formulas of the NKI ISA reference, written once: the lowering
// asks them to balance engines, the executable's static cost tables and
// neuron-inspect's roofline add them up, and the simulator's timing model
// charges them. Parameters come from the HardwareModel table.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_ISA_INSTRUCTIONCOST_H
#define NEURONC_ISA_INSTRUCTIONCOST_H

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Isa.h"
#include "neuronc/ISA/Neff.h"

namespace neuronc {

/// What an instruction's cost depends on.
struct CostQuery {
  isa::Opcode opcode = isa::Opcode::TensorCopy;
  isa::Engine engine = isa::Engine::vector;
  int64_t partitions = 0;   ///< partitions of the main access (0: all of the target's)
  int64_t elements = 1;     ///< N: elements per partition of the main access
  int64_t stationaryCols = 0; ///< M of the loaded stationary matrix (0: the target's partitions)
  bool fp32Matmul = false;  ///< TensorE operands in fp32 (4x slower)
  bool psumInput = false;   ///< tensor_tensor: one input in PSUM
  bool allBf16 = false;     ///< every operand bf16 (fast paths of tensor_tensor/reduce)
  isa::AluOp alu = isa::AluOp::bypass; ///< the (first) ALU operation
  bool accumulate = false;  ///< activation with a free-axis reduction
  bool zeroIntoBf16 = false; ///< memset of 0 into a bf16 tile
};

/// Engine cycles an instruction occupies its engine (its initiation
/// interval), per the ISA reference's formulas. Not for DMA.
int64_t instructionCycles(const HardwareModel &hw, const CostQuery &q);

/// The clock of `engine` in GHz (cycles per ns).
double engineClockGHz(const HardwareModel &hw, isa::Engine engine);

/// Nanoseconds the instruction occupies its engine.
double instructionNs(const HardwareModel &hw, const CostQuery &q);

/// Nanoseconds a collective (isa::isCollective) takes on the ring of its
/// group: HardwareModel::allReduceNs or allGatherNs of its bytes.
double collectiveNs(const HardwareModel &hw, const isa::Instruction &inst);

/// The cost query of a decoded instruction. `stationaryCols` is the M of
/// the stationary matrix TensorE holds (multiply_moving needs it).
CostQuery costQueryOf(const isa::Instruction &inst, int64_t stationaryCols);

/// Nanoseconds a DMA occupies its queue, not counting the fixed start
/// latency (which overlaps with earlier transfers on the queue): the issue
/// cost, then its bytes plus `dmaRunOverheadBytes` per contiguous run at the
/// queue's bandwidth; strided SBUF-side access halves the bandwidth.
double dmaQueueNs(const HardwareModel &hw, int64_t bytes, int64_t runs, bool stridedSbuf);

/// The fraction of a queue's peak that contiguous runs of `runBytes` reach
/// (the curve of docs/hardware-model.md#dma-efficiency).
double dmaRunEfficiency(const HardwareModel &hw, int64_t runBytes);

/// The DMA cost inputs of a dma_copy: bytes, contiguous runs on its worse
/// side, and whether its SBUF side is strided.
struct DmaShape {
  int64_t bytes = 0;
  int64_t runs = 1;
  bool stridedSbuf = false;
  bool readsHbm = false, writesHbm = false;
};
DmaShape dmaShapeOf(const HardwareModel &hw, const isa::Instruction &inst);

/// Contiguous runs of an operand's pattern: (number of runs, bytes each).
std::pair<int64_t, int64_t> contiguousRuns(const isa::Operand &op);

/// Adds the static cost of `inst` (DMA bytes and queue time, engine work,
/// SBUF/PSUM traffic, transcendentals) into a kernel's cost table.
void accumulateCost(const HardwareModel &hw, const isa::Instruction &inst,
                    int64_t stationaryCols, neff::CostTable &table);

} // namespace neuronc

#endif // NEURONC_ISA_INSTRUCTIONCOST_H
