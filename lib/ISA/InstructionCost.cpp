//===- InstructionCost.cpp - Engine cycles of one instruction -------------===//
//
// Formulas from the SDK 2.26 docstrings of `nki.isa` (see
// docs/hardware-model.md). N is the number of elements per partition the
// instruction processes. Where the reference gives no formula (select,
// scalar_tensor_tensor, partition_reduce) the choice is documented there.
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/InstructionCost.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

using namespace neuronc;
using isa::Opcode;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

double neuronc::engineClockGHz(const HardwareModel &hw, isa::Engine engine) {
  switch (engine) {
  case isa::Engine::tensor:
    return hw.tensorClockGHz;
  case isa::Engine::vector:
    return hw.vectorClockGHz;
  case isa::Engine::scalar:
    return hw.scalarClockGHz;
  case isa::Engine::gpsimd:
    return hw.gpsimdClockGHz;
  case isa::Engine::dma:
    return 1.0;
  }
  llvm_unreachable("unknown engine");
}

int64_t neuronc::instructionCycles(const HardwareModel &hw, const CostQuery &q) {
  // Unset sizes are the target's: a whole row tile, a full stationary matrix.
  const int64_t partitions = q.partitions ? q.partitions : hw.partitions;
  const int64_t stationaryCols = q.stationaryCols ? q.stationaryCols : hw.partitions;
  int64_t n = std::max<int64_t>(1, q.elements);
  // VectorE may process more than one element per partition and cycle
  // (trn2: 256 elements/cycle over 128 lanes, 512 for bf16).
  if (q.engine == isa::Engine::vector) {
    int64_t perCycle = q.allBf16 ? hw.vectorBf16ElementsPerCycle : hw.vectorElementsPerCycle;
    n = ceilDiv(n, std::max<int64_t>(1, perCycle / hw.partitions));
  }
  int64_t minII = hw.minII;
  int64_t cycles = 0;
  switch (q.opcode) {
  case Opcode::DmaCopy:
  case Opcode::AllReduce:
  case Opcode::AllGather:
  case Opcode::ReduceScatter:
  case Opcode::AllToAll:
  case Opcode::SendRecv:
    return 0;
  case Opcode::MultiplyMoving:
    // max(min(64, N_stationary), N_moving), x4 for fp32.
    cycles = std::max(std::min<int64_t>(64, stationaryCols), n) * (q.fp32Matmul ? 4 : 1);
    break;
  case Opcode::LoadStationary:
    // Up to 4x faster than a multiply_moving of the same free size.
    cycles = ceilDiv(std::max(std::min<int64_t>(64, n), n), 4) * (q.fp32Matmul ? 4 : 1);
    break;
  case Opcode::Transpose:
    if (q.engine == isa::Engine::tensor)
      cycles = std::max(partitions, std::min<int64_t>(64, n)); // max(P, min(64, F))
    else
      cycles = std::max(minII, n);
    break;
  case Opcode::Activation:
    cycles = std::max(minII, n) + (q.accumulate ? minII : 0);
    break;
  case Opcode::TensorScalar:
  case Opcode::TensorCopy:
    cycles = std::max(minII, n);
    break;
  case Opcode::TensorTensor:
  case Opcode::ScalarTensorTensor:
  case Opcode::Select: {
    bool fast = q.opcode == Opcode::TensorTensor &&
                (q.psumInput || (q.allBf16 && (q.alu == isa::AluOp::add ||
                                               q.alu == isa::AluOp::multiply ||
                                               q.alu == isa::AluOp::subtract)));
    cycles = std::max(minII, fast ? n : 2 * n);
    break;
  }
  case Opcode::TensorReduce: {
    bool fast = q.allBf16 && (q.alu == isa::AluOp::add || q.alu == isa::AluOp::max);
    cycles = std::max(minII, fast ? ceilDiv(n, 2) : n);
    break;
  }
  case Opcode::Reciprocal:
    cycles = std::max(minII, 8 * n);
    break;
  case Opcode::BnStats:
    cycles = std::max(minII, n);
    break;
  case Opcode::BnAggr:
    cycles = std::max(minII, ceilDiv(13 * n, 3));
    break;
  case Opcode::Memset:
    cycles = std::max(minII, q.zeroIntoBf16 ? ceilDiv(n, 2) : n);
    break;
  case Opcode::Iota:
  case Opcode::AffineSelect:
    cycles = 150 + n;
    break;
  case Opcode::PartitionReduce:
    // GpSimdE's 8 cores hold 16 partitions each: combine N elements per
    // group of 16 partitions, then across the groups.
    cycles = 150 + n * ceilDiv(partitions, 16);
    break;
  }
  if (q.elements < hw.tinyTileElements && q.opcode != Opcode::MultiplyMoving &&
      q.opcode != Opcode::LoadStationary)
    cycles += hw.tinyTileOverheadCycles;
  return cycles;
}

double neuronc::instructionNs(const HardwareModel &hw, const CostQuery &q) {
  return instructionCycles(hw, q) / engineClockGHz(hw, q.engine);
}

std::pair<int64_t, int64_t> neuronc::contiguousRuns(const isa::Operand &op) {
  // Merge dims from the innermost out while they stay contiguous.
  int64_t esize = isa::dtypeBytes(op.dtype);
  int64_t run = 1;
  int d = op.rank - 1;
  if (d >= 0 && op.strides[d] == 1) {
    run = op.sizes[d];
    --d;
    while (d >= 0 && op.strides[d] == run) {
      run *= op.sizes[d];
      --d;
    }
  }
  int64_t total = op.totalElements();
  return {std::max<int64_t>(1, total / std::max<int64_t>(1, run)), run * esize};
}

double neuronc::dmaQueueNs(const HardwareModel &hw, int64_t bytes, int64_t runs,
                           bool stridedSbuf) {
  double bw = hw.dmaBytesPerNsPerEngine * (stridedSbuf ? 0.5 : 1.0);
  double moved = static_cast<double>(bytes) +
                 static_cast<double>(std::max<int64_t>(runs, 1)) * hw.dmaRunOverheadBytes;
  return hw.dmaIssueNs + moved / bw;
}

double neuronc::dmaRunEfficiency(const HardwareModel &hw, int64_t runBytes) {
  double r = static_cast<double>(std::max<int64_t>(runBytes, 1));
  return r / (r + hw.dmaRunOverheadBytes);
}

DmaShape neuronc::dmaShapeOf(const HardwareModel &hw, const isa::Instruction &inst) {
  DmaShape shape;
  if (inst.operands.size() < 2)
    return shape;
  const isa::Operand &dst = inst.operands[0], &src = inst.operands[1];
  shape.bytes = src.bytes();
  auto [srcRuns, srcRunBytes] = contiguousRuns(src);
  auto [dstRuns, dstRunBytes] = contiguousRuns(dst);
  shape.runs = std::max(srcRuns, dstRuns);
  for (const isa::Operand *o : {&dst, &src}) {
    if (o->space == isa::Space::Hbm || o->rank == 0)
      continue;
    int64_t inner = o->strides[o->rank - 1] * isa::dtypeBytes(o->dtype);
    if (inner > hw.sbufStrideBytes)
      shape.stridedSbuf = true;
  }
  shape.readsHbm = src.space == isa::Space::Hbm;
  shape.writesHbm = dst.space == isa::Space::Hbm;
  return shape;
}

CostQuery neuronc::costQueryOf(const isa::Instruction &inst, int64_t stationaryCols) {
  CostQuery q;
  q.opcode = inst.opcode;
  q.engine = inst.engine;
  q.stationaryCols = stationaryCols;
  if (inst.operands.empty())
    return q;
  // The main access: the source (the moving matrix for multiply_moving), or
  // the destination for instructions that only write.
  const isa::Operand &main =
      inst.operands.size() > 1 && inst.opcode != isa::Opcode::Memset &&
              inst.opcode != isa::Opcode::Iota
          ? inst.operands[1]
          : inst.operands[0];
  q.partitions = main.partCount;
  q.elements = main.numElements();
  q.fp32Matmul = main.dtype == isa::DType::F32;
  q.allBf16 = llvm::all_of(inst.operands,
                           [](const isa::Operand &o) { return o.dtype == isa::DType::BF16; });
  q.psumInput = llvm::any_of(llvm::drop_begin(inst.operands),
                             [](const isa::Operand &o) { return o.space == isa::Space::Psum; });
  q.alu = static_cast<isa::AluOp>(inst.func);
  q.accumulate = inst.has(isa::kHasAcc);
  q.zeroIntoBf16 = inst.opcode == isa::Opcode::Memset && inst.imm0 == 0.0f &&
                   inst.operands[0].dtype == isa::DType::BF16;
  return q;
}

void neuronc::accumulateCost(const HardwareModel &hw, const isa::Instruction &inst,
                             int64_t stationaryCols, neff::CostTable &t) {
  auto tileBytes = [&](const isa::Operand &o, int64_t &sbuf, int64_t &psum) {
    if (o.space == isa::Space::Sbuf)
      sbuf += o.bytes();
    else if (o.space == isa::Space::Psum)
      psum += o.bytes();
  };
  if (inst.opcode == isa::Opcode::DmaCopy) {
    DmaShape shape = dmaShapeOf(hw, inst);
    ++t.dmaCount;
    t.dmaBytes += shape.bytes;
    t.dmaQueueNs += static_cast<int64_t>(
        dmaQueueNs(hw, shape.bytes, shape.runs, shape.stridedSbuf));
    if (shape.readsHbm)
      t.hbmReadBytes += shape.bytes;
    if (shape.writesHbm)
      t.hbmWriteBytes += shape.bytes;
    for (size_t i = 0; i < 2 && i < inst.operands.size(); ++i)
      tileBytes(inst.operands[i], t.sbufBytes, t.psumBytes);
    return;
  }
  int e = static_cast<int>(inst.engine);
  CostQuery q = costQueryOf(inst, stationaryCols);
  ++t.instructions[e];
  t.cycles[e] += instructionCycles(hw, q);
  t.elements[e] += q.partitions * q.elements;
  for (const isa::Operand &o : inst.operands)
    tileBytes(o, t.sbufBytes, t.psumBytes);
  if (inst.opcode == isa::Opcode::MultiplyMoving)
    t.matmulFlops += 2 * static_cast<int64_t>(inst.operands[1].partCount) * stationaryCols *
                     inst.operands[1].numElements();
  if (inst.opcode == isa::Opcode::Transpose && inst.engine == isa::Engine::tensor)
    t.transposeFlops += 2 * static_cast<int64_t>(inst.operands[1].partCount) *
                        inst.operands[1].partCount * inst.operands[1].numElements();
  if (inst.opcode == isa::Opcode::Activation) {
    // Function evaluations (copy, square, abs, relu and the roundings are
    // arithmetic).
    auto f = static_cast<isa::ActFunc>(inst.func);
    if (f != isa::ActFunc::copy && f != isa::ActFunc::square && f != isa::ActFunc::abs &&
        f != isa::ActFunc::relu && f != isa::ActFunc::round && f != isa::ActFunc::floor &&
        f != isa::ActFunc::ceil)
      t.transcendentals += inst.operands[1].totalElements();
  }
}

double neuronc::collectiveNs(const HardwareModel &hw, const isa::Instruction &inst) {
  int64_t group = inst.params[0];
  if (inst.opcode == isa::Opcode::AllGather)
    return hw.allGatherNs(group, inst.operands[0].bytes());
  if (inst.opcode == isa::Opcode::ReduceScatter)
    return hw.reduceScatterNs(group, inst.operands[1].bytes());
  if (inst.opcode == isa::Opcode::AllToAll)
    return hw.allToAllNs(group, inst.operands[1].bytes());
  if (inst.opcode == isa::Opcode::SendRecv)
    return hw.sendRecvNs(group, inst.operands[1].bytes());
  return hw.allReduceNs(group, inst.operands[1].bytes());
}
