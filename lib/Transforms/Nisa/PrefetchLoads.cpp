//===- PrefetchLoads.cpp - nisa-prefetch-loads --------------------------===//
//
// Starts a kernel's independent loads while the kernel before it computes.
// DMA queues run their transfers in program order, so a kernel's weight
// load sits behind the previous kernel's stores, which wait for that
// kernel's last result: the weights start to move only once it is done,
// and the kernel waits a DMA latency and their transfer for them. A load
// whose source nothing in the program writes (a constant or an input) into
// a tile the kernel has not touched yet depends on nothing but that tile;
// it moves into the previous kernel, right before that kernel's first store
// after its last load on the same queue, and its tile becomes a carried
// tile that lives from there. Only where the previous kernel's SBUF and
// queues have room for it.
//
//===----------------------------------------------------------------------===//

#include "CarriedTiles.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/InstructionCost.h"
#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::nisa {
#define GEN_PASS_DEF_NISAPREFETCHLOADSPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

/// The loads of one kernel tile that can move: every transfer into it
/// before anything else touches it in its kernel.
struct Prefetch {
  AllocOp tile;
  SmallVector<DmaCopyOp> loads;
};

/// A kernel's work as the cost formulas see it: its busiest engine's
/// nanoseconds and its DMA bytes.
struct Work {
  double engineNs = 0;
  int64_t dmaBytes = 0;
};

/// Estimates `kernel`'s work from its instructions' main accesses.
Work estimateWork(KernelOp kernel, MemoryResolver &resolver, const neuronc::HardwareModel &hw) {
  Work w;
  llvm::DenseMap<int64_t, double> perEngine;
  for (Operation &op : kernel.getBodyBlock()) {
    auto inst = dyn_cast<InstructionOpInterface>(op);
    if (!inst)
      continue;
    SmallVector<MemoryAccess> accesses;
    inst.getAccesses(accesses);
    if (accesses.empty())
      continue;
    if (auto dma = dyn_cast<DmaCopyOp>(op)) {
      Type elem;
      if (auto tile = dyn_cast_or_null<AllocOp>(resolver.lookup(kernel, dma.getDstAttr())))
        elem = tile.getElementType();
      else if (auto t = dyn_cast_or_null<HbmOp>(resolver.lookup(kernel, dma.getDstAttr())))
        elem = t.getTensorType().getElementType();
      if (elem)
        w.dmaBytes += dma.getDstAp().getTotalElements() * elementBytes(elem);
      continue;
    }
    std::optional<neuronc::isa::Opcode> opcode =
        neuronc::isa::symbolizeOpcode(op.getName().stripDialect());
    if (!opcode)
      continue;
    neuronc::CostQuery q;
    q.opcode = *opcode;
    q.engine = toIsa(inst.getInstructionEngine());
    for (const MemoryAccess &a : accesses) {
      if (a.ap.getNumElements() > q.elements) {
        q.elements = a.ap.getNumElements();
        q.partitions = a.ap.isTile() ? a.ap.getPartCount() : 0;
      }
      if (auto tile = dyn_cast_or_null<AllocOp>(resolver.lookup(kernel, a.memory)))
        q.fp32Matmul |= !a.write && tile.getElementType().isF32();
    }
    perEngine[static_cast<int64_t>(q.engine)] += neuronc::instructionNs(hw, q);
  }
  for (auto &[engine, ns] : perEngine)
    w.engineNs = std::max(w.engineNs, ns);
  return w;
}

/// heuristic: a kernel lasts about twice its busiest engine's estimated
/// work (its waits are not in the estimate); loads moved into it may take
/// its queues that long. 1 kept ResNet-18 and BERT-tiny's moves out, 4 let
/// ShuffleNet's and MobileNetV2's f32 kernels take more than they had room
/// for (1 to 3 % slower than 2).
constexpr double kSpareFactor = 2;

struct PrefetchLoadsPass : mlir::nisa::impl::NisaPrefetchLoadsPassBase<PrefetchLoadsPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    const neuronc::HardwareModel *hw = neuronc::lookupHardwareModel(program.getTarget());
    if (!hw)
      return signalPassFailure(); // the program verifier reports it
    SmallVector<KernelOp> kernels(program.getBodyBlock().getOps<KernelOp>());
    if (kernels.size() < 2)
      return;
    MemoryResolver resolver(program);

    // HBM tensors some instruction writes, and the kernels each carried
    // tile spans.
    llvm::DenseSet<Operation *> written;
    llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> carriedSpan;
    for (auto [i, k] : llvm::enumerate(kernels))
      resolver.walkAccesses(
          k, [&, i = i](InstructionOpInterface, const MemoryAccess &a, Operation *decl) {
            if (isa_and_nonnull<HbmOp>(decl) && a.write)
              written.insert(decl);
            if (auto tile = dyn_cast_or_null<AllocOp>(decl);
                tile && tile->getParentOp() == program.getOperation()) {
              auto [it, fresh] = carriedSpan.try_emplace(tile, i, i);
              it->second.second = static_cast<int64_t>(i);
            }
            return WalkResult::advance();
          });
    // SBUF bytes per partition each kernel may hold: its own tiles and the
    // carried ones crossing it.
    SmallVector<int64_t> bytes(kernels.size(), 0);
    for (auto [i, k] : llvm::enumerate(kernels))
      for (AllocOp a : k.getBodyBlock().getOps<AllocOp>())
        if (a.getSpace() == MemorySpace::sbuf)
          bytes[i] += a.getAlignedBytesPerPartition();
    for (auto &[tile, span] : carriedSpan)
      if (cast<AllocOp>(tile).getSpace() == MemorySpace::sbuf)
        for (int64_t j = span.first; j <= span.second; ++j)
          bytes[j] += cast<AllocOp>(tile).getAlignedBytesPerPartition();
    int64_t budget = hw->sbufPartitionBytes * 3 / 4; // as nisa-forward-stores carries

    // Which loads move where, decided for every kernel before any moves.
    // (kernel index, its moves, the anchors in the kernel before it)
    SmallVector<std::tuple<size_t, SmallVector<Prefetch>, llvm::DenseMap<int64_t, Operation *>>>
        plan;
    for (size_t i = 1; i < kernels.size(); ++i) {
      llvm::DenseMap<int64_t, Operation *> at = anchors(kernels[i - 1], resolver);
      Work work = estimateWork(kernels[i - 1], resolver, *hw);
      // A kernel lasts at least its busiest engine's work, or a load and a
      // store; waits make it longer.
      double spareNs = kSpareFactor * std::max(work.engineNs, 2 * hw->dmaLatencyNs);
      SmallVector<Prefetch> taken;
      for (Prefetch &p : prefetchable(kernels[i], resolver, written)) {
        // On a queue where the previous kernel waits for nothing of its
        // own, the load already starts as early as it can.
        // (Loads into one tile before anything reads it write disjoint
        // bytes, or the race check rejects the program: the ones that stay
        // need not keep their order with the ones that move.)
        llvm::erase_if(p.loads, [&](DmaCopyOp load) {
          return !at.count(static_cast<int64_t>(load.getQueue()));
        });
        int64_t b = p.tile.getAlignedBytesPerPartition();
        int64_t moving = 0;
        for (DmaCopyOp load : p.loads)
          moving += load.getDstAp().getTotalElements() * elementBytes(p.tile.getElementType());
        // Only into a kernel whose queues have time to spare: a kernel
        // that moves more than its engines compute would finish later by
        // what it moves for the next one.
        if (p.loads.empty() || bytes[i - 1] + b > budget ||
            (work.dmaBytes + moving) / hw->memoryGBps() > spareNs)
          continue;
        bytes[i - 1] += b;
        work.dmaBytes += moving;
        taken.push_back(std::move(p));
      }
      if (taken.empty())
        continue;
      plan.push_back({i, std::move(taken), std::move(at)});
    }
    if (plan.empty())
      return;

    SymbolTable symbols(program);
    for (auto &[i, moves, at] : plan) {
      KernelOp kernel = kernels[i], before = kernels[i - 1];
      for (Prefetch &p : moves) {
        if (failed(carryTile(p.tile, kernel, symbols)))
          return signalPassFailure();
        for (DmaCopyOp load : p.loads) {
          load->moveBefore(at.lookup(static_cast<int64_t>(load.getQueue())));
          load->setAttr(kPrefetchForAttrName, FlatSymbolRefAttr::get(kernel.getSymNameAttr()));
        }
      }
      if (remarks) {
        int64_t n = 0;
        for (Prefetch &p : moves)
          n += p.loads.size();
        kernel.emitRemark() << "starts " << n << " load(s) of constants or inputs during @"
                            << before.getSymName();
      }
    }
  }

private:
  /// The tiles of `kernel` whose first accesses are loads from HBM nothing
  /// writes, with those loads, in program order.
  SmallVector<Prefetch> prefetchable(KernelOp kernel, MemoryResolver &resolver,
                                     const llvm::DenseSet<Operation *> &written) {
    llvm::MapVector<Operation *, Prefetch> found;
    llvm::DenseSet<Operation *> touched;
    for (Operation &op : kernel.getBodyBlock()) {
      auto inst = dyn_cast<InstructionOpInterface>(op);
      if (!inst)
        continue;
      if (auto dma = dyn_cast<DmaCopyOp>(op))
        if (AllocOp tile = independentLoad(dma, kernel, resolver, written);
            tile && tile->getParentOp() == kernel.getOperation() && !touched.count(tile)) {
          Prefetch &p = found[tile];
          p.tile = tile;
          p.loads.push_back(dma);
          continue;
        }
      SmallVector<MemoryAccess> accesses;
      inst.getAccesses(accesses);
      for (const MemoryAccess &a : accesses)
        if (Operation *decl = resolver.lookup(kernel, a.memory); isa_and_nonnull<AllocOp>(decl))
          touched.insert(decl);
    }
    SmallVector<Prefetch> out;
    for (auto &kv : found)
      out.push_back(std::move(kv.second));
    return out;
  }

  /// The SBUF tile `dma` fills from an HBM tensor no instruction writes,
  /// or null.
  static AllocOp independentLoad(DmaCopyOp dma, KernelOp kernel, MemoryResolver &resolver,
                                 const llvm::DenseSet<Operation *> &written) {
    if (dma.getIndirect())
      return {};
    auto src = dyn_cast_or_null<HbmOp>(resolver.lookup(kernel, dma.getSrcAttr()));
    auto dst = dyn_cast_or_null<AllocOp>(resolver.lookup(kernel, dma.getDstAttr()));
    if (!src || !dst || dst.getSpace() != MemorySpace::sbuf || written.count(src))
      return {};
    return dst;
  }

  /// Where loads moved into `kernel` go, per DMA queue: before the first
  /// store that follows the kernel's last load on that queue. The stores
  /// wait for the kernel's work; its loads stay ahead, since its engines
  /// need them first (a kernel that streams its operands reloads tiles to
  /// the end). No anchor where no store follows the last load: a load
  /// moved there starts no earlier.
  static llvm::DenseMap<int64_t, Operation *> anchors(KernelOp kernel, MemoryResolver &resolver) {
    llvm::DenseMap<int64_t, Operation *> out;
    for (Operation &op : kernel.getBodyBlock()) {
      auto dma = dyn_cast<DmaCopyOp>(op);
      if (!dma)
        continue;
      auto q = static_cast<int64_t>(dma.getQueue());
      if (isa_and_nonnull<AllocOp>(resolver.lookup(kernel, dma.getDstAttr())))
        out.erase(q); // a later load: the anchor moves past it
      else if (isa_and_nonnull<AllocOp>(resolver.lookup(kernel, dma.getSrcAttr())))
        out.try_emplace(q, &op);
    }
    return out;
  }
};

} // namespace
