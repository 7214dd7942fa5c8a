//===- LowerDataMovement.cpp - Transpose, slice, concat, gather as DMA ----===//
//
// Ops that only move elements become DMA between HBM tensors, each
// transfer an access pattern of at most 4 dims (more dims are split into
// several transfers). The gather loads its indices into SBUF and fetches
// each partition's table row with an indirect DMA.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace {

/// Copies `space` from `src` to `dst` (memory 0 = dst, 1 = src) in one kernel.
void copyKernel(FunctionLowering &fl, Operation *op, StringRef kind, const HbmBuffer &dst,
                const HbmBuffer &src, const StridedSpace &space, int64_t dstOffset,
                int64_t srcOffset) {
  KernelBuilder kb(fl.pb, kind, op);
  kb.copyHbm(dst.sym, src.sym, src.elementType, space, dstOffset, srcOffset);
}

/// Contiguous bytes per partition row from which a load counts as long.
constexpr int64_t kRunBytes = 4096; // heuristic: DMA run length
/// Output tiles of a transpose in flight (each waits for its store).
constexpr int64_t kOutRing = 8; // heuristic: store latency / copy time

/// A permutation with the input dims that stay adjacent and in order merged
/// into one: [S, H, D] by [1, 2, 0] is [S, H·D] by [1, 0].
struct MergedPermutation {
  SmallVector<int64_t> shape; ///< merged input dims
  SmallVector<int64_t> perm;  ///< result dim i is merged input dim perm[i]
};

MergedPermutation mergePermutation(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  // Runs of output dims whose input dims are consecutive (size-1 dims are
  // dropped: they move nothing).
  SmallVector<SmallVector<int64_t>> runs; // input dims of each run, in output order
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (!runs.empty() && runs.back().back() + 1 == p)
      runs.back().push_back(p);
    else
      runs.push_back({p});
  }
  // Number the runs by their first input dim.
  SmallVector<int64_t> order(runs.size());
  for (size_t i = 0; i < runs.size(); ++i)
    order[i] = static_cast<int64_t>(i);
  llvm::sort(order, [&](int64_t a, int64_t b) { return runs[a].front() < runs[b].front(); });
  MergedPermutation m;
  m.perm.assign(runs.size(), 0);
  for (auto [merged, run] : llvm::enumerate(order)) {
    int64_t size = 1;
    for (int64_t d : runs[run])
      size *= shape[d];
    m.shape.push_back(size);
    m.perm[run] = static_cast<int64_t>(merged);
  }
  return m;
}

/// Whether a permutation that moves the innermost dim costs less as 2-D
/// transposes through SBUF (two passes of long runs, three dependent DMA
/// latencies, per 128 x 128 block a load and a store issued and a TensorE
/// transpose and a copy out of PSUM) than as one strided copy with a run
/// per element. A few thousand elements decide it: BERT-tiny's bf16 keys,
/// [2, 64, 2, 64] by [0, 2, 3, 1], take 13.4 us strided and 1.6 us through
/// SBUF; 4096 matrices of 8 x 8 stay strided.
bool sbufTransposeIsCheaper(const neuronc::HardwareModel &hw, const MergedPermutation &m,
                            int64_t elems, int64_t bytes) {
  int64_t r = static_cast<int64_t>(m.shape.size());
  int64_t rows = m.shape[m.perm[r - 1]], cols = m.shape[r - 1];
  double queues = static_cast<double>(hw.dmaEngines);
  // The strided copy spreads over the queues its cost asks for (copyHbm).
  double stridedQueues = static_cast<double>(
      hbmCopyQueues(hw, bytes + elems * hw.dmaRunOverheadBytes, elems));
  double strided = neuronc::dmaQueueNs(hw, bytes, elems, false) / stridedQueues + hw.dmaLatencyNs;
  double viaSbuf = 2 * neuronc::dmaQueueNs(hw, bytes, elems / std::min(rows, cols), false) / queues +
                   3 * hw.dmaLatencyNs;
  int64_t blocks = elems / (rows * cols) * llvm::divideCeil(rows, hw.partitions) *
                   llvm::divideCeil(cols, hw.partitions);
  neuronc::CostQuery transpose, copy;
  transpose.opcode = neuronc::isa::Opcode::Transpose;
  transpose.engine = neuronc::isa::Engine::tensor;
  copy.opcode = neuronc::isa::Opcode::TensorCopy;
  copy.engine = neuronc::isa::Engine::vector;
  copy.psumInput = true;
  for (neuronc::CostQuery *q : {&transpose, &copy}) {
    q->partitions = std::min(cols, hw.partitions);
    q->elements = std::min(rows, hw.partitions);
  }
  viaSbuf += static_cast<double>(blocks) *
             (2 * hw.dmaIssueNs / queues + neuronc::instructionNs(hw, transpose) +
              neuronc::instructionNs(hw, copy));
  return viaSbuf < strided;
}

LogicalResult lowerTranspose(FunctionLowering &fl, TransposeOp op) {
  HbmBuffer src = fl.bufferOf(op.getInput());
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  auto in = op.getInput().getType();
  int64_t bytes = in.getNumElements() * nisa::elementBytes(in.getElementType());
  // A float permutation that moves the innermost dim is a batch of 2-D
  // transposes (after merging the dims that move together): through SBUF
  // and TensorE with long DMA runs where that is cheaper than the
  // element-strided copy below, which pays a run per element. The copy is
  // also for permutations that keep the innermost dim (whole rows move) and
  // for integers.
  MergedPermutation m = mergePermutation(in.getShape(), op.getPerm());
  int64_t r = static_cast<int64_t>(m.shape.size());
  if (r >= 2 && m.perm[r - 1] != r - 1 && isa<FloatType>(in.getElementType()) &&
      sbufTransposeIsCheaper(fl.pb.hw(), m, in.getNumElements(), bytes)) {
    // rows: the input dim that becomes innermost; cols: the input's
    // innermost dim, at result position `j`.
    int64_t q = m.perm[r - 1];
    int64_t j = std::find(m.perm.begin(), m.perm.end(), r - 1) - m.perm.begin();
    SmallVector<int64_t> outShape;
    for (int64_t p : m.perm)
      outShape.push_back(m.shape[p]);
    SmallVector<int64_t> inStrides = rowMajorStrides(m.shape);
    SmallVector<int64_t> outStrides = rowMajorStrides(outShape);
    HbmView inView = {src.sym, src.elementType, 0, {m.shape[q]}, {inStrides[q]},
                      {m.shape[r - 1]}, {1}};
    HbmView outView = {dst.sym, dst.elementType, 0, {m.shape[r - 1]}, {outStrides[j]},
                       {m.shape[q]}, {1}};
    // Every other dim is a batch: its offset in the input and the result.
    SmallVector<std::pair<int64_t, int64_t>> offsets = {{0, 0}};
    for (int64_t o = 0; o < r; ++o) {
      int64_t d = m.perm[o];
      if (d == q || d == r - 1)
        continue;
      SmallVector<std::pair<int64_t, int64_t>> next;
      for (auto [io, oo] : offsets)
        for (int64_t i = 0; i < m.shape[d]; ++i)
          next.push_back({io + i * inStrides[d], oo + i * outStrides[o]});
      offsets = std::move(next);
    }
    transposeThroughSbuf(fl, op, inView, outView, offsets);
    return success();
  }
  SmallVector<int64_t> inStrides = rowMajorStrides(op.getInput().getType().getShape());
  SmallVector<int64_t> outStrides = rowMajorStrides(op.getType().getShape());
  StridedSpace space;
  for (auto [i, p] : llvm::enumerate(op.getPerm())) {
    space.sizes.push_back(op.getType().getShape()[i]);
    space.strides.push_back({outStrides[i], inStrides[p]});
  }
  copyKernel(fl, op, "transpose", dst, src, space, 0, 0);
  return success();
}

LogicalResult lowerSlice(FunctionLowering &fl, SliceOp op) {
  HbmBuffer src = fl.bufferOf(op.getInput());
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  SmallVector<int64_t> inStrides = rowMajorStrides(op.getInput().getType().getShape());
  SmallVector<int64_t> outStrides = rowMajorStrides(op.getType().getShape());
  StridedSpace space;
  int64_t srcOffset = 0;
  for (size_t d = 0; d < inStrides.size(); ++d) {
    srcOffset += op.getOffsets()[d] * inStrides[d];
    space.sizes.push_back(op.getType().getShape()[d]);
    space.strides.push_back({outStrides[d], op.getStrides()[d] * inStrides[d]});
  }
  copyKernel(fl, op, "slice", dst, src, space, 0, srcOffset);
  return success();
}

LogicalResult lowerConcat(FunctionLowering &fl, ConcatOp op) {
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  SmallVector<int64_t> outStrides = rowMajorStrides(op.getType().getShape());
  int64_t axis = op.getAxis();
  KernelBuilder kb(fl.pb, "concat", op);
  int64_t at = 0;
  for (Value in : op.getInputs()) {
    auto type = cast<RankedTensorType>(in.getType());
    HbmBuffer src = fl.bufferOf(in);
    SmallVector<int64_t> inStrides = rowMajorStrides(type.getShape());
    StridedSpace space;
    for (size_t d = 0; d < inStrides.size(); ++d) {
      space.sizes.push_back(type.getShape()[d]);
      space.strides.push_back({outStrides[d], inStrides[d]});
    }
    if (type.getNumElements())
      kb.copyHbm(dst.sym, src.sym, src.elementType, space, at * outStrides[axis], 0);
    at += type.getShape()[axis];
  }
  return success();
}

/// table viewed as [outer, A, inner] gathered by indices [n] into
/// [outer, n, inner]: for each row tile of indices, load them into SBUF,
/// fetch the picked rows with an indirect DMA and store them.
LogicalResult lowerGather(FunctionLowering &fl, GatherOp op) {
  auto tableType = op.getTable().getType();
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> shape = tableType.getShape();
  int64_t outer = 1, inner = 1, a = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  int64_t n = op.getIndices().getType().getNumElements();
  HbmBuffer table = fl.bufferOf(op.getTable());
  HbmBuffer indices = fl.bufferOf(op.getIndices());
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  KernelBuilder kb(fl.pb, "gather", op);
  const neuronc::HardwareModel &hw = fl.pb.hw();
  const int64_t P = hw.partitions;
  Type et = tableType.getElementType();
  int64_t esize = nisa::elementBytes(et);
  // Columns per transfer: what two buffers of 128 rows may take of SBUF.
  int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(inner, hw.sbufPartitionBytes / 4 / esize));
  int64_t parts = std::min<int64_t>(n, P);
  FlatSymbolRefAttr idx[2] = {
      kb.alloc(nisa::MemorySpace::sbuf, parts, 1, op.getIndices().getType().getElementType(), "idx"),
      kb.alloc(nisa::MemorySpace::sbuf, parts, 1, op.getIndices().getType().getElementType(), "idx")};
  FlatSymbolRefAttr rows[2] = {kb.alloc(nisa::MemorySpace::sbuf, parts, chunk, et, "rows"),
                               kb.alloc(nisa::MemorySpace::sbuf, parts, chunk, et, "rows")};
  Builder &b = kb.builder();
  int slot = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t r0 = 0; r0 < n; r0 += P) {
      int64_t np = std::min<int64_t>(P, n - r0);
      FlatSymbolRefAttr ix = idx[(r0 / P) % 2];
      kb.dma(ix, kb.tileAP(0, np, 0, 1), indices.sym, kb.hbmAP(r0, {np}, {1}),
             op.getIndices().getType().getElementType());
      for (int64_t c0 = 0; c0 < inner; c0 += chunk) {
        int64_t nc = std::min(chunk, inner - c0);
        FlatSymbolRefAttr tile = rows[slot++ % 2];
        auto tileAp = kb.tileAP(0, np, 0, nc);
        auto tableAp = kb.hbmAP(o * a * inner + c0, {np, nc}, {0, 1});
        kb.emit<nisa::DmaCopyOp>(b.getI64IntegerAttr(fl.pb.pickQueue(
                                     neuronc::dmaQueueNs(hw, np * nc * esize, np, false))),
                                 tile, tileAp, table.sym, tableAp, ix, kb.tileAP(0, np, 0, 1),
                                 b.getI64IntegerAttr(inner), b.getI64IntegerAttr(a),
                                 DenseI64ArrayAttr(), UnitAttr());
        kb.dma(dst.sym, kb.hbmAP((o * n + r0) * inner + c0, {np, nc}, {inner, 1}), tile, tileAp,
               et);
      }
    }
  }
  return success();
}

} // namespace

void mlir::neuron::lowering::transposeThroughSbuf(FunctionLowering &fl, Operation *source,
                                                  const HbmBuffer &dst, const HbmBuffer &src,
                                                  int64_t batches, int64_t rows, int64_t cols) {
  SmallVector<std::pair<int64_t, int64_t>> offsets;
  for (int64_t b = 0; b < batches; ++b)
    offsets.push_back({b * rows * cols, b * rows * cols});
  transposeThroughSbuf(fl, source, HbmView::matrix(src.sym, src.elementType, 0, rows, cols),
                       HbmView::matrix(dst.sym, dst.elementType, 0, cols, rows), offsets);
}

void mlir::neuron::lowering::transposeThroughSbuf(
    FunctionLowering &fl, Operation *source, const HbmView &inBase, const HbmView &outBase,
    ArrayRef<std::pair<int64_t, int64_t>> offsets) {
  KernelBuilder kb(fl.pb, "transpose", source);
  const neuronc::HardwareModel &hw = fl.pb.hw();
  const int64_t P = hw.partitions;
  Type srcType = inBase.elementType, dstType = outBase.elementType;
  Type f32 = Builder(source->getContext()).getF32Type();
  int64_t rows = inBase.numRows(), cols = inBase.numCols();
  int64_t batches = static_cast<int64_t>(offsets.size());
  // Input row blocks whose transposes fill one PSUM bank side by side: one
  // output tile of 128 rows x (group x 128) columns, stored in long runs.
  int64_t group = std::max<int64_t>(1, hw.psumBankFp32() / P);
  // Input columns per load: rows of kRunBytes or more.
  int64_t chunk = std::min<int64_t>(llvm::alignTo(cols, P),
                           llvm::alignTo(kRunBytes / nisa::elementBytes(srcType), P));
  int64_t parts = std::min(rows, P);
  int64_t loads = batches * llvm::divideCeil(cols, chunk) * llvm::divideCeil(rows, P);
  int64_t stores = batches * llvm::divideCeil(cols, P) * llvm::divideCeil(rows, group * P);
  SmallVector<FlatSymbolRefAttr> stage, tp, out;
  for (int64_t i = 0; i < std::min(2 * group, loads); ++i)
    stage.push_back(kb.alloc(nisa::MemorySpace::sbuf, parts, std::min(chunk, cols), srcType, "stT"));
  for (int i = 0; i < 2; ++i)
    tp.push_back(kb.alloc(nisa::MemorySpace::psum, P, hw.psumBankFp32(), f32, "tp"));
  // Output tiles wait for their stores: enough of them to keep the stores'
  // latency out of the copies' way; stores keep to their own queues.
  for (int64_t i = 0; i < std::min(kOutRing, stores); ++i)
    out.push_back(kb.alloc(nisa::MemorySpace::sbuf, std::min(cols, P), std::min(group * P, rows),
                           dstType, "tT"));
  kb.storeQueues = hw.dmaEngines / 4;
  HbmView in = inBase, outView = outBase;
  int64_t stageSlot = 0, slot = 0;
  for (auto [inOffset, outOffset] : offsets) {
    in.offset = inBase.offset + inOffset;
    outView.offset = outBase.offset + outOffset;
    for (int64_t c0 = 0; c0 < cols; c0 += chunk) {
      int64_t cc = std::min(chunk, cols - c0);
      for (int64_t r0 = 0; r0 < rows; r0 += group * P) {
        int64_t blocks = std::min<int64_t>(group, llvm::divideCeil(rows - r0, P));
        int64_t width = std::min(group * P, rows - r0);
        SmallVector<FlatSymbolRefAttr> staged;
        for (int64_t i = 0; i < blocks; ++i) {
          staged.push_back(stage[stageSlot++ % stage.size()]);
          kb.transfer(true, staged.back(), srcType, 0, 0, in, r0 + i * P,
                      std::min(P, rows - r0 - i * P), c0, cc);
        }
        for (int64_t j = 0; j < cc; j += P) {
          int64_t jsz = std::min(P, cc - j);
          FlatSymbolRefAttr t = tp[slot % tp.size()], o = out[slot % out.size()];
          ++slot;
          for (int64_t i = 0; i < blocks; ++i) {
            int64_t n = std::min(P, rows - r0 - i * P);
            kb.charge(Engine::tensor, kb.estimate(neuronc::isa::Opcode::Transpose, Engine::tensor, n, jsz));
            kb.emit<nisa::TransposeOp>(Engine::tensor, t, kb.tileAP(0, jsz, i * P, n), staged[i],
                                       kb.tileAP(0, n, j, jsz), DenseI64ArrayAttr(), UnitAttr());
          }
          Engine e = kb.pick(neuronc::isa::Opcode::TensorCopy, {Engine::vector, Engine::scalar},
                             jsz, width, true);
          kb.emit<nisa::TensorCopyOp>(e, o, kb.tileAP(0, jsz, 0, width), t,
                                      kb.tileAP(0, jsz, 0, width), DenseI64ArrayAttr(), UnitAttr());
          kb.transfer(false, o, dstType, 0, 0, outView, c0 + j, jsz, r0, width);
        }
      }
    }
  }
  kb.program().levelQueues();
}

LogicalResult mlir::neuron::lowering::lowerDataMovement(FunctionLowering &fl, Operation *op) {
  if (auto t = dyn_cast<TransposeOp>(op))
    return lowerTranspose(fl, t);
  if (auto s = dyn_cast<SliceOp>(op))
    return lowerSlice(fl, s);
  if (auto c = dyn_cast<ConcatOp>(op))
    return lowerConcat(fl, c);
  if (auto g = dyn_cast<GatherOp>(op))
    return lowerGather(fl, g);
  return op->emitError("neuron-lower has no lowering for '") << op->getName() << "'";
}
