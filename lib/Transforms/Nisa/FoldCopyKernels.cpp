//===- FoldCopyKernels.cpp - nisa-fold-copy-kernels ----------------------===//
//
// A slice, or a permute that keeps the contiguous dim, lowers to a kernel
// of HBM-to-HBM DMAs: it reads a whole tensor and writes it back
// rearranged, two DMA latencies and a round trip of the bytes before its
// consumer may start (the head split of every exported multi-head attention
// is three slices and three permutes). When every element of the copy's
// result comes from one element of its source, and every reader of the
// result is a DMA whose elements, looked up through that map, still form an
// access pattern, the readers read the source directly with the composed
// pattern and the copy kernel is gone: the layout change is absorbed into
// the consumer's loads. The DMAs that write its source are tried first:
// the producer stores where the copy would have put each element, in the
// producer's time rather than at the head of the consumer's (a copy into a
// program output, which no reader can take, only folds that way). The rewritten
// kernels' locations take the copy's source op, so the profile lists it as
// absorbed. A concat is one such copy per source: each source only it reads
// is stored into its place by its producer, and a source several concats
// copy (a dense block's features) lives in its place in the last of them,
// the earlier ones becoming slices of that.
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/InstructionCost.h"
#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::nisa {
#define GEN_PASS_DEF_NISAFOLDCOPYKERNELSPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

/// Copy results larger than this many elements keep their kernel (the map
/// from result to source element costs 8 bytes each at compile time).
constexpr int64_t kMaxResultElements = int64_t(1) << 22;
/// Reader elements checked per copy kernel at most; beyond it the kernel stays.
constexpr int64_t kMaxCheckedElements = int64_t(1) << 24;
/// Dims of an HBM pattern a DMA takes (the dma_copy verifier's limit).
constexpr int64_t kMaxDmaDims = 4;

/// The DMAs of a kernel that only copies HBM tensors into one other that
/// come from one source: the whole kernel, or one source's part of a
/// concat.
struct CopyKernel {
  KernelOp kernel;
  HbmOp source, result;
  SmallVector<DmaCopyOp> dmas;
  bool part = false; ///< other DMAs of the kernel copy other sources
};

/// Which DMAs of the program a copy kernel folds into.
enum class Side {
  readers, ///< the loads of its result read its source
  writers, ///< the stores of its source write its result
};

/// Contiguous runs a DMA operand's pattern moves (each partition of a tile
/// is its own run).
int64_t runsOf(AccessPatternAttr ap) {
  int64_t n = ap.getTotalElements();
  return std::max<int64_t>(1, n / std::max<int64_t>(1, ap.getRunElements()));
}

/// The queue time rewritten DMAs add to one kernel: each run costs
/// dmaRunOverheadBytes on its queue beyond its bytes (a DMA's runs are its
/// worse side's), and that time sits on the kernel's chain.
struct AddedTime {
  double ns = 0, worst = 0;
  llvm::SmallDenseSet<int64_t, 8> queues;
  int64_t beforeRun = 0, nowRun = 0; ///< bytes, of the costliest rewrite

  /// Adds `dma`, whose HBM side `before` becomes `now` (`other`: its side
  /// that stays).
  void add(const neuronc::HardwareModel &hw, DmaCopyOp dma, AccessPatternAttr before,
           AccessPatternAttr now, AccessPatternAttr other, int64_t elementBytes) {
    int64_t bytes = before.getTotalElements() * elementBytes, otherRuns = runsOf(other);
    double d = neuronc::dmaQueueNs(hw, bytes, std::max(otherRuns, runsOf(now)), false) -
               neuronc::dmaQueueNs(hw, bytes, std::max(otherRuns, runsOf(before)), false);
    ns += std::max(d, 0.0);
    queues.insert(dma.getQueue());
    if (d > worst) {
      worst = d;
      beforeRun = before.getRunElements() * elementBytes;
      nowRun = now.getRunElements() * elementBytes;
    }
  }
  /// The added time per queue the kernel's rewritten DMAs use.
  double perQueue() const {
    return ns / static_cast<double>(std::max<size_t>(queues.size(), 1));
  }
};

/// Folds copy kernels into the DMAs that read their results, or write
/// their sources.
struct FoldCopyKernelsPass : mlir::nisa::impl::NisaFoldCopyKernelsPassBase<FoldCopyKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    hw = neuronc::lookupHardwareModel(program.getTarget());
    if (!hw)
      return signalPassFailure(); // the program verifier reports it
    // Folding erases kernels and tensors and adds none, so the names stay
    // resolvable throughout.
    MemoryResolver resolver(program);
    SmallVector<KernelOp> kernels(program.getBodyBlock().getOps<KernelOp>());
    // Folding one kernel changes what later candidates read (a slice, then
    // a permute of it), so each candidate is looked at with fresh facts.
    for (KernelOp k : kernels) {
      if (erased.contains(k.getOperation()))
        continue;
      std::optional<SmallVector<CopyKernel>> parts = asCopyKernel(resolver, k);
      if (!parts)
        continue;
      if (parts->front().part) {
        // A concat: each source whose producer can write its part of the
        // result directly does, and the kernel keeps the other parts; a
        // source later concats copy too lives in its place in the last.
        for (CopyKernel &part : *parts)
          if (!tryFoldPart(program, resolver, part))
            tryRehome(program, resolver, part);
        if (erased.contains(k.getOperation()))
          continue;
        parts = asCopyKernel(resolver, k);
        if (!parts || parts->front().part)
          continue;
      }
      // One source (a slice, a permute, or a concat whose parts all live in
      // a later concat now).
      tryFold(program, resolver, parts->front());
    }
  }

private:
  const neuronc::HardwareModel *hw = nullptr;
  /// Kernels erased so far (a concat emptied by a later one's rehoming).
  llvm::SmallPtrSet<Operation *, 16> erased;

  /// Erases `k` when folding left it no DMAs.
  void eraseIfEmpty(KernelOp k) {
    if (!k.getBodyBlock().empty())
      return;
    erased.insert(k.getOperation());
    k.erase();
  }

  /// `k` as a copy kernel, one part per source: only HBM-to-HBM DMAs
  /// into one tensor from others of its element type, without gathers.
  static std::optional<SmallVector<CopyKernel>> asCopyKernel(MemoryResolver &resolver,
                                                              KernelOp k) {
    SmallVector<CopyKernel> parts;
    for (Operation &op : k.getBodyBlock()) {
      auto dma = dyn_cast<DmaCopyOp>(op);
      if (!dma || dma.getIndirect() || dma.getSrcAp().isTile() || dma.getDstAp().isTile())
        return std::nullopt;
      auto src = dyn_cast_or_null<HbmOp>(resolver.lookup(k, dma.getSrcAttr()));
      auto dst = dyn_cast_or_null<HbmOp>(resolver.lookup(k, dma.getDstAttr()));
      if (!src || !dst || src == dst || (!parts.empty() && parts.front().result != dst) ||
          src.getElementType() != dst.getElementType() ||
          src.getNumElements() > kMaxResultElements)
        return std::nullopt;
      auto it = llvm::find_if(parts, [&](const CopyKernel &c) { return c.source == src; });
      if (it == parts.end())
        it = parts.insert(parts.end(), CopyKernel{k, src, dst, {}});
      it->dmas.push_back(dma);
    }
    if (parts.empty() || parts.front().result.getNumElements() > kMaxResultElements)
      return std::nullopt;
    // A part when the kernel writes less than its whole result (a concat
    // whose other sources were placed already).
    int64_t written = 0;
    for (CopyKernel &c : parts)
      for (DmaCopyOp dma : c.dmas)
        written += dma.getDstAp().getTotalElements();
    for (CopyKernel &c : parts)
      c.part = parts.size() > 1 || written < c.result.getNumElements();
    return parts;
  }

  /// Records, for each element `dmas` copy, `map[key] = value` with key
  /// and value the (source, result) element or the reverse; false when a
  /// key is out of range or met twice, or a DMA's sides differ in length.
  static bool mapCopies(ArrayRef<DmaCopyOp> dmas, bool bySource, std::vector<int64_t> &map) {
    for (DmaCopyOp dma : dmas) {
      SmallVector<int64_t> src;
      dma.getSrcAp().walkElements([&](int64_t, int64_t e) { src.push_back(e); });
      size_t i = 0;
      bool ok = true;
      dma.getDstAp().walkElements([&](int64_t, int64_t e) {
        if (!ok || i >= src.size()) {
          ok = false;
          return;
        }
        int64_t key = bySource ? src[i] : e, value = bySource ? e : src[i];
        ++i;
        if (key < 0 || key >= static_cast<int64_t>(map.size()) || map[key] >= 0)
          ok = false;
        else
          map[key] = value;
      });
      if (!ok || i != src.size())
        return false;
    }
    return true;
  }

  /// Where each element of `part`'s source goes in its result; empty when
  /// one is copied twice (a broadcast).
  static std::vector<int64_t> partMap(CopyKernel part) {
    std::vector<int64_t> to(part.source.getNumElements(), -1);
    if (!mapCopies(part.dmas, /*bySource=*/true, to))
      return {};
    return to;
  }

  /// Folds one source's part of a concat into the DMAs that write the
  /// source (it must be internal and read by nothing else).
  bool tryFoldPart(ProgramOp program, MemoryResolver &resolver, CopyKernel part) {
    if (part.source.getKind() != HbmKind::internal)
      return false;
    std::vector<int64_t> to = partMap(part);
    return !to.empty() && foldInto(program, resolver, part, to, Side::writers);
  }

  /// A source that several concats copy (DenseNet's features, which every
  /// later layer's concat copies again) lives in its place in the last of
  /// them: every DMA that writes or reads it names that place instead, and
  /// the last concat's copy of it is gone (the earlier concats then copy
  /// from the last one's result, and fold into their readers as slices of
  /// it). Needs: the source internal and accessed only by DMAs, all its
  /// writes before its reads; the last concat copying each of its elements
  /// once into an internal result; every other access to that result
  /// before the concat missing the source's place (other sources placed
  /// the same way), and after it only reads; and the runs of the rewritten
  /// DMAs costing no more than the copy did.
  bool tryRehome(ProgramOp program, MemoryResolver &resolver, CopyKernel part) {
    HbmOp source = part.source;
    if (source.getKind() != HbmKind::internal)
      return false;
    std::optional<CopyKernel> home;
    for (KernelOp k : program.getBodyBlock().getOps<KernelOp>())
      if (std::optional<SmallVector<CopyKernel>> parts = asCopyKernel(resolver, k);
          parts && parts->front().part)
        for (CopyKernel &p : *parts)
          if (p.source == source)
            home = p;
    if (!home || home->kernel == part.kernel || home->result.getKind() != HbmKind::internal)
      return false;
    std::vector<int64_t> to = partMap(*home);
    if (to.empty() || llvm::is_contained(to, -1))
      return false;
    HbmOp result = home->result;
    llvm::BitVector place = imageOf(to, result.getNumElements());
    if (!othersOutside(resolver, *home, place))
      return false;
    /// A DMA access of the source, and its pattern over the result.
    struct Rewrite {
      DmaCopyOp dma;
      bool dst;
      AccessPatternAttr ap;
    };
    SmallVector<Rewrite> rewrites;
    llvm::MapVector<KernelOp, AddedTime> added;
    int64_t eb = nisa::elementBytes(source.getElementType()), checked = 0;
    bool read = false, after = false;
    for (KernelOp k : program.getBodyBlock().getOps<KernelOp>()) {
      bool isHome = k == home->kernel;
      WalkResult walk = resolver.walkAccesses(k, [&](InstructionOpInterface inst,
                                                     const MemoryAccess &a, Operation *decl) {
        if (decl == result && !isHome)
          return disjoint(a.ap, place) || (after && !a.write) ? WalkResult::advance()
                                                      : WalkResult::interrupt();
        if (decl != source)
          return WalkResult::advance();
        auto dma = dyn_cast<DmaCopyOp>(inst.getOperation());
        if (!dma || dma.getIndirect() || (a.write && read))
          return WalkResult::interrupt(); // an engine's access, or a write after a read
        read |= !a.write;
        if (isHome && !a.write)
          return WalkResult::advance(); // the copy that goes
        checked += a.ap.getTotalElements();
        std::optional<AccessPatternAttr> ap = compose(a.ap, to);
        if (!ap || checked > kMaxCheckedElements)
          return WalkResult::interrupt();
        added[k].add(*hw, dma, a.ap, *ap, a.write ? dma.getSrcAp() : dma.getDstAp(), eb);
        rewrites.push_back({dma, a.write, *ap});
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return false;
      after |= isHome;
    }
    double saved = copyKernelNs(*home);
    for (auto &[k, add] : added)
      if (add.perQueue() > saved)
        return false;
    auto name = FlatSymbolRefAttr::get(result.getSymNameAttr());
    for (Rewrite &r : rewrites) {
      if (r.dst) {
        r.dma.setDstAttr(name);
        r.dma.setDstApAttr(r.ap);
      } else {
        r.dma.setSrcAttr(name);
        r.dma.setSrcApAttr(r.ap);
      }
    }
    if (remarks)
      emitRemark(part.kernel.getLoc())
          << "copy kernel @" << part.kernel.getSymName() << " (" << part.kernel.getKind()
          << "): @" << source.getSymName() << " lives in its place in @" << result.getSymName()
          << ", the result of @" << home->kernel.getSymName() << " (" << rewrites.size()
          << " DMA(s) name it)";
    for (DmaCopyOp dma : home->dmas)
      dma.erase();
    eraseIfEmpty(home->kernel);
    if (SymbolTable::symbolKnownUseEmpty(source, program))
      source.erase();
    return true;
  }

  /// Folds `copy` into the DMAs that write its source or, failing that,
  /// into the DMAs that read its result.
  void tryFold(ProgramOp program, MemoryResolver &resolver, CopyKernel copy) {
    // Where each result element comes from.
    std::vector<int64_t> from(copy.result.getNumElements(), -1);
    if (!mapCopies(copy.dmas, /*bySource=*/false, from))
      return; // written twice, or a pattern the verifier should have refused
    if (llvm::is_contained(from, -1))
      return; // part of the result comes from elsewhere
    // The writers first: a producer's stores spread over its compute,
    // while a consumer's loads are what it waits for before it starts (an
    // attention output read back by the out-projection in runs of one head
    // row: 9 us of loads; written that way, the loads are whole rows).
    bool resultInternal = copy.result.getKind() == HbmKind::internal;
    auto intoReaders = [&] {
      if (resultInternal)
        foldInto(program, resolver, copy, from, Side::readers);
    };
    if (copy.source.getKind() != HbmKind::internal)
      return intoReaders();
    // Where each source element goes: the writers' map.
    std::vector<int64_t> to(copy.source.getNumElements(), -1);
    for (auto [j, a] : llvm::enumerate(from)) {
      if (a < 0 || a >= static_cast<int64_t>(to.size()) || to[a] >= 0)
        return intoReaders(); // an element copied twice (a broadcast)
      to[a] = static_cast<int64_t>(j);
    }
    if (!foldInto(program, resolver, copy, to, Side::writers))
      intoReaders();
  }

  /// Rewrites the DMAs on `side` of `copy` through `map` and erases the
  /// kernel; false, changing nothing, when any of them cannot.
  /// - readers (`map`: result element -> source element): every other
  ///   access to the result is a DMA reading it after the copy, and nothing
  ///   writes the source after the copy; they read the source instead.
  /// - writers (`map`: source element -> result element, the copy reading
  ///   each source element once): every other access to the source is a
  ///   DMA writing it before the copy, and nothing touches the result
  ///   before the copy (it is now written earlier); they write the result
  ///   where the copy would have put each element (the permute into a
  ///   program output lands in its producer's stores).
  bool foldInto(ProgramOp program, MemoryResolver &resolver, CopyKernel copy,
                const std::vector<int64_t> &map, Side side) {
    bool readers = side == Side::readers;
    // The tensor whose DMAs are rewritten, and the one they name instead.
    HbmOp from = readers ? copy.result : copy.source;
    HbmOp to = readers ? copy.source : copy.result;
    SmallVector<std::pair<DmaCopyOp, AccessPatternAttr>> rewrites;
    int64_t checked = 0;
    bool after = false;
    /// Per rewritten kernel, in program order.
    llvm::MapVector<KernelOp, AddedTime> added;
    // The elements of `to` the rewritten DMAs will access. Writers: before
    // the copy, other accesses to the result (a concat's parts folded or
    // placed earlier) must miss them. Readers: after the copy, writes of the
    // source must miss them (a concat's result that later concats' sources
    // are placed in).
    llvm::BitVector image = imageOf(map, to.getNumElements());
    if (!readers && copy.part && !othersOutside(resolver, copy, image))
      return false;
    for (KernelOp k : program.getBodyBlock().getOps<KernelOp>()) {
      if (k == copy.kernel) {
        after = true;
        continue;
      }
      WalkResult walk = resolver.walkAccesses(k, [&](InstructionOpInterface inst,
                                                     const MemoryAccess &a, Operation *decl) {
        if (readers && decl == copy.source && a.write && after)
          return copy.part || !disjoint(a.ap, image) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
        if (!readers && decl == copy.result && !after)
          return copy.part && disjoint(a.ap, image) ? WalkResult::advance()
                                                      : WalkResult::interrupt();
        if (decl != from)
          return WalkResult::advance();
        auto dma = dyn_cast<DmaCopyOp>(inst.getOperation());
        if (after != readers || a.write == readers || !dma || dma.getIndirect() ||
            resolver.lookup(k, readers ? dma.getSrcAttr() : dma.getDstAttr()) != from)
          return WalkResult::interrupt();
        checked += a.ap.getNumElements();
        if (checked > kMaxCheckedElements)
          return WalkResult::interrupt();
        std::optional<AccessPatternAttr> ap = compose(a.ap, map);
        if (!ap)
          return WalkResult::interrupt();
        added[k].add(*hw, dma, a.ap, *ap, readers ? dma.getDstAp() : dma.getSrcAp(),
                     nisa::elementBytes(copy.source.getElementType()));
        rewrites.push_back({dma, *ap});
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return false;
    }
    if (rewrites.empty())
      return false; // a dead copy is for the dead-code rules, not this one
    // Shorter runs in a kernel's DMAs (a transposed K read an element at a
    // time) may cost it more than the copy kernel did: one DMA latency and
    // its longest transfer on the chain between producer and consumer.
    double saved = copyKernelNs(copy);
    for (auto &[k, add] : added) {
      double ns = add.perQueue();
      if (ns <= saved)
        continue;
      if (remarks)
        emitRemark(copy.kernel.getLoc())
            << "copy kernel @" << copy.kernel.getSymName() << " stays: the "
            << (readers ? "loads of @" : "stores of @") << k.getSymName() << " would "
            << (readers ? "read" : "write") << " it in runs of " << add.nowRun
            << " bytes instead of " << add.beforeRun << ", "
            << llvm::formatv("{0:F2}", ns / 1e3).str()
            << " us more per queue than the copy kernel's "
            << llvm::formatv("{0:F2}", saved / 1e3).str() << " us";
      return false;
    }

    auto toName = FlatSymbolRefAttr::get(to.getSymNameAttr());
    for (auto [dma, ap] : rewrites) {
      if (readers) {
        dma.setSrcAttr(toName);
        dma.setSrcApAttr(ap);
      } else {
        dma.setDstAttr(toName);
        dma.setDstApAttr(ap);
      }
    }
    Location copyLoc = copy.kernel.getLoc();
    for (KernelOp k : added.keys())
      k->setLoc(FusedLoc::get(k.getContext(), {k.getLoc(), copyLoc}));
    if (remarks) {
      InFlightDiagnostic remark = emitRemark(copyLoc);
      remark << "copy kernel @" << copy.kernel.getSymName() << " (" << copy.kernel.getKind()
             << ")";
      if (copy.part)
        remark << ": its copy of @" << copy.source.getSymName();
      remark << " folded into the " << (readers ? "loads" : "stores") << " of "
             << added.size() << " kernel(s): they " << (readers ? "read" : "write") << " @"
             << to.getSymName() << " directly";
    }
    for (DmaCopyOp dma : copy.dmas)
      dma.erase();
    eraseIfEmpty(copy.kernel);
    if (SymbolTable::symbolKnownUseEmpty(from, program))
      from.erase();
    return true;
  }

  /// The elements of an `n`-element tensor that `map` names.
  static llvm::BitVector imageOf(const std::vector<int64_t> &map, int64_t n) {
    llvm::BitVector image(n);
    for (int64_t e : map)
      if (e >= 0 && e < n)
        image.set(e);
    return image;
  }

  /// Whether none of `ap`'s elements is in `set`.
  static bool disjoint(AccessPatternAttr ap, const llvm::BitVector &set) {
    bool hit = false;
    ap.walkElements([&](int64_t, int64_t e) {
      hit |= e < 0 || e >= static_cast<int64_t>(set.size()) || set.test(e);
    });
    return !hit;
  }

  /// Whether `ap`'s extent lies outside that of the elements in `set`.
  static bool outside(AccessPatternAttr ap, const llvm::BitVector &set) {
    int first = set.find_first(), last = set.find_last();
    if (first < 0)
      return true;
    auto [lo, hi] = ap.getExtent();
    return hi <= first || lo > last;
  }

  /// Whether the DMAs of `part`'s kernel that copy constants or inputs
  /// (parts that stay, after the part's writers) write outside the extent
  /// of `set`.
  /// Extents, not elements: the zero-interleaving concats of ConvTranspose's
  /// stride, folded into each other, left data and zeros written at stride 2
  /// in alternate blocks, disjoint but beyond what the race checker tells
  /// apart (more runs than it keeps, one residue of its lattice): it
  /// reported one overwriting the other unread.
  static bool othersOutside(MemoryResolver &resolver, CopyKernel part,
                            const llvm::BitVector &set) {
    for (auto dma : part.kernel.getBodyBlock().getOps<DmaCopyOp>()) {
      auto src = dyn_cast_or_null<HbmOp>(resolver.lookup(part.kernel, dma.getSrcAttr()));
      if (!llvm::is_contained(part.dmas, dma) && src && src.getKind() != HbmKind::internal &&
          !outside(dma.getDstAp(), set))
        return false;
    }
    return true;
  }


  /// What `copy` costs the chain it sits on: one DMA latency and its
  /// longest transfer (its DMAs run on queues of their own, side by side).
  double copyKernelNs(CopyKernel copy) const {
    int64_t eb = nisa::elementBytes(copy.source.getElementType());
    double longest = 0;
    for (DmaCopyOp dma : copy.dmas) {
      int64_t runs = std::max(runsOf(dma.getSrcAp()), runsOf(dma.getDstAp()));
      longest = std::max(longest, neuronc::dmaQueueNs(*hw, dma.getSrcAp().getTotalElements() * eb,
                                                      runs, false));
    }
    return hw->dmaLatencyNs + longest;
  }

  /// `(size, stride)` dims, outermost first, walking the source offsets
  /// `v` in order: one dim when `v` is an arithmetic run, else runs of equal
  /// length whose starts are themselves split the same way (a row of a
  /// permuted result is one run per source row). std::nullopt when `v` has
  /// no such shape.
  static std::optional<SmallVector<std::pair<int64_t, int64_t>>>
  splitRuns(ArrayRef<int64_t> v) {
    int64_t n = static_cast<int64_t>(v.size());
    if (n == 1)
      return SmallVector<std::pair<int64_t, int64_t>>{{1, 0}};
    int64_t step = v[1] - v[0], run = 2;
    while (run < n && v[run] - v[run - 1] == step)
      ++run;
    if (run == n)
      return SmallVector<std::pair<int64_t, int64_t>>{{n, step}};
    if (n % run != 0)
      return std::nullopt;
    SmallVector<int64_t> starts;
    for (int64_t i = 0; i < n; i += run) {
      for (int64_t j = 1; j < run; ++j)
        if (v[i + j] - v[i + j - 1] != step)
          return std::nullopt;
      starts.push_back(v[i]);
    }
    auto outer = splitRuns(starts);
    if (!outer)
      return std::nullopt;
    outer->push_back({run, step});
    return outer;
  }

  /// The pattern over the source that visits, in order, the sources of the
  /// result elements `ap` visits: each of `ap`'s dims becomes one dim, or
  /// several when its elements come from runs of the source. std::nullopt
  /// when they are not affine that way or need more dims than a DMA has.
  static std::optional<AccessPatternAttr> compose(AccessPatternAttr ap,
                                                  const std::vector<int64_t> &from) {
    ArrayRef<int64_t> sizes = ap.getSizes(), strides = ap.getStrides();
    auto lookup = [&](int64_t e) -> int64_t {
      return e >= 0 && e < static_cast<int64_t>(from.size()) ? from[e] : -1;
    };
    int64_t base = lookup(ap.getOffset());
    if (base < 0)
      return std::nullopt;
    SmallVector<int64_t> newSizes, newStrides;
    for (size_t d = 0; d < sizes.size(); ++d) {
      SmallVector<int64_t> v;
      for (int64_t k = 0; k < sizes[d]; ++k) {
        int64_t src = lookup(ap.getOffset() + k * strides[d]);
        if (src < 0)
          return std::nullopt;
        v.push_back(src);
      }
      auto dims = splitRuns(v);
      if (!dims)
        return std::nullopt;
      for (auto [size, stride] : *dims) {
        newSizes.push_back(size);
        newStrides.push_back(stride);
      }
    }
    // Patterns walk forward (the executable has no negative strides): a
    // reader of a concat of one tensor twice may revisit it from the start.
    if (static_cast<int64_t>(newSizes.size()) > kMaxDmaDims ||
        llvm::any_of(newStrides, [](int64_t st) { return st < 0; }))
      return std::nullopt;
    auto composed = AccessPatternAttr::get(ap.getContext(), 0, 0, base, newSizes, newStrides);
    // Check every element: the dims were found one at a time.
    SmallVector<int64_t> want;
    want.reserve(ap.getNumElements());
    ap.walkElements([&](int64_t, int64_t e) { want.push_back(lookup(e)); });
    size_t i = 0;
    bool ok = true;
    composed.walkElements([&](int64_t, int64_t e) {
      if (ok && (i >= want.size() || want[i] != e))
        ok = false;
      ++i;
    });
    if (!ok || i != want.size())
      return std::nullopt;
    return composed;
  }
};

} // namespace
