//===- ConvLowering.h - A convolution as an implicit GEMM -------*- C++ -*-===//
//
// The plan (ConvPlan.cpp) and the emission (LowerConv.cpp) of one
// convolution kernel on TensorE; LowerConv.cpp's file comment describes
// the tiling.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_LOWERING_CONVLOWERING_H
#define NEURONC_LIB_CONVERSION_LOWERING_CONVLOWERING_H

#include "Lowering.h"
#include "RowKernel.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::neuron::lowering {

/// One output tile: images [n0, n0+nbc), rows [oh0, oh0+rows), columns
/// [ow0, ow0+cols).
struct OutTile {
  int64_t n0, nbc, oh0, rows, ow0, cols;
  int64_t pixels() const { return nbc * rows * cols; }
};

/// A mean over each image's pixels of the epilogue's value (a global
/// average pool) taken on chip: the epilogue writes each image's value into
/// `values` (a ring) instead of storing it, a reduce sums it into a column
/// of `sums`, scaled and stored into `out` ([N, F] row-major).
struct ConvMean {
  SmallVector<FlatSymbolRefAttr> values;
  FlatSymbolRefAttr sums;
  FlatSymbolRefAttr means; ///< the scaled sums in `type` (sums when f32)
  Type type;
  HbmBuffer out;
  int slot = 0;
  float scale = 1;
  double storeBytes = 0; ///< the means and the epilogue's stored values
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
  /// The most input slots a ring of small blocks gets (deepenRings).
  static constexpr int64_t kMaxInSlots = 6;
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
  /// With every kernel row packed (khGroups 1) and partitions to spare,
  /// kernel columns too: copy (j, k), on partitions [(k·khPack + j)·C, ...),
  /// also starts k·d columns further right, and one matmul does the work of
  /// khPack·kwPack taps. Each copy moves the image once more, so kwPack is
  /// the one whose TensorE time and DMA time balance (chooseKwPack).
  int64_t kwPack = 1, kwGroups = 1;
  /// Partitions of the packed input block and weights (khPack·kwPack·C).
  int64_t packedParts() const { return khPack * kwPack * Cg; }
  /// The weight tile's tap columns: one per packed group, else per tap.
  int64_t tapColumns() const { return khPack == 1 ? T : khGroups * kwSteps(); }
  /// The multiplies along a kernel row: per kernel column, or per packed
  /// group of them.
  int64_t kwSteps() const { return kwPack > 1 ? kwGroups : KW; }
  /// The columns of an input row in packed copy column k (of kwPack), whose
  /// tile column a holds padded column a + k·dw: the multiplies read
  /// [0, read) (with packed kernel columns up to the last output column of
  /// the last group that uses the copy; nothing beyond is written, such a
  /// write would be lost), zeros in [0, leftPad), image columns from
  /// `skip` on in [leftPad, leftPad + image), zeros up to `read`.
  struct CopyColumns {
    int64_t read, leftPad, skip, image;
  };
  CopyColumns copyColumnsOf(int64_t k) const {
    int64_t colPad = padCols ? pl : 0, shift = k * dw;
    CopyColumns c;
    c.read = kwPack > 1 ? (OW - 1) * sw + (KW - 1 - k) / kwPack * kwPack * dw + 1
                        : colPad + W + (padCols ? std::max<int64_t>(0, usedRightPadding()) : 0);
    c.leftPad = std::max<int64_t>(0, colPad - shift);
    c.skip = std::max<int64_t>(0, shift - colPad);
    c.image = std::min(W - c.skip, c.read - c.leftPad);
    return c;
  }
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

  /// SBUF bytes per partition the plan leaves to others (the tiles of the
  /// convolution chained to this one).
  int64_t reserved = 0;
  /// A chained convolution (conv-chain kernels): its input blocks are
  /// written on chip by the epilogue of the convolution before it, not
  /// loaded.
  bool onChip = false;
  /// The convolution chained to this one, and the slot of its input block
  /// ring the current output tile's epilogue writes.
  ConvLowering *chained = nullptr;
  int chainSlot = 0;
  /// A convolution summed into this one's PSUM tiles (conv-sum kernels): it
  /// loads its own input block with each of this one's and multiplies it
  /// into the same accumulators after this one's matmuls.
  ConvLowering *addend = nullptr;
  /// With whole images per output tile: the mean over each image's pixels
  /// of the epilogue's value (LowerConvMean.cpp).
  ConvMean *mean = nullptr;
  /// This convolution is another's addend: no start flag, and no
  /// accumulators, output tiles or result buffer of its own.
  bool summed = false;
  /// The first output channel of the weight chunk being multiplied.
  int64_t chunk0 = 0;
  /// The addend's weights are resident: loaded with the main convolution's
  /// first weight chunk, once for the kernel.
  bool addendWeightsLoaded = false;

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
  bool readShapes(std::string &why);
  /// Sets kwPack for packed kernel rows (see there); `pr` is the right
  /// padding.
  void chooseKwPack(int64_t pr);

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
  bool plan(std::string &why);

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
  void deepenRings(int64_t room, llvm::function_ref<int64_t()> inputBytes,
                   llvm::function_ref<int64_t()> outBytes);

  /// The weight's constant (through a fused kernel's input), if it is one.
  ConstantOp constantWeight();

  /// The constant weight packed to [C, taps, Fg] per group (row-major) -
  /// with kernel rows packed, [khPack·C, khGroups·KW, Fg] (zero beyond KH)
  /// - or an empty buffer when the weight is not a constant.
  std::optional<HbmBuffer> packWeights();

  /// The kernel's tiles: weights, input block ring, PSUM accumulators,
  /// output tiles and the bias column.
  void allocate();

  /// DMAs between `nparts` partition rows of a tile and HBM, split by
  /// partitions across the queues in pieces of at least the efficient DMA
  /// size (loads when `toTile`, stores otherwise).
  void move(bool toTile, FlatSymbolRefAttr tile, int64_t p0, int64_t nparts, int64_t tileOffset,
            ArrayRef<int64_t> tileSizes, ArrayRef<int64_t> tileStrides, const HbmBuffer &hbm,
            int64_t hbmOffset, int64_t partStride, ArrayRef<int64_t> hbmStrides, Type type);
  /// A load into a tile (see move).
  void load(FlatSymbolRefAttr tile, int64_t p0, int64_t nparts, int64_t tileOffset,
            ArrayRef<int64_t> tileSizes, ArrayRef<int64_t> tileStrides, const HbmBuffer &src,
            int64_t hbmOffset, int64_t partStride, ArrayRef<int64_t> hbmStrides);

  /// Loads the weights of group `g`, output channels [f0, f0 + fn) of it.
  void loadWeights(int64_t g, int64_t f0, int64_t fn);

  /// The trailing padding columns some window reads (a write nobody reads
  /// would be lost at the next load); at most 0 when none is.
  int64_t usedRightPadding() const {
    return std::min(Wp - pl - W, (OW - 1) * sw + (KW - 1) * dw + 1 - pl - W);
  }

  /// Loads the input block of output tile `t` for group `g` into ring slot
  /// `slot`: rows zero-filled where they fall outside the image, the padding
  /// columns zero.
  void loadInput(const OutTile &t, int64_t g, int slot);
  /// With packed kernel columns (an input loaded as it is): zeros, once, in
  /// every input slot's padding columns of every copy; loadInput never
  /// writes them.
  void zeroPaddingColumns();

  /// loadInput for packed kernel rows of a wider input: the block's rows
  /// (all the copies read, with their padding) loaded once into the
  /// staging tile, converted in one instruction from partition 0 into the
  /// unpacked tile, and copy j made from it by SBUF-to-SBUF DMA, j·dh rows
  /// lower -- in place of a conversion kernel's HBM round trip.
  void loadPackedConverted(const OutTile &t, int64_t g, int slot);

  /// The output tiles, in order.
  SmallVector<OutTile> outputTiles();

  /// Accumulates output channels [f0, f0+fsz) of tile `t` (weights at
  /// column `fw` of the resident chunk) into PSUM slot `a`: one matmul per
  /// channel tile and tap, the first (which starts the accumulation)
  /// covering the whole tile.
  void multiply(const OutTile &t, int slot, int64_t fw, int64_t fsz, int a);

  /// Bias (per output channel) on the way out of PSUM, then the store.
  void store(const OutTile &t, int64_t g, int64_t f0, int64_t fsz, int a);
  /// With `mean`: the epilogue of each image of tile `t` (channels [fAbs,
  /// fAbs + fsz), PSUM slot `a`) into the ring, reduced, scaled, stored.
  void emitMean(const OutTile &t, int64_t fAbs, int64_t fsz, int a);

  /// PSUM slot `a` at `from` to tile `dst` at `to` (n elements on each of
  /// fsz partitions) on ScalarE, adding the bias of column `bcol` when the
  /// convolution has one.
  void evacuate(FlatSymbolRefAttr dst, nisa::AccessPatternAttr to, int a,
                nisa::AccessPatternAttr from, int64_t fsz, int64_t n, int64_t bcol);

  /// With a fused pooling: tile `t` of output channels [fAbs, fAbs + fsz)
  /// (channel tile `ft` of the weight chunk) from PSUM slot `a` into its
  /// images' planes - only the rows and columns the pooling reads - then
  /// the pooled rows those planes now hold.
  void toPlanes(const OutTile &t, int64_t fAbs, int64_t ft, int64_t fsz, int64_t bcol, int a);

  /// Emits the kernel: per group and weight chunk, the weights, then per
  /// output tile its input block, multiplies and store.
  void run();
  /// Bytes the kernel loads (input, weights, epilogue operands) and stores,
  /// for the split of the DMA queues between them.
  double loadBytes() const;
  double storeBytes() const;
  /// Buffers, constants, tiles and the bias: everything before the first
  /// weights (run does it; a conv-chain kernel for both convolutions).
  void begin();
  /// SBUF bytes per partition a chained convolution's tiles take with
  /// output tiles of `pixels` pixels: its resident weights, its ring of
  /// input blocks and its epilogue.
  int64_t chainedBytes(int64_t pixels) const;
  /// Plans a chained convolution on the output tiles of `head` (already
  /// planned): the same tiles, all weights resident, input blocks written
  /// by `head`'s epilogue. False (with `why`) when its tiles do not fit
  /// what `head` left.
  bool planChained(const ConvLowering &head, std::string &why);
  /// SBUF bytes per partition this convolution takes as an addend of
  /// output tiles of at most `pixels` pixels: its resident weights and its
  /// ring of input blocks (readShapes first).
  int64_t summedBytes(int64_t pixels) const;
  /// Plans this convolution (pointwise, unpadded) as `main`'s addend on
  /// main's output tiles (already planned). False (with `why`) when it does
  /// not tile the same output or does not fit `room` bytes per partition.
  bool planSummed(const ConvLowering &main, int64_t room, std::string &why);
};

/// A conv-epilogue kernel whose epilogue ends in a mean over each image's
/// pixels (a global average pool), as one convolution kernel that takes
/// the mean on chip, the ops after the mean as a row kernel of their own;
/// nullopt (nothing emitted) when it does not take that form or its tiles
/// do not hold whole images.
std::optional<LogicalResult> lowerConvWithMean(FunctionLowering &fl, Operation *anchor,
                                               ConvOp conv, ArrayRef<Operation *> epilogueOps,
                                               ArrayRef<std::pair<Value, Value>> outputs,
                                               StringRef kind);

/// The sum of a conv-sum kernel: `total = add(main, addend)`, the addend
/// pointwise and unpadded (of two such, the one with fewer input channels).
struct ConvSum {
  AddOp total;
  ConvOp main, addend;
};
/// The add of two convolutions' results among `ops`, if any (`addend` is
/// null when neither convolution can be the addend).
std::optional<ConvSum> findConvSum(ArrayRef<Operation *> ops);

} // namespace mlir::neuron::lowering

#endif // NEURONC_LIB_CONVERSION_LOWERING_CONVLOWERING_H
