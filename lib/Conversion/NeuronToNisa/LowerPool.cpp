//===- LowerPool.cpp - Max and average pooling on VectorE/GpSimdE ---------===//
//
// Each (image, channel) plane is one partition row: planes are tiled onto
// the 128 partitions, and per tile the input rows a block of output rows
// reads (halo included) are loaded once into SBUF with their padding filled
// (-inf for max, 0 for average). Every window tap is then one VectorE or
// GpSimdE instruction over the whole block, its input a strided window of
// the block: acc = max(acc, tap) or acc + tap. An average is scaled by
// 1/window (or by a compile-time table of 1/count where padded positions
// do not count) on the way out.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace {

struct PoolLowering {
  FunctionLowering &fl;
  KernelBuilder &kb;
  PoolOp pool;
  const neuronc::HardwareModel &hw;
  const int64_t P;

  int64_t planes, H, W, KH, KW, OH, OW, sh, sw, pt, pl, Wp, R = 1, rowsIn = 1;
  bool isMax, divisorTable = false;
  Type elt, f32;
  HbmBuffer x, y, divisors;
  SmallVector<FlatSymbolRefAttr> in, acc, out, div;
  int slot = 0;

  PoolLowering(FunctionLowering &fl, KernelBuilder &kb, PoolOp pool)
      : fl(fl), kb(kb), pool(pool), hw(fl.pb.hw()), P(hw.partitions) {}

  bool plan(std::string &why) {
    auto xt = pool.getInput().getType(), yt = pool.getResult().getType();
    int64_t k = xt.getRank() - 2;
    if (k > 2) {
      why = std::to_string(k) + "-D pooling is not lowered to the device yet (1-D and 2-D is)";
      return false;
    }
    ArrayRef<int64_t> ks = pool.getKernel(), s = pool.getStrides(), p = pool.getPadding();
    planes = xt.getDimSize(0) * xt.getDimSize(1);
    H = k == 2 ? xt.getDimSize(2) : 1;
    W = xt.getDimSize(xt.getRank() - 1);
    OH = k == 2 ? yt.getDimSize(2) : 1;
    OW = yt.getDimSize(yt.getRank() - 1);
    KH = k == 2 ? ks[0] : 1;
    KW = ks.back();
    sh = k == 2 ? s[0] : 1;
    sw = s.back();
    pt = k == 2 ? p[0] : 0;
    pl = k == 2 ? p[1] : p[0];
    Wp = W + pl + p.back();
    isMax = pool.getKind() == PoolKind::max;
    bool padded = llvm::any_of(p, [](int64_t v) { return v > 0; });
    divisorTable = !isMax && padded && !pool.getCountIncludePad();
    elt = xt.getElementType();
    f32 = Builder(pool.getContext()).getF32Type();
    int64_t budget = hw.sbufPartitionBytes * 85 / 100; // room for the allocator
    int64_t eb = nisa::elementBytes(elt);
    auto bytes = [&] {
      rowsIn = (R - 1) * sh + KH;
      return 2 * (rowsIn * Wp * eb + R * OW * (4 + eb + (divisorTable ? 4 : 0)));
    };
    R = OH;
    while (R > 1 && bytes() > budget)
      R = llvm::divideCeil(R, 2);
    if (bytes() > budget) {
      why = "one row of " + std::to_string(Wp) + " elements per plane does not fit SBUF";
      return false;
    }
    return true;
  }

  /// 1 / (window positions inside the input) per output position.
  HbmBuffer divisorBuffer() {
    SmallVector<float> values;
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        auto inside = [](int64_t o, int64_t s, int64_t pad, int64_t k, int64_t n) {
          int64_t lo = o * s - pad;
          return std::min(lo + k, n) - std::max<int64_t>(lo, 0);
        };
        values.push_back(1.0f /
                         static_cast<float>(inside(oh, sh, pt, KH, H) * inside(ow, sw, pl, KW, W)));
      }
    auto type = RankedTensorType::get({OH * OW}, f32);
    return fl.pb.declare(nisa::HbmKind::constant, type, pool.getLoc(), std::nullopt, {},
                         DenseElementsAttr::get(type, ArrayRef<float>(values)));
  }

  void run() {
    x = fl.bufferOf(pool.getInput());
    y = fl.resultBuffer(pool.getResult());
    if (divisorTable)
      divisors = divisorBuffer();
    auto sb = nisa::MemorySpace::sbuf;
    int64_t np = std::min(P, planes);
    for (int i = 0; i < 2; ++i) {
      in.push_back(kb.alloc(sb, np, rowsIn * Wp, elt, "x"));
      acc.push_back(kb.alloc(sb, np, R * OW, f32, "acc"));
      out.push_back(kb.alloc(sb, np, R * OW, elt, "y"));
      if (divisorTable)
        div.push_back(kb.alloc(sb, np, R * OW, f32, "div"));
    }
    float fill = isMax ? -std::numeric_limits<float>::infinity() : 0.0f;
    Builder b(pool.getContext());
    auto vecEngine = [&](Opcode op, int64_t parts, int64_t n) {
      return kb.pick(op, {Engine::vector, Engine::gpsimd}, parts, n);
    };
    for (int64_t p0 = 0; p0 < planes; p0 += P) {
      int64_t nparts = std::min(P, planes - p0);
      for (int64_t oh0 = 0; oh0 < OH; oh0 += R) {
        int64_t rows = std::min(R, OH - oh0);
        int64_t span = (rows - 1) * sh + KH;
        int64_t first = oh0 * sh - pt;
        int64_t lo = std::max<int64_t>(0, first), hi = std::min(H, first + span);
        FlatSymbolRefAttr tile = in[slot];
        auto fillBox = [&](int64_t off, ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
          int64_t n = 1;
          for (int64_t v : sizes)
            n *= v;
          kb.emit<nisa::MemsetOp>(vecEngine(Opcode::Memset, nparts, n), tile,
                                  kb.tileAP(0, nparts, off, sizes, strides),
                                  b.getF32FloatAttr(fill), DenseI64ArrayAttr(), UnitAttr());
        };
        if (lo > first)
          fillBox(0, {(lo - first) * Wp}, {1});
        if (hi < first + span)
          fillBox((hi - first) * Wp, {(first + span - hi) * Wp}, {1});
        if (hi > lo && pl)
          fillBox((lo - first) * Wp, {hi - lo, pl}, {Wp, 1});
        int64_t usedRight = std::min(Wp - pl - W, (OW - 1) * sw + KW - pl - W);
        if (hi > lo && usedRight > 0)
          fillBox((lo - first) * Wp + pl + W, {hi - lo, usedRight}, {Wp, 1});
        // The rows inside the image, split by partitions across the queues.
        int64_t bytes = nparts * (hi - lo) * W * nisa::elementBytes(elt);
        int64_t pieces = std::clamp<int64_t>(bytes / hw.dmaEfficientBytes, 1,
                                             std::min<int64_t>(hw.dmaEngines, nparts));
        int64_t step = llvm::divideCeil(nparts, pieces);
        for (int64_t q = 0; hi > lo && q < nparts; q += step) {
          int64_t cnt = std::min(step, nparts - q);
          kb.dma(tile, kb.tileAP(q, cnt, (lo - first) * Wp + pl, {hi - lo, W}, {Wp, 1}), x.sym,
                 kb.hbmAP((p0 + q) * H * W + lo * W, {cnt, hi - lo, W}, {H * W, W, 1}), elt);
        }
        // The taps.
        int64_t n = rows * OW;
        auto box = kb.tileAP(0, nparts, 0, n);
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) {
            SmallVector<int64_t> sizes{rows, OW}, strides{sh * Wp, sw};
            auto window = kb.tileAP(0, nparts, kh * Wp + kw, sizes, strides);
            if (kh == 0 && kw == 0) {
              kb.emit<nisa::TensorCopyOp>(vecEngine(Opcode::TensorCopy, nparts, n), acc[slot],
                                          box, tile, window, DenseI64ArrayAttr(), UnitAttr());
              continue;
            }
            kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, nparts, n),
                                          isMax ? nisa::AluOp::max : nisa::AluOp::add, acc[slot],
                                          box, acc[slot], box, tile, window, DenseI64ArrayAttr(),
                                          UnitAttr());
          }
        // Average: scale; then convert and store.
        if (divisorTable) {
          kb.dma(div[slot], box, divisors.sym, kb.hbmAP(oh0 * OW, {nparts, n}, {0, 1}), f32);
          kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, nparts, n),
                                        nisa::AluOp::multiply, out[slot], box, acc[slot], box,
                                        div[slot], box, DenseI64ArrayAttr(), UnitAttr());
        } else {
          float scale = isMax ? 1.0f : 1.0f / static_cast<float>(KH * KW);
          kb.emit<nisa::TensorScalarOp>(
              vecEngine(Opcode::TensorScalar, nparts, n), out[slot], box, acc[slot], box,
              nisa::AluOp::multiply, b.getF32FloatAttr(scale), FlatSymbolRefAttr(),
              nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(), FloatAttr(),
              FlatSymbolRefAttr(), nisa::AccessPatternAttr(), UnitAttr(), DenseI64ArrayAttr(),
              UnitAttr());
        }
        kb.dma(y.sym, kb.hbmAP(p0 * OH * OW + oh0 * OW, {nparts, n}, {OH * OW, 1}), out[slot],
               box, elt);
        slot ^= 1;
      }
    }
    kb.program().levelQueues();
  }
};

} // namespace

LogicalResult mlir::neuron::lowering::lowerPool(FunctionLowering &fl, PoolOp op) {
  KernelBuilder kb(fl.pb, "pool", op);
  PoolLowering lowering(fl, kb, op);
  std::string why;
  if (!lowering.plan(why))
    return op.emitError("cannot lower the pooling: ") << why;
  lowering.run();
  if (fl.remarks)
    op.emitRemark("lowered as one pooling kernel: ")
        << llvm::divideCeil(lowering.planes, lowering.P) << " plane tile(s) x "
        << llvm::divideCeil(lowering.OH, lowering.R) << " row block(s) of " << lowering.R
        << ", " << lowering.KH * lowering.KW << " taps each on VectorE/GpSimdE";
  return success();
}
