//===- RowKernelPlan.cpp - Resident or streamed: the row kernel plan ---===//
//
// When the working set of one row tile fits SBUF ("resident"), each input is
// loaded once and every node computed once per row tile. Otherwise the
// columns are streamed in chunks, one pass per level of reductions,
// recomputing what a pass needs. Also the public RowKernel API.
//
//===----------------------------------------------------------------------===//

#include "RowKernelImpl.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace mlir::neuron::lowering {

LogicalResult RowKernelImpl::analyze(std::string &why) {
  if (failed(unify(why)))
    return failure();
  // Every reduction reduces the same classes: the columns.
  std::optional<SmallVector<int>> reduced;
  for (auto &[op, red] : reductions) {
    SmallVector<int> roots;
    for (int c : red)
      roots.push_back(classes.find(c));
    llvm::sort(roots);
    if (reduced && *reduced != roots) {
      why = "its reductions reduce different dims";
      return failure();
    }
    reduced = roots;
  }
  // The domain order: the value with the most classes.
  Value ref;
  size_t best = 0;
  SmallVector<Value> all;
  auto heroOperandOnly = [](Value v) {
    return v.getDefiningOp<ConstantOp>() && !v.use_empty() &&
           llvm::all_of(v.getUsers(), [](Operation *u) { return isa<MatmulOp, ConvOp>(u); });
  };
  for (Operation *op : spec.ops) {
    // A matmul (convolution) hero's operands are its business, not the
    // domain's (also a constant of the body only the hero reads).
    if (!isa<MatmulOp, ConvOp>(op))
      for (Value v : op->getOperands())
        all.push_back(v);
    for (Value v : op->getResults())
      if (!heroOperandOnly(v))
        all.push_back(v);
  }
  llvm::SetVector<int> universe;
  for (Value v : all) {
    llvm::SetVector<int> mine;
    for (int c : dimsOf(v))
      if (c >= 0) {
        if (!mine.insert(classes.find(c))) {
          why = "a value uses the same dim twice";
          return failure();
        }
        universe.insert(classes.find(c));
      }
    if (mine.size() > best || !ref) {
      best = mine.size();
      ref = v;
    }
  }
  if (best < universe.size()) {
    why = "no value spans the kernel's whole iteration space";
    return failure();
  }
  SmallVector<int> order;
  for (int c : dimsOf(ref))
    if (c >= 0)
      order.push_back(classes.find(c));
  for (int c : order) {
    DomainDim d{classes.size[c], c, 1};
    if (reduced && llvm::is_contained(*reduced, c))
      fdims.push_back(d);
    else
      pdims.push_back(d);
  }
  if (reduced && fdims.empty())
    reduced.reset(); // only unit dims reduced
  if (spec.psum) {
    // The epilogue's domain is the matmul result [batch..., M, N]: rows are
    // batch x M, columns N, as the matmul's output tiles are (a
    // convolution's [N, F, spatial...]: rows N x F, columns the pixels).
    SmallVector<int> mine;
    for (int c : dimsOf(spec.psum))
      if (c >= 0)
        mine.push_back(classes.find(c));
    int64_t n = cast<RankedTensorType>(spec.psum.getType()).getShape().back();
    if (reduced || mine != order) {
      why = "the epilogue does not follow the matmul's output tiles (it reduces, or reads a "
            "bigger domain)";
      return failure();
    }
    // A convolution's output tiles are [channels, pixels]: all its spatial
    // dims are columns.
    auto shape = cast<RankedTensorType>(spec.psum.getType()).getShape();
    int64_t colDims = n > 1 ? 1 : 0;
    if (isa_and_nonnull<ConvOp>(spec.psum.getDefiningOp()))
      colDims = llvm::count_if(shape.drop_front(2), [](int64_t d) { return d > 1; });
    for (int64_t i = 0; i < colDims && !pdims.empty(); ++i) {
      fdims.insert(fdims.begin(), pdims.back());
      pdims.pop_back();
    }
  } else if (!reduced && !pdims.empty()) {
    fdims.push_back(pdims.back());
    pdims.pop_back();
  }
  auto total = [](ArrayRef<DomainDim> d) {
    int64_t n = 1;
    for (const DomainDim &x : d)
      n *= x.size;
    return n;
  };
  if (!reduced && !spec.psum) {
    // Few rows: move part of the first column dim onto the partitions.
    int64_t prow = total(pdims);
    if (prow < P && !fdims.empty()) {
      DomainDim &f = fdims.front();
      for (int64_t k = P / prow; k > 1; --k) {
        if (f.size % k == 0 && f.size / k >= 64) {
          pdims.push_back({k, f.cls, f.mult * (f.size / k)});
          f.size /= k;
          break;
        }
      }
    }
    // Short rows: move part of the last row dim into the columns, and, when
    // all of it moved, of the dim before it too (a [8, 512, 7, 7] tensor is
    // 128 rows of 1568 columns, runs of 6 KiB, not 4096 rows of 49).
    int64_t fcol = total(fdims);
    prow = total(pdims);
    while (fcol < 256 && prow >= 256 && !pdims.empty()) {
      DomainDim &p = pdims.back();
      int64_t moved = 1;
      // heuristic: up to 2048 columns per row, keeping a full row tile.
      for (int64_t j = std::min<int64_t>(2048 / fcol, prow / P); j > 1; --j) { // heuristic: see above
        if (p.size % j == 0) {
          fdims.insert(fdims.begin(), {j, p.cls, p.mult});
          p.size /= j;
          p.mult *= j;
          moved = j;
          break;
        }
      }
      if (moved == 1 || p.size != 1)
        break; // the columns stay one contiguous run of the row dims
      pdims.pop_back();
      // Only when every value spans the columns and the next row dim (a
      // plain elementwise kernel): a per-channel scale is a per-partition
      // scalar while the channels stay on the partitions, and a strided,
      // broadcast operand once they move into the columns (DenseNet's
      // batchnorms were 4x slower that way).
      if (pdims.empty())
        break;
      SmallVector<int> need = {pdims.back().cls};
      for (const DomainDim &f : fdims)
        need.push_back(f.cls);
      bool spanned = llvm::all_of(all, [&](Value v) {
        SmallVector<int> d = dimsOf(v);
        return llvm::all_of(need, [&](int cls) {
          return llvm::any_of(d, [&](int c) { return c >= 0 && classes.find(c) == cls; });
        });
      });
      if (!spanned)
        break;
      fcol = total(fdims);
      prow = total(pdims);
    }
  }
  if (pdims.size() + fdims.size() > 60) {
    why = "the iteration space has too many dims";
    return failure();
  }
  for (size_t i = 0; i < fdims.size(); ++i)
    fmask |= uint64_t(1) << (pdims.size() + i);
  rows = total(pdims);
  cols = total(fdims);
  if (failed(buildNodes(why)))
    return failure();

  // Readiness: the pass after which each node's value exists (streaming).
  ready.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    int r = 0;
    for (int a : nodes[i].args)
      r = std::max(r, ready[a]);
    if (nodes[i].kind == NodeKind::Reduce || nodes[i].kind == NodeKind::Stats)
      r += 1;
    ready[i] = r;
  }
  phases = 1;
  for (const OutputInfo &o : outputs)
    phases = std::max(phases, ready[o.node] + 1);

  // SBUF: resident when a whole row tile fits, else stream the columns.
  int64_t budget = hw.sbufPartitionBytes * 3 / 4;
  int64_t perCol = bytesPerColumn();
  if (spec.psum)
    return success();
  if (perCol * cols * 2 <= budget) {
    nbuf = 2;
    chunk = cols;
    groups = chooseGroups(budget);
    int depth = residentDepth();
    if (depth > nbuf && perCol * cols * groups * depth <= budget)
      nbuf = depth;
  } else if (hasReduction && perCol * cols <= budget) {
    nbuf = 1;
    chunk = cols;
  } else {
    nbuf = 2;
    chunk = std::max<int64_t>(1, budget / (perCol * 2));
    if (chunk > 512)        // heuristic: whole 512-column steps
      chunk -= chunk % 512; // heuristic: see above
  }
  nchunks = (cols + chunk - 1) / chunk;
  resident = nchunks == 1;
  return success();
}

int RowKernelImpl::residentDepth() const {
  // heuristic: with two buffers a row tile's loads start when the tile two
  // back is done, so a kernel of many row tiles whose transfers take less
  // than a DMA latency pays that latency per tile (ResNet-50's last residual
  // add, ReLU and global average pool: 128 tiles of 128 x 49, 2 us each).
  // Enough tiles in flight to cover the latency, at most six.
  int64_t steps = llvm::divideCeil(rows, P * groups);
  if (steps <= 2 || spec.psum)
    return 2;
  uint64_t pmask = (uint64_t(1) << pdims.size()) - 1;
  int64_t parts = std::min(rows, P) * groups, bytes = 0;
  for (const InputInfo &in : inputs)
    if (isFull(in.node) && (nodes[in.node].mask & pmask))
      bytes += parts * cols * nisa::elementBytes(nodes[in.node].type);
  for (const OutputInfo &o : outputs)
    bytes += parts * (isFull(o.node) ? cols : 1) * nisa::elementBytes(nodes[o.node].type);
  double stepNs = std::max(1.0, static_cast<double>(bytes) / hw.dmaGBps());
  int64_t depth = 1 + static_cast<int64_t>(std::ceil(hw.dmaLatencyNs / stepNs));
  return static_cast<int>(std::clamp<int64_t>(depth, 2, std::min<int64_t>(6, steps)));
}

int64_t RowKernelImpl::chooseGroups(int64_t budget) const {
  // heuristic: a kernel that reduces rows of fewer than 64 columns pays an
  // instruction's fixed cost and a DMA latency per few elements (ResNet-50's
  // last global average pool at batch 8: 128 row tiles of 128 x 49; a
  // squeeze-excitation's average over 2x2 pixels: 128 x 4 per instruction),
  // so several row tiles go in one step, up to 2048 elements per partition.
  // Not with fewer than four row tiles, nor for wider rows: their row values
  // then stop being per-partition scalars and cost an instruction each where
  // they folded into an activation (RMSNorm at 2048 x 64: +1.6 %). Kernels
  // of bn_stats (which reduce all of a partition's elements) keep one tile.
  constexpr int64_t kMaxCols = 64;    // heuristic: see above
  constexpr int64_t kMaxElems = 2048; // heuristic: see above
  constexpr int64_t kMinTiles = 4;
  if (spec.psum || !hasReduction || cols >= kMaxCols || rows % P != 0 || rows < kMinTiles * P)
    return 1;
  for (const Node &n : nodes)
    if (n.kind == NodeKind::Stats || n.kind == NodeKind::Part)
      return 1;
  int64_t tiles = rows / P;
  for (int64_t g = std::min(tiles, kMaxElems / cols); g >= 2; --g)
    if (tiles % g == 0 && bytesPerColumn() * cols * g * 2 <= budget)
      return g;
  return 1;
}

nisa::AccessPatternAttr RowKernelImpl::fullAP() const { return kb->tileAP(0, np, 0, groups * nc); }

nisa::AccessPatternAttr RowKernelImpl::rowAP() const { return kb->tileAP(0, np, 0, groups); }

nisa::AccessPatternAttr RowKernelImpl::spreadAP() const {
  if (groups == 1)
    return kb->tileAP(0, np, 0, {nc}, {0});
  return kb->tileAP(0, np, 0, {groups, nc}, {1, 0});
}

int64_t RowKernelImpl::bytesPerColumn() const {
  // Every full node may need a tile; ScalarE writes results nobody reads
  // into a scratch tile.
  int64_t bytes = 4;
  for (const Node &n : nodes)
    if ((n.mask & fmask) && n.kind != NodeKind::Imm && n.kind != NodeKind::Psum)
      bytes += nisa::elementBytes(n.type);
  return bytes;
}

std::string RowKernelImpl::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << rows << " rows x " << cols << " columns, ";
  if (resident)
    os << "resident";
  else
    os << "streamed in " << nchunks << " chunks of " << chunk << " over " << phases << " pass"
       << (phases > 1 ? "es" : "");
  if (groups > 1)
    os << ", " << groups << " rows per partition";
  if (resident && nbuf > 2)
    os << ", loads " << nbuf - 1 << " steps ahead";
  return s;
}


RowKernel::RowKernel(std::unique_ptr<RowKernelImpl> impl) : impl(std::move(impl)) {}
RowKernel::~RowKernel() = default;
RowKernel::RowKernel(RowKernel &&) = default;

std::optional<RowKernel> RowKernel::plan(RowKernelSpec spec, const neuronc::HardwareModel &hw,
                                         std::string &why) {
  auto impl = std::make_unique<RowKernelImpl>(std::move(spec), hw);
  why.clear(); // the analysis fails on a non-empty reason
  if (failed(impl->analyze(why)))
    return std::nullopt;
  return RowKernel(std::move(impl));
}

RowKernel::Layout RowKernel::layout() const { return {impl->chunk, impl->nbuf}; }

SmallVector<RowKernel::Layout> RowKernel::fasterLayouts() const {
  SmallVector<Layout> out;
  if (impl->spec.psum)
    return out;
  Layout planned = layout();
  SmallVector<Layout, 3> candidates = {{impl->cols, impl->residentDepth()}};
  if (candidates.front().buffers != 2)
    candidates.push_back({impl->cols, 2});
  candidates.push_back({impl->cols, 1});
  for (Layout l : candidates) {
    if (l == planned)
      break;
    // One buffer cannot overlap loads with compute; it pays only when it
    // saves the streamed passes' second read of the inputs.
    if (l.buffers == 1 && !impl->hasReduction)
      continue;
    out.push_back(l);
  }
  return out;
}

void RowKernel::setLayout(Layout l) {
  impl->chunk = l.chunk;
  impl->nbuf = l.buffers;
  impl->nchunks = (impl->cols + l.chunk - 1) / l.chunk;
  impl->resident = impl->nchunks == 1;
}

int64_t RowKernel::epilogueBytesPerPartition(int64_t nc, int buffers) const {
  return impl->bytesPerColumn() * nc * buffers;
}

void RowKernel::setEpilogueBuffers(int buffers) { impl->epilogueBuffers = buffers; }

bool RowKernel::canSegmentEpilogue() const {
  return !impl->hasReduction && impl->reductions.empty();
}

void RowKernel::setEpilogueSegments(int64_t segments, int64_t segmentCols) {
  assert(canSegmentEpilogue() && "a band holds only part of each row");
  impl->segments = segments;
  impl->segmentCols = segmentCols;
}

int64_t RowKernel::inputBytes() const {
  int64_t bytes = 0;
  for (const InputInfo &in : impl->inputs)
    bytes += ShapedType::getNumElements(in.buf.shape) * nisa::elementBytes(in.buf.elementType);
  return bytes;
}
int64_t RowKernel::outputBytes() const {
  int64_t bytes = 0;
  for (const OutputInfo &out : impl->outputs)
    if (out.buf.sym)
      bytes +=
          ShapedType::getNumElements(out.buf.shape) * nisa::elementBytes(out.buf.elementType);
  return bytes;
}
int64_t RowKernel::numRows() const { return impl->rows; }
int64_t RowKernel::numCols() const { return impl->cols; }
std::string RowKernel::describe() const { return impl->describe(); }

} // namespace mlir::neuron::lowering
