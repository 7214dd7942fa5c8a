//===- LowerConv.cpp - Convolutions as implicit GEMMs on TensorE ----------===//
//
// y[n, f, oh, ow] = Σ_{c, kh, kw} w[f, c, kh, kw] · x[n, c, oh·s + kh·d - p, ...]
// is, for each kernel tap (kh, kw), a matmul of the tap's weights wᵀ[c, f]
// (stationary: input channels on the partitions, up to 128 output channels)
// with the input pixels the tap reads (moving: the same channels on the
// partitions, up to one PSUM bank of output pixels). All taps and channel
// tiles accumulate into one PSUM bank; no im2col is built: the moving
// operand of a tap is a strided window of the input block in SBUF.
//
// Tiling, per group of channels:
//  - weights: every tap's [C tile, F chunk] resident in SBUF for the whole
//    kernel (packed at compile time to [C, taps, F] when constant, so each
//    partition's row is one contiguous DMA run);
//  - output tiles: `nb` images x `R` rows x `ncw` columns (<= one bank);
//  - input blocks: per output tile and channel tile, the R·s + (KH-1)·d
//    input rows it reads (halo included, loaded once), full padded rows,
//    zero-filled where they fall into the padding; double-buffered so the
//    next block loads while TensorE works on this one;
//  - the epilogue (bias, or a fused kernel's elementwise tail) runs on each
//    PSUM tile as soon as its accumulation ends;
//  - with a fused pooling (a conv-pool kernel), the epilogue writes into
//    one padded plane per image and output channel tile that stays in SBUF,
//    and each block of pooled rows is computed and stored as soon as the
//    rows its windows read are there.
//
//===----------------------------------------------------------------------===//

#include "ConvLowering.h"

#include "neuronc/ISA/InstructionCost.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

void ConvLowering::allocate() {
  auto sb = nisa::MemorySpace::sbuf, ps = nisa::MemorySpace::psum;
  int64_t parts = packedParts(); // partitions of the one channel tile when packed
  for (int64_t s = 0; s < wSets; ++s)
    for (int64_t c = 0; c < ct; ++c)
      wT.push_back(kb.alloc(sb, khPack > 1 ? parts : std::min(P, Cg - c * P),
                            tapColumns() * fChunk, inT, "w"));
  for (int64_t s = 0; s < inSlots * ct; ++s)
    inT_.push_back(kb.alloc(sb, khPack > 1 ? parts : std::min(P, Cg - (s % ct) * P),
                            nb * rowsIn * Wp, inT, "x"));
  if (convertIn)
    for (int64_t s = 0; s < inSlots * ct; ++s) {
      stage.push_back(kb.alloc(sb, std::min(P, Cg - (s % ct) * P), nb * rowsIn * Wp, xSrcType,
                               "xs"));
      if (khPack > 1)
        unpacked.push_back(kb.alloc(sb, Cg, nb * rowsIn * Wp, inT, "xu"));
    }
  for (int64_t s = 0; s < accSlots; ++s)
    acc.push_back(kb.alloc(ps, std::min(P, Fg), hw.psumBankFp32(), f32, "acc"));
  if (!epilogue && !pool && !summed)
    for (int64_t s = 0; s < outSlots; ++s)
      outSb.push_back(kb.alloc(sb, std::min(P, Fg), nb * R * ncw, outT, "y"));
  if (conv.getBias() && !epilogue) // [f % P, g x f-tiles + f / P]
    biasSb = kb.alloc(sb, std::min(P, Fg), groups * biasColumnsPerGroup(),
                      cast<RankedTensorType>(conv.getBias().getType()).getElementType(), "b");
  if (!pool)
    return;
  pool->allocate(std::min(P, Fg));
  for (int64_t s = 0, n = llvm::divideCeil(fChunk, P) * nb; s < n; ++s) {
    planes.push_back(kb.alloc(sb, std::min(P, Fg), pool->planeElements(), outT, "plane"));
    pool->fillPadding(planes.back(), std::min(P, Fg));
  }
  pooled.assign(planes.size(), 0);
}

void ConvLowering::move(bool toTile, FlatSymbolRefAttr tile, int64_t p0, int64_t nparts, int64_t tileOffset,
          ArrayRef<int64_t> tileSizes, ArrayRef<int64_t> tileStrides, const HbmBuffer &hbm,
          int64_t hbmOffset, int64_t partStride, ArrayRef<int64_t> hbmStrides, Type type) {
  int64_t per = 1;
  for (int64_t s : tileSizes)
    per *= s;
  int64_t bytes = per * nparts * nisa::elementBytes(type);
  // Small pieces (an eighth of the efficient size for loads, half for
  // stores) spread over the queues: a block's load or a tile's store ends
  // sooner, so TensorE waits less and buffers free up earlier.
  int64_t piece = toTile ? hw.dmaEfficientBytes / 8 : hw.dmaEfficientBytes / 2;
  int64_t pieces = std::clamp<int64_t>(bytes / piece, 1, std::min<int64_t>(hw.dmaEngines, nparts));
  int64_t step = llvm::divideCeil(nparts, pieces);
  for (int64_t q = 0; q < nparts; q += step) {
    int64_t n = std::min(step, nparts - q);
    SmallVector<int64_t> sizes{n}, strides{partStride};
    sizes.append(tileSizes.begin(), tileSizes.end());
    strides.append(hbmStrides.begin(), hbmStrides.end());
    auto onTile = kb.tileAP(p0 + q, n, tileOffset, tileSizes, tileStrides);
    auto inHbm = kb.hbmAP(hbmOffset + q * partStride, sizes, strides);
    if (toTile)
      kb.dma(tile, onTile, hbm.sym, inHbm, type);
    else
      kb.dma(hbm.sym, inHbm, tile, onTile, type);
  }
}

void ConvLowering::load(FlatSymbolRefAttr tile, int64_t p0, int64_t nparts, int64_t tileOffset,
          ArrayRef<int64_t> tileSizes, ArrayRef<int64_t> tileStrides, const HbmBuffer &src,
          int64_t hbmOffset, int64_t partStride, ArrayRef<int64_t> hbmStrides) {
  move(true, tile, p0, nparts, tileOffset, tileSizes, tileStrides, src, hbmOffset, partStride,
       hbmStrides, src.elementType);
}

void ConvLowering::loadWeights(int64_t g, int64_t f0, int64_t fn) {
  wSet = (wSet + 1) % wSets;
  for (int64_t c = 0; c < ct; ++c) {
    FlatSymbolRefAttr into = wT[wSet * ct + c];
    int64_t c0 = c * P, csz = std::min(P, Cg - c0);
    if (khPack > 1) // [packedParts, tapColumns, Fg]
      load(into, 0, packedParts(), 0, {tapColumns(), fn}, {fChunk, 1}, w, f0,
           tapColumns() * Fg, {Fg, 1});
    else if (packed) // [C, taps, Fg]: per channel, taps x fn with rows of fn
      load(into, 0, csz, 0, {T, fn}, {fChunk, 1}, w, ((g * Cg + c0) * T) * Fg + f0, T * Fg,
           {Fg, 1});
    else // [F, Cg, taps]: element-strided
      load(into, 0, csz, 0, {T, fn}, {fChunk, 1}, w, ((g * Fg + f0) * Cg + c0) * T, T,
           {1, Cg * T});
  }
  if (addend && !addendWeightsLoaded) {
    addend->loadWeights(0, 0, addend->Fg);
    addendWeightsLoaded = true;
  }
}

void ConvLowering::loadInput(const OutTile &t, int64_t g, int slot) {
  if (addend) {
    addend->inSlot = (addend->inSlot + 1) % addend->inSlots;
    addend->loadInput(t, 0, addend->inSlot);
  }
  kb.setSource(conv); // (the epilogue attributes its instructions to its ops)
  if (convertIn && khPack > 1) {
    loadPackedConverted(t, g, slot);
    return;
  }
  int64_t img = rowsIn * Wp;
  for (int64_t c = 0; c < ct; ++c)
    for (int64_t copy = 0; copy < khPack * kwPack; ++copy) {
      // Copy (j, k): kernel row j's rows, shifted left by k kernel columns.
      int64_t j = copy % khPack;
      // The rows the taps read: copy j serves kernel rows j, j + khPack,
      // ... (rows nobody reads are not written: such a write would be
      // lost).
      int64_t lastRow = (KH - 1 - j) / khPack * khPack;
      int64_t rows = (t.rows - 1) * sh + lastRow * dh + 1;
      FlatSymbolRefAttr tile = inT_[slot * ct + c];
      int64_t c0 = c * P, csz = std::min(P, Cg - c0), p0 = copy * Cg;
      int64_t first = t.oh0 * sh - pt + j * dh; // input row of tile row 0
      int64_t lo = std::max<int64_t>(0, first), hi = std::min<int64_t>(H, first + rows);
      // Zeros: a memset from partition 0; a packed copy (which starts at
      // a partition the engines cannot start at) by DMA from zeros.
      auto zero = [&](int64_t off, ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
        if (khPack > 1) {
          SmallVector<int64_t> zs{csz}, zst{0};
          zs.append(sizes.begin(), sizes.end());
          for (size_t d = 0; d < sizes.size(); ++d)
            zst.push_back(d + 1 == sizes.size() ? 1 : 0);
          kb.dma(tile, kb.tileAP(p0, csz, off, sizes, strides), zeros.sym,
                 kb.hbmAP(0, zs, zst), inT);
          return;
        }
        int64_t n = 1;
        for (int64_t v : sizes)
          n *= v;
        Engine e = kb.pick(Opcode::Memset, {Engine::gpsimd, Engine::vector}, csz, n);
        kb.emit<nisa::MemsetOp>(e, tile, kb.tileAP(0, csz, off, sizes, strides),
                                kb.builder().getF32FloatAttr(0.0f), DenseI64ArrayAttr(),
                                UnitAttr());
      };
      CopyColumns cc = copyColumnsOf(copy / khPack);
      // Rows outside the image: whole rows; with packed kernel columns only
      // between the padding columns, which begin() zeroed for good.
      auto zeroRows = [&](int64_t r0, int64_t n) {
        if (kwPack > 1)
          zero(r0 * Wp + cc.leftPad, {t.nbc, n, cc.image}, {img, Wp, 1});
        else
          zero(r0 * Wp, {t.nbc, n * Wp}, {img, 1});
      };
      if (lo > first) // rows above the image
        zeroRows(0, lo - first);
      if (hi < first + rows) // rows below
        zeroRows(std::max(hi, first) - first, first + rows - std::max(hi, first));
      int64_t leftPad = cc.leftPad, skip = cc.skip, imageCols = cc.image;
      if (hi > lo && leftPad && kwPack == 1)
        zero((lo - first) * Wp, {t.nbc, hi - lo, leftPad}, {img, Wp, 1});
      if (hi > lo && cc.read > leftPad + imageCols && kwPack == 1)
        zero((lo - first) * Wp + leftPad + imageCols,
             {t.nbc, hi - lo, cc.read - leftPad - imageCols}, {img, Wp, 1});
      if (hi <= lo)
        continue;
      int64_t off = ((t.n0 * C) + g * Cg + c0) * H * W + lo * W + skip;
      int64_t at = (lo - first) * Wp + leftPad;
      if (!convertIn) {
        load(tile, p0, csz, at, {t.nbc, hi - lo, imageCols}, {img, Wp, 1}, x, off, H * W,
             {C * H * W, W, 1});
        continue;
      }
      FlatSymbolRefAttr st = stage[slot * ct + c];
      load(st, 0, csz, at, {t.nbc, hi - lo, W}, {img, Wp, 1}, x, off, H * W, {C * H * W, W, 1});
      auto box = kb.tileAP(0, csz, at, {t.nbc, hi - lo, W}, {img, Wp, 1});
      int64_t n = t.nbc * (hi - lo) * W;
      Engine e = kb.pick(Opcode::TensorCopy, {Engine::vector, Engine::gpsimd, Engine::scalar},
                         csz, n);
      kb.emit<nisa::TensorCopyOp>(e, tile, box, st, box, DenseI64ArrayAttr(), UnitAttr());
    }
}

void ConvLowering::zeroPaddingColumns() {
  for (int64_t slot = 0; slot < inSlots; ++slot)
    for (int64_t copy = 0; copy < khPack * kwPack; ++copy) {
      CopyColumns cc = copyColumnsOf(copy / khPack);
      int64_t right = cc.read - cc.leftPad - cc.image;
      for (auto [at, n] : {std::pair(int64_t{0}, cc.leftPad),
                           std::pair(cc.leftPad + cc.image, right)})
        if (n > 0)
          kb.dma(inT_[slot], kb.tileAP(copy * Cg, Cg, at, {nb * rowsIn, n}, {Wp, 1}), zeros.sym,
                 kb.hbmAP(0, {Cg, nb * rowsIn, n}, {0, 0, 1}), inT);
    }
}

void ConvLowering::loadPackedConverted(const OutTile &t, int64_t g, int slot) {
  int64_t img = rowsIn * Wp;
  FlatSymbolRefAttr st = stage[slot], un = unpacked[slot], tile = inT_[slot];
  int64_t rowsU = (t.rows - 1) * sh + (KH - 1) * dh + 1;
  int64_t first = t.oh0 * sh - pt; // input row of block row 0
  int64_t lo = std::max<int64_t>(0, first), hi = std::min<int64_t>(H, first + rowsU);
  int64_t colPad = padCols ? pl : 0;
  int64_t usedRight = padCols ? std::max<int64_t>(0, usedRightPadding()) : 0;
  int64_t cols = colPad + W + usedRight; // the columns some window reads
  auto zero = [&](int64_t off, ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
    int64_t n = 1;
    for (int64_t v : sizes)
      n *= v;
    Engine e = kb.pick(Opcode::Memset, {Engine::gpsimd, Engine::vector}, Cg, n);
    kb.emit<nisa::MemsetOp>(e, st, kb.tileAP(0, Cg, off, sizes, strides),
                            kb.builder().getF32FloatAttr(0.0f), DenseI64ArrayAttr(), UnitAttr());
  };
  if (lo > first)
    zero(0, {t.nbc, lo - first, cols}, {img, Wp, 1});
  if (hi < first + rowsU)
    zero((std::max(hi, first) - first) * Wp,
         {t.nbc, first + rowsU - std::max(hi, first), cols}, {img, Wp, 1});
  if (hi > lo && colPad)
    zero((lo - first) * Wp, {t.nbc, hi - lo, colPad}, {img, Wp, 1});
  if (hi > lo && usedRight)
    zero((lo - first) * Wp + colPad + W, {t.nbc, hi - lo, usedRight}, {img, Wp, 1});
  if (hi > lo)
    load(st, 0, Cg, (lo - first) * Wp + colPad, {t.nbc, hi - lo, W}, {img, Wp, 1}, x,
         (t.n0 * C + g * Cg) * H * W + lo * W, H * W, {C * H * W, W, 1});
  auto box = kb.tileAP(0, Cg, 0, {t.nbc, rowsU, cols}, {img, Wp, 1});
  Engine e = kb.pick(Opcode::TensorCopy, {Engine::vector, Engine::gpsimd, Engine::scalar}, Cg,
                     t.nbc * rowsU * cols);
  kb.emit<nisa::TensorCopyOp>(e, un, box, st, box, DenseI64ArrayAttr(), UnitAttr());
  for (int64_t j = 0; j < khPack; ++j) {
    int64_t lastRow = (KH - 1 - j) / khPack * khPack;
    int64_t rows = (t.rows - 1) * sh + lastRow * dh + 1;
    kb.dma(tile, kb.tileAP(j * Cg, Cg, 0, {t.nbc, rows, cols}, {img, Wp, 1}), un,
           kb.tileAP(0, Cg, j * dh * Wp, {t.nbc, rows, cols}, {img, Wp, 1}), inT);
  }
}

SmallVector<OutTile> ConvLowering::outputTiles() {
  SmallVector<OutTile> tiles;
  for (int64_t n0 = 0; n0 < N; n0 += nb)
    for (int64_t oh0 = 0; oh0 < OH; oh0 += R)
      for (int64_t ow0 = 0; ow0 < OW; ow0 += ncw)
        tiles.push_back({n0, std::min(nb, N - n0), oh0, std::min(R, OH - oh0), ow0,
                         std::min(ncw, OW - ow0)});
  return tiles;
}

void ConvLowering::multiply(const OutTile &t, int slot, int64_t fw, int64_t fsz, int a) {
  kb.setSource(conv);
  int64_t img = rowsIn * Wp;
  SmallVector<std::tuple<int64_t, int64_t, int64_t>> order; // (c, kh or kh group, kw)
  order.push_back({0, 0, padCols ? 0 : fullTap});
  for (int64_t c = 0; c < ct; ++c)
    for (int64_t kh = 0; kh < (khPack > 1 ? khGroups : KH); ++kh)
      for (int64_t kw = 0; kw < kwSteps(); ++kw)
        if (std::make_tuple(c, kh, kw) != order.front())
          order.push_back({c, kh, kw});
  double ns = 0;
  bool first = true;
  for (auto [c, kh, step] : order) {
    // Packed, `kh` is a group of khPack kernel rows, one per copy (and
    // `step` a group of kwPack kernel columns, from column kw on).
    int64_t kw = step * kwPack;
    int64_t csz = khPack > 1 ? std::min(khPack, KH - kh * khPack) * Cg * std::min(kwPack, KW - kw)
                             : std::min(P, Cg - c * P);
    int64_t tap = kh * kwSteps() + step;
    int64_t rowOff = (khPack > 1 ? kh * khPack : kh) * dh * Wp;
    // Output columns [c0, c1) of the tile this tap reads the image at.
    int64_t c0 = 0, c1 = t.cols, off = rowOff + t.ow0 * sw + kw * dw;
    if (!padCols) {
      std::tie(c0, c1) = validColumns(kw);
      if (c1 <= c0)
        continue;
      off = rowOff + c0 * sw + kw * dw - pl;
    }
    SmallVector<int64_t> sizes, strides, dsizes, dstrides;
    if (t.nbc > 1) {
      sizes.push_back(t.nbc);
      strides.push_back(img);
      dsizes.push_back(t.nbc);
      dstrides.push_back(t.rows * t.cols);
    }
    if (t.rows > 1) {
      sizes.push_back(t.rows);
      strides.push_back(sh * Wp);
      dsizes.push_back(t.rows);
      dstrides.push_back(t.cols);
    }
    sizes.push_back(c1 - c0);
    strides.push_back(sw);
    dsizes.push_back(c1 - c0);
    dstrides.push_back(1);
    kb.emit<nisa::LoadStationaryOp>(wT[wSet * ct + c], kb.tileAP(0, csz, tap * fChunk + fw, fsz),
                                    DenseI64ArrayAttr(), UnitAttr());
    auto dst = c1 - c0 == t.cols ? kb.tileAP(0, fsz, 0, t.pixels())
                                 : kb.tileAP(0, fsz, c0, dsizes, dstrides);
    kb.emit<nisa::MultiplyMovingOp>(acc[a], dst, inT_[slot * ct + c],
                                    kb.tileAP(0, csz, off, sizes, strides),
                                    first && !summed ? UnitAttr::get(kb.context()) : UnitAttr(),
                                    DenseI64ArrayAttr(), UnitAttr());
    first = false;
    ns += kb.estimate(Opcode::MultiplyMoving, Engine::tensor, P,
                      t.pixels() / t.cols * (c1 - c0), inT.isF32());
  }
  kb.charge(Engine::tensor, ns);
  if (addend) { // into the same accumulators: its weights are all resident
    addend->multiply(t, addend->inSlot, chunk0 + fw, fsz, a);
    kb.setSource(conv);
  }
}

void ConvLowering::store(const OutTile &t, int64_t g, int64_t f0, int64_t fsz, int a) {
  int64_t fAbs = g * Fg + f0;
  int64_t bcol = biasColumn(g, f0);
  if (pool) {
    toPlanes(t, fAbs, f0 % fChunk / P, fsz, bcol, a);
    return;
  }
  if (epilogue && chained) {
    // Whole rows (ConvChain plans them): image i's rows go to its place in
    // the chained convolution's input block, channel tile fAbs / P.
    int64_t per = t.rows * t.cols;
    FlatSymbolRefAttr block = chained->inT_[chainSlot * chained->ct + fAbs / P];
    for (int64_t i = 0; i < t.nbc; ++i)
      epilogue->emitEpilogueInto(kb, (t.n0 + i) * F + fAbs, fsz, t.oh0 * OW, per, acc[a],
                                 i * per, block,
                                 kb.tileAP(0, fsz, i * chained->rowsIn * chained->Wp, per));
    return;
  }
  if (epilogue && mean) {
    emitMean(t, fAbs, fsz, a);
    return;
  }
  if (epilogue) {
    int64_t per = t.rows * t.cols;
    for (int64_t i = 0; i < t.nbc; ++i) {
      if (t.cols == OW)
        epilogue->emitEpilogue(kb, (t.n0 + i) * F + fAbs, fsz, t.oh0 * OW, per, acc[a],
                               i * per);
      else
        for (int64_t r = 0; r < t.rows; ++r)
          epilogue->emitEpilogue(kb, (t.n0 + i) * F + fAbs, fsz, (t.oh0 + r) * OW + t.ow0,
                                 t.cols, acc[a], i * per + r * t.cols);
    }
    return;
  }
  FlatSymbolRefAttr out = outSb[outSlot];
  outSlot = (outSlot + 1) % outSlots;
  auto box = kb.tileAP(0, fsz, 0, t.pixels());
  evacuate(out, box, a, box, fsz, t.pixels(), bcol);
  int64_t off = (t.n0 * F + fAbs) * OH * OW + t.oh0 * OW + t.ow0;
  move(false, out, 0, fsz, 0, {t.nbc, t.rows, t.cols}, {t.rows * t.cols, t.cols, 1}, y, off,
       OH * OW, {F * OH * OW, OW, 1}, outT);
}

void ConvLowering::evacuate(FlatSymbolRefAttr dst, nisa::AccessPatternAttr to, int a,
              nisa::AccessPatternAttr from, int64_t fsz, int64_t n, int64_t bcol) {
  kb.charge(Engine::scalar,
            kb.estimate(Opcode::Activation, Engine::scalar, fsz, n, false, true));
  bool hasBias = static_cast<bool>(biasSb);
  kb.emit<nisa::ActivationOp>(
      nisa::ActFunc::copy, dst, to, acc[a], from, FloatAttr(), FlatSymbolRefAttr(),
      nisa::AccessPatternAttr(), FloatAttr(), hasBias ? biasSb : FlatSymbolRefAttr(),
      hasBias ? kb.tileAP(0, fsz, bcol, 1) : nisa::AccessPatternAttr(), FlatSymbolRefAttr(),
      nisa::AccessPatternAttr(), DenseI64ArrayAttr(), UnitAttr());
}

void ConvLowering::toPlanes(const OutTile &t, int64_t fAbs, int64_t ft, int64_t fsz, int64_t bcol, int a) {
  int64_t rows = std::min(t.rows, pool->usedRows() - t.oh0);
  int64_t cols = std::min(t.cols, pool->usedCols() - t.ow0);
  int64_t Wpl = pool->planePitch(), per = t.rows * t.cols;
  for (int64_t i = 0; i < t.nbc && rows > 0 && cols > 0; ++i) {
    FlatSymbolRefAttr plane = planes[ft * nb + i];
    int64_t at = pool->planeOrigin() + t.oh0 * Wpl + t.ow0;
    // Rows [r, r + n) of the tile: one instruction when they are whole.
    auto write = [&](int64_t r, int64_t n, int64_t m) {
      auto dst = n > 1 ? kb.tileAP(0, fsz, at + r * Wpl, {n, m}, {Wpl, 1})
                       : kb.tileAP(0, fsz, at + r * Wpl, m);
      int64_t psumAt = i * per + r * t.cols;
      if (epilogue) {
        epilogue->emitEpilogueInto(kb, (t.n0 + i) * F + fAbs, fsz,
                                   (t.oh0 + r) * OW + t.ow0, n * m, acc[a], psumAt, plane, dst);
        return;
      }
      evacuate(plane, dst, a, kb.tileAP(0, fsz, psumAt, n * m), fsz, n * m, bcol);
    };
    if (cols == t.cols && cols == OW)
      write(0, rows, cols);
    else
      for (int64_t r = 0; r < rows; ++r)
        write(r, 1, cols);
  }
  // Rows are complete once their last column chunk is in.
  if (t.ow0 + t.cols < OW)
    return;
  int64_t ready = pool->rowsReady(t.oh0 + t.rows);
  int64_t block = pool->blockRows();
  for (int64_t i = 0; i < t.nbc; ++i) {
    int64_t &done = pooled[ft * nb + i];
    while (done < ready && (ready - done >= block || ready == pool->rowsReady(OH))) {
      int64_t n = std::min(block, ready - done);
      pool->emitRows(planes[ft * nb + i], (t.n0 + i) * F + fAbs, fsz, done, n);
      done += n;
    }
    if (done == pool->rowsReady(OH))
      done = 0; // the plane's next image
  }
}

double ConvLowering::loadBytes() const {
  double loads = onChip ? 0.0
                        : static_cast<double>(N) * C * H * W * ein *
                              llvm::divideCeil(Fg, fChunk); // the input once per weight chunk
  if (kwPack > 1 && !onChip) {
    // Every packed copy moves the input again, each block's in a transfer
    // of its own with a run per row: what the queues pay, in bytes.
    int64_t blocks = llvm::divideCeil(N, nb) * llvm::divideCeil(OH, R);
    double issue = hw.dmaIssueNs * hw.dmaBytesPerNsPerEngine;
    loads = loads * static_cast<double>(khPack * kwPack) /
                neuronc::dmaRunEfficiency(hw, W * ein) +
            static_cast<double>(blocks * khPack * kwPack) * issue;
  }
  loads += static_cast<double>(F) * Cg * T * ein;           // the weights
  if (epilogue)
    loads += static_cast<double>(epilogue->inputBytes()); // e.g. a residual
  if (addend)
    loads += addend->loadBytes();
  return loads;
}

double ConvLowering::storeBytes() const {
  if (mean)
    return mean->storeBytes;
  if (pool)
    return static_cast<double>(pool->outputBytes());
  // An epilogue stores in its outputs' types (bf16 after an f32
  // accumulation), none when its value stays on chip.
  return epilogue ? static_cast<double>(epilogue->outputBytes())
                  : static_cast<double>(N) * F * OH * OW * eout;
}

void ConvLowering::begin() {
  if (!onChip)
    x = fl.bufferOf(conv.getInput());
  if (std::optional<HbmBuffer> p = packWeights()) {
    w = *p;
    packed = true;
  } else {
    w = fl.bufferOf(conv.getWeight());
  }
  if (!epilogue && !pool && !summed)
    y = fl.resultBuffer(conv.getResult());
  if (epilogue && epilogueBuffers != 2)
    epilogue->setEpilogueBuffers(epilogueBuffers);
  allocate();
  if (khPack > 1) {
    auto type = RankedTensorType::get({rowsIn * Wp}, inT);
    zeros = fl.pb.declare(nisa::HbmKind::constant, type, conv.getLoc(), std::nullopt, {},
                          DenseElementsAttr::get(type, kb.builder().getZeroAttr(inT)));
  }
  if (kwPack > 1)
    zeroPaddingColumns();
  if (biasSb) {
    bias = fl.bufferOf(conv.getBias());
    // Channel f0 + p of group g at partition p, column biasColumn(g, f0),
    // for every output tile's f0 (each weight chunk's tiles start at it).
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t fc = 0; fc < Fg; fc += fChunk)
        for (int64_t f = 0, fn = std::min(fChunk, Fg - fc); f < fn; f += P)
          load(biasSb, 0, std::min(P, fn - f), biasColumn(g, fc + f), {1}, {1}, bias,
               g * Fg + fc + f, 1, {1});
  }
  if (addend) {
    addend->begin();
    addend->acc = acc;
  }
}

void ConvLowering::run() {
  // Stores on queues of their own, in proportion to the bytes they move:
  // a store waiting for its tile would hold back the input blocks queued
  // behind it.
  kb.shareQueues(loadBytes(), storeBytes());
  begin();
  SmallVector<OutTile> tiles = outputTiles();
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t fc = 0; fc < Fg; fc += fChunk) {
      int64_t fn = std::min(fChunk, Fg - fc);
      chunk0 = fc;
      // Nothing is stored before the first weights arrive: they may use
      // every queue.
      int64_t storeQueues = kb.storeQueues;
      if (g == 0 && fc == 0)
        kb.storeQueues = 0;
      loadWeights(g, fc, fn);
      kb.storeQueues = storeQueues;
      for (const OutTile &t : tiles) {
        // Column chunks of one row block share its input block.
        if (t.ow0 == 0) {
          inSlot = (inSlot + 1) % inSlots;
          loadInput(t, g, inSlot);
        }
        int slot = inSlot;
        for (int64_t f = 0; f < fn; f += P) {
          int64_t fsz = std::min(P, fn - f);
          int a = accSlot;
          accSlot = (accSlot + 1) % accSlots;
          multiply(t, slot, f, fsz, a);
          store(t, g, fc + f, fsz, a);
        }
      }
    }
  kb.program().levelQueues();
}

LogicalResult mlir::neuron::lowering::lowerConv(FunctionLowering &fl, Operation *anchor,
                                                ConvOp conv, ArrayRef<Operation *> epilogueOps,
                                                ArrayRef<std::pair<Value, Value>> outputs,
                                                StringRef kind) {
  ArrayRef<Operation *> allEpilogueOps = epilogueOps;
  // A fused pooling (conv-pool) is the kernel's last op and its one output.
  PoolOp poolOp = epilogueOps.empty() ? PoolOp() : dyn_cast<PoolOp>(epilogueOps.back());
  if (poolOp)
    epilogueOps = epilogueOps.drop_back();
  if (!poolOp && !isDepthwise(conv))
    if (std::optional<LogicalResult> done =
            lowerConvWithMean(fl, anchor, conv, epilogueOps, outputs, kind))
      return *done;
  RowKernelSpec spec;
  spec.ops.push_back(conv);
  spec.ops.append(epilogueOps.begin(), epilogueOps.end());
  spec.bufferOf = [&](Value v) { return fl.bufferOf(v); };
  spec.constantBuffer = [&](ConstantOp c) { return fl.constantBuffer(c); };
  if (poolOp && !epilogueOps.empty()) // left in SBUF for the pooling
    spec.outputs.push_back({poolOp.getInput(), HbmBuffer{}});
  else if (!epilogueOps.empty())
    for (auto [inner, outer] : outputs)
      spec.outputs.push_back({inner, fl.resultBuffer(outer)});
  spec.psum = conv.getResult();
  std::string planWhy;
  if (conv.getBias())
    planWhy = "its bias is not an add of the epilogue (only TensorE writes PSUM)";
  std::optional<RowKernel> epilogue =
      epilogueOps.empty() || conv.getBias()
          ? std::nullopt
          : RowKernel::plan(std::move(spec), fl.pb.hw(), planWhy);
  // The pooling as its own kernel after the rest (the kernel's value goes
  // where the fused kernel's result is expected).
  auto unfusePool = [&](const Twine &why) -> LogicalResult {
    recordSplit(anchor, kind, "the pooling is a separate kernel: " + why);
    if (fl.remarks)
      anchor->emitRemark("the pooling is a separate kernel: ") << why;
    Value in = poolOp.getInput();
    if (failed(lowerConv(fl, anchor, conv, epilogueOps, {{in, in}}, kind)))
      return failure();
    return lowerPool(fl, poolOp, outputs.front().second);
  };
  if (!epilogueOps.empty() && !epilogue) {
    if (poolOp)
      return unfusePool("the convolution's epilogue does not run on its output tiles (" +
                        planWhy + ")");
    // The epilogue cannot run on the output tiles (it reduces them, as a
    // global average pool does): write the convolution to HBM and run the
    // rest as its own kernel.
    recordSplit(anchor, kind,
                                 "the convolution's epilogue is a separate kernel: " + planWhy);
    if (fl.remarks)
      anchor->emitRemark("the convolution's epilogue is a separate kernel: ") << planWhy;
    if (failed(lowerConv(fl, conv, conv, {}, {{conv.getResult(), conv.getResult()}}, "conv")))
      return failure();
    return lowerRowGroup(fl, anchor, epilogueOps, outputs, kind);
  }
  if (poolOp && isDepthwise(conv))
    return unfusePool("depthwise convolutions do not keep their planes");
  std::string why;
  std::optional<KernelBuilder> kb;
  kb.emplace(fl.pb, kind, anchor);
  if (isDepthwise(conv)) {
    bool narrow = false;
    LogicalResult ok =
        lowerDepthwiseConv(fl, *kb, anchor, conv, epilogue ? &*epilogue : nullptr, &narrow);
    if (!narrow)
      return ok;
    kb->kernel().erase();
    kb.reset();
    if (failed(materializeFoldedCast(fl, conv.getInput())))
      return failure();
    return lowerConv(fl, anchor, conv, allEpilogueOps, outputs, kind);
  }
  std::unique_ptr<FusedPool> pool;
  // Planning emits nothing: a refused pooling drops the empty kernel.
  auto refusePool = [&] {
    kb->kernel().erase();
    pool.reset();
    kb.reset();
    return unfusePool(why);
  };
  if (poolOp) {
    pool = std::make_unique<FusedPool>(fl, *kb, poolOp, outputs.front().second);
    if (!pool->plan(why))
      return refusePool();
  }
  ConvLowering lowering(fl, *kb, conv, epilogue ? &*epilogue : nullptr);
  lowering.pool = pool.get();
  if (!lowering.plan(why)) {
    if (lowering.convertIn) {
      // Without room for the staging tiles: convert the input in a kernel
      // of its own, and plan again on the narrow copy.
      kb->kernel().erase();
      kb.reset();
      if (failed(materializeFoldedCast(fl, conv.getInput())))
        return failure();
      return lowerConv(fl, anchor, conv, allEpilogueOps, outputs, kind);
    }
    if (pool)
      return refusePool();
    if (lowering.rowTooWide) {
      kb->kernel().erase();
      return lowerConvInColumnHalves(fl, anchor, conv, epilogueOps, outputs, kind);
    }
    return conv.emitError("cannot lower the convolution: ") << why;
  }
  kb->setSource(conv);
  lowering.run();
  if (fl.remarks)
    anchor->emitRemark("lowered as one convolution kernel: ")
        << lowering.groups << " group(s) x " << lowering.ct << " channel tile(s) x "
        << lowering.T << " taps into output tiles of " << lowering.nb << " image(s) x "
        << lowering.R << " row(s) x " << lowering.ncw << " columns"
        << (lowering.packed ? ", weights packed at compile time" : ", weights read strided")
        << (lowering.convertIn ? ", its input converted to bf16 on chip" : "")
        << (lowering.khPack > 1 ? ", " + std::to_string(lowering.khPack) +
                                      " kernel rows packed onto the partitions"
                                : std::string())
        << (lowering.kwPack > 1 ? " with " + std::to_string(lowering.kwPack) +
                                      " kernel columns each (" +
                                      std::to_string(lowering.khGroups * lowering.kwGroups) +
                                      (lowering.khGroups * lowering.kwGroups == 1
                                           ? " multiply"
                                           : " multiplies") +
                                      " per tile instead of " +
                                      std::to_string(lowering.khGroups * lowering.KW) + ")"
                                : std::string())
        << (lowering.fChunk < lowering.Fg
                ? ", weights in chunks of " + std::to_string(lowering.fChunk) + " channels"
                : std::string())
        << (pool ? ", pooled from planes kept in SBUF in " + pool->describe() : std::string())
        << (lowering.inSlots != 3 ? ", " + std::to_string(lowering.inSlots) +
                                        " small input blocks in flight"
                                  : std::string())
        << (lowering.wSets > 1 ? ", " + std::to_string(lowering.wSets) + " weight sets in flight"
                               : std::string())
        << (lowering.epilogueBuffers != 2
                ? ", " + std::to_string(lowering.epilogueBuffers) + " epilogue tiles in flight"
                : std::string())
        << "; stores on " << kb->storeQueues << " of " << fl.pb.hw().dmaEngines << " DMA queues";
  return success();
}
