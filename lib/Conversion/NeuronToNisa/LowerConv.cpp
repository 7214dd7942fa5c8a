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

#include "Lowering.h"
#include "RowKernel.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace {

/// One output tile: images [n0, n0+nbc), rows [oh0, oh0+rows), columns
/// [ow0, ow0+cols).
struct OutTile {
  int64_t n0, nbc, oh0, rows, ow0, cols;
  int64_t pixels() const { return nbc * rows * cols; }
};

/// One convolution lowered as an implicit GEMM: its shapes, plan, tiles and
/// the emission of its kernel (see the file comment).
struct ConvLowering {
  FunctionLowering &fl;
  KernelBuilder &kb;
  ConvOp conv;
  RowKernel *epilogue;
  FusedPool *pool = nullptr;
  const neuronc::HardwareModel &hw;
  const int64_t P;

  // Shapes (1-D convolutions are 2-D ones with H = KH = 1).
  int64_t N, C, H, W, F, KH, KW, OH, OW, sh, sw, dh, dw, pt, pl, groups, Cg, Fg, T, Wp;
  Type inT, outT, f32;
  int64_t ein, eout;
  /// The input's element type in HBM: inT, or a wider float when an
  /// --auto-cast cast was folded into this convolution (each input block is
  /// loaded into a staging tile of this type and converted to inT in SBUF).
  Type xSrcType;
  int64_t esrc = 0;
  bool convertIn = false;

  // Plan.
  int64_t ct = 1;       ///< channel tiles per group
  int64_t fChunk = 0;   ///< output channels whose weights are resident at once
  int64_t R = 1, nb = 1, ncw = 1, rowsIn = 1;
  int64_t inSlots = 3, accSlots = 2, outSlots = 6;
  /// Tiles per value of a fused epilogue (RowKernel::setEpilogueBuffers).
  int epilogueBuffers = 2;
  /// The deepest ring of epilogue tiles deepenRings keeps.
  static constexpr int kMaxEpilogueRing = 8;
  bool packed = false;  ///< weights packed to [C, taps, F] at compile time
  /// Input rows in SBUF with their padding columns (pitch W + pads); else
  /// unpadded (pitch W: each channel's block is one contiguous DMA run) and
  /// the taps that would read padding skip those output columns.
  bool padCols = true;
  int64_t fullTap = 0; ///< with unpadded rows: a column tap reading no padding
  /// Kernel rows packed onto the partitions (few input channels, a
  /// constant weight): copy j of the input block, on partitions
  /// [j·C, (j+1)·C), starts j·d rows lower, so one matmul over khPack·C
  /// partitions does the work of khPack taps (a 7x7 stem over 3 channels:
  /// 7 matmuls of 21 rows instead of 49 of 3).
  int64_t khPack = 1, khGroups = 1;
  HbmBuffer zeros; ///< zeros to fill packed copies' rows outside the image

  HbmBuffer x, w, y, bias;
  SmallVector<FlatSymbolRefAttr> wT;   ///< per set and channel tile: [csz, taps x fChunk]
  /// Weight sets in rotation (groups and weight chunks in turn) and the one
  /// the multiplies read.
  int64_t wSets = 1, wSet = 0;
  /// The deepest ring of weight sets `plan` keeps.
  static constexpr int64_t kMaxWeightSets = 4;
  SmallVector<FlatSymbolRefAttr> inT_; ///< inSlots x ct input blocks
  SmallVector<FlatSymbolRefAttr> stage; ///< with convertIn: the blocks as loaded
  /// With convertIn and packed rows: each block converted, unpacked, at
  /// partition 0 (the packed copies are made from it).
  SmallVector<FlatSymbolRefAttr> unpacked;
  SmallVector<FlatSymbolRefAttr> acc, outSb;
  FlatSymbolRefAttr biasSb;
  int inSlot = 0, accSlot = 0, outSlot = 0;
  /// With a fused pooling: plane tiles (output channel tile x image of a
  /// tile), and per plane the pooled rows of its current image.
  SmallVector<FlatSymbolRefAttr> planes;
  SmallVector<int64_t> pooled;

  ConvLowering(FunctionLowering &fl, KernelBuilder &kb, ConvOp conv, RowKernel *epilogue)
      : fl(fl), kb(kb), conv(conv), epilogue(epilogue), hw(fl.pb.hw()), P(hw.partitions) {}

  /// The output columns [a, b) at which column tap `kw` reads inside the
  /// image (not padding).
  std::pair<int64_t, int64_t> validColumns(int64_t kw) const {
    int64_t shift = kw * dw - pl; // input column of output column 0
    int64_t a = shift >= 0 ? 0 : llvm::divideCeil(-shift, sw);
    int64_t b = W - 1 - shift < 0 ? 0 : std::min(OW, (W - 1 - shift) / sw + 1);
    return {a, std::max(a, b)};
  }

  /// Reads the shapes; false (with `why`) for forms this lowering does not
  /// take.
  bool readShapes(std::string &why) {
    auto xt = conv.getInput().getType(), wt = conv.getWeight().getType();
    auto yt = conv.getResult().getType();
    int64_t k = xt.getRank() - 2;
    if (k > 2) {
      why = std::to_string(k) + "-D convolutions are tiled as 2-D ones: run "
                                "--neuron-decompose-windows first (neuronc does)";
      return false;
    }
    auto sp = [&](ShapedType t, int64_t d2) { return k == 2 ? t.getDimSize(d2) : 1; };
    N = xt.getDimSize(0);
    C = xt.getDimSize(1);
    H = sp(xt, 2);
    W = xt.getDimSize(xt.getRank() - 1);
    F = wt.getDimSize(0);
    Cg = wt.getDimSize(1);
    KH = sp(wt, 2);
    KW = wt.getDimSize(wt.getRank() - 1);
    OH = sp(yt, 2);
    OW = yt.getDimSize(yt.getRank() - 1);
    ArrayRef<int64_t> s = conv.getStrides(), d = conv.getDilations(), p = conv.getPadding();
    sh = k == 2 ? s[0] : 1;
    sw = s.back();
    dh = k == 2 ? d[0] : 1;
    dw = d.back();
    pt = k == 2 ? p[0] : 0;
    pl = k == 2 ? p[1] : p[0];
    int64_t pr = p.back();
    groups = conv.getGroups();
    Fg = F / groups;
    T = KH * KW;
    Wp = W + pl + pr;
    // Unpadded rows when some column tap reads no padding at any output
    // column (it starts each accumulation and covers the whole tile).
    if (pl + pr > 0 && OW <= hw.psumBankFp32())
      for (int64_t kw = 0; kw < KW && padCols; ++kw) {
        auto [a, b] = validColumns(kw);
        if (a == 0 && b == OW) {
          padCols = false;
          fullTap = kw;
          Wp = W;
        }
      }
    inT = xt.getElementType();
    outT = yt.getElementType();
    f32 = Builder(conv.getContext()).getF32Type();
    ein = nisa::elementBytes(inT);
    xSrcType = inT;
    if (fl.hasBuffer(conv.getInput()) && fl.bufferOf(conv.getInput()).elementType)
      xSrcType = fl.bufferOf(conv.getInput()).elementType;
    convertIn = xSrcType != inT;
    esrc = nisa::elementBytes(xSrcType);
    eout = nisa::elementBytes(outT);
    ct = llvm::divideCeil(Cg, P);
    // Packing two rows (64 channels) loads the input twice for 1.5x fewer
    // matmuls of a 3x3: measured slower (ResNet-50's 3x3x64 at 56², batch 8:
    // 86 -> 95 us), so at least three.
    if (groups == 1 && ct == 1 && KH > 1 && P / Cg >= 3 && constantWeight()) {
      // Packed copies start at partitions the engines cannot start at, so a
      // wider input (a stem's image under --auto-cast) is converted once,
      // at partition 0 on its C partitions, and the copies are made from it
      // by SBUF-to-SBUF DMA (loadPackedConverted) -- when that costs less
      // than a conversion kernel over all partitions, which moves the image
      // through HBM once more (a 64² image: converted here; a 224² one,
      // 50176 elements on each of 3 partitions: by a kernel of its own).
      if (convertIn) {
        double rate = static_cast<double>(hw.vectorElementsPerCycle) /
                      static_cast<double>(P) * hw.vectorClockGHz; // per partition
        double here = static_cast<double>(N * H * W) / rate;
        // The kernel's load and store, then this one waiting for that store
        // and loading again: four DMA latencies besides the bytes.
        double kernel = static_cast<double>(N * C * H * W * (esrc + ein)) / hw.hbmGBps +
                        4 * hw.dmaLatencyNs;
        if (here > kernel) {
          why = "converting the image on its " + std::to_string(Cg) +
                " partitions for packed kernel rows costs more than a conversion kernel";
          return false;
        }
      }
      khPack = std::min(KH, P / Cg);
      khGroups = llvm::divideCeil(KH, khPack);
    }
    return true;
  }

  /// Bias columns per group: one per output tile of each weight chunk
  /// (chunks of fewer than P channels start mid-tile: their tiles need their
  /// own columns, partition p holding channel f0 + p).
  int64_t biasColumnsPerGroup() const {
    return llvm::divideCeil(Fg, fChunk) * llvm::divideCeil(fChunk, P);
  }
  /// The bias column of the output tile starting at channel f0 of group g
  /// (f0 / P when the chunks are whole tiles).
  int64_t biasColumn(int64_t g, int64_t f0) const {
    return g * biasColumnsPerGroup() + (f0 / fChunk) * llvm::divideCeil(fChunk, P) +
           (f0 % fChunk) / P;
  }

  /// The plan failed because one block of input rows, whole rows wide,
  /// does not fit SBUF (a 1-D convolution over 16000 audio samples).
  bool rowTooWide = false;

  /// Picks the output tile and the weight chunk that fit SBUF and PSUM.
  bool plan(std::string &why) {
    if (!readShapes(why))
      return false;
    int64_t bank = hw.psumBankFp32();
    int64_t budget = hw.sbufPartitionBytes * 85 / 100; // room for the allocator
    // Output tile: whole rows of as many images as one bank holds; else
    // as many rows as it holds; else a bank of one row's columns.
    ncw = std::min(OW, bank);
    if (OH * OW <= bank) {
      R = OH;
      nb = std::min(N, bank / (OH * OW));
    } else {
      R = std::max<int64_t>(1, bank / ncw);
      R = llvm::divideCeil(OH, llvm::divideCeil(OH, R)); // even row blocks
      nb = 1;
    }
    accSlots = std::min<int64_t>(4, hw.psumPartitionBytes / hw.psumBankBytes());
    auto inputBytes = [&] {
      rowsIn = (R - 1) * sh + (KH - 1) * dh + 1;
      return inSlots * ct * nb * rowsIn * Wp *
             (ein + (convertIn ? esrc + (khPack > 1 ? ein : 0) : 0));
    };
    auto outBytes = [&] {
      if (pool)
        return pool->bytesPerPartition() + (epilogue ? 0 : 4);
      return outSlots * nb * R * ncw * eout + (epilogue ? 0 : 4);
    };
    // Shrink the tile until the input blocks take at most half of SBUF.
    while (inputBytes() + outBytes() > budget / 2 && (nb > 1 || R > 1)) {
      if (nb > 1)
        nb = llvm::divideCeil(nb, 2);
      else
        R = llvm::divideCeil(R, 2);
    }
    int64_t used = inputBytes() + outBytes();
    if (epilogue)
      used += epilogue->epilogueBytesPerPartition(nb * R * ncw);
    if (used > budget) {
      rowTooWide = OW > 1;
      why = "one input row block of " + std::to_string(rowsIn) + " x " + std::to_string(Wp) +
            " elements per channel does not fit SBUF";
      return false;
    }
    // Weights: as many output channels of the group as fit what is left
    // (with a fused pooling, next to one plane per channel tile and image).
    int64_t perChannel = ct * T * ein;
    auto planeBytes = [&](int64_t fc) {
      return pool ? static_cast<int64_t>(llvm::divideCeil(fc, P)) * nb * pool->planeElements() * eout
                  : 0;
    };
    // Chunks after the first start on a tile boundary (whole tiles); all of
    // the group's channels in one chunk need no rounding (160 channels are
    // one chunk, not 128 + 32 with the input loaded twice).
    fChunk = std::min(Fg, (budget - used) / perChannel);
    if (fChunk >= P && fChunk < Fg)
      fChunk = fChunk / P * P;
    while (fChunk >= 1 && fChunk * perChannel + planeBytes(fChunk) > budget - used)
      fChunk = fChunk > P ? fChunk - P : fChunk / 2;
    if (pool && fChunk < 1 && planeBytes(1) + perChannel > budget - used) {
      why = "one plane of the convolution's output (" +
            std::to_string(pool->planeElements() * eout) +
            " bytes per partition) does not fit SBUF next to its tiles";
      return false;
    }
    if (fChunk < 1) {
      why = "the weights of one output channel (" + std::to_string(Cg) + " channels x " +
            std::to_string(T) + " taps) do not fit SBUF next to the input blocks";
      return false;
    }
    deepenRings(budget - fChunk * perChannel - planeBytes(fChunk), inputBytes, outBytes);
    // heuristic: the weights of the next group or chunk load while this one
    // multiplies, up to kMaxWeightSets sets where SBUF allows. With one set
    // each load waits for the last multiply of the one before: RegNetY's
    // grouped 3x3 convolutions at 2x2 pixels (five sets of 88 channels)
    // took a DMA latency and a transfer per set, TensorE idle between.
    int64_t sets = groups * llvm::divideCeil(Fg, fChunk);
    int64_t left = budget - planeBytes(fChunk) - inputBytes() - outBytes() -
                   (epilogue ? epilogue->epilogueBytesPerPartition(nb * R * ncw, epilogueBuffers)
                             : 0);
    wSets = std::clamp<int64_t>(left / std::max<int64_t>(1, fChunk * perChannel), 1,
                                std::min(kMaxWeightSets, sets));
    return true;
  }

  /// heuristic: a block whose load moves less than the efficient DMA size
  /// (few channels: a stem's 3, a MnasNet projection's 16) takes a DMA
  /// latency to arrive and little TensorE time to use, so three blocks in
  /// flight leave TensorE waiting on every third one (MnasNet's 112x112
  /// layers ran at 1.5 us per 448-pixel tile): kernels of more such blocks
  /// than are in flight keep six. An epilogue tile's round trip (its
  /// residual's load, its store, two DMA latencies) is longer than the
  /// TensorE and queue time of a tile whenever the tiles are many and
  /// short, so kernels of more epilogue tiles than two keep up to
  /// kMaxEpilogueRing of them in flight (ResNet-50's 14x14 and 7x7
  /// bottlenecks at batch 8 waited on the store two tiles back: 145 -> 90
  /// and 326 -> 188 us per block). Both only where they fit `room` with the
  /// tile unchanged; the input ring first, the deepest epilogue ring that
  /// fits next to it.
  template <typename In, typename Out> void deepenRings(int64_t room, In &inputBytes, Out &outBytes) {
    if (pool)
      return;
    int64_t blockBytes = ct * std::min(P, Cg) * khPack * nb * rowsIn * W * (convertIn ? esrc : ein);
    int64_t blocks = llvm::divideCeil(N, nb) * llvm::divideCeil(OH, R);
    int64_t tiles = blocks * groups * llvm::divideCeil(Fg, P);
    bool smallBlocks = blockBytes < hw.dmaEfficientBytes && blocks > inSlots;
    int ring = epilogue ? static_cast<int>(std::min<int64_t>(kMaxEpilogueRing, tiles)) : 0;
    auto need = [&](int buffers) {
      return inputBytes() + outBytes() +
             (epilogue ? epilogue->epilogueBytesPerPartition(nb * R * ncw, buffers) : 0);
    };
    // The deepest epilogue ring (at least the current one) that fits.
    auto fitRing = [&] {
      for (int b = ring; b > epilogueBuffers; --b)
        if (need(b) <= room)
          return b;
      return need(epilogueBuffers) <= room ? epilogueBuffers : 0;
    };
    int64_t saved = inSlots;
    if (smallBlocks) {
      inSlots = 6;
      if (int b = fitRing()) {
        epilogueBuffers = b;
        return;
      }
      inSlots = saved;
    }
    if (int b = fitRing())
      epilogueBuffers = b;
  }

  /// The weight's constant (through a fused kernel's input), if it is one.
  ConstantOp constantWeight() {
    Value weight = conv.getWeight();
    if (auto arg = dyn_cast<BlockArgument>(weight))
      if (auto k = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
        weight = k.getInputs()[arg.getArgNumber()];
    auto c = weight.getDefiningOp<ConstantOp>();
    return c && isa<DenseElementsAttr>(c.getValue()) ? c : ConstantOp();
  }

  /// The constant weight packed to [C, taps, Fg] per group (row-major) -
  /// with kernel rows packed, [khPack·C, khGroups·KW, Fg] (zero beyond KH)
  /// - or an empty buffer when the weight is not a constant.
  std::optional<HbmBuffer> packWeights() {
    ConstantOp c = constantWeight();
    if (!c)
      return std::nullopt;
    auto dense = cast<DenseElementsAttr>(c.getValue());
    if (khPack > 1) {
      auto packedType = RankedTensorType::get({khPack * Cg, khGroups * KW, Fg}, inT);
      int64_t eb = ein;
      std::vector<char> out(packedType.getNumElements() * eb, 0);
      ArrayRef<char> raw = dense.getRawData();
      for (int64_t f = 0; f < F; ++f)
        for (int64_t ci = 0; ci < Cg; ++ci)
          for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) {
              int64_t src = dense.isSplat() ? 0 : (((f * Cg + ci) * KH + kh) * KW + kw) * eb;
              int64_t row = (kh % khPack) * Cg + ci, col = (kh / khPack) * KW + kw;
              std::memcpy(&out[((row * khGroups * KW + col) * Fg + f) * eb], &raw[src], eb);
            }
      return fl.pb.declare(nisa::HbmKind::constant, packedType, c.getLoc(), std::nullopt, {},
                           DenseElementsAttr::getFromRawBuffer(packedType, out));
    }
    auto packedType = RankedTensorType::get({C, T, Fg}, inT);
    if (dense.isSplat())
      return fl.pb.declare(nisa::HbmKind::constant, packedType, c.getLoc(), std::nullopt, {},
                           DenseElementsAttr::get(packedType, dense.getSplatValue<Attribute>()));
    ArrayRef<char> raw = dense.getRawData();
    int64_t eb = ein;
    std::vector<char> out(raw.size());
    for (int64_t f = 0; f < F; ++f) {
      int64_t g = f / Fg, fo = f % Fg;
      for (int64_t ci = 0; ci < Cg; ++ci)
        for (int64_t t = 0; t < T; ++t) {
          int64_t src = ((f * Cg + ci) * T + t) * eb;
          int64_t dst = (((g * Cg + ci) * T + t) * Fg + fo) * eb;
          std::memcpy(&out[dst], &raw[src], eb);
        }
    }
    return fl.pb.declare(nisa::HbmKind::constant, packedType, c.getLoc(), std::nullopt, {},
                         DenseElementsAttr::getFromRawBuffer(packedType, out));
  }

  /// The kernel's tiles: weights, input block ring, PSUM accumulators,
  /// output tiles and the bias column.
  void allocate() {
    auto sb = nisa::MemorySpace::sbuf, ps = nisa::MemorySpace::psum;
    int64_t parts = khPack * Cg; // partitions of the one channel tile when packed
    for (int64_t s = 0; s < wSets; ++s)
      for (int64_t c = 0; c < ct; ++c)
        wT.push_back(kb.alloc(sb, khPack > 1 ? parts : std::min(P, Cg - c * P),
                              (khPack > 1 ? khGroups * KW : T) * fChunk, inT, "w"));
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
    if (!epilogue && !pool)
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

  /// DMAs between `nparts` partition rows of a tile and HBM, split by
  /// partitions across the queues in pieces of at least the efficient DMA
  /// size (loads when `toTile`, stores otherwise).
  void move(bool toTile, FlatSymbolRefAttr tile, int64_t p0, int64_t nparts, int64_t tileOffset,
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
  /// A load into a tile (see move).
  void load(FlatSymbolRefAttr tile, int64_t p0, int64_t nparts, int64_t tileOffset,
            ArrayRef<int64_t> tileSizes, ArrayRef<int64_t> tileStrides, const HbmBuffer &src,
            int64_t hbmOffset, int64_t partStride, ArrayRef<int64_t> hbmStrides) {
    move(true, tile, p0, nparts, tileOffset, tileSizes, tileStrides, src, hbmOffset, partStride,
         hbmStrides, src.elementType);
  }

  /// Loads the weights of group `g`, output channels [f0, f0 + fn) of it.
  void loadWeights(int64_t g, int64_t f0, int64_t fn) {
    wSet = (wSet + 1) % wSets;
    for (int64_t c = 0; c < ct; ++c) {
      FlatSymbolRefAttr into = wT[wSet * ct + c];
      int64_t c0 = c * P, csz = std::min(P, Cg - c0);
      if (khPack > 1) // [khPack·C, khGroups·KW, Fg]
        load(into, 0, khPack * Cg, 0, {khGroups * KW, fn}, {fChunk, 1}, w, f0,
             khGroups * KW * Fg, {Fg, 1});
      else if (packed) // [C, taps, Fg]: per channel, taps x fn with rows of fn
        load(into, 0, csz, 0, {T, fn}, {fChunk, 1}, w, ((g * Cg + c0) * T) * Fg + f0, T * Fg,
             {Fg, 1});
      else // [F, Cg, taps]: element-strided
        load(into, 0, csz, 0, {T, fn}, {fChunk, 1}, w, ((g * Fg + f0) * Cg + c0) * T, T,
             {1, Cg * T});
    }
  }

  /// The trailing padding columns some window reads (a write nobody reads
  /// would be lost at the next load); at most 0 when none is.
  int64_t usedRightPadding() const {
    return std::min(Wp - pl - W, (OW - 1) * sw + (KW - 1) * dw + 1 - pl - W);
  }

  /// Loads the input block of output tile `t` for group `g` into ring slot
  /// `slot`: rows zero-filled where they fall outside the image, the padding
  /// columns zero.
  void loadInput(const OutTile &t, int64_t g, int slot) {
    kb.setSource(conv); // (the epilogue attributes its instructions to its ops)
    if (convertIn && khPack > 1) {
      loadPackedConverted(t, g, slot);
      return;
    }
    int64_t img = rowsIn * Wp;
    for (int64_t c = 0; c < ct; ++c)
      for (int64_t j = 0; j < khPack; ++j) {
        // The rows the taps read: copy j serves kernel rows j, j + khPack,
        // ... (rows nobody reads are not written: such a write would be
        // lost).
        int64_t lastRow = (KH - 1 - j) / khPack * khPack;
        int64_t rows = (t.rows - 1) * sh + lastRow * dh + 1;
        FlatSymbolRefAttr tile = inT_[slot * ct + c];
        int64_t c0 = c * P, csz = std::min(P, Cg - c0), p0 = j * Cg;
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
        if (lo > first) // rows above the image
          zero(0, {t.nbc, (lo - first) * Wp}, {img, 1});
        if (hi < first + rows) // rows below
          zero((std::max(hi, first) - first) * Wp,
               {t.nbc, (first + rows - std::max(hi, first)) * Wp}, {img, 1});
        int64_t colPad = padCols ? pl : 0;
        if (hi > lo && colPad)
          zero((lo - first) * Wp, {t.nbc, hi - lo, pl}, {img, Wp, 1});
        int64_t usedRight = usedRightPadding();
        if (hi > lo && usedRight > 0 && padCols)
          zero((lo - first) * Wp + pl + W, {t.nbc, hi - lo, usedRight}, {img, Wp, 1});
        if (hi <= lo)
          continue;
        int64_t off = ((t.n0 * C) + g * Cg + c0) * H * W + lo * W;
        int64_t at = (lo - first) * Wp + colPad;
        if (!convertIn) {
          load(tile, p0, csz, at, {t.nbc, hi - lo, W}, {img, Wp, 1}, x, off, H * W,
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

  /// loadInput for packed kernel rows of a wider input: the block's rows
  /// (all the copies read, with their padding) loaded once into the
  /// staging tile, converted in one instruction from partition 0 into the
  /// unpacked tile, and copy j made from it by SBUF-to-SBUF DMA, j·dh rows
  /// lower -- in place of a conversion kernel's HBM round trip.
  void loadPackedConverted(const OutTile &t, int64_t g, int slot) {
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

  /// The output tiles, in order.
  SmallVector<OutTile> outputTiles() {
    SmallVector<OutTile> tiles;
    for (int64_t n0 = 0; n0 < N; n0 += nb)
      for (int64_t oh0 = 0; oh0 < OH; oh0 += R)
        for (int64_t ow0 = 0; ow0 < OW; ow0 += ncw)
          tiles.push_back({n0, std::min(nb, N - n0), oh0, std::min(R, OH - oh0), ow0,
                           std::min(ncw, OW - ow0)});
    return tiles;
  }

  /// Accumulates output channels [f0, f0+fsz) of tile `t` (weights at
  /// column `fw` of the resident chunk) into PSUM slot `a`: one matmul per
  /// channel tile and tap, the first (which starts the accumulation)
  /// covering the whole tile.
  void multiply(const OutTile &t, int slot, int64_t fw, int64_t fsz, int a) {
    kb.setSource(conv);
    int64_t img = rowsIn * Wp;
    SmallVector<std::tuple<int64_t, int64_t, int64_t>> order; // (c, kh or kh group, kw)
    order.push_back({0, 0, padCols ? 0 : fullTap});
    for (int64_t c = 0; c < ct; ++c)
      for (int64_t kh = 0; kh < (khPack > 1 ? khGroups : KH); ++kh)
        for (int64_t kw = 0; kw < KW; ++kw)
          if (std::make_tuple(c, kh, kw) != order.front())
            order.push_back({c, kh, kw});
    double ns = 0;
    bool first = true;
    for (auto [c, kh, kw] : order) {
      // Packed, `kh` is a group of khPack kernel rows, one per copy.
      int64_t csz = khPack > 1 ? std::min(khPack, KH - kh * khPack) * Cg
                               : std::min(P, Cg - c * P);
      int64_t tap = kh * KW + kw;
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
                                      first ? UnitAttr::get(kb.context()) : UnitAttr(),
                                      DenseI64ArrayAttr(), UnitAttr());
      first = false;
      ns += kb.estimate(Opcode::MultiplyMoving, Engine::tensor, P,
                        t.pixels() / t.cols * (c1 - c0), inT.isF32());
    }
    kb.charge(Engine::tensor, ns);
  }

  /// Bias (per output channel) on the way out of PSUM, then the store.
  void store(const OutTile &t, int64_t g, int64_t f0, int64_t fsz, int a) {
    int64_t fAbs = g * Fg + f0;
    int64_t bcol = biasColumn(g, f0);
    if (pool) {
      toPlanes(t, fAbs, f0 % fChunk / P, fsz, bcol, a);
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

  /// PSUM slot `a` at `from` to tile `dst` at `to` (n elements on each of
  /// fsz partitions) on ScalarE, adding the bias of column `bcol` when the
  /// convolution has one.
  void evacuate(FlatSymbolRefAttr dst, nisa::AccessPatternAttr to, int a,
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

  /// With a fused pooling: tile `t` of output channels [fAbs, fAbs + fsz)
  /// (channel tile `ft` of the weight chunk) from PSUM slot `a` into its
  /// images' planes - only the rows and columns the pooling reads - then
  /// the pooled rows those planes now hold.
  void toPlanes(const OutTile &t, int64_t fAbs, int64_t ft, int64_t fsz, int64_t bcol, int a) {
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

  /// Emits the kernel: per group and weight chunk, the weights, then per
  /// output tile its input block, multiplies and store.
  void run() {
    x = fl.bufferOf(conv.getInput());
    if (std::optional<HbmBuffer> p = packWeights()) {
      w = *p;
      packed = true;
    } else {
      w = fl.bufferOf(conv.getWeight());
    }
    if (!epilogue && !pool)
      y = fl.resultBuffer(conv.getResult());
    // Stores on queues of their own, in proportion to the bytes they move:
    // a store waiting for its tile would hold back the input blocks queued
    // behind it.
    double loads = static_cast<double>(N) * C * H * W * ein *
                   llvm::divideCeil(Fg, fChunk); // the input once per weight chunk
    loads += static_cast<double>(F) * Cg * T * ein; // the weights
    if (epilogue)
      loads += static_cast<double>(epilogue->inputBytes()); // e.g. a residual
    double stores = pool ? static_cast<double>(pool->outputBytes())
                         : static_cast<double>(N) * F * OH * OW * eout;
    kb.shareQueues(loads, stores);
    if (epilogue && epilogueBuffers != 2)
      epilogue->setEpilogueBuffers(epilogueBuffers);
    allocate();
    if (khPack > 1) {
      auto type = RankedTensorType::get({rowsIn * Wp}, inT);
      zeros = fl.pb.declare(nisa::HbmKind::constant, type, conv.getLoc(), std::nullopt, {},
                            DenseElementsAttr::get(type, kb.builder().getZeroAttr(inT)));
    }
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
    SmallVector<OutTile> tiles = outputTiles();
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t fc = 0; fc < Fg; fc += fChunk) {
        int64_t fn = std::min(fChunk, Fg - fc);
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
};

} // namespace


LogicalResult mlir::neuron::lowering::lowerConv(FunctionLowering &fl, Operation *anchor,
                                                ConvOp conv, ArrayRef<Operation *> epilogueOps,
                                                ArrayRef<std::pair<Value, Value>> outputs,
                                                StringRef kind) {
  ArrayRef<Operation *> allEpilogueOps = epilogueOps;
  // A fused pooling (conv-pool) is the kernel's last op and its one output.
  PoolOp poolOp = epilogueOps.empty() ? PoolOp() : dyn_cast<PoolOp>(epilogueOps.back());
  if (poolOp)
    epilogueOps = epilogueOps.drop_back();
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
