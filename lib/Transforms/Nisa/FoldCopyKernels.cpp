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
// the consumer's loads. A copy into a program output, which no reader can
// take, folds into the DMAs that write its source instead: the producer
// stores where the copy would have put each element. The rewritten
// kernels' locations take the copy's source op, so the profile lists it as
// absorbed.
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

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

/// Calls `f(e)` for every element offset of the HBM pattern `ap`, in order.
template <typename F>
void forEachOffset(AccessPatternAttr ap, F f) {
  ArrayRef<int64_t> sizes = ap.getSizes(), strides = ap.getStrides();
  SmallVector<int64_t, 4> idx(sizes.size(), 0);
  int64_t e = ap.getOffset();
  if (llvm::is_contained(sizes, 0))
    return;
  while (true) {
    f(e);
    int d = static_cast<int>(sizes.size()) - 1;
    for (; d >= 0; --d) {
      e += strides[d];
      if (++idx[d] < sizes[d])
        break;
      e -= strides[d] * sizes[d];
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
}

/// Elements per contiguous run of the HBM pattern `ap` (1 when its
/// innermost dim is strided).
int64_t runElements(AccessPatternAttr ap) {
  ArrayRef<int64_t> sizes = ap.getSizes(), strides = ap.getStrides();
  int d = static_cast<int>(sizes.size()) - 1;
  if (d < 0 || strides[d] != 1)
    return 1;
  int64_t run = sizes[d];
  for (--d; d >= 0 && strides[d] == run; --d)
    run *= sizes[d];
  return run;
}

/// A kernel that only copies one HBM tensor into another.
struct CopyKernel {
  KernelOp kernel;
  HbmOp source, result;
};

/// Folds copy kernels into the DMAs that read their results.
struct FoldCopyKernelsPass : mlir::nisa::impl::NisaFoldCopyKernelsPassBase<FoldCopyKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    hw = neuronc::lookupHardwareModel(program.getTarget());
    if (!hw)
      return signalPassFailure(); // the program verifier reports it
    SmallVector<KernelOp> kernels(program.getBodyBlock().getOps<KernelOp>());
    // Folding one kernel changes what later candidates read (a slice, then
    // a permute of it), so each candidate is looked at with fresh facts.
    for (KernelOp k : kernels)
      if (std::optional<CopyKernel> copy = asCopyKernel(k))
        tryFold(program, *copy);
  }

private:
  const neuronc::HardwareModel *hw = nullptr;

  /// `k` as a copy kernel: only HBM-to-HBM DMAs from one tensor into
  /// another of the same element type, without gathers.
  std::optional<CopyKernel> asCopyKernel(KernelOp k) {
    MemoryResolver resolver(getOperation());
    CopyKernel copy{k, {}, {}};
    for (Operation &op : k.getBodyBlock()) {
      auto dma = dyn_cast<DmaCopyOp>(op);
      if (!dma || dma.getIndirect() || dma.getSrcAp().isTile() || dma.getDstAp().isTile())
        return std::nullopt;
      auto src = dyn_cast_or_null<HbmOp>(resolver.lookup(k, dma.getSrcAttr()));
      auto dst = dyn_cast_or_null<HbmOp>(resolver.lookup(k, dma.getDstAttr()));
      if (!src || !dst || src == dst || (copy.source && copy.source != src) ||
          (copy.result && copy.result != dst))
        return std::nullopt;
      copy.source = src;
      copy.result = dst;
    }
    if (!copy.source || copy.source.getElementType() != copy.result.getElementType() ||
        copy.result.getNumElements() > kMaxResultElements ||
        copy.source.getNumElements() > kMaxResultElements)
      return std::nullopt;
    return copy;
  }

  /// Folds `copy` into the DMAs that read its result or, failing that,
  /// into the DMAs that write its source.
  void tryFold(ProgramOp program, CopyKernel copy) {
    MemoryResolver resolver(program);
    // Where each result element comes from.
    std::vector<int64_t> from(copy.result.getNumElements(), -1);
    for (auto dma : copy.kernel.getBodyBlock().getOps<DmaCopyOp>()) {
      SmallVector<int64_t> src;
      forEachOffset(dma.getSrcAp(), [&](int64_t e) { src.push_back(e); });
      size_t i = 0;
      bool ok = true;
      forEachOffset(dma.getDstAp(), [&](int64_t e) {
        if (!ok || i >= src.size() || e < 0 || e >= static_cast<int64_t>(from.size()) ||
            from[e] >= 0) {
          ok = false; // written twice, or a pattern the verifier should have refused
          return;
        }
        from[e] = src[i++];
      });
      if (!ok || i != src.size())
        return;
    }
    if (llvm::is_contained(from, -1))
      return; // part of the result comes from elsewhere
    if (copy.result.getKind() == HbmKind::internal && foldIntoReaders(program, copy, from))
      return;
    if (copy.source.getKind() == HbmKind::internal)
      foldIntoWriters(program, copy, from);
  }

  /// Rewrites the readers of `copy`'s result to read its source, and erases
  /// the kernel; false, changing nothing, when any reader cannot.
  bool foldIntoReaders(ProgramOp program, CopyKernel copy, const std::vector<int64_t> &from) {
    MemoryResolver resolver(program);

    // Every other access to the result must be a DMA reading it after the
    // copy, and nothing may write the source after the copy.
    SmallVector<std::pair<DmaCopyOp, AccessPatternAttr>> rewrites;
    SmallVector<KernelOp> readerKernels;
    int64_t checked = 0;
    bool after = false;
    for (KernelOp k : program.getBodyBlock().getOps<KernelOp>()) {
      if (k == copy.kernel) {
        after = true;
        continue;
      }
      for (Operation &op : k.getBodyBlock()) {
        auto inst = dyn_cast<InstructionOpInterface>(op);
        if (!inst)
          continue;
        SmallVector<MemoryAccess> accesses;
        inst.getAccesses(accesses);
        for (const MemoryAccess &a : accesses) {
          Operation *decl = resolver.lookup(k, a.memory);
          if (decl == copy.source && a.write && after)
            return false;
          if (decl != copy.result)
            continue;
          auto dma = dyn_cast<DmaCopyOp>(op);
          if (!after || a.write || !dma || dma.getIndirect() ||
              resolver.lookup(k, dma.getSrcAttr()) != copy.result)
            return false;
          checked += a.ap.getNumElements();
          if (checked > kMaxCheckedElements)
            return false;
          std::optional<AccessPatternAttr> ap = compose(a.ap, from);
          if (!ap)
            return false;
          // A run costs its bytes plus dmaRunOverheadBytes on its queue, and
          // inside the reader that cost sits on the reader's chain: a load
          // cut into runs much shorter than that (a transposed K read an
          // element at a time) costs more there than the copy kernel did.
          int64_t eb = nisa::elementBytes(copy.source.getElementType());
          int64_t before = runElements(a.ap) * eb, now = runElements(*ap) * eb;
          if (now < std::min(before, hw->dmaRunOverheadBytes / 2)) {
            if (remarks)
              emitRemark(copy.kernel.getLoc())
                  << "copy kernel @" << copy.kernel.getSymName() << " stays: a load of @"
                  << k.getSymName() << " would read it in runs of " << now
                  << " bytes instead of " << before;
            return false;
          }
          rewrites.push_back({dma, *ap});
          if (!llvm::is_contained(readerKernels, k))
            readerKernels.push_back(k);
        }
      }
    }
    if (rewrites.empty())
      return false; // a dead copy is for the dead-code rules, not this one

    auto sourceName = FlatSymbolRefAttr::get(copy.source.getSymNameAttr());
    for (auto [dma, ap] : rewrites) {
      dma.setSrcAttr(sourceName);
      dma.setSrcApAttr(ap);
    }
    Location copyLoc = copy.kernel.getLoc();
    for (KernelOp k : readerKernels)
      k->setLoc(FusedLoc::get(k.getContext(), {k.getLoc(), copyLoc}));
    if (remarks)
      emitRemark(copyLoc) << "copy kernel @" << copy.kernel.getSymName() << " ("
                          << copy.kernel.getKind() << ") folded into the loads of "
                          << readerKernels.size() << " kernel(s): they read @"
                          << copy.source.getSymName() << " directly";
    copy.kernel.erase();
    HbmOp result = copy.result;
    if (SymbolTable::symbolKnownUseEmpty(result, program))
      result.erase();
    return true;
  }

  /// Rewrites the DMAs that write `copy`'s source to write its result where
  /// the copy would have put each element, and erases the kernel: the
  /// permute into a program output lands in its producer's stores. Only
  /// when the copy reads each source element once, the source's every
  /// other access is such a write before the copy, and nothing touches the
  /// result before the copy (it is now written earlier).
  void foldIntoWriters(ProgramOp program, CopyKernel copy, const std::vector<int64_t> &from) {
    MemoryResolver resolver(program);
    std::vector<int64_t> to(copy.source.getNumElements(), -1);
    for (auto [j, a] : llvm::enumerate(from)) {
      if (a < 0 || a >= static_cast<int64_t>(to.size()) || to[a] >= 0)
        return; // an element copied twice (a broadcast)
      to[a] = static_cast<int64_t>(j);
    }
    SmallVector<std::pair<DmaCopyOp, AccessPatternAttr>> rewrites;
    SmallVector<KernelOp> writerKernels;
    int64_t checked = 0;
    bool after = false;
    for (KernelOp k : program.getBodyBlock().getOps<KernelOp>()) {
      if (k == copy.kernel) {
        after = true;
        continue;
      }
      for (Operation &op : k.getBodyBlock()) {
        auto inst = dyn_cast<InstructionOpInterface>(op);
        if (!inst)
          continue;
        SmallVector<MemoryAccess> accesses;
        inst.getAccesses(accesses);
        for (const MemoryAccess &a : accesses) {
          Operation *decl = resolver.lookup(k, a.memory);
          if (decl == copy.result && !after)
            return;
          if (decl != copy.source)
            continue;
          auto dma = dyn_cast<DmaCopyOp>(op);
          if (after || !a.write || !dma || dma.getIndirect() ||
              resolver.lookup(k, dma.getDstAttr()) != copy.source)
            return;
          checked += a.ap.getNumElements();
          if (checked > kMaxCheckedElements)
            return;
          std::optional<AccessPatternAttr> ap = compose(a.ap, to);
          if (!ap)
            return;
          int64_t eb = nisa::elementBytes(copy.source.getElementType());
          int64_t before = runElements(a.ap) * eb, now = runElements(*ap) * eb;
          if (now < std::min(before, hw->dmaRunOverheadBytes / 2)) {
            if (remarks)
              emitRemark(copy.kernel.getLoc())
                  << "copy kernel @" << copy.kernel.getSymName() << " stays: a store of @"
                  << k.getSymName() << " would write it in runs of " << now
                  << " bytes instead of " << before;
            return;
          }
          rewrites.push_back({dma, *ap});
          if (!llvm::is_contained(writerKernels, k))
            writerKernels.push_back(k);
        }
      }
    }
    if (rewrites.empty())
      return;
    auto resultName = FlatSymbolRefAttr::get(copy.result.getSymNameAttr());
    for (auto [dma, ap] : rewrites) {
      dma.setDstAttr(resultName);
      dma.setDstApAttr(ap);
    }
    Location copyLoc = copy.kernel.getLoc();
    for (KernelOp k : writerKernels)
      k->setLoc(FusedLoc::get(k.getContext(), {k.getLoc(), copyLoc}));
    if (remarks)
      emitRemark(copyLoc) << "copy kernel @" << copy.kernel.getSymName() << " ("
                          << copy.kernel.getKind() << ") folded into the stores of "
                          << writerKernels.size() << " kernel(s): they write @"
                          << copy.result.getSymName() << " directly";
    copy.kernel.erase();
    HbmOp source = copy.source;
    if (SymbolTable::symbolKnownUseEmpty(source, program))
      source.erase();
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
    forEachOffset(ap, [&](int64_t e) { want.push_back(lookup(e)); });
    size_t i = 0;
    bool ok = true;
    forEachOffset(composed, [&](int64_t e) {
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
