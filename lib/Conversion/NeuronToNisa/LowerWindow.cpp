//===- LowerWindow.cpp - Pooling and depthwise convolution on VectorE -----===//
//
// Windows that combine each (image, channel) plane with itself only: max
// and average pooling, and depthwise convolution (one filter per channel).
// Each plane is one partition row: planes are tiled onto the 128
// partitions, and per tile the input rows a block of output rows reads
// (halo included) are loaded once into SBUF with their padding filled
// (-inf for max, 0 otherwise). Every window tap is then one VectorE or
// GpSimdE instruction over the whole block, its input a strided window of
// the block: acc = max(acc, tap), acc + tap, or tap * w[channel] + acc
// (scalar_tensor_tensor with the tap's per-partition weight). An average
// is scaled by 1/window (or by a compile-time table of 1/count where
// padded positions do not count); a depthwise convolution's bias and
// fused epilogue run on the accumulated block. Few planes of many rows (a
// MobileNet block's 16 channels at 112x112) are cut into bands of output
// rows, each band of every plane on a partition of its own, so that the
// taps run on all partitions instead of a few.
//
//===----------------------------------------------------------------------===//

#include "WindowLowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace mlir::neuron::lowering {

/// heuristic: planes are cut into bands only when that saves the taps more
/// than this many DMA latencies (ShuffleNetV2's 4x4 depthwise kernels, whose
/// loads were forwarded from SBUF, lost 8 us each to banded HBM loads).
constexpr double kBandLatencies = 4;

bool WindowLowering::plan(Value input, Value result, ArrayRef<int64_t> kernel,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                          ArrayRef<int64_t> dilations, std::string &why) {
  auto xt = cast<RankedTensorType>(input.getType());
  auto yt = cast<RankedTensorType>(result.getType());
  int64_t k = xt.getRank() - 2;
  if (k > 2) {
    why = std::to_string(k) + "-D windows are tiled as 2-D ones: run --neuron-decompose-windows "
                             "first (neuronc does)";
    return false;
  }
  N = xt.getDimSize(0);
  C = xt.getDimSize(1);
  planes = N * C;
  H = k == 2 ? xt.getDimSize(2) : 1;
  W = xt.getDimSize(xt.getRank() - 1);
  OH = k == 2 ? yt.getDimSize(2) : 1;
  OW = yt.getDimSize(yt.getRank() - 1);
  KH = k == 2 ? kernel[0] : 1;
  KW = kernel.back();
  sh = k == 2 ? strides[0] : 1;
  sw = strides.back();
  if (!dilations.empty()) {
    dh = k == 2 ? dilations[0] : 1;
    dw = dilations.back();
  }
  pt = k == 2 ? padding[0] : 0;
  pl = k == 2 ? padding[1] : padding[0];
  Wp = W + pl + padding.back();
  if (Wp > W)
    for (int64_t kw = 0; kw < KW && padCols; ++kw)
      if (validColumns(kw) == std::pair<int64_t, int64_t>(0, OW)) {
        padCols = false;
        fullTap = kw;
        Wp = W;
      }
  bool padded = llvm::any_of(padding, [](int64_t v) { return v > 0; });
  divisorTable = kind == WindowKind::Avg && padded && !countIncludePad;
  inT = xt.getElementType();
  outT = yt.getElementType();
  f32 = Builder(op->getContext()).getF32Type();
  xSrcType = inT;
  if (fl.hasBuffer(input) && fl.bufferOf(input).elementType)
    xSrcType = fl.bufferOf(input).elementType;
  convertIn = xSrcType != inT;
  int64_t budget = hw.sbufPartitionBytes * 85 / 100; // room for the allocator
  // An input element's bytes per block: its tile, and with convertIn its
  // staging tile.
  int64_t ein = nisa::elementBytes(inT) + (convertIn ? nisa::elementBytes(xSrcType) : 0);
  int64_t eout = nisa::elementBytes(outT);
  auto bytes = [&] {
    rowsIn = (R - 1) * sh + (KH - 1) * dh + 1;
    int64_t perBlock = rowsIn * Wp * ein + R * OW * (4 + eout + (divisorTable ? 4 : 0));
    int64_t total =
        kSlots * fold * perBlock +
        (fold > 1 && kind == WindowKind::Depthwise ? 2 * fold * R * OW * 4 : 0) +
        (kind == WindowKind::Depthwise ? llvm::divideCeil(planes, P) * (KH * KW + 1) * 4 : 0);
    if (epilogue)
      total += epilogue->epilogueBytesPerPartition(R * OW, epilogueBuffers);
    return total;
  };
  // At least kSlots + 1 row blocks when each still has a PSUM bank's worth
  // of columns (smaller instructions are all overhead: MobileNetV2's 7x7
  // maps), so that loads, taps and stores of different blocks overlap.
  chooseSegments();
  R = std::max<int64_t>(llvm::divideCeil(OHs, kSlots + 1),
                        llvm::divideCeil(hw.psumBankFp32(), OW));
  R = std::min(R, OHs);
  while (R > 1 && bytes() > budget)
    R = llvm::divideCeil(R, 2);
  if (bytes() > budget) {
    why = "one row of " + std::to_string(Wp) + " elements per plane does not fit SBUF";
    return false;
  }
  if (allowFold)
    chooseFold(bytes, budget);
  chooseTensorTaps(bytes, budget);
  return true;
}

void WindowLowering::chooseSegments() {
  segs = 1;
  OHs = OH;
  if (!allowFold || planes * 2 > P || !isa<FloatType>(xSrcType) ||
      (epilogue && !epilogue->canSegmentEpilogue()))
    return;
  Opcode tap = kind == WindowKind::Depthwise ? Opcode::ScalarTensorTensor : Opcode::TensorTensor;
  double inNs = static_cast<double>(planes) * H * W * nisa::elementBytes(xSrcType) /
                hw.memoryGBps();
  double bytesNs = inNs + static_cast<double>(planes) * OH * OW *
                              nisa::elementBytes(outT) / hw.memoryGBps();
  auto tapsNs = [&](int64_t parts, int64_t pixels) {
    return static_cast<double>(KH * KW) * kb.estimate(tap, Engine::vector, parts, pixels);
  };
  double before = std::max(bytesNs, tapsNs(planes, OH * OW));
  for (int64_t s = P / planes; s >= 2; --s)
    if (OH % s == 0 && OH / s >= 2) {
      double after = std::max(bytesNs, tapsNs(planes * s, OH / s * OW));
      if (before - after < inNs + kBandLatencies * hw.dmaLatencyNs)
        return;
      segs = s;
      OHs = OH / s;
      return;
    }
}

void WindowLowering::chooseFold(llvm::function_ref<int64_t()> bytes, int64_t budget) {
  int64_t full = planes / P;
  if (full < 2)
    return;
  int64_t m = R * OW, taps = KH * KW;
  bool dwise = kind == WindowKind::Depthwise;
  auto cost = [&](int64_t tiles) {
    if (tiles == 1)
      return static_cast<double>(full * taps) *
             kb.estimate(dwise ? Opcode::ScalarTensorTensor : Opcode::TensorTensor,
                         Engine::vector, P, m);
    double perTap = kb.estimate(Opcode::TensorTensor, Engine::vector, P, tiles * m);
    return static_cast<double>(llvm::divideCeil(full, tiles) * taps) * (dwise ? 2 : 1) *
           perTap;
  };
  // The largest group that fits SBUF; only when its taps take under 40 %
  // of the time and save more than a DMA latency (a group's first tap
  // waits for all of its loads, and its stores start after its last tap:
  // measured on MobileNetV2 at 64x64, 576 channels of 4x4 in f32, and on
  // VGG-11's one-tap 7x7 average pooling on trn2, which lost more to that
  // than they saved).
  auto ring = [&] { return static_cast<int>(std::clamp<int64_t>(fold + 1, 2, 8)); };
  for (fold = full, epilogueBuffers = ring(); fold >= 2 && bytes() > budget;
       epilogueBuffers = ring())
    fold = fold / 2;
  if (fold < 2 || cost(fold) > 0.4 * cost(1) || cost(1) - cost(fold) < hw.dmaLatencyNs) {
    fold = 1;
    epilogueBuffers = 2;
  }
}

SmallVector<int64_t> WindowLowering::tapOrder() const {
  SmallVector<int64_t> order{padCols ? 0 : fullTap};
  for (int64_t t = 0; t < KH * KW; ++t)
    if (t != order.front())
      order.push_back(t);
  return order;
}

std::pair<int64_t, int64_t> WindowLowering::validColumns(int64_t kw) const {
  int64_t shift = kw * dw - pl; // input column of output column 0
  int64_t a = shift >= 0 ? 0 : llvm::divideCeil(-shift, sw);
  int64_t b = W - 1 - shift < 0 ? 0 : std::min(OW, (W - 1 - shift) / sw + 1);
  return {a, std::max(a, b)};
}

HbmBuffer WindowLowering::divisorBuffer() {
  SmallVector<float> values;
  auto inside = [](int64_t o, int64_t s, int64_t pad, int64_t k, int64_t n) {
    int64_t lo = o * s - pad;
    return std::min(lo + k, n) - std::max<int64_t>(lo, 0);
  };
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t ow = 0; ow < OW; ++ow)
      values.push_back(
          1.0f / static_cast<float>(inside(oh, sh, pt, KH, H) * inside(ow, sw, pl, KW, W)));
  auto type = RankedTensorType::get({OH * OW}, f32);
  return fl.pb.declare(nisa::HbmKind::constant, type, op->getLoc(), std::nullopt, {},
                       DenseElementsAttr::get(type, ArrayRef<float>(values)));
}

void WindowLowering::loadWeights(int64_t p0, int64_t np, FlatSymbolRefAttr tile,
                                 FlatSymbolRefAttr biasTile, int64_t wcol, int64_t bcol,
                                 int64_t at) {
  int64_t taps = KH * KW;
  for (int64_t q = 0; q < np;) {
    int64_t c = (p0 + q) % C, run = std::min(np - q, C - c);
    kb.dma(tile, kb.tileAP(at + q, run, wcol, taps), weight.sym,
           kb.hbmAP(c * taps, {run, taps}, {taps, 1}), weight.elementType);
    if (bias.sym)
      kb.dma(biasTile, kb.tileAP(at + q, run, bcol, 1), bias.sym,
             kb.hbmAP(c, {run, 1}, {1, 1}), bias.elementType);
    q += run;
  }
}

void WindowLowering::run() {
  x = fl.bufferOf(op->getOperand(0));
  if (!epilogue)
    y = fl.resultBuffer(result);
  if (divisorTable)
    divisors = divisorBuffer();
  // Stores on queues of their own, in proportion to the bytes they move
  // (a fused epilogue's in the types it stores), whenever there is more
  // than one block: a block's loads queued behind the previous block's
  // stores would wait for its taps, and the blocks would run one after
  // another whatever the slots (MnasNet's banded 16-channel depthwise
  // kernel; MobileNetV2's 112x112 one at batch 8 in bf16, 383 -> 232 us).
  int64_t groups = llvm::divideCeil(planes / P, fold) + (planes % P ? 1 : 0);
  int64_t blocks = groups * llvm::divideCeil(OHs, R);
  if (blocks > 1) {
    double loads = static_cast<double>(planes) * H * W * nisa::elementBytes(xSrcType) *
                   (1.0 + static_cast<double>((KH - sh) * segs) / static_cast<double>(OH));
    if (epilogue)
      loads += static_cast<double>(epilogue->inputBytes());
    double stores = epilogue ? static_cast<double>(epilogue->outputBytes())
                             : static_cast<double>(planes) * OH * OW * nisa::elementBytes(outT);
    kb.shareQueues(loads, stores);
  }
  // Nothing is stored before the first block's taps: the weights and that
  // block's input may use every queue (an engine-bound kernel waits for
  // them: ConvNeXt's 7x7 depthwise kernels at batch 8 otherwise started
  // ~7 us later).
  int64_t keptForStores = kb.storeQueues;
  kb.storeQueues = 0;
  float fill = kind == WindowKind::Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  if (segs > 1) {
    auto type = RankedTensorType::get({W}, xSrcType);
    fillRow = fl.pb.declare(nisa::HbmKind::constant, type, op->getLoc(), std::nullopt, {},
                            DenseElementsAttr::get(type, FloatAttr::get(xSrcType, fill)));
  }
  auto sb = nisa::MemorySpace::sbuf;
  int64_t np = std::min(P, planes * segs), taps = KH * KW;
  for (int i = 0; i < kSlots; ++i) {
    in.push_back(kb.alloc(sb, np, fold * rowsIn * Wp, inT, "x"));
    if (convertIn)
      stage.push_back(kb.alloc(sb, np, fold * rowsIn * Wp, xSrcType, "xs"));
    acc.push_back(kb.alloc(sb, np, fold * R * OW, f32, "acc"));
    if (!epilogue)
      out.push_back(kb.alloc(sb, np, fold * R * OW, outT, "y"));
    if (divisorTable)
      div.push_back(kb.alloc(sb, np, fold * R * OW, f32, "div"));
  }
  if (epilogue && fold > 1)
    epilogue->setEpilogueBuffers(epilogueBuffers);
  if (epilogue && segs > 1)
    epilogue->setEpilogueSegments(segs, OHs * OW);
  if (fold > 1 && kind == WindowKind::Depthwise)
    for (int i = 0; i < 2; ++i)
      prod.push_back(kb.alloc(sb, np, fold * R * OW, f32, "prod"));
  // Depthwise weights (and bias): the taps of each plane tile's channels,
  // all plane tiles side by side, loaded once before the first block
  // (planes of one channel set repeat with the image, so one tile's worth
  // serves all when the channels tile the partitions).
  int64_t ptiles = llvm::divideCeil(planes, P);
  shared = planes <= P || P % C == 0;
  int64_t wtiles = shared ? 1 : ptiles;
  if (kind == WindowKind::Depthwise) {
    auto conv = cast<ConvOp>(op);
    weight = fl.bufferOf(conv.getWeight());
    if (conv.getBias())
      bias = fl.bufferOf(conv.getBias());
    wts.push_back(kb.alloc(sb, np, wtiles * taps, weight.elementType, "w"));
    bts.push_back(bias.sym ? kb.alloc(sb, np, wtiles, bias.elementType, "b")
                           : FlatSymbolRefAttr());
    for (int64_t i = 0; i < wtiles; ++i)
      for (int64_t band = 0; band < segs; ++band)
        loadWeights(i * P, std::min(P, planes - i * P), wts[0], bts[0], i * taps, i,
                    band * planes);
    if (onTensor)
      allocateDiagonals(np, std::min<int64_t>(wtiles, 2));
  }
  Builder b(op->getContext());
  int64_t full = planes / P;
  // Groups of `fold` plane tiles (the full tiles left over, then a
  // partial one, in smaller groups).
  for (int64_t t0 = 0; t0 < ptiles;) {
    int64_t nt = t0 < full ? std::min(fold, full - t0) : 1;
    int64_t p0 = t0 * P;
    int64_t nparts = std::min(P, (planes - p0) * segs);
    FlatSymbolRefAttr w = wts.empty() ? FlatSymbolRefAttr() : wts[0];
    FlatSymbolRefAttr bt = bts.empty() ? FlatSymbolRefAttr() : bts[0];
    int64_t wcol = shared ? 0 : t0 * taps, bcol = shared ? 0 : t0;
    int64_t seg = rowsIn * Wp; // input elements per plane tile of the group
    for (int64_t oh0 = 0; oh0 < OHs; oh0 += R) {
      kb.setSource(op); // (a fused epilogue attributes its instructions to its ops)
      int64_t rows = std::min(R, OHs - oh0);
      int64_t span = (rows - 1) * sh + (KH - 1) * dh + 1;
      // Per band: where the input rows inside the image start and end in
      // the block (the same for every band but the first and last).
      SmallVector<int64_t> los, his;
      int64_t top = 0, bottom = span;
      for (int64_t band = 0; band < segs; ++band) {
        int64_t first = (band * OHs + oh0) * sh - pt;
        int64_t lo = std::max<int64_t>(0, first), hi = std::min(H, first + span);
        if (hi <= lo)
          lo = hi = first + span; // all padding
        los.push_back(lo - first);
        his.push_back(hi - first);
        top = std::max(top, lo - first);
        bottom = std::min(bottom, hi - first);
      }
      FlatSymbolRefAttr tile = in[slot];
      // With bands and a conversion, the fills go to the staging tile,
      // which is then converted whole (a partial conversion would leave
      // some band's fill or rows behind).
      bool convertWhole = convertIn && segs > 1;
      FlatSymbolRefAttr fillTile = convertWhole ? stage[slot] : tile;
      // A box of every plane tile of the group.
      auto groupBox = [&](int64_t off, ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
        SmallVector<int64_t> sz{nt}, st{seg};
        sz.append(sizes.begin(), sizes.end());
        st.append(strides.begin(), strides.end());
        if (nt == 1)
          return kb.tileAP(0, nparts, off, sizes, strides);
        return kb.tileAP(0, nparts, off, sz, st);
      };
      auto fillBox = [&](int64_t off, ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
        int64_t n = nt;
        for (int64_t v : sizes)
          n *= v;
        kb.emit<nisa::MemsetOp>(vecEngine(Opcode::Memset, nparts, n), fillTile,
                                groupBox(off, sizes, strides), b.getF32FloatAttr(fill),
                                DenseI64ArrayAttr(), UnitAttr());
      };
      int64_t colPad = padCols ? pl : 0;
      // Only the trailing padding some window reads (a write nobody reads
      // would be lost at the next load).
      int64_t usedRight = std::min(Wp - pl - W, (OW - 1) * sw + (KW - 1) * dw + 1 - pl - W);
      FlatSymbolRefAttr dst = convertIn ? stage[slot] : tile;
      if (segs > 1) {
        // The padding columns of every row on every partition; a band's
        // rows outside the image by DMA from a row of fill values (an
        // engine cannot start at the band's partition, and no byte may be
        // written twice before it is read).
        if (colPad)
          fillBox(0, {span, pl}, {Wp, 1});
        if (usedRight > 0 && padCols)
          fillBox(pl + W, {span, usedRight}, {Wp, 1});
        auto fillRows = [&](int64_t band, int64_t r0, int64_t n) {
          kb.dma(dst, kb.tileAP(band * planes, planes, r0 * Wp + colPad, {n, W}, {Wp, 1}),
                 fillRow.sym, kb.hbmAP(0, {planes, n, W}, {0, 0, 1}), xSrcType);
        };
        for (int64_t band = 0; band < segs; ++band) {
          if (los[band] > 0)
            fillRows(band, 0, std::min(los[band], span));
          if (his[band] < span && his[band] > los[band])
            fillRows(band, his[band], span - his[band]);
        }
        loadBands(dst, oh0, los, his, colPad);
      } else {
        if (top > 0)
          fillBox(0, {top * Wp}, {1});
        if (bottom < span)
          fillBox(std::max(bottom, int64_t(0)) * Wp,
                  {(span - std::max(bottom, int64_t(0))) * Wp}, {1});
        if (bottom > top && colPad)
          fillBox(top * Wp, {bottom - top, pl}, {Wp, 1});
        if (bottom > top && usedRight > 0 && padCols)
          fillBox(top * Wp + pl + W, {bottom - top, usedRight}, {Wp, 1});
        // The rows inside the image, split by partitions across the queues.
        int64_t lo = los[0] + oh0 * sh - pt, hi = his[0] + oh0 * sh - pt;
        int64_t bytes = nparts * (hi - lo) * W * nisa::elementBytes(xSrcType);
        int64_t pieces = std::clamp<int64_t>(bytes / (hw.dmaEfficientBytes / 8), 1,
                                             std::min<int64_t>(hw.dmaEngines, nparts));
        int64_t step = llvm::divideCeil(nparts, pieces);
        for (int64_t t = 0; t < nt; ++t)
          for (int64_t q = 0; hi > lo && q < nparts; q += step) {
            int64_t cnt = std::min(step, nparts - q);
            kb.dma(dst, kb.tileAP(q, cnt, t * seg + los[0] * Wp + colPad, {hi - lo, W}, {Wp, 1}),
                   x.sym,
                   kb.hbmAP((p0 + t * P + q) * H * W + lo * W, {cnt, hi - lo, W},
                            {H * W, W, 1}),
                   xSrcType);
          }
      }
      if (convertWhole) {
        int64_t cols = padCols ? colPad + W + std::max<int64_t>(0, usedRight) : W;
        auto box = groupBox(0, {span, cols}, {Wp, 1});
        kb.emit<nisa::TensorCopyOp>(vecEngine(Opcode::TensorCopy, nparts, span * cols), tile,
                                    box, dst, box, DenseI64ArrayAttr(), UnitAttr());
      } else if (convertIn && his[0] > los[0]) {
        auto box = groupBox(los[0] * Wp + colPad, {his[0] - los[0], W}, {Wp, 1});
        kb.emit<nisa::TensorCopyOp>(
            vecEngine(Opcode::TensorCopy, nparts, nt * (his[0] - los[0]) * W), tile, box, dst,
            box, DenseI64ArrayAttr(), UnitAttr());
      }
      kb.storeQueues = keptForStores;
      // The first weight tile's diagonals before its taps; each next
      // tile's after this tile's first block, so they are made while
      // TensorE works.
      if (onTensor && oh0 == 0 && t0 == 0)
        buildDiagonals(0, 0, shared ? std::min(P, planes * segs) : nparts);
      if (nt > 1)
        emitFoldedTaps(tile, nt, rows, w, wcol, bt, bcol);
      else if (onTensor)
        emitTensorTaps(tile, nparts, rows, diags[(shared ? 0 : t0) % diags.size()], bt, bcol);
      else
        emitTaps(tile, 0, nparts, rows, w, wcol, bt, bcol);
      if (onTensor && oh0 == 0 && !shared && t0 + 1 < ptiles)
        buildDiagonals(t0 + 1, (t0 + 1) * taps, std::min(P, planes - (t0 + 1) * P));
      for (int64_t t = 0; t < nt; ++t)
        finishBlock(p0 + t * P, nparts, oh0, rows, t * R * OW, /*advance=*/t + 1 == nt);
    }
    t0 += nt;
  }
  kb.program().levelQueues();
}

void WindowLowering::loadBands(FlatSymbolRefAttr dst, int64_t oh0, ArrayRef<int64_t> los,
                               ArrayRef<int64_t> his, int64_t colPad) {
  int64_t eb = nisa::elementBytes(xSrcType);
  for (int64_t s0 = 0; s0 < segs;) {
    int64_t s1 = s0 + 1;
    while (s1 < segs && los[s1] == los[s0] && his[s1] == his[s0])
      ++s1;
    int64_t n = his[s0] - los[s0];
    if (n > 0) {
      int64_t bytes = (s1 - s0) * planes * n * W * eb;
      int64_t pieces = std::clamp<int64_t>(bytes / (hw.dmaEfficientBytes / 8), 1,
                                           std::min<int64_t>(hw.dmaEngines, s1 - s0));
      int64_t step = llvm::divideCeil(s1 - s0, pieces);
      for (int64_t a = s0; a < s1; a += step) {
        int64_t k = std::min(step, s1 - a);
        int64_t lo = (a * OHs + oh0) * sh - pt + los[a]; // input row of band a
        kb.dma(dst, kb.tileAP(a * planes, k * planes, los[a] * Wp + colPad, {n, W}, {Wp, 1}),
               x.sym,
               kb.hbmAP(lo * W, {k, planes, n, W}, {OHs * sh * W, H * W, W, 1}), xSrcType);
      }
    }
    s0 = s1;
  }
}

void WindowLowering::emitFoldedTaps(FlatSymbolRefAttr tile, int64_t nt, int64_t rows,
                                    FlatSymbolRefAttr w, int64_t wcol, FlatSymbolRefAttr bt,
                                    int64_t bcol) {
  int64_t seg = rowsIn * Wp, aseg = R * OW, taps = KH * KW;
  SmallVector<int64_t> order = tapOrder();
  int p = 0;
  for (auto [i, t] : llvm::enumerate(order)) {
    int64_t kh = t / KW, kw = t % KW;
    int64_t c0 = 0, c1 = OW, off = kh * dh * Wp + kw * dw;
    if (!padCols) {
      std::tie(c0, c1) = validColumns(kw);
      if (c1 <= c0)
        continue;
      off = kh * dh * Wp + c0 * sw + kw * dw - pl;
    }
    int64_t cols = c1 - c0, m = nt * rows * cols;
    auto window = kb.tileAP(0, P, off, {nt, rows, cols}, {seg, sh * Wp, sw});
    auto dst = kb.tileAP(0, P, c0, {nt, rows, cols}, {aseg, OW, 1});
    bool first = i == 0;
    if (kind != WindowKind::Depthwise) {
      if (first)
        kb.emit<nisa::TensorCopyOp>(vecEngine(Opcode::TensorCopy, P, m), acc[slot], dst, tile,
                                    window, DenseI64ArrayAttr(), UnitAttr());
      else
        kb.emit<nisa::TensorTensorOp>(
            vecEngine(Opcode::TensorTensor, P, m),
            kind == WindowKind::Max ? nisa::AluOp::max : nisa::AluOp::add, acc[slot], dst,
            acc[slot], dst, tile, window, DenseI64ArrayAttr(), UnitAttr());
      continue;
    }
    // Tile j's weight for this tap is column wcol + j * taps + t (one
    // column for all when the channels repeat per tile).
    auto wap = kb.tileAP(0, P, wcol + t, {nt, rows, cols}, {shared ? 0 : taps, 0, 0});
    FlatSymbolRefAttr into = first ? acc[slot] : prod[p];
    kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, P, m), nisa::AluOp::multiply,
                                  into, dst, tile, window, w, wap, DenseI64ArrayAttr(),
                                  UnitAttr());
    if (first && bias.sym) {
      auto bap = kb.tileAP(0, P, bcol, {nt, rows, cols}, {shared ? 0 : 1, 0, 0});
      kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, P, m), nisa::AluOp::add,
                                    acc[slot], dst, acc[slot], dst, bt, bap,
                                    DenseI64ArrayAttr(), UnitAttr());
    }
    if (!first) {
      kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, P, m), nisa::AluOp::add,
                                    acc[slot], dst, acc[slot], dst, prod[p], dst,
                                    DenseI64ArrayAttr(), UnitAttr());
      p ^= 1;
    }
  }
}

void WindowLowering::emitTaps(FlatSymbolRefAttr tile, int64_t base, int64_t nparts, int64_t rows,
                              FlatSymbolRefAttr w, int64_t wcol, FlatSymbolRefAttr bt,
                              int64_t bcol) {
  Builder b(op->getContext());
  int64_t n = rows * OW;
  auto box = kb.tileAP(0, nparts, 0, n);
  auto col = [&](int64_t c) { return kb.tileAP(0, nparts, c, 1); };
  // The first tap covers every output column (it initializes acc).
  SmallVector<int64_t> order = tapOrder();
  for (auto [i, t] : llvm::enumerate(order)) {
    int64_t kh = t / KW, kw = t % KW;
    int64_t c0 = 0, c1 = OW, off = base + kh * dh * Wp + kw * dw;
    if (!padCols) {
      std::tie(c0, c1) = validColumns(kw);
      if (c1 <= c0)
        continue;
      off = base + kh * dh * Wp + c0 * sw + kw * dw - pl;
    }
    int64_t cols = c1 - c0, m = rows * cols;
    auto window = kb.tileAP(0, nparts, off, {rows, cols}, {sh * Wp, sw});
    auto dst = cols == OW ? box : kb.tileAP(0, nparts, c0, {rows, cols}, {OW, 1});
    bool first = i == 0;
    if (kind == WindowKind::Depthwise) {
      if (first)
        kb.emit<nisa::TensorScalarOp>(
            vecEngine(Opcode::TensorScalar, nparts, m), acc[slot], dst, tile, window,
            nisa::AluOp::multiply, FloatAttr(), w, col(wcol + t), UnitAttr(),
            bias.sym ? nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::add)
                     : nisa::AluOpAttr(),
            FloatAttr(), bt, bias.sym ? col(bcol) : nisa::AccessPatternAttr(), UnitAttr(),
            DenseI64ArrayAttr(), UnitAttr());
      else
        kb.emit<nisa::ScalarTensorTensorOp>(
            vecEngine(Opcode::ScalarTensorTensor, nparts, m), acc[slot], dst, tile, window,
            nisa::AluOp::multiply, FloatAttr(), w, col(wcol + t), nisa::AluOp::add,
            acc[slot], dst, DenseI64ArrayAttr(), UnitAttr());
      continue;
    }
    if (first) {
      kb.emit<nisa::TensorCopyOp>(vecEngine(Opcode::TensorCopy, nparts, m), acc[slot], dst,
                                  tile, window, DenseI64ArrayAttr(), UnitAttr());
      continue;
    }
    kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, nparts, m),
                                  kind == WindowKind::Max ? nisa::AluOp::max : nisa::AluOp::add,
                                  acc[slot], dst, acc[slot], dst, tile, window,
                                  DenseI64ArrayAttr(), UnitAttr());
  }
}

void WindowLowering::finishBlock(int64_t p0, int64_t nparts, int64_t oh0, int64_t rows, int64_t at,
                                 bool advance) {
  Builder b(op->getContext());
  int64_t n = rows * OW;
  auto box = kb.tileAP(0, nparts, at, n);
  if (epilogue) {
    // Rows are the planes (image x channel), columns the pixels.
    epilogue->emitEpilogue(kb, p0, nparts / segs, oh0 * OW, n, acc[slot], at);
    if (advance)
      slot = (slot + 1) % kSlots;
    return;
  }
  int64_t bandParts = nparts / segs;
  if (divisorTable) {
    if (segs > 1)
      kb.dma(div[slot], box, divisors.sym,
             kb.hbmAP(oh0 * OW, {segs, bandParts, n}, {OHs * OW, 0, 1}), f32);
    else
      kb.dma(div[slot], box, divisors.sym, kb.hbmAP(oh0 * OW, {nparts, n}, {0, 1}), f32);
    kb.emit<nisa::TensorTensorOp>(vecEngine(Opcode::TensorTensor, nparts, n),
                                  nisa::AluOp::multiply, out[slot], box, acc[slot], box,
                                  div[slot], box, DenseI64ArrayAttr(), UnitAttr());
  } else {
    float scale = kind == WindowKind::Avg ? 1.0f / static_cast<float>(KH * KW) : 1.0f;
    kb.emit<nisa::TensorScalarOp>(
        vecEngine(Opcode::TensorScalar, nparts, n), out[slot], box, acc[slot], box,
        nisa::AluOp::multiply, b.getF32FloatAttr(scale), FlatSymbolRefAttr(),
        nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(), FloatAttr(),
        FlatSymbolRefAttr(), nisa::AccessPatternAttr(), UnitAttr(), DenseI64ArrayAttr(),
        UnitAttr());
  }
  // The store; fused after a convolution, split by partitions across the
  // store queues (the last block's store ends the kernel; alone, the
  // pieces would hold back the next blocks' loads: measured slower).
  int64_t bytes = nparts * n * nisa::elementBytes(outT);
  int64_t pieces = !splitStores ? 1
                                : std::clamp<int64_t>(bytes / (hw.dmaEfficientBytes / 2), 1,
                                                      std::min<int64_t>(hw.dmaEngines, nparts));
  if (segs > 1) { // [bands, planes, n], split by bands
    pieces = std::min(pieces, segs);
    int64_t step = llvm::divideCeil(segs, pieces);
    for (int64_t a = 0; a < segs; a += step) {
      int64_t k = std::min(step, segs - a);
      kb.dma(y.sym,
             kb.hbmAP(p0 * OH * OW + (a * OHs + oh0) * OW, {k, bandParts, n},
                      {OHs * OW, OH * OW, 1}),
             out[slot], kb.tileAP(a * bandParts, k * bandParts, at, n), outT);
    }
  } else {
    int64_t step = llvm::divideCeil(nparts, pieces);
    for (int64_t q = 0; q < nparts; q += step) {
      int64_t cnt = std::min(step, nparts - q);
      kb.dma(y.sym, kb.hbmAP((p0 + q) * OH * OW + oh0 * OW, {cnt, n}, {OH * OW, 1}), out[slot],
             kb.tileAP(q, cnt, at, n), outT);
    }
  }
  if (advance)
    slot = (slot + 1) % kSlots;
}

Engine WindowLowering::vecEngine(Opcode o, int64_t parts, int64_t n) {
  return kb.pick(o, {Engine::vector, Engine::gpsimd}, parts, n);
}

std::string WindowLowering::describe() const {
  return std::to_string(llvm::divideCeil(planes, P)) + " plane tile(s)" +
         (fold > 1 ? " (" + std::to_string(fold) + " at a time on the free axis)" : "") +
         (segs > 1 ? " cut into " + std::to_string(segs) + " bands of " + std::to_string(OHs) +
                         " rows across the partitions"
                   : "") +
         " x " + std::to_string(llvm::divideCeil(OHs, R)) + " row block(s) of " +
         std::to_string(R) +
         ", " + std::to_string(KH * KW) +
         (onTensor ? " taps each on TensorE (diagonal weights)" : " taps each on VectorE/GpSimdE") +
         (kb.storeQueues ? "; stores on " + std::to_string(kb.storeQueues) + " of " +
                               std::to_string(hw.dmaEngines) + " DMA queues"
                         : "");
}

} // namespace mlir::neuron::lowering

LogicalResult mlir::neuron::lowering::lowerPool(FunctionLowering &fl, PoolOp op, Value result) {
  KernelBuilder kb(fl.pb, "pool", op);
  WindowLowering lowering(fl, kb, op,
                          op.getKind() == PoolKind::max ? WindowKind::Max : WindowKind::Avg);
  lowering.countIncludePad = op.getCountIncludePad();
  lowering.allowFold = true;
  if (result)
    lowering.result = result;
  std::string why;
  if (!lowering.plan(op.getInput(), op.getResult(), op.getKernel(), op.getStrides(),
                     op.getPadding(), {}, why))
    return op.emitError("cannot lower the pooling: ") << why;
  lowering.run();
  if (fl.remarks)
    op.emitRemark("lowered as one pooling kernel: ") << lowering.describe();
  return success();
}

FusedPool::FusedPool(FunctionLowering &fl, KernelBuilder &kb, PoolOp pool, Value result)
    : impl(std::make_unique<WindowLowering>(
          fl, kb, pool, pool.getKind() == PoolKind::max ? WindowKind::Max : WindowKind::Avg)) {
  impl->countIncludePad = pool.getCountIncludePad();
  impl->result = result;
}

FusedPool::~FusedPool() = default;

bool FusedPool::plan(std::string &why) {
  auto pool = cast<PoolOp>(impl->op);
  if (!impl->plan(pool.getInput(), pool.getResult(), pool.getKernel(), pool.getStrides(),
                  pool.getPadding(), {}, why))
    return false;
  WindowLowering &w = *impl;
  if (w.sh > w.KH || w.sw > w.KW) {
    why = "its stride is larger than its window, so some input rows or columns are never read";
    return false;
  }
  // Blocks of about a PSUM bank's worth of outputs per instruction: the
  // last block waits for the convolution's last rows, so a small one ends
  // the kernel sooner.
  w.R = std::min<int64_t>(w.R, llvm::divideCeil(w.hw.psumBankFp32(), w.OW));
  w.splitStores = true;
  // The planes keep their padding columns.
  w.padCols = true;
  w.Wp = w.W + w.pl + pool.getPadding().back();
  return true;
}

int64_t FusedPool::planePitch() const { return impl->Wp; }
int64_t FusedPool::planeElements() const {
  return ((impl->OH - 1) * impl->sh + impl->KH) * impl->Wp;
}
int64_t FusedPool::planeOrigin() const { return impl->pt * impl->Wp + impl->pl; }
int64_t FusedPool::usedRows() const {
  return std::min(impl->H, (impl->OH - 1) * impl->sh - impl->pt + impl->KH);
}
int64_t FusedPool::usedCols() const {
  return std::min(impl->W, (impl->OW - 1) * impl->sw - impl->pl + impl->KW);
}
int64_t FusedPool::blockRows() const { return impl->R; }
int64_t FusedPool::outputBytes() const {
  return impl->planes * impl->OH * impl->OW * nisa::elementBytes(impl->outT);
}

int64_t FusedPool::bytesPerPartition() const {
  const WindowLowering &w = *impl;
  return kSlots * w.R * w.OW *
         (4 + nisa::elementBytes(w.outT) + (w.divisorTable ? 4 : 0));
}

void FusedPool::allocate(int64_t partitions) {
  WindowLowering &w = *impl;
  w.y = w.fl.resultBuffer(w.result);
  if (w.divisorTable)
    w.divisors = w.divisorBuffer();
  for (int i = 0; i < kSlots; ++i) {
    w.acc.push_back(w.kb.alloc(nisa::MemorySpace::sbuf, partitions, w.R * w.OW, w.f32, "acc"));
    w.out.push_back(w.kb.alloc(nisa::MemorySpace::sbuf, partitions, w.R * w.OW, w.outT, "y"));
    if (w.divisorTable)
      w.div.push_back(w.kb.alloc(nisa::MemorySpace::sbuf, partitions, w.R * w.OW, w.f32, "div"));
  }
}

void FusedPool::fillPadding(FlatSymbolRefAttr plane, int64_t np) {
  WindowLowering &w = *impl;
  int64_t rows = planeElements() / w.Wp, inside = std::min(w.H, rows - w.pt);
  float fill = w.kind == WindowKind::Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  auto box = [&](int64_t off, ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
    int64_t n = 1;
    for (int64_t v : sizes)
      n *= v;
    w.kb.emit<nisa::MemsetOp>(w.vecEngine(Opcode::Memset, np, n), plane,
                              w.kb.tileAP(0, np, off, sizes, strides),
                              w.kb.builder().getF32FloatAttr(fill), DenseI64ArrayAttr(),
                              UnitAttr());
  };
  if (w.pt > 0)
    box(0, {w.pt * w.Wp}, {1});
  if (rows > w.pt + w.H)
    box((w.pt + w.H) * w.Wp, {(rows - w.pt - w.H) * w.Wp}, {1});
  if (w.pl > 0)
    box(w.pt * w.Wp, {inside, w.pl}, {w.Wp, 1});
  int64_t right = std::min(w.Wp - w.pl - w.W, (w.OW - 1) * w.sw + w.KW - w.pl - w.W);
  if (right > 0)
    box(w.pt * w.Wp + w.pl + w.W, {inside, right}, {w.Wp, 1});
}

int64_t FusedPool::rowsReady(int64_t rows) const {
  const WindowLowering &w = *impl;
  if (rows >= usedRows())
    return w.OH;
  int64_t span = rows + w.pt - w.KH; // the last window top that fits
  return span < 0 ? 0 : std::min(w.OH, span / w.sh + 1);
}

void FusedPool::emitRows(FlatSymbolRefAttr plane, int64_t planeBase, int64_t np, int64_t oh0,
                         int64_t n) {
  WindowLowering &w = *impl;
  w.kb.setSource(w.op);
  w.emitTaps(plane, oh0 * w.sh * w.Wp, np, n, {}, 0, {}, 0);
  w.finishBlock(planeBase, np, oh0, n);
}

std::string FusedPool::describe() const {
  return std::to_string(llvm::divideCeil(impl->OH, impl->R)) + " row block(s) of " +
         std::to_string(impl->R) + ", " + std::to_string(impl->KH * impl->KW) + " taps each";
}

bool mlir::neuron::lowering::isDepthwise(ConvOp conv) {
  auto x = conv.getInput().getType();
  int64_t c = x.getDimSize(1);
  return static_cast<int64_t>(conv.getGroups()) == c &&
         conv.getWeight().getType().getDimSize(0) == c && x.getRank() <= 4;
}

LogicalResult mlir::neuron::lowering::lowerDepthwiseConv(FunctionLowering &fl, KernelBuilder &kb,
                                                         Operation *anchor, ConvOp conv,
                                                         RowKernel *epilogue,
                                                         bool *wantsNarrowInput) {
  WindowLowering lowering(fl, kb, conv, WindowKind::Depthwise);
  lowering.epilogue = epilogue;
  lowering.allowFold = true;
  std::string why;
  ArrayRef<int64_t> kernel = conv.getWeight().getType().getShape().drop_front(2);
  if (!lowering.plan(conv.getInput(), conv.getResult(), kernel, conv.getStrides(),
                     conv.getPadding(), conv.getDilations(), why)) {
    if (lowering.convertIn) { // no room to stage: the caller converts first
      *wantsNarrowInput = true;
      return failure();
    }
    return conv.emitError("cannot lower the depthwise convolution: ") << why;
  }
  lowering.run();
  if (fl.remarks)
    anchor->emitRemark("lowered as one depthwise convolution kernel: ")
        << lowering.describe()
        << (lowering.convertIn ? ", its input converted to bf16 on chip" : "");
  return success();
}
