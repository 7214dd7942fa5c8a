//===- HardwareModel.h - The simulated NeuronCore's numbers -----*- C++ -*-===//
//
// ONE table of every parameter of the two target profiles (trn1 =
// NeuronCore-v2, trn2 = NeuronCore-v3): memories, engine clocks and widths,
// DMA, HBM, instruction issue costs. The cost report, the lowering, the
// static roofline, the simulator and the profiler all read it from here.
// Sources are in docs/hardware-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_ISA_HARDWAREMODEL_H
#define NEURONC_ISA_HARDWAREMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace neuronc {

/// The parameters of one NeuronCore generation.
struct HardwareModel {
  llvm::StringRef name; ///< "trn1", "trn2"
  llvm::StringRef core; ///< "NeuronCore-v2", ...

  // On-chip memories.
  int64_t partitions;          ///< SBUF/PSUM partitions (and TensorE rows)
  int64_t sbufPartitionBytes;  ///< SBUF bytes per partition
  int64_t psumPartitionBytes;  ///< PSUM bytes per partition
  int64_t psumBanks;           ///< PSUM banks per partition
  int64_t partitionQuadrant;   ///< engine accesses start at multiples of this
  int64_t vectorTransposeMax;  ///< VectorE transposes blocks up to this square
  int64_t bnStatsMaxElements;  ///< bn_stats reads at most this many elements per partition
  int64_t sbufBytes() const { return partitions * sbufPartitionBytes; }
  int64_t psumBytes() const { return partitions * psumPartitionBytes; }
  int64_t psumBankBytes() const { return psumPartitionBytes / psumBanks; }
  /// fp32 elements per partition in one PSUM bank: the largest matmul
  /// accumulator and moving tile.
  int64_t psumBankFp32() const { return psumBankBytes() / 4; }
  /// Whole PSUM banks that `count` accumulators of `bytes` per partition
  /// take: an accumulator never crosses a bank, and one larger than a bank
  /// starts one (the placement rule of nisa-allocate-memory), so a
  /// 1.5-bank tile takes two banks and four 512-byte tiles share one.
  int64_t psumBanksFor(int64_t bytes, int64_t count) const {
    if (bytes <= 0 || count <= 0)
      return 0;
    int64_t bank = psumBankBytes();
    if (bytes > bank)
      return count * ((bytes + bank - 1) / bank);
    int64_t perBank = bank / bytes;
    return (count + perBank - 1) / perBank;
  }
  /// How many accumulators of `bytes` per partition fit in `banks` banks.
  int64_t psumTilesIn(int64_t banks, int64_t bytes) const {
    if (bytes <= 0 || banks <= 0)
      return 0;
    int64_t bank = psumBankBytes();
    if (bytes > bank)
      return banks / ((bytes + bank - 1) / bank);
    return banks * (bank / bytes);
  }
  /// How many partitions a compute engine's access starting at `start` may
  /// span, 0 when it may not start there: from 0 all of them, from the
  /// middle half of them, from any other quadrant boundary one quadrant
  /// (trn1/trn2: 0 -> 128, 32 -> 32, 64 -> 64, 96 -> 32). DMA is free of it.
  int64_t maxPartitionSpan(int64_t start) const {
    if (start < 0 || start >= partitions || start % partitionQuadrant != 0)
      return 0;
    if (start == 0)
      return partitions;
    return start == partitions / 2 ? partitions / 2 : partitionQuadrant;
  }

  // Engines.
  double tensorClockGHz;
  double tensorBf16Tflops;     ///< dense bf16/fp16 matmul peak
  double tensorFp32Fraction;   ///< fp32 matmul runs at this fraction of bf16
  double vectorClockGHz;
  int64_t vectorElementsPerCycle;     ///< fp32
  int64_t vectorBf16ElementsPerCycle; ///< all-bf16 operands
  double scalarClockGHz;
  int64_t scalarLanes;
  double gpsimdClockGHz;
  int64_t minII;               ///< smallest initiation interval of an instruction (cycles)
  int64_t accessLatencyCycles; ///< to start an SBUF/PSUM access: a result is ready this late
  int64_t tinyTileOverheadCycles; ///< static overhead of an instruction on a tiny tile
  int64_t tinyTileElements;    ///< "tiny": fewer elements per partition than this
  /// Static overhead of an instruction that reads what the instruction just
  /// before it on the same engine wrote (charged once with the tiny-tile one).
  int64_t dependentOverheadCycles;
  bool vectorGpsimdShareSbuf;  ///< v2: VectorE and GpSimdE cannot access SBUF in parallel
  bool vectorScalarSharePsum;  ///< v2: VectorE and ScalarE cannot access PSUM in parallel
  double semaphoreLatencyNs;   ///< a signal reaching a waiting engine

  // Data movement.
  double hbmGBps;              ///< HBM bandwidth share of one core (GB/s = bytes/ns)
  int64_t dmaEngines;
  double dmaBytesPerNsPerEngine;
  double dmaLatencyNs;         ///< fixed start latency of a DMA
  int64_t dmaEfficientBytes;   ///< transfers at least this large reach full bandwidth
  double dmaIssueNs;           ///< queue time per DMA instruction (descriptor processing)
  /// What each contiguous run (one descriptor element) costs beyond its
  /// bytes, in bytes at the queue's rate: a run of r bytes moves at
  /// r / (r + dmaRunOverheadBytes) of the peak (dmaRunEfficiency).
  int64_t dmaRunOverheadBytes;
  int64_t sbufStrideBytes;     ///< SBUF-side element strides above this halve DMA bandwidth

  // The chip.
  int64_t coresPerChip;
  double chipHbmGBps;          ///< HBM bandwidth all cores of the chip share
  int64_t chipHbmBytes;        ///< HBM capacity of the chip

  // The instance (trn1.32xlarge, trn2.48xlarge): chips joined by NeuronLink.
  int64_t chipsPerInstance;    ///< chips in a 2-D torus of NeuronLink
  double neuronLinkGBps;       ///< NeuronLink bandwidth of one chip, all its links
  /// Fixed cost of one step of a ring collective (synchronization of the
  /// collective engines and the hop's DMA start); an assumption.
  double collectiveStepNs;

  /// NeuronCores of the whole instance.
  int64_t instanceCores() const { return coresPerChip * chipsPerInstance; }
  /// Bytes per ns a ring collective over `group` cores (0 .. group-1) moves
  /// per step: two counter-rotating rings use two of a chip's four links each
  /// way (half its NeuronLink bandwidth); a group inside one chip goes
  /// through the chip's HBM, read and written once per step.
  double ringGBps(int64_t group) const {
    return group <= coresPerChip ? chipHbmGBps / 2 : neuronLinkGBps / 2;
  }
  /// A ring all-reduce of `bytes` over `group` cores: 2(N-1) steps, each
  /// moving bytes / N per core, plus each step's fixed cost.
  double ringAllReduceNs(int64_t group, int64_t bytes) const {
    double n = static_cast<double>(group);
    return 2 * (n - 1) / n * static_cast<double>(bytes) / ringGBps(group) +
           2 * (n - 1) * collectiveStepNs;
  }
  /// A tree all-reduce of `bytes` over `group` cores: reduced up a binary
  /// tree and broadcast down it, the message pipelined in pieces, so every
  /// byte crosses a link twice, in 2 ceil(log2 N) steps. Few steps win for
  /// small messages (a decode step's 16 KiB), the ring's N-fold smaller
  /// pieces for large ones.
  double treeAllReduceNs(int64_t group, int64_t bytes) const {
    double steps = std::ceil(std::log2(static_cast<double>(group)));
    return 2 * static_cast<double>(bytes) / ringGBps(group) + 2 * steps * collectiveStepNs;
  }
  /// Whether an all-reduce of `bytes` over `group` cores runs as a tree
  /// (faster than the ring); the collective engines pick per message.
  bool allReduceUsesTree(int64_t group, int64_t bytes) const {
    return treeAllReduceNs(group, bytes) < ringAllReduceNs(group, bytes);
  }
  /// An all-reduce: the faster of the ring and the tree.
  double allReduceNs(int64_t group, int64_t bytes) const {
    return std::min(ringAllReduceNs(group, bytes), treeAllReduceNs(group, bytes));
  }
  /// A ring all-gather into `bytes` (the whole tensor) over `group` cores:
  /// N-1 steps, each moving one core's part, plus each step's fixed cost.
  double allGatherNs(int64_t group, int64_t bytes) const {
    double n = static_cast<double>(group);
    return (n - 1) / n * static_cast<double>(bytes) / ringGBps(group) +
           (n - 1) * collectiveStepNs;
  }
  /// A ring reduce-scatter of `bytes` (the whole tensor) over `group`
  /// cores: the first half of an all-reduce, as long as an all-gather.
  double reduceScatterNs(int64_t group, int64_t bytes) const {
    return allGatherNs(group, bytes);
  }
  /// An all-to-all of `bytes` per core over `group` cores, as pairwise
  /// exchanges: N-1 steps, in step s core r sends its part for core r+s and
  /// receives the part of core r-s, so each core moves (N-1)/N of its bytes.
  /// The same steps and bytes as an all-gather into a tensor of `bytes`.
  double allToAllNs(int64_t group, int64_t bytes) const { return allGatherNs(group, bytes); }
  /// A send/recv of `bytes` between the cores of a group: every sender's
  /// whole tensor over one hop at once, one step.
  double sendRecvNs(int64_t group, int64_t bytes) const {
    return static_cast<double>(bytes) / ringGBps(group) + collectiveStepNs;
  }

  /// HBM capacity of one core: the chip's divided evenly (what one program
  /// may use, inputs, outputs, constants and scratch together).
  int64_t hbmBytesPerCore() const { return chipHbmBytes / coresPerChip; }

  /// Bytes per ns one core's DMA can move: the smaller of its HBM share and
  /// its DMA engines together.
  double memoryGBps() const {
    double dma = dmaGBps();
    return dma < hbmGBps ? dma : hbmGBps;
  }
  /// Bytes per ns one core's DMA engines move together at their peak.
  double dmaGBps() const { return dmaEngines * dmaBytesPerNsPerEngine; }
  /// FLOP per HBM byte at which a bf16 matmul turns compute-bound, at the
  /// bandwidth the core can really use (memoryGBps).
  double ridgePoint() const { return tensorBf16Tflops * 1e3 / memoryGBps(); }
};

/// Every profile, default first.
llvm::ArrayRef<HardwareModel> hardwareModels();
/// The profile named `name`, or nullptr.
const HardwareModel *lookupHardwareModel(llvm::StringRef name);
/// "trn1, trn2", for error messages.
std::string hardwareModelNames();

/// What bounds a piece of work on a target: a lower bound of the time each
/// resource needs for it, the largest of which is the verdict.
struct RooflineEstimate {
  double tensorNs = 0;      ///< TensorE
  double elementwiseNs = 0; ///< arithmetic that VectorE and ScalarE may share (op-level estimate)
  double vectorNs = 0;      ///< VectorE
  double scalarNs = 0;      ///< ScalarE
  double gpsimdNs = 0;      ///< GpSimdE
  double hbmNs = 0;         ///< HBM traffic at the core's achievable bandwidth
  double latencyNs = 0;     ///< the fixed latency of a dependent load -> compute -> store chain
  /// The predicted lower bound: the busiest resource, or the latency floor.
  double boundNs() const;
  /// "compute-bound (TensorE)", "memory-bound (HBM)", "engine-bound (VectorE)",
  /// "latency-bound (too small to fill the machine)", or "no work".
  std::string verdict() const;
};

/// Time lower bounds per resource from an op's own cost, before lowering:
/// matmul FLOPs on TensorE (fp32 at its fraction of the bf16 peak); other
/// arithmetic shared by VectorE and ScalarE at two operations per element
/// pass (tensor_scalar's op0/op1, activation's scale*x+bias); transcendentals
/// on ScalarE alone; bytes at memoryGBps() (the HBM share or the DMA
/// engines, whichever is smaller). `isMatmul` says which engine the FLOPs
/// need.
RooflineEstimate estimateRoofline(const HardwareModel &hw, int64_t flops, int64_t transcendentals,
                                  int64_t bytes, bool isMatmul, bool isFp32);

} // namespace neuronc

#endif // NEURONC_ISA_HARDWAREMODEL_H
