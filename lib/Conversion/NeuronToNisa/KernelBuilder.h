//===- KernelBuilder.h - Building nisa kernels from neuron ops --*- C++ -*-===//
//
// What every lowering of a neuron op (or fused kernel) to nisa needs: the
// program being built and its HBM tensors, a kernel under construction with
// its tiles, instruction emission with the source op's location, DMA
// between strided HBM views and tiles (split into at most 4-D patterns and
// into transfers sized for bandwidth), and a running estimate of every
// engine's and queue's load that picks the least loaded one.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_LOWERING_KERNELBUILDER_H
#define NEURONC_LIB_CONVERSION_LOWERING_KERNELBUILDER_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/InstructionCost.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <array>

namespace mlir::neuron::lowering {

using nisa::Engine;
using nisa::MemorySpace;

/// A neuron tensor value in HBM: a row-major tensor of the program (a view
/// of it when a reshape relabelled it).
struct HbmBuffer {
  FlatSymbolRefAttr sym;
  SmallVector<int64_t> shape;
  Type elementType;
};

/// A mixed-radix index space, outermost dim first, with one stride per
/// memory walked over it (element strides; 0 repeats).
struct StridedSpace {
  SmallVector<int64_t> sizes;
  SmallVector<SmallVector<int64_t, 2>> strides; ///< strides[dim][memory]
  int64_t numElements() const;
};

/// A contiguous range of the space's linear index that every memory walks
/// as one affine pattern of `sizes.size()` dims.
struct Piece {
  int64_t first = 0, count = 0;
  SmallVector<int64_t, 2> offsets; ///< per memory
  SmallVector<int64_t> sizes;
  SmallVector<SmallVector<int64_t, 2>> strides;
};

/// Splits [start, start + count) of `space` into pieces of at most
/// `maxDims` dims each (after merging dims every memory walks contiguously).
SmallVector<Piece> decompose(const StridedSpace &space, int64_t start, int64_t count,
                             int maxDims);

/// The DMA queues an HBM-to-HBM copy spreads over (KernelBuilder::copyHbm):
/// one per 256 KiB of what the queues pay (`queueBytes`: the bytes plus
/// the per-run overheads), or more: the largest power of two of pieces that
/// each pay at least ten DMA issues' worth of transfer; at most every queue
/// and one per element.
int64_t hbmCopyQueues(const neuronc::HardwareModel &hw, int64_t queueBytes, int64_t elements);

/// An HBM tensor seen as rows x cols: the row index walks `rows`, the
/// column index `cols` (mixed radix, outermost first), with element strides
/// into the tensor.
struct HbmView {
  FlatSymbolRefAttr sym;
  Type elementType;
  int64_t offset = 0;
  SmallVector<int64_t> rowSizes, rowStrides;
  SmallVector<int64_t> colSizes, colStrides;
  int64_t numRows() const;
  int64_t numCols() const;
  /// A row-major [rows, cols] matrix of `sym` starting at element `offset`.
  static HbmView matrix(FlatSymbolRefAttr sym, Type elementType, int64_t offset, int64_t rows,
                        int64_t cols) {
    return {sym, elementType, offset, {rows}, {cols}, {cols}, {1}};
  }
};

/// The program under construction: its HBM tensors and the running load
/// estimate of every engine and DMA queue.
class ProgramBuilder {
public:
  ProgramBuilder(nisa::ProgramOp program, const neuronc::HardwareModel &hw);

  nisa::ProgramOp program() { return program_; }
  const neuronc::HardwareModel &hw() const { return hw_; }
  MLIRContext *context() { return program_.getContext(); }

  /// Declares an HBM tensor (inputs/outputs carry their index; an input the
  /// runtime loads with its last two dims swapped is `hostTransposed`).
  HbmBuffer declare(nisa::HbmKind kind, RankedTensorType type, Location loc,
                    std::optional<int64_t> index = std::nullopt, StringRef name = {},
                    ElementsAttr value = {}, bool hostTransposed = false);
  /// A fresh kernel named after `kind`, placed at the end of the program.
  nisa::KernelOp newKernel(StringRef kind, StringRef source, Location loc);

  /// The least loaded of `allowed` for `ns` of work, which is then charged.
  Engine pickEngine(ArrayRef<Engine> allowed, ArrayRef<double> ns);
  /// The least loaded DMA queue for `ns` of transfer, which is then charged.
  /// With `storeQueues` > 0, stores use only the last `storeQueues` queues
  /// and loads only the others.
  int64_t pickQueue(double ns, bool store = false, int64_t storeQueues = 0);
  /// Charges every queue up to the busiest one, so that the next kernel
  /// spreads over all of them again (after one that kept some for stores).
  void levelQueues() {
    double top = *std::max_element(queueLoad.begin(), queueLoad.end());
    queueLoad.assign(queueLoad.size(), top);
  }
  /// Charges `ns` of work to a given engine.
  /// Adds `ns` to `e`'s load. Where VectorE and GpSimdE share one SBUF port
  /// (NeuronCore-v2) their work serializes, so each is charged with both.
  void charge(Engine e, double ns) {
    load[static_cast<int>(e)] += ns;
    if (hw_.vectorGpsimdShareSbuf && (e == Engine::vector || e == Engine::gpsimd))
      load[static_cast<int>(e == Engine::vector ? Engine::gpsimd : Engine::vector)] += ns;
  }

  /// Unique names for tiles and tensors.
  std::string uniqueName(StringRef prefix);

  /// The builder's running state (loads, names), to undo a trial kernel.
  struct Snapshot {
    std::array<double, 4> load;
    SmallVector<double> queueLoad;
    llvm::StringMap<int64_t> counters;
  };
  Snapshot snapshot() const { return {load, queueLoad, counters}; }
  void restore(const Snapshot &s) {
    load = s.load;
    queueLoad = s.queueLoad;
    counters = s.counters;
  }

private:
  nisa::ProgramOp program_;
  const neuronc::HardwareModel &hw_;
  std::array<double, 4> load{};
  SmallVector<double> queueLoad;
  llvm::StringMap<int64_t> counters;
};

/// One kernel under construction: tiles and instructions appended in
/// program order, each instruction located at the neuron op it computes.
class KernelBuilder {
public:
  KernelBuilder(ProgramBuilder &program, StringRef kind, Operation *source);

  ProgramBuilder &program() { return program_; }
  const neuronc::HardwareModel &hw() const { return program_.hw(); }
  /// DMA queues kept for this kernel's stores (0: loads and stores share
  /// all). A store waiting for its data at the head of a queue holds back
  /// every load behind it; a kernel that prefetches while it computes keeps
  /// its stores out of its loads' way.
  int64_t storeQueues = 0;
  /// Keeps queues for the stores in proportion to the bytes they move
  /// against the loads', between a quarter and three quarters of them.
  void shareQueues(double loadBytes, double storeBytes) {
    double share = storeBytes / std::max(1.0, storeBytes + loadBytes);
    int64_t engines = hw().dmaEngines, quarter = engines / 4;
    storeQueues = std::clamp<int64_t>(std::lround(share * engines), quarter, engines - quarter);
  }
  /// Bytes per piece a store is split into across the queues (0: twice the
  /// efficient DMA size, as loads). Smaller pieces finish sooner, so a
  /// kernel whose buffers wait on their stores reuses them sooner.
  int64_t storePieceBytes = 0;
  /// Keeps every transfer in pieces of twice the efficient DMA size, small
  /// ones too: a kernel that streams its operands behind TensorE (a matmul
  /// with many row tiles) is throughput-bound, and finer pieces would only
  /// add issue time to its queues.
  bool coarsePieces = false;
  /// Splits loads down to the finest pieces whatever their size (up to one
  /// per queue): an activation the kernel's first multiplies wait on
  /// arrives sooner on sixteen queues than on four. Not for loads the
  /// kernels before may start (nisa-prefetch-loads moves a piece only to a
  /// queue on which the kernel before stores).
  bool fineLoads = false;
  /// Set while a matmul loads its moving operand: a constant one of
  /// exactly half the queues' efficient sizes keeps the big pieces. The
  /// kernel before starts its loads (nisa-prefetch-loads moves the pieces
  /// on queues it stores on), and an encoder layer's 256 KiB FFN weight in
  /// 16 pieces had fewer of them moved (+8 %).
  bool weightPieces = false;
  /// Set while the program's last kernel emits its last stores: nothing
  /// runs behind them, so each goes in a piece per queue (one row each at
  /// least), on every queue, kept store queues included (an MHA block's
  /// 512 KiB out-projection result took 9 us on its five store queues).
  /// Not for other kernels: their stores on every queue would hold back
  /// the next kernels' loads behind them.
  bool tailStores = false;
  nisa::KernelOp kernel() { return kernel_; }
  OpBuilder &builder() { return b; }
  MLIRContext *context() { return b.getContext(); }

  /// Instructions emitted from now on are attributed to `op`.
  void setSource(Operation *op);
  Location loc() const { return loc_; }

  /// A new SBUF/PSUM tile of `partitions` x `elements`; `discard` marks a
  /// tile that only receives results nobody reads.
  FlatSymbolRefAttr alloc(MemorySpace space, int64_t partitions, int64_t elements, Type type,
                          StringRef prefix = "t", bool discard = false);

  /// `[p0:p0+np, off, [1,n]]`.
  nisa::AccessPatternAttr tileAP(int64_t p0, int64_t np, int64_t offset, int64_t n);
  /// A tile access with explicit free dims (stride, size pairs outermost first).
  nisa::AccessPatternAttr tileAP(int64_t p0, int64_t np, int64_t offset,
                                 ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides);
  nisa::AccessPatternAttr hbmAP(int64_t offset, ArrayRef<int64_t> sizes,
                                ArrayRef<int64_t> strides);

  /// DMA between a tile box and the view's rows [r0, r0+nr) x cols [c0, c0+nc):
  /// row r goes to partition p0 + r - r0, column c to free element
  /// `freeOffset + c - c0`. Loads when `toTile`, stores otherwise.
  void transfer(bool toTile, FlatSymbolRefAttr tile, Type tileType, int64_t p0,
                int64_t freeOffset, const HbmView &view, int64_t r0, int64_t nr, int64_t c0,
                int64_t nc);
  /// HBM to HBM copy of `space`'s elements (memory 0 = dst, 1 = src).
  void copyHbm(FlatSymbolRefAttr dst, FlatSymbolRefAttr src, Type type, const StridedSpace &space,
               int64_t dstOffset, int64_t srcOffset);

  /// Charges `ns` of work to `e`'s load estimate.
  void charge(Engine e, double ns) { program_.charge(e, ns); }
  /// Estimated cost of a compute instruction (for engine choice).
  double estimate(neuronc::isa::Opcode op, Engine e, int64_t parts, int64_t elems,
                  bool fp32Matmul = false, bool psumInput = false);
  /// The least loaded engine of `allowed` for instruction `op` over
  /// parts x elems; the engine is charged with it.
  Engine pick(neuronc::isa::Opcode op, ArrayRef<Engine> allowed, int64_t parts, int64_t elems,
              bool psumInput = false);

  /// Emits a nisa op at the end of the kernel; enum arguments (engines, ALU
  /// operations, functions) may be given bare.
  template <typename OpTy, typename... Args> OpTy emit(Args &&...args) {
    return OpTy::create(b, loc_, wrap(std::forward<Args>(args))...);
  }

  /// Emits one DMA (after charging a queue for it).
  void dma(FlatSymbolRefAttr dst, nisa::AccessPatternAttr dstAp, FlatSymbolRefAttr src,
           nisa::AccessPatternAttr srcAp, Type type);

private:
  template <typename T> decltype(auto) wrap(T &&v) {
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, Engine>)
      return nisa::EngineAttr::get(context(), v);
    else if constexpr (std::is_same_v<D, nisa::AluOp>)
      return nisa::AluOpAttr::get(context(), v);
    else if constexpr (std::is_same_v<D, nisa::ActFunc>)
      return nisa::ActFuncAttr::get(context(), v);
    else
      return std::forward<T>(v);
  }

  ProgramBuilder &program_;
  nisa::KernelOp kernel_;
  OpBuilder b;
  Location loc_;
  OpBuilder allocBuilder;
  Operation *lastAlloc = nullptr;
};

/// The location instructions lowered from `op` carry: `op`'s own location
/// under the op's name, unless the location already names the source op
/// (an exporter's `loc("aten::mul"(...))`).
Location sourceLocation(Operation *op);

} // namespace mlir::neuron::lowering

#endif // NEURONC_LIB_CONVERSION_LOWERING_KERNELBUILDER_H
