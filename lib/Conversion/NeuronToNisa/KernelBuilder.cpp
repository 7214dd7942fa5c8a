//===- KernelBuilder.cpp - Building nisa kernels from neuron ops ----------===//

#include "KernelBuilder.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

//===----------------------------------------------------------------------===//
// Strided spaces
//===----------------------------------------------------------------------===//

int64_t StridedSpace::numElements() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

int64_t HbmView::numRows() const {
  return std::accumulate(rowSizes.begin(), rowSizes.end(), int64_t(1), std::multiplies<>());
}

int64_t HbmView::numCols() const {
  return std::accumulate(colSizes.begin(), colSizes.end(), int64_t(1), std::multiplies<>());
}

namespace {

/// Drops size-1 dims and merges a dim into the next inner one when every
/// memory steps over both as one.
StridedSpace coalesce(const StridedSpace &in) {
  StridedSpace out;
  for (size_t d = 0; d < in.sizes.size(); ++d) {
    if (in.sizes[d] == 1)
      continue;
    out.sizes.push_back(in.sizes[d]);
    out.strides.push_back(in.strides[d]);
  }
  // Merge from the inside out: dim d joins d+1 when stride[d] = size[d+1] * stride[d+1].
  for (int d = static_cast<int>(out.sizes.size()) - 2; d >= 0; --d) {
    bool merge = true;
    for (size_t k = 0; k < out.strides[d].size(); ++k)
      merge &= out.strides[d][k] == out.sizes[d + 1] * out.strides[d + 1][k];
    if (!merge)
      continue;
    out.sizes[d] *= out.sizes[d + 1];
    out.strides[d] = out.strides[d + 1];
    out.sizes.erase(out.sizes.begin() + d + 1);
    out.strides.erase(out.strides.begin() + d + 1);
  }
  return out;
}

/// Recursive worker of decompose over dims [i, n) of a coalesced space.
void decomposeFrom(const StridedSpace &s, size_t i, int64_t start, int64_t count,
                   SmallVector<int64_t, 2> base, int64_t firstIndex, int maxDims,
                   SmallVector<Piece> &out) {
  size_t n = s.sizes.size();
  size_t memories = base.size();
  if (count == 0)
    return;
  if (i == n) {
    Piece p;
    p.first = firstIndex;
    p.count = 1;
    p.offsets = base;
    out.push_back(std::move(p));
    return;
  }
  int64_t inner = 1;
  for (size_t d = i + 1; d < n; ++d)
    inner *= s.sizes[d];
  auto advanced = [&](int64_t block) {
    SmallVector<int64_t, 2> o = base;
    for (size_t k = 0; k < memories; ++k)
      o[k] += block * s.strides[i][k];
    return o;
  };
  if (start % inner == 0 && count % inner == 0) {
    int64_t blocks = count / inner, b0 = start / inner;
    size_t innerDims = n - i - 1;
    size_t dims = innerDims + (blocks > 1 ? 1 : 0);
    if (static_cast<int>(dims) <= maxDims) {
      Piece p;
      p.first = firstIndex;
      p.count = count;
      p.offsets = advanced(b0);
      if (blocks > 1) {
        p.sizes.push_back(blocks);
        p.strides.push_back(s.strides[i]);
      }
      for (size_t d = i + 1; d < n; ++d) {
        p.sizes.push_back(s.sizes[d]);
        p.strides.push_back(s.strides[d]);
      }
      out.push_back(std::move(p));
      return;
    }
    for (int64_t b = 0; b < blocks; ++b)
      decomposeFrom(s, i + 1, 0, inner, advanced(b0 + b), firstIndex + b * inner, maxDims, out);
    return;
  }
  // A partial block at the head, whole blocks in the middle, a partial tail.
  int64_t b0 = start / inner, r0 = start % inner;
  if (r0) {
    int64_t head = std::min(count, inner - r0);
    decomposeFrom(s, i + 1, r0, head, advanced(b0), firstIndex, maxDims, out);
    start += head;
    count -= head;
    firstIndex += head;
  }
  if (count >= inner) {
    int64_t mid = (count / inner) * inner;
    decomposeFrom(s, i, start, mid, base, firstIndex, maxDims, out);
    start += mid;
    count -= mid;
    firstIndex += mid;
  }
  if (count)
    decomposeFrom(s, i + 1, 0, count, advanced(start / inner), firstIndex, maxDims, out);
}

} // namespace

SmallVector<Piece> mlir::neuron::lowering::decompose(const StridedSpace &space, int64_t start,
                                                     int64_t count, int maxDims) {
  StridedSpace s = coalesce(space);
  size_t memories = space.strides.empty() ? 1 : space.strides.front().size();
  SmallVector<Piece> out;
  decomposeFrom(s, 0, start, count, SmallVector<int64_t, 2>(memories, 0), start, maxDims, out);
  return out;
}

//===----------------------------------------------------------------------===//
// ProgramBuilder
//===----------------------------------------------------------------------===//

ProgramBuilder::ProgramBuilder(nisa::ProgramOp program, const neuronc::HardwareModel &hw)
    : program_(program), hw_(hw), queueLoad(hw.dmaEngines, 0.0) {}

std::string ProgramBuilder::uniqueName(StringRef prefix) {
  return (prefix + Twine(counters[prefix]++)).str();
}

HbmBuffer ProgramBuilder::declare(nisa::HbmKind kind, RankedTensorType type, Location loc,
                                  std::optional<int64_t> index, StringRef name,
                                  ElementsAttr value, bool hostTransposed) {
  OpBuilder b = OpBuilder::atBlockEnd(&program_.getBodyBlock());
  // Tensors come before the kernels.
  if (auto first = program_.getBodyBlock().getOps<nisa::KernelOp>(); !first.empty())
    b.setInsertionPoint(*first.begin());
  std::string sym = name.empty() ? uniqueName(kind == nisa::HbmKind::input    ? "in"
                                              : kind == nisa::HbmKind::output ? "out"
                                              : kind == nisa::HbmKind::constant ? "const"
                                                                                : "tmp")
                                 : name.str();
  IntegerAttr indexAttr = index ? b.getI64IntegerAttr(*index) : IntegerAttr();
  nisa::HbmOp::create(b, loc, b.getStringAttr(sym), nisa::HbmKindAttr::get(b.getContext(), kind),
                      indexAttr, TypeAttr::get(type), value, IntegerAttr(),
                      hostTransposed ? b.getUnitAttr() : UnitAttr(), DenseI64ArrayAttr());
  return {FlatSymbolRefAttr::get(b.getContext(), sym), SmallVector<int64_t>(type.getShape()),
          type.getElementType()};
}

nisa::KernelOp ProgramBuilder::newKernel(StringRef kind, StringRef source, Location loc) {
  OpBuilder b = OpBuilder::atBlockEnd(&program_.getBodyBlock());
  return nisa::KernelOp::create(b, loc, uniqueName("k"), kind, source);
}

Engine ProgramBuilder::pickEngine(ArrayRef<Engine> allowed, ArrayRef<double> ns) {
  size_t best = 0;
  for (size_t i = 1; i < allowed.size(); ++i)
    if (load[static_cast<int>(allowed[i])] + ns[i] <
        load[static_cast<int>(allowed[best])] + ns[best])
      best = i;
  charge(allowed[best], ns[best]);
  return allowed[best];
}

int64_t ProgramBuilder::pickQueue(double ns, bool store, int64_t storeQueues) {
  auto first = queueLoad.begin(), last = queueLoad.end();
  if (storeQueues > 0 && storeQueues < static_cast<int64_t>(queueLoad.size()))
    (store ? first : last) = queueLoad.end() - storeQueues;
  size_t best = std::min_element(first, last) - queueLoad.begin();
  queueLoad[best] += ns;
  return static_cast<int64_t>(best);
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

Location mlir::neuron::lowering::sourceLocation(Operation *op) {
  if (isa<NameLoc>(op->getLoc()))
    return op->getLoc();
  return NameLoc::get(StringAttr::get(op->getContext(), op->getName().getStringRef()),
                      op->getLoc());
}

KernelBuilder::KernelBuilder(ProgramBuilder &program, StringRef kind, Operation *source)
    : program_(program),
      kernel_(program.newKernel(kind, source->getName().getStringRef(), source->getLoc())),
      b(source->getContext()), loc_(sourceLocation(source)), allocBuilder(source->getContext()) {
  b.setInsertionPointToEnd(&kernel_.getBodyBlock());
  allocBuilder.setInsertionPointToStart(&kernel_.getBodyBlock());
}

void KernelBuilder::setSource(Operation *op) { loc_ = sourceLocation(op); }

FlatSymbolRefAttr KernelBuilder::alloc(MemorySpace space, int64_t partitions, int64_t elements,
                                       Type type, StringRef prefix, bool discard) {
  std::string name = program_.uniqueName(prefix);
  // Allocations stay together at the top of the kernel.
  if (lastAlloc)
    allocBuilder.setInsertionPointAfter(lastAlloc);
  else
    allocBuilder.setInsertionPointToStart(&kernel_.getBodyBlock());
  lastAlloc = nisa::AllocOp::create(allocBuilder, kernel_.getLoc(), allocBuilder.getStringAttr(name),
                        nisa::MemorySpaceAttr::get(context(), space),
                        allocBuilder.getI64IntegerAttr(partitions),
                        allocBuilder.getI64IntegerAttr(elements), TypeAttr::get(type),
                        discard ? allocBuilder.getUnitAttr() : UnitAttr(), IntegerAttr());
  return FlatSymbolRefAttr::get(context(), name);
}

nisa::AccessPatternAttr KernelBuilder::tileAP(int64_t p0, int64_t np, int64_t offset, int64_t n) {
  return nisa::AccessPatternAttr::get(context(), p0, np, offset, {n}, {1});
}

nisa::AccessPatternAttr KernelBuilder::tileAP(int64_t p0, int64_t np, int64_t offset,
                                              ArrayRef<int64_t> sizes,
                                              ArrayRef<int64_t> strides) {
  return nisa::AccessPatternAttr::get(context(), p0, np, offset, sizes, strides);
}

nisa::AccessPatternAttr KernelBuilder::hbmAP(int64_t offset, ArrayRef<int64_t> sizes,
                                             ArrayRef<int64_t> strides) {
  return nisa::AccessPatternAttr::get(context(), 0, 0, offset, sizes, strides);
}

namespace {

/// Runs of an access pattern (count, bytes each), for the DMA estimate.
std::pair<int64_t, int64_t> runsOf(nisa::AccessPatternAttr ap, int64_t esize) {
  int64_t run = 1;
  int d = static_cast<int>(ap.getSizes().size()) - 1;
  if (d >= 0 && ap.getStrides()[d] == 1) {
    run = ap.getSizes()[d];
    for (--d; d >= 0 && ap.getStrides()[d] == run; --d)
      run *= ap.getSizes()[d];
  }
  int64_t total = ap.getTotalElements();
  return {std::max<int64_t>(1, total / run), run * esize};
}

/// Pieces for a DMA that moves `moved` bytes (run overheads counted): the
/// largest power of two whose pieces each move at least the size whose issue
/// costs a tenth of its transfer (17 KB on trn1). Small transfers sit on the
/// critical path of the kernels around them; on more queues they arrive
/// sooner.
int64_t finePieces(const neuronc::HardwareModel &hw, int64_t moved) {
  auto minPiece = static_cast<int64_t>(10 * hw.dmaIssueNs * hw.dmaBytesPerNsPerEngine);
  return static_cast<int64_t>(llvm::bit_floor(
      static_cast<uint64_t>(std::max<int64_t>(1, moved / std::max<int64_t>(1, minPiece)))));
}

} // namespace

void KernelBuilder::dma(FlatSymbolRefAttr dst, nisa::AccessPatternAttr dstAp,
                        FlatSymbolRefAttr src, nisa::AccessPatternAttr srcAp, Type type) {
  int64_t esize = nisa::elementBytes(type);
  auto [sr, sb] = runsOf(srcAp, esize);
  auto [dr, db] = runsOf(dstAp, esize);
  int64_t bytes = srcAp.getTotalElements() * esize;
  int64_t runs = std::max(sr, dr);
  double ns = neuronc::dmaQueueNs(hw(), bytes, runs, false);
  // HBM access patterns have no partitions: a store writes one.
  bool store = dstAp.getPartCount() == 0;
  int64_t queue = program_.pickQueue(ns, store, store && tailStores ? 0 : storeQueues);
  emit<nisa::DmaCopyOp>(b.getI64IntegerAttr(queue), dst, dstAp, src, srcAp, FlatSymbolRefAttr(),
                        nisa::AccessPatternAttr(), IntegerAttr(), IntegerAttr(),
                        DenseI64ArrayAttr(), UnitAttr());
}

void KernelBuilder::transfer(bool toTile, FlatSymbolRefAttr tile, Type tileType, int64_t p0,
                             int64_t freeOffset, const HbmView &view, int64_t r0, int64_t nr,
                             int64_t c0, int64_t nc) {
  int64_t esize = nisa::elementBytes(tileType);
  int64_t total = nr * nc * esize;
  StridedSpace cols{view.colSizes, {}};
  for (int64_t s : view.colStrides)
    cols.strides.push_back({s});
  SmallVector<Piece> colPieces = decompose(cols, c0, nc, 3);
  // What the queues move: the bytes plus a run overhead per contiguous run
  // (each row lands on its own partition, so a row has at least one run). A
  // bf16 transfer of short rows costs more than half its f32 twin, and is
  // split as its cost says, not as its bytes do.
  int64_t runsPerRow = 0;
  for (const Piece &cp : colPieces) {
    SmallVector<int64_t> strides;
    for (auto &st : cp.strides)
      strides.push_back(st[0]);
    runsPerRow += runsOf(hbmAP(0, cp.sizes, strides), esize).first;
  }
  int64_t moved = total + nr * runsPerRow * hw().dmaRunOverheadBytes;
  // Spread over the queues in pieces of twice the efficient DMA size; a
  // transfer smaller than half the queues' efficient sizes together goes in
  // pieces down to the size whose issue costs a tenth of its transfer (a
  // small kernel waits on its few transfers: a 96 KiB transpose's loads
  // arrive sooner on six queues than on two; streams of big ones pay the
  // issue once per big piece). Up to one piece per queue, and no more pieces
  // than rows.
  int64_t target = 2 * hw().dmaEfficientBytes;
  if (!toTile && storePieceBytes > 0)
    target = storePieceBytes;
  int64_t pieces = (total + target - 1) / target;
  // Half the queues' efficient sizes together (256 KiB on trn1) counts as
  // small, a row tile of 512 f32 activations included (a residual add's
  // loads, or a bias broadcast over 128 rows, in 4 pieces took a DMA
  // latency more than in 16). A weight of that size stays in big pieces
  // (weightPieces).
  int64_t small = hw().dmaEngines * hw().dmaEfficientBytes / 2;
  bool constant = false;
  if (toTile && weightPieces)
    if (auto hbm = dyn_cast_or_null<nisa::HbmOp>(
            SymbolTable::lookupSymbolIn(program_.program(), view.sym.getAttr())))
      constant = hbm.getKind() == nisa::HbmKind::constant;
  if ((toTile && fineLoads) ||
      (!coarsePieces && storePieceBytes == 0 && (constant ? total < small : total <= small))) {
    // A power of two so that the rows split evenly (a broadcast operand's
    // row pattern stays one pattern per piece).
    pieces = std::max(pieces, finePieces(hw(), moved));
  }
  if (!toTile && tailStores) {
    // The running estimates say which queues the program loaded most, not
    // which are free now: at the end of the program they all are.
    program_.levelQueues();
    pieces = hw().dmaEngines;
  }
  pieces = std::clamp<int64_t>(pieces, 1, std::min<int64_t>(hw().dmaEngines, nr));
  int64_t rowsPer = (nr + pieces - 1) / pieces;
  StridedSpace rows{view.rowSizes, {}};
  for (int64_t s : view.rowStrides)
    rows.strides.push_back({s});
  for (int64_t rs = r0; rs < r0 + nr; rs += rowsPer) {
    int64_t rc = std::min(rowsPer, r0 + nr - rs);
    for (const Piece &cp : colPieces) {
      int maxRowDims = 4 - static_cast<int>(cp.sizes.size());
      for (const Piece &rp : decompose(rows, rs, rc, maxRowDims)) {
        SmallVector<int64_t> sizes(rp.sizes), strides;
        for (auto &st : rp.strides)
          strides.push_back(st[0]);
        sizes.append(cp.sizes.begin(), cp.sizes.end());
        for (auto &st : cp.strides)
          strides.push_back(st[0]);
        auto hbm = hbmAP(view.offset + rp.offsets[0] + cp.offsets[0], sizes, strides);
        auto onTile = tileAP(p0 + rp.first - r0, rp.count, freeOffset + cp.first - c0, cp.count);
        if (toTile)
          dma(tile, onTile, view.sym, hbm, tileType);
        else
          dma(view.sym, hbm, tile, onTile, tileType);
      }
    }
  }
}

int64_t mlir::neuron::lowering::hbmCopyQueues(const neuronc::HardwareModel &hw, int64_t queueBytes,
                                              int64_t elements) {
  constexpr int64_t kBytesPerQueue = 256 << 10; // heuristic: a queue's share worth its latency
  // A small copy (a slice of a projection, a head transpose) also goes in
  // fine pieces, like a tile transfer: on one queue a 128 KiB slice took
  // 9.7 us on trn1, for 1.3 us of latency.
  int64_t queues = std::max((queueBytes + kBytesPerQueue - 1) / kBytesPerQueue,
                            finePieces(hw, queueBytes));
  return std::clamp<int64_t>(queues, 1, std::min<int64_t>(hw.dmaEngines, elements));
}

void KernelBuilder::copyHbm(FlatSymbolRefAttr dst, FlatSymbolRefAttr src, Type type,
                            const StridedSpace &space, int64_t dstOffset, int64_t srcOffset) {
  int64_t n = space.numElements();
  // What the queues pay: the bytes plus a fixed cost per contiguous run (a
  // copy that permutes the innermost dim moves one element per run, and
  // costs as if each were dmaRunOverheadBytes long).
  int64_t run = 1;
  for (int64_t d = static_cast<int64_t>(space.sizes.size()) - 1; d >= 0; --d) {
    if (llvm::any_of(space.strides[d], [&](int64_t s) { return s != run; }))
      break;
    run *= space.sizes[d];
  }
  int64_t bytes = n * nisa::elementBytes(type) + n / run * hw().dmaRunOverheadBytes;
  int64_t chunks = hbmCopyQueues(hw(), bytes, n);
  int64_t per = (n + chunks - 1) / chunks;
  for (int64_t s = 0; s < n; s += per)
    for (const Piece &p : decompose(space, s, std::min(per, n - s), 4)) {
      SmallVector<int64_t> dstStrides, srcStrides;
      for (auto &st : p.strides) {
        dstStrides.push_back(st[0]);
        srcStrides.push_back(st[1]);
      }
      dma(dst, hbmAP(dstOffset + p.offsets[0], p.sizes, dstStrides), src,
          hbmAP(srcOffset + p.offsets[1], p.sizes, srcStrides), type);
    }
}

double KernelBuilder::estimate(Opcode op, Engine e, int64_t parts, int64_t elems,
                               bool fp32Matmul, bool psumInput) {
  neuronc::CostQuery q;
  q.opcode = op;
  q.engine = nisa::toIsa(e);
  q.partitions = parts;
  q.elements = elems;
  q.fp32Matmul = fp32Matmul;
  q.psumInput = psumInput;
  return neuronc::instructionNs(hw(), q);
}

Engine KernelBuilder::pick(Opcode op, ArrayRef<Engine> allowed, int64_t parts, int64_t elems,
                           bool psumInput) {
  SmallVector<double, 3> ns;
  for (Engine e : allowed)
    ns.push_back(estimate(op, e, parts, elems, false, psumInput));
  return program_.pickEngine(allowed, ns);
}
