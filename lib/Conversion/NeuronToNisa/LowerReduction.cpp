//===- LowerReduction.cpp - Reductions across partitions ------------------===//
//
// A reduction whose kept dims are innermost (reduce_sum over axis 0 of
// [N, C]) or that reduces everything cannot put its reduced elements on
// the free axis without element-strided DMA or a single busy partition. It
// puts them on the partitions instead: row tiles of 128 reduced indices,
// reduced across partitions by TensorE (a ones vector as the stationary
// matrix, the tile as the moving one, accumulated in PSUM over all row
// tiles) for sums, and by GpSimdE's partition_reduce for max/min/product
// (combined over row tiles on VectorE). A full reduction first reduces each
// partition's free axis on VectorE.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace {

nisa::AluOp aluOf(Operation *op) {
  if (isa<ReduceMaxOp>(op))
    return nisa::AluOp::max;
  if (isa<ReduceMinOp>(op))
    return nisa::AluOp::min;
  if (isa<ReduceProdOp>(op))
    return nisa::AluOp::multiply;
  return nisa::AluOp::add;
}

} // namespace

/// Lowers `op` across partitions when that layout suits it; returns false
/// (emitting nothing) when the row kernel should take it.
FailureOr<bool> mlir::neuron::lowering::lowerPartitionReduction(FunctionLowering &fl,
                                                                Operation *op) {
  if (!reducesAcrossRows(op))
    return false;
  Value x = op->getOperand(0);
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
  auto reduced = [&](int64_t d) { return llvm::is_contained(axes, d) && shape[d] > 1; };
  bool full = llvm::all_of(llvm::seq<int64_t>(0, shape.size()),
                           [&](int64_t d) { return shape[d] == 1 || reduced(d); });
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  nisa::AluOp alu = aluOf(op);
  bool viaTensor = alu == nisa::AluOp::add && isFloat;
  const neuronc::HardwareModel &hw = fl.pb.hw();
  const int64_t P = hw.partitions;

  SmallVector<int64_t> strides = rowMajorStrides(shape);
  HbmView view;
  HbmBuffer in = fl.bufferOf(x);
  view.sym = in.sym;
  view.elementType = et;
  int64_t count = 1; // reduced elements per result
  if (full) {
    // All elements, viewed flat as [rows, cols]: cols a divisor of n near n/128.
    int64_t n = type.getNumElements();
    int64_t want = std::max<int64_t>(1, std::min<int64_t>(n / P, 8192));
    int64_t cols = 1;
    for (int64_t c = want; c >= 1; --c)
      if (n % c == 0) {
        cols = c;
        break;
      }
    view.rowSizes = {n / cols};
    view.rowStrides = {cols};
    view.colSizes = {cols};
    view.colStrides = {1};
    count = n;
  } else {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (shape[d] == 1)
        continue;
      if (reduced(d)) {
        view.rowSizes.push_back(shape[d]);
        view.rowStrides.push_back(strides[d]);
        count *= shape[d];
      } else {
        view.colSizes.push_back(shape[d]);
        view.colStrides.push_back(strides[d]);
      }
    }
  }
  int64_t rows = view.numRows(), cols = view.numCols();
  int64_t results = full ? 1 : cols;
  HbmBuffer out = fl.resultBuffer(op->getResult(0));
  Type f32 = Builder(op->getContext()).getF32Type();
  Type accType = isFloat ? f32 : et;

  KernelBuilder kb(fl.pb, "reduction", op);
  Builder &b = kb.builder();
  int64_t parts = std::min<int64_t>(rows, P);
  // Columns per pass: one PSUM bank of fp32, or a budget of SBUF.
  int64_t chunk = full ? cols
                       : std::min<int64_t>(cols, viaTensor ? hw.psumBankFp32() : 2048); // heuristic: VectorE pass
  chunk = std::min<int64_t>(chunk, hw.sbufPartitionBytes / 8 / nisa::elementBytes(et));
  // The results (a row per pass) go on a queue of their own: a DMA queue runs
  // in order, and a later pass's load queued behind a store waits for the
  // pass that store waits for.
  if (!full && cols > chunk)
    kb.storeQueues = 1;
  // Up to four loads in flight (each goes in a few pieces, so that several
  // keep all queues busy), and the per-pass accumulator and result double
  // buffered: the next pass multiplies while this one is copied out and
  // stored. A pass that waited for the previous one's store took a DMA
  // round trip per 512 columns.
  int64_t tileBytes = chunk * nisa::elementBytes(et);
  int64_t nbuf = std::clamp<int64_t>(hw.sbufPartitionBytes / 2 / std::max<int64_t>(1, tileBytes),
                                     2, 4);
  SmallVector<FlatSymbolRefAttr, 4> tiles, partial;
  for (int64_t i = 0; i < nbuf; ++i) {
    tiles.push_back(kb.alloc(nisa::MemorySpace::sbuf, parts, chunk, et, "x"));
    if (full)
      partial.push_back(kb.alloc(nisa::MemorySpace::sbuf, parts, 1, accType, "part"));
  }
  int64_t perTile = full ? 1 : chunk; // values each partition contributes
  FlatSymbolRefAttr ones, accs[2], combineds[2], acrosses[2], resultTiles[2];
  if (viaTensor) {
    ones = kb.alloc(nisa::MemorySpace::sbuf, parts, 1, full ? f32 : et, "ones");
    kb.emit<nisa::MemsetOp>(kb.pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, parts, 1),
                            ones, kb.tileAP(0, parts, 0, 1), b.getF32FloatAttr(1.0f),
                            DenseI64ArrayAttr(), UnitAttr());
    for (auto &a : accs)
      a = kb.alloc(nisa::MemorySpace::psum, 1, perTile, f32, "acc");
  } else {
    for (int i = 0; i < 2; ++i) {
      combineds[i] = kb.alloc(nisa::MemorySpace::sbuf, 1, perTile, accType, "acc");
      acrosses[i] = kb.alloc(nisa::MemorySpace::sbuf, 1, perTile, accType, "across");
    }
  }
  for (auto &r : resultTiles)
    r = kb.alloc(nisa::MemorySpace::sbuf, 1, perTile, out.elementType, "res");
  HbmView outView;
  outView.sym = out.sym;
  outView.elementType = out.elementType;
  outView.rowSizes = {1};
  outView.rowStrides = {0};
  outView.colSizes = {results};
  outView.colStrides = {1};

  int64_t slot = 0, pass = 0;
  for (int64_t c0 = 0; c0 < (full ? 1 : cols); c0 += chunk, ++pass) {
    int64_t nc = full ? cols : std::min(chunk, cols - c0);
    int64_t width = full ? 1 : nc;
    FlatSymbolRefAttr acc = accs[pass % 2], combined = combineds[pass % 2],
                      across = acrosses[pass % 2], result = resultTiles[pass % 2];
    for (int64_t r0 = 0; r0 < rows; r0 += P) {
      int64_t np = std::min<int64_t>(P, rows - r0);
      bool first = r0 == 0;
      FlatSymbolRefAttr tile = tiles[slot % nbuf];
      kb.transfer(true, tile, et, 0, 0, view, r0, np, full ? 0 : c0, nc);
      FlatSymbolRefAttr src = tile;
      auto srcAp = kb.tileAP(0, np, 0, nc);
      if (full) {
        // Each partition's free axis first.
        FlatSymbolRefAttr p = partial[slot % nbuf];
        Engine e = kb.pick(Opcode::TensorReduce, {Engine::vector, Engine::gpsimd}, np, nc);
        kb.emit<nisa::TensorReduceOp>(e, alu, p, kb.tileAP(0, np, 0, 1), tile, srcAp,
                                      DenseI64ArrayAttr(), UnitAttr());
        src = p;
        srcAp = kb.tileAP(0, np, 0, 1);
      }
      ++slot;
      if (viaTensor) {
        kb.charge(Engine::tensor, kb.estimate(Opcode::MultiplyMoving, Engine::tensor, np, width,
                                              et.isF32() || full));
        kb.emit<nisa::LoadStationaryOp>(ones, kb.tileAP(0, np, 0, 1), DenseI64ArrayAttr(),
                                        UnitAttr());
        kb.emit<nisa::MultiplyMovingOp>(acc, kb.tileAP(0, 1, 0, width), src, srcAp,
                                        first ? b.getUnitAttr() : UnitAttr(),
                                        DenseI64ArrayAttr(), UnitAttr());
        continue;
      }
      // Across partitions on GpSimdE, then into the running result.
      FlatSymbolRefAttr into = first ? combined : across;
      kb.charge(Engine::gpsimd, kb.estimate(Opcode::PartitionReduce, Engine::gpsimd, np, width));
      kb.emit<nisa::PartitionReduceOp>(alu, into, kb.tileAP(0, 1, 0, width), src, srcAp,
                                       DenseI64ArrayAttr(), UnitAttr());
      if (!first) {
        Engine e = kb.pick(Opcode::TensorTensor, {Engine::vector, Engine::gpsimd}, 1, width);
        kb.emit<nisa::TensorTensorOp>(e, alu, combined, kb.tileAP(0, 1, 0, width), combined,
                                      kb.tileAP(0, 1, 0, width), across,
                                      kb.tileAP(0, 1, 0, width), DenseI64ArrayAttr(), UnitAttr());
      }
    }
    // The result (a mean divides by the reduced count) to SBUF, then HBM.
    FlatSymbolRefAttr from = viaTensor ? acc : combined;
    auto resAp = kb.tileAP(0, 1, 0, width);
    if (isa<ReduceMeanOp>(op)) {
      SmallVector<Engine, 3> engines = {Engine::vector, Engine::scalar};
      if (!viaTensor)
        engines.push_back(Engine::gpsimd);
      Engine e = kb.pick(Opcode::TensorScalar, engines, 1, width, viaTensor);
      kb.emit<nisa::TensorScalarOp>(e, result, resAp, from, resAp, nisa::AluOp::multiply,
                                    b.getF32FloatAttr(1.0f / static_cast<float>(count)),
                                    FlatSymbolRefAttr(), nisa::AccessPatternAttr(), UnitAttr(),
                                    nisa::AluOpAttr(), FloatAttr(), FlatSymbolRefAttr(),
                                    nisa::AccessPatternAttr(), UnitAttr(), DenseI64ArrayAttr(),
                                    UnitAttr());
    } else {
      SmallVector<Engine, 3> engines = {Engine::vector, Engine::scalar};
      if (!viaTensor)
        engines.push_back(Engine::gpsimd);
      Engine e = kb.pick(Opcode::TensorCopy, engines, 1, width, viaTensor);
      kb.emit<nisa::TensorCopyOp>(e, result, resAp, from, resAp, DenseI64ArrayAttr(), UnitAttr());
    }
    kb.transfer(false, result, out.elementType, 0, 0, outView, 0, 1, full ? 0 : c0, width);
  }
  if (fl.remarks)
    op->emitRemark("lowered as one reduction kernel across partitions: ")
        << rows << " reduced rows x " << cols << " columns, "
        << (viaTensor ? "summed on TensorE" : "combined on GpSimdE");
  return true;
}
