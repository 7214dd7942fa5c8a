//===- ForwardStores.cpp - nisa-forward-stores --------------------------===//
//
// Keeps activations in SBUF between kernels. A kernel stores its result to
// an internal HBM tensor and the next kernel loads it back: two DMA
// latencies and two transfers on the dependent chain of every kernel
// boundary, which on small layers costs more than their work. When the
// bytes a load reads were stored from an SBUF tile that still holds them,
// partition for partition, the load becomes an engine copy from that tile
// (the tile is then carried: it moves to the program's body and lives until
// the copy), and a tensor nothing loads any more is not stored at all.
//
//===----------------------------------------------------------------------===//

#include "CarriedTiles.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <map>

namespace mlir::nisa {
#define GEN_PASS_DEF_NISAFORWARDSTORESPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

/// Internal tensors larger than this many elements are not tracked (their
/// producers stream them through SBUF; the tile holding any part of them is
/// long overwritten when the consumer runs).
constexpr int64_t kMaxTensorElements = int64_t(1) << 20;
/// heuristic: a kernel whose busiest copying engine has more work than this
/// many DMA latencies (the profiler's latency-bound limit) keeps its loads:
/// they overlap its compute on the DMA queues, where a copy would add to the
/// engine that bounds it (VGG-11's conv-pool at 112x112 lost 14 us to 32
/// copies on trn2).
constexpr double kBusyLatencies = 10;
/// Loads larger than this many elements are left alone.
constexpr int64_t kMaxLoadElements = int64_t(1) << 18;

/// Where one element of an internal tensor was last stored from.
struct Origin {
  int32_t tile = -1; ///< index into the pass's tiles; -1: not from a tile
  int32_t part = 0;
  int32_t elem = 0;
  int32_t step = 0; ///< program-order index of the store
};

/// A write to a tile: its step and bounding box.
struct TileWrite {
  int64_t step, p0, p1, e0, e1;
};

/// A load that becomes a copy from a tile.
struct Forward {
  DmaCopyOp load;
  KernelOp kernel;
  int32_t tile;
  AccessPatternAttr srcAp;
  Engine engine;
  /// Loads of the partitions right after `load`'s that the copy covers too
  /// (a piece starting off a quadrant boundary cannot be a copy alone).
  SmallVector<DmaCopyOp, 1> merged = {};
  AccessPatternAttr dstAp = {}; ///< what the copy writes: `load`'s and `merged`'s
  int64_t step = 0;             ///< program-order index of `load`
};

/// Walks a program in order, tracking where each element of each small
/// internal tensor was stored from, and rewrites the loads it can forward.
struct ForwardStoresPass : mlir::nisa::impl::NisaForwardStoresPassBase<ForwardStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    hw = neuronc::lookupHardwareModel(program.getTarget());
    if (!hw)
      return signalPassFailure(); // the program verifier reports it
    MemoryResolver resolver(program);
    // The pass object runs on every program in turn.
    kernelIndex.clear();
    kernelBytes.clear();
    tiles.clear();
    tileIds.clear();
    tileWrites.clear();
    origins.clear();
    lastRead.clear();
    carriedUntil.clear();
    kernels.assign(program.getBodyBlock().getOps<KernelOp>().begin(),
                   program.getBodyBlock().getOps<KernelOp>().end());
    for (auto [i, k] : llvm::enumerate(kernels)) {
      kernelIndex[k] = i;
      int64_t bytes = 0;
      for (AllocOp a : k.getBodyBlock().getOps<AllocOp>())
        if (a.getSpace() == MemorySpace::sbuf)
          bytes += a.getAlignedBytesPerPartition();
      kernelBytes.push_back(bytes);
    }
    carried.assign(kernels.size(), 0);

    // Readers of every internal tensor, to drop the stores nothing loads,
    // and the elements each copying engine processes in each kernel.
    llvm::DenseMap<Operation *, int64_t> readers;
    int64_t step = 0;
    work.assign(kernels.size(), {0, 0, 0});
    for (KernelOp k : kernels)
      for (Operation &op : k.getBodyBlock())
        if (auto inst = dyn_cast<InstructionOpInterface>(op)) {
          SmallVector<MemoryAccess> accesses;
          inst.getAccesses(accesses);
          int e = engineSlot(inst.getInstructionEngine());
          if (!isa<DmaCopyOp>(op) && e >= 0 && !accesses.empty())
            work[kernelIndex[k]][e] += accesses.front().ap.getNumElements();
          for (const MemoryAccess &a : accesses)
            if (auto t = dyn_cast_or_null<HbmOp>(resolver.lookup(k, a.memory)))
              if (!a.write && t.getKind() == HbmKind::internal) {
                ++readers[t];
                lastRead[t] = step;
              }
          ++step;
        }

    // Steps after which a tensor's origins are no longer needed.
    std::multimap<int64_t, Operation *> expiry;
    for (auto &[t, last] : lastRead)
      expiry.insert({last, t});
    forwards.clear();
    step = 0;
    for (KernelOp k : kernels) {
      lastBarrierStep = -1;
      for (Operation &op : k.getBodyBlock()) {
        auto inst = dyn_cast<InstructionOpInterface>(op);
        if (!inst)
          continue;
        SmallVector<MemoryAccess> accesses;
        inst.getAccesses(accesses);
        auto dma = dyn_cast<DmaCopyOp>(op);
        if (dma && dma.getDstAp().isTile() && !dma.getSrcAp().isTile()) {
          if (std::optional<Forward> f = tryForward(dma, k, resolver, step)) {
            forwards.push_back(*f);
            work[kernelIndex[k]][engineSlot(f->engine)] += f->srcAp.getNumElements() + hw->minII;
          }
        } else {
          lastBarrierStep = step;
        }
        record(inst, k, resolver, accesses, step);
        for (auto [it, end] = expiry.equal_range(step); it != end; ++it)
          origins.erase(it->second);
        ++step;
      }
    }
    if (forwards.empty())
      return;
    apply(program, forwards, resolver, readers);
  }

private:
  /// 0 ScalarE, 1 VectorE, 2 GpSimdE; -1 for the others.
  static int engineSlot(Engine e) {
    switch (e) {
    case Engine::scalar: return 0;
    case Engine::vector: return 1;
    case Engine::gpsimd: return 2;
    default: return -1;
    }
  }

  int32_t tileIndex(AllocOp a) {
    auto [it, inserted] = tileIds.try_emplace(a, static_cast<int32_t>(tiles.size()));
    if (inserted) {
      tiles.push_back(a);
      tileWrites.emplace_back();
    }
    return it->second;
  }

  /// Notes what `inst` writes: tile writes, and for internal tensors where
  /// each element now comes from.
  void record(InstructionOpInterface inst, KernelOp k, MemoryResolver &resolver,
              ArrayRef<MemoryAccess> accesses, int64_t step) {
    for (const MemoryAccess &a : accesses) {
      if (!a.write)
        continue;
      Operation *decl = resolver.lookup(k, a.memory);
      if (auto tile = dyn_cast_or_null<AllocOp>(decl)) {
        auto [e0, e1] = a.ap.getExtent();
        tileWrites[tileIndex(tile)].push_back(
            {step, a.ap.getPartStart(), a.ap.getPartStart() + a.ap.getPartCount(), e0, e1});
        continue;
      }
      auto t = dyn_cast_or_null<HbmOp>(decl);
      if (!t || t.getKind() != HbmKind::internal || t.getNumElements() > kMaxTensorElements ||
          lastRead.lookup(t) <= step)
        continue;
      std::vector<Origin> &origin = origins[t];
      if (origin.empty())
        origin.resize(t.getNumElements());
      auto dma = dyn_cast<DmaCopyOp>(inst.getOperation());
      if (dma && dma.getIndirect()) { // a gather's rows land anywhere
        std::fill(origin.begin(), origin.end(), Origin());
        continue;
      }
      Operation *srcDecl = dma ? resolver.lookup(k, dma.getSrcAttr()) : nullptr;
      // An HBM-to-HBM copy (a concat or slice kernel nothing folded) hands
      // its source's origins on: the parts of SqueezeNet's fire concat are
      // still in the tiles their convolutions stored them from.
      auto srcTensor = dyn_cast_or_null<HbmOp>(srcDecl);
      auto known = srcTensor ? origins.find(srcTensor) : origins.end();
      if (known != origins.end()) {
        std::vector<Origin> carried;
        carried.reserve(dma.getSrcAp().getTotalElements());
        dma.getSrcAp().walkElements([&](int64_t, int64_t h) {
          bool in = h >= 0 && h < static_cast<int64_t>(known->second.size());
          carried.push_back(in ? known->second[h] : Origin());
        });
        size_t i = 0;
        a.ap.walkElements([&](int64_t, int64_t h) {
          if (h >= 0 && h < static_cast<int64_t>(origin.size()))
            origin[h] = i < carried.size() ? carried[i] : Origin();
          ++i;
        });
        continue;
      }
      auto src = dyn_cast_or_null<AllocOp>(srcDecl);
      if (!src || src.getSpace() != MemorySpace::sbuf) {
        a.ap.walkElements([&](int64_t, int64_t h) {
          if (h >= 0 && h < static_cast<int64_t>(origin.size()))
            origin[h] = Origin();
        });
        continue;
      }
      SmallVector<std::pair<int32_t, int64_t>> from;
      from.reserve(dma.getSrcAp().getTotalElements());
      dma.getSrcAp().walkElements([&](int64_t p, int64_t e) {
        from.push_back({static_cast<int32_t>(p), e});
      });
      int32_t id = tileIndex(src);
      size_t i = 0;
      a.ap.walkElements([&](int64_t, int64_t h) {
        if (h >= 0 && h < static_cast<int64_t>(origin.size()) && i < from.size())
          origin[h] = {id, from[i].first, static_cast<int32_t>(from[i].second),
                       static_cast<int32_t>(step)};
        ++i;
      });
    }
  }

  /// The copy that can replace `load`, if every element it reads still sits
  /// in one SBUF tile on the partition it is loaded to, at offsets an
  /// access pattern can name.
  std::optional<Forward> tryForward(DmaCopyOp load, KernelOp k, MemoryResolver &resolver,
                                    int64_t step) {
    if (load.getIndirect())
      return std::nullopt;
    auto t = dyn_cast_or_null<HbmOp>(resolver.lookup(k, load.getSrcAttr()));
    auto dst = dyn_cast_or_null<AllocOp>(resolver.lookup(k, load.getDstAttr()));
    if (!t || !dst || dst.getSpace() != MemorySpace::sbuf || !origins.count(t))
      return std::nullopt;
    Type et = dst.getElementType();
    if (!et.isF32() && !et.isBF16() && !et.isF16())
      return std::nullopt; // engines copy through f32
    AccessPatternAttr dap = load.getDstAp();
    int64_t n = dap.getTotalElements();
    if (n > kMaxLoadElements || !dap.isTile())
      return std::nullopt;
    int64_t ps = dap.getPartStart(), pc = dap.getPartCount();
    const std::vector<Origin> &origin = origins[t];
    SmallVector<int64_t> hidx;
    hidx.reserve(n);
    load.getSrcAp().walkElements([&](int64_t, int64_t h) { hidx.push_back(h); });
    SmallVector<int64_t> srcElem(n);
    int32_t tile = -1;
    // (store step) -> bounding box of the elements that store left in the tile.
    std::map<int64_t, TileWrite> boxes;
    bool ok = true;
    int64_t i = 0;
    dap.walkElements([&](int64_t p, int64_t) {
      if (!ok)
        return;
      int64_t h = hidx[i];
      if (h < 0 || h >= static_cast<int64_t>(origin.size())) {
        ok = false;
        return;
      }
      const Origin &o = origin[h];
      if (o.tile < 0 || (tile >= 0 && o.tile != tile) || o.part != p) {
        ok = false;
        return;
      }
      tile = o.tile;
      int64_t e = o.elem;
      srcElem[i] = e;
      auto [it, fresh] = boxes.try_emplace(o.step, TileWrite{o.step, p, p + 1, e, e + 1});
      if (!fresh) {
        it->second.p0 = std::min(it->second.p0, p);
        it->second.p1 = std::max(it->second.p1, p + 1);
        it->second.e0 = std::min(it->second.e0, e);
        it->second.e1 = std::max(it->second.e1, e + 1);
      }
      ++i;
    });
    if (!ok || tile < 0)
      return std::nullopt;
    if (tiles[tile].getElementType() != et)
      return std::nullopt;
    // Nothing may have overwritten those bytes since they were stored.
    for (auto &[storeStep, box] : boxes)
      for (const TileWrite &w : tileWrites[tile])
        if (w.step > storeStep && w.p0 < box.p1 && box.p0 < w.p1 && w.e0 < box.e1 &&
            box.e0 < w.e1)
          return std::nullopt;
    // The source elements as a pattern over the destination's dims.
    ArrayRef<int64_t> sizes = dap.getSizes();
    int64_t perPart = dap.getNumElements();
    int64_t base = srcElem[0];
    SmallVector<int64_t> strides(sizes.size(), 0);
    int64_t inner = 1;
    for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
      if (sizes[d] > 1)
        strides[d] = srcElem[inner] - base;
      if (strides[d] < 0)
        return std::nullopt;
      inner *= sizes[d];
    }
    SmallVector<int64_t, 4> idx(sizes.size(), 0);
    for (int64_t j = 0; j < n; ++j) {
      int64_t rem = j % perPart, e = base;
      for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
        e += (rem % sizes[d]) * strides[d];
        rem /= sizes[d];
      }
      if (srcElem[j] != e)
        return std::nullopt;
    }
    if (hw->maxPartitionSpan(ps) < pc) {
      extendPrevious(load, k, tile, base, sizes, strides);
      return std::nullopt;
    }
    // Only where the kernel's engines have time to spare.
    int64_t to = kernelIndex.lookup(k);
    const std::array<int64_t, 3> &busy = work[to];
    int64_t busiest = std::max({busy[0], busy[1], busy[2]}) + dap.getNumElements() + hw->minII;
    if (busiest / hw->vectorClockGHz > kBusyLatencies * hw->dmaLatencyNs)
      return std::nullopt;
    // The tile must fit beside every kernel it is carried across.
    KernelOp owner = tiles[tile]->getParentOfType<KernelOp>();
    int64_t from = owner ? kernelIndex.lookup(owner) : -1;
    int64_t bytes = tiles[tile].getAlignedBytesPerPartition();
    int64_t budget = hw->sbufPartitionBytes * 3 / 4;
    int64_t &carriedTo = carriedUntil.try_emplace(tile, from).first->second;
    for (int64_t j = carriedTo + 1; j <= to; ++j)
      if (kernelBytes[j] + carried[j] + bytes > budget)
        return std::nullopt;
    for (int64_t j = carriedTo + 1; j <= to; ++j)
      carried[j] += bytes;
    carriedTo = std::max(carriedTo, to);

    Forward f{load, k, tile,
              AccessPatternAttr::get(load.getContext(), ps, pc, base, sizes, strides),
              Engine::scalar};
    f.step = step;
    f.dstAp = dap;
    // The least busy of the engines that copy.
    int best = 0;
    for (int e = 1; e < 3; ++e)
      if (busy[e] < busy[best])
        best = e;
    f.engine = best == 0 ? Engine::scalar : best == 1 ? Engine::vector : Engine::gpsimd;
    return f;
  }

  /// A load whose partitions start off a quadrant boundary (an engine
  /// access cannot start there) joins the copy of the load just before it
  /// in the kernel when that one ends where this one starts, into the same
  /// tile, from the same tile at the same offsets, with only loads between
  /// them (pieces of one transfer: a [128, 512] bf16
  /// load in pieces of 16 partitions was half copies, half loads waiting on
  /// the stores they replace).
  void extendPrevious(DmaCopyOp load, KernelOp k, int32_t tile, int64_t base,
                      ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
    if (forwards.empty())
      return;
    Forward &f = forwards.back();
    AccessPatternAttr fd = f.dstAp, ld = load.getDstAp();
    if (f.kernel != k || f.tile != tile || f.step <= lastBarrierStep ||
        f.load.getDstAttr() != load.getDstAttr() ||
        fd.getPartStart() + fd.getPartCount() != ld.getPartStart() ||
        fd.getOffset() != ld.getOffset() || fd.getSizes() != ld.getSizes() ||
        fd.getStrides() != ld.getStrides() || f.srcAp.getOffset() != base ||
        f.srcAp.getSizes() != sizes || f.srcAp.getStrides() != strides)
      return;
    int64_t p0 = fd.getPartStart(), count = fd.getPartCount() + ld.getPartCount();
    if (hw->maxPartitionSpan(p0) < count)
      return;
    MLIRContext *ctx = load.getContext();
    f.dstAp = AccessPatternAttr::get(ctx, p0, count, fd.getOffset(), fd.getSizes(),
                                     fd.getStrides());
    f.srcAp = AccessPatternAttr::get(ctx, p0, count, base, sizes, strides);
    f.merged.push_back(load);
  }

  /// Rewrites the program: carried tiles move to its body, loads become
  /// copies, and stores of tensors nothing loads any more go.
  void apply(ProgramOp program, ArrayRef<Forward> forwards, MemoryResolver &resolver,
             llvm::DenseMap<Operation *, int64_t> &readers) {
    MLIRContext *ctx = program.getContext();
    SymbolTable symbols(program);
    llvm::DenseMap<int32_t, StringAttr> names;
    for (const Forward &f : forwards) {
      AllocOp tile = tiles[f.tile];
      KernelOp owner = tile->getParentOfType<KernelOp>();
      if (!owner || owner == f.kernel || names.count(f.tile))
        continue;
      FailureOr<StringAttr> newName = carryTile(tile, owner, symbols);
      if (failed(newName))
        return signalPassFailure();
      names[f.tile] = *newName;
    }
    llvm::MapVector<KernelOp, std::pair<int64_t, int64_t>> perKernel; // loads, bytes
    int64_t elided = 0;
    // Forwards that are partition pieces of one box (a transfer split over
    // queues), each group elided whole or not at all.
    SmallVector<SmallVector<size_t, 2>> groups;
    for (size_t i = 0; i < forwards.size(); ++i) {
      if (!groups.empty()) {
        Forward g = forwards[groups.back().back()], f = forwards[i];
        AccessPatternAttr gd = g.dstAp, fd = f.dstAp;
        if (f.kernel == g.kernel && f.tile == g.tile &&
            f.load.getDstAttr() == g.load.getDstAttr() &&
            gd.getPartStart() + gd.getPartCount() == fd.getPartStart() &&
            gd.getOffset() == fd.getOffset() && gd.getSizes() == fd.getSizes() &&
            gd.getStrides() == fd.getStrides() && g.srcAp.getOffset() == f.srcAp.getOffset() &&
            g.srcAp.getSizes() == f.srcAp.getSizes() &&
            g.srcAp.getStrides() == f.srcAp.getStrides()) {
          groups.back().push_back(i);
          continue;
        }
      }
      groups.push_back({i});
    }
    llvm::DenseSet<size_t> gone;
    for (ArrayRef<size_t> group : groups) {
      const Forward &first = forwards[group.front()];
      // A tile carried from an earlier kernel: nothing writes it any more.
      if (!names.count(first.tile) ||
          !elide(forwards, group, FlatSymbolRefAttr::get(names[first.tile])))
        continue;
      for (size_t i : group) {
        gone.insert(i);
        elided += retire(forwards[i], perKernel, resolver, readers);
      }
    }
    for (auto [i, forward] : llvm::enumerate(forwards)) {
      if (gone.contains(i))
        continue;
      Forward f = forward;
      AllocOp tile = tiles[f.tile];
      StringAttr src = names.count(f.tile) ? names[f.tile] : tile.getSymNameAttr();
      OpBuilder b(f.load);
      auto copy = TensorCopyOp::create(b, f.load.getLoc(), EngineAttr::get(ctx, f.engine),
                                       f.load.getDstAttr(), f.dstAp,
                                       FlatSymbolRefAttr::get(src), f.srcAp,
                                       DenseI64ArrayAttr(), UnitAttr());
      for (NamedAttribute attr : f.load->getDiscardableAttrs())
        copy->setAttr(attr.getName(), attr.getValue());
      {
        ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
        if (failed(mlir::verify(copy))) {
          copy->erase();
          continue;
        }
      }
      retire(f, perKernel, resolver, readers);
    }
    int64_t dropped = 0;
    if (!keepStores) {
      // Stores into a tensor nothing reads any more; a dropped HBM-to-HBM
      // copy no longer reads its source, whose stores may go in turn.
      for (bool again = true; again;) {
        SmallVector<DmaCopyOp> dead;
        for (KernelOp k : kernels)
          for (Operation &op : k.getBodyBlock())
            if (auto dma = dyn_cast<DmaCopyOp>(op))
              if (auto t = dyn_cast_or_null<HbmOp>(resolver.lookup(k, dma.getDstAttr())))
                if (t.getKind() == HbmKind::internal && readers.count(t) && readers[t] == 0)
                  dead.push_back(dma);
        for (DmaCopyOp dma : dead) {
          KernelOp k = dma->getParentOfType<KernelOp>();
          if (auto src = dyn_cast_or_null<HbmOp>(resolver.lookup(k, dma.getSrcAttr())))
            if (src.getKind() == HbmKind::internal && readers.count(src))
              --readers[src];
          dma->erase();
        }
        dropped += static_cast<int64_t>(dead.size());
        again = !dead.empty();
      }
    }
    if (remarks)
      for (KernelOp k : kernels) // in program order
        if (auto it = perKernel.find(k); it != perKernel.end())
          k.emitRemark() << "reads " << it->second.first << " load(s), " << it->second.second
                         << " bytes, from SBUF tiles of earlier kernels instead of HBM";
    if (remarks && dropped)
      program.emitRemark() << dropped << " store(s) to HBM dropped: nothing loads them any more";
    if (remarks && elided)
      program.emitRemark() << elided
                           << " forwarded load(s) copy nothing: their readers read the earlier "
                              "kernels' tiles in place";
  }

  /// Erases `f`'s loads (its pieces too), counting them and their bytes
  /// for `f`'s kernel and one read less of their tensors; returns how many.
  int64_t retire(Forward f,
                 llvm::MapVector<KernelOp, std::pair<int64_t, int64_t>> &perKernel,
                 MemoryResolver &resolver, llvm::DenseMap<Operation *, int64_t> &readers) {
    auto &[count, bytes] = perKernel[f.kernel];
    int64_t loads = 1 + static_cast<int64_t>(f.merged.size());
    count += loads;
    bytes += f.srcAp.getTotalElements() * elementBytes(tiles[f.tile].getElementType());
    f.merged.push_back(f.load);
    for (DmaCopyOp load : f.merged) {
      if (auto t = dyn_cast_or_null<HbmOp>(resolver.lookup(f.kernel, load.getSrcAttr())))
        --readers[t];
      load->erase();
    }
    return loads;
  }

  /// Removes the copy `f` would need: the engine instructions that read
  /// what `f.load` wrote, before anything writes those bytes again, read
  /// the carried tile `from` in place. Only when the load and its source
  /// are one contiguous run per partition (an element's offset then moves
  /// by a constant), every such reader is an engine instruction reading
  /// inside the loaded box (a store would leave an origin pointing at the
  /// tile nothing fills any more), and each still verifies.
  bool elide(ArrayRef<Forward> forwards, ArrayRef<size_t> group, FlatSymbolRefAttr from) {
    Forward f = forwards[group.front()];
    Forward last = forwards[group.back()];
    AccessPatternAttr dap = f.dstAp, sap = f.srcAp;
    int64_t n = dap.getNumElements();
    if (dap.getRunElements() != n || sap.getRunElements() != n)
      return false;
    DmaCopyOp load = f.load;
    auto dst = load.getDstAttr();
    int64_t p0 = dap.getPartStart();
    int64_t p1 = last.dstAp.getPartStart() + last.dstAp.getPartCount();
    auto [e0, e1] = dap.getExtent();
    int64_t shift = sap.getExtent().first - e0;
    auto overlaps = [&](AccessPatternAttr ap) {
      auto [a0, a1] = ap.getExtent();
      int64_t q0 = ap.getPartStart(), q1 = q0 + ap.getPartCount();
      return q0 < p1 && p0 < q1 && a0 < e1 && e0 < a1;
    };
    llvm::SmallPtrSet<Operation *, 4> pieces;
    for (size_t i : group) {
      Forward piece = forwards[i];
      pieces.insert(piece.load);
      for (DmaCopyOp merged : piece.merged)
        pieces.insert(merged);
    }
    // (op, operand name) pairs to point at `from`.
    SmallVector<std::pair<Operation *, StringRef>> reads;
    size_t seen = 0; // pieces passed: a reader before the last is refused
    for (Operation *op = load->getNextNode(); op; op = op->getNextNode()) {
      auto inst = dyn_cast<InstructionOpInterface>(op);
      if (pieces.contains(op))
        ++seen;
      if (!inst || pieces.contains(op))
        continue;
      SmallVector<MemoryAccess> accesses;
      inst.getAccesses(accesses);
      bool writes = false, reads0 = false;
      for (const MemoryAccess &a : accesses) {
        if (a.memory != dst || !overlaps(a.ap))
          continue;
        if (a.write) {
          writes = true;
          continue;
        }
        auto [a0, a1] = a.ap.getExtent();
        int64_t q0 = a.ap.getPartStart(), q1 = q0 + a.ap.getPartCount();
        if (isa<DmaCopyOp>(op) || q0 < p0 || q1 > p1 || a0 < e0 || a1 > e1 ||
            seen + 1 < pieces.size())
          return false;
        reads0 = true;
      }
      if (writes && reads0)
        return false;
      if (writes)
        break;
      if (!reads0)
        continue;
      // The operands that read the box (another operand may read other
      // bytes of the same tile: it stays).
      for (StringRef name : inst.getRecordEncoding().operands) {
        name = name.rtrim('?');
        auto ap = op->getAttrOfType<AccessPatternAttr>((name + "_ap").str());
        if (name != "dst" && op->getAttr(name) == dst && ap && overlaps(ap))
          reads.push_back({op, name});
      }
    }
    if (reads.empty())
      return false;
    // Rewrite, and undo it all if an instruction refuses its new operand.
    MLIRContext *ctx = load.getContext();
    SmallVector<std::tuple<Operation *, StringRef, AccessPatternAttr>> undo;
    bool ok = true;
    for (auto [op, name] : reads) {
      std::string apName = (name + "_ap").str();
      auto ap = op->getAttrOfType<AccessPatternAttr>(apName);
      undo.push_back({op, name, ap});
      op->setAttr(name, from);
      op->setAttr(apName, AccessPatternAttr::get(ctx, ap.getPartStart(), ap.getPartCount(),
                                                 ap.getOffset() + shift, ap.getSizes(),
                                                 ap.getStrides()));
      ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
      if (failed(mlir::verify(op))) {
        ok = false;
        break;
      }
    }
    if (ok)
      return true;

    for (auto [op, name, ap] : undo) {
      op->setAttr(name, dst);
      op->setAttr((name + "_ap").str(), ap);
    }
    return false;
  }

  const neuronc::HardwareModel *hw = nullptr;
  SmallVector<Forward> forwards;
  /// Step of the current kernel's last instruction other than a load into
  /// a tile (an engine instruction or a store may touch the partitions a
  /// joined piece's copy writes early).
  int64_t lastBarrierStep = -1;
  SmallVector<KernelOp> kernels;
  llvm::DenseMap<KernelOp, int64_t> kernelIndex;
  SmallVector<int64_t> kernelBytes; ///< SBUF bytes per partition of each kernel's tiles
  SmallVector<int64_t> carried;     ///< bytes of carried tiles live across each kernel
  SmallVector<AllocOp> tiles;
  llvm::DenseMap<Operation *, int32_t> tileIds;
  std::vector<std::vector<TileWrite>> tileWrites;
  llvm::DenseMap<Operation *, std::vector<Origin>> origins;
  llvm::DenseMap<Operation *, int64_t> lastRead; ///< internal tensor -> its last reading step
  llvm::DenseMap<int32_t, int64_t> carriedUntil; ///< tile -> last kernel it is carried to
  /// Cycles each copying engine works in each kernel (ScalarE, VectorE,
  /// GpSimdE), roughly: its elements per partition plus the smallest
  /// initiation interval per instruction.
  SmallVector<std::array<int64_t, 3>> work;
};

} // namespace
