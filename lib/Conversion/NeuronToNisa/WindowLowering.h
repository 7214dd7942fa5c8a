//===- WindowLowering.h - Pooling and depthwise convolution ---*- C++ -*-===//
//
// The plan and emission of one pooling or depthwise convolution kernel,
// planes on the partitions: LowerWindow.cpp (plan, vector taps, blocks,
// stores) and LowerDepthwiseTaps.cpp (a bf16 depthwise convolution's taps
// on TensorE); LowerWindow.cpp's file comment describes the tiling.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_LOWERING_WINDOWLOWERING_H
#define NEURONC_LIB_CONVERSION_LOWERING_WINDOWLOWERING_H

#include "Lowering.h"
#include "RowKernel.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::neuron::lowering {

/// Buffers per block (input, accumulator, output): a block loads and
/// another stores while the engines work on a third.
constexpr int kSlots = 3;

/// What the window computes.
enum class WindowKind { Max, Avg, Depthwise };

/// One pooling or depthwise convolution lowered plane-per-partition: its
/// window, row blocks and the emission of its kernel (see LowerWindow.cpp's
/// file comment).
struct WindowLowering {
  FunctionLowering &fl;
  KernelBuilder &kb;
  Operation *op;
  WindowKind kind;
  RowKernel *epilogue = nullptr;
  const neuronc::HardwareModel &hw;
  const int64_t P;

  int64_t N = 1, C = 1, planes, H, W, KH, KW, OH, OW, sh, sw, dh = 1, dw = 1, pt, pl, Wp;
  int64_t R = 1, rowsIn = 1;
  bool divisorTable = false, countIncludePad = false;
  /// Input rows in SBUF with their padding columns; else unpadded (one
  /// contiguous run per plane) and taps that would read padding skip those
  /// output columns, the first tap (`fullTap`) reading none.
  bool padCols = true;
  int64_t fullTap = 0;
  Type inT, outT, f32;
  /// The input's element type in HBM: inT, or a wider float when an
  /// --auto-cast cast was folded into this (depthwise) convolution: each
  /// row block loads into a staging tile and is converted in SBUF.
  Type xSrcType;
  bool convertIn = false;
  Value result; ///< where the result is expected (a fused kernel's outer value)
  bool splitStores = false; ///< stores split across the queues (fused)
  HbmBuffer x, y, divisors, weight, bias;
  /// With bands: one input row of the fill value, for the rows of a band
  /// that fall into the padding.
  HbmBuffer fillRow;
  SmallVector<FlatSymbolRefAttr> in, stage, acc, out, div, wts, bts;
  /// With folded plane tiles: the products of a depthwise tap, two tiles so
  /// that a tap's multiply does not wait for the previous tap's add.
  SmallVector<FlatSymbolRefAttr> prod;
  int slot = 0;
  /// Plane tiles side by side on the free axis, computed by each tap's one
  /// instruction (1: one tile at a time). Small maps with many planes
  /// (MobileNet's 960 channels of 2x2 or 7x7) pay an instruction's fixed
  /// cost per tile and tap otherwise.
  int64_t fold = 1;
  bool shared = true; ///< one weight tile serves every plane tile
  bool allowFold = false; ///< the window is its own kernel (not a fused pooling)
  /// Bands of output rows per plane, each on partitions of its own: band s
  /// of every plane is on partitions [s·planes, (s+1)·planes) and holds
  /// output rows [s·OHs, (s+1)·OHs). 1: one partition per plane.
  int64_t segs = 1, OHs = 1;
  /// Tiles per value of a fused epilogue: a folded group's epilogues run
  /// back to back, each with its store in flight.
  int epilogueBuffers = 2;
  /// A bf16 depthwise convolution's taps on TensorE: tap t multiplies the
  /// block's shifted window (moving) by diag(w[:, t]) (stationary), summed
  /// in PSUM, four times VectorE's or GpSimdE's rate for bf16 operands
  /// (one column per cycle at TensorE's clock against two cycles per
  /// element of a scalar_tensor_tensor); the sum is copied out with the
  /// bias added. The diagonals are built once on chip from the weights.
  bool onTensor = false;
  /// PSUM banks per block on TensorE (heuristic: two blocks' sums in six of
  /// the eight banks), and the block's rows per bank.
  static constexpr int64_t kTapBanks = 3;
  int64_t bankRows = 1;
  SmallVector<FlatSymbolRefAttr> tapPsum;
  /// The identity, and per weight tile its taps' diagonals (a ring of two:
  /// the next tile's are made while this one's taps run).
  FlatSymbolRefAttr ident;
  SmallVector<FlatSymbolRefAttr> diags;

  WindowLowering(FunctionLowering &fl, KernelBuilder &kb, Operation *op, WindowKind kind)
      : fl(fl), kb(kb), op(op), kind(kind), hw(fl.pb.hw()), P(hw.partitions),
        result(op->getResult(0)) {}

  /// Reads the window of `input` -> `result` and picks the row block.
  bool plan(Value input, Value result, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
            ArrayRef<int64_t> padding, ArrayRef<int64_t> dilations, std::string &why);

  /// Whether the depthwise taps run on TensorE (see `onTensor`): bf16 (or
  /// f16) input and weights, one plane tile at a time, output rows that fit
  /// a PSUM bank, room for the diagonals, and an estimate of the taps'
  /// engine time that is lower with the diagonals' construction and the
  /// sums' copies counted (made upfront for every weight tile with two
  /// instructions each, five tiles' diagonals cost MobileNetV2 at 64x64 44
  /// us more than its 4x4 maps' taps saved). f32 products would take four
  /// passes through the array and gain nothing.
  void chooseTensorTaps(llvm::function_ref<int64_t()> bytes, int64_t budget);

  /// Cuts the planes into bands of output rows when at most half of the
  /// partitions would hold a plane: the most bands that fit the partitions
  /// and divide the output rows (so every band is whole), each of at least
  /// two rows. Not with an epilogue that reduces along the pixels, and only
  /// where that saves the kernel, its taps' time counted no lower than its
  /// bytes' time at the memory rate, more than kBandLatencies DMA latencies
  /// plus the time its input takes to write: a banded load is no longer one
  /// a later pass can forward from the producer's SBUF tile, and every
  /// band's first block needs input rows from all along the plane, so a
  /// banded kernel starts only when its producer has finished, where one
  /// plane per partition follows it block by block (two bands of VGG-11's
  /// 64-channel pooling at 224x224 saved ~30 us of taps and lost the
  /// overlap with its 216 us convolution: trn1 f32 1243 -> 1338 us).
  void chooseSegments();

  /// Folds the full plane tiles onto the free axis when the taps' fixed
  /// costs dominate: each tap is then one instruction over all of them (a
  /// depthwise tap two: the product with each tile's weight, broadcast
  /// along the pixels, and its sum), and the tiles of a group no longer
  /// overlap their loads and stores with each other's taps.
  void chooseFold(llvm::function_ref<int64_t()> bytes, int64_t budget);

  /// The taps in the order they are applied: first one that covers every
  /// output column (it starts the sum), then the others.
  SmallVector<int64_t> tapOrder() const;

  /// The output columns [a, b) at which column tap `kw` reads inside the
  /// image (not padding).
  std::pair<int64_t, int64_t> validColumns(int64_t kw) const;

  /// 1 / (window positions inside the input) per output position.
  HbmBuffer divisorBuffer();

  /// Loads, for planes [p0, p0 + np), each plane's channel's taps into the
  /// weight tile (and bias into the bias tile): runs of consecutive
  /// channels, one DMA each.
  void loadWeights(int64_t p0, int64_t np, FlatSymbolRefAttr tile, FlatSymbolRefAttr biasTile,
                   int64_t wcol, int64_t bcol, int64_t at = 0);

  /// Emits the kernel: per plane tile and row block, the input block with
  /// its padding, one instruction per tap, then the scale/convert and store
  /// or the fused epilogue.
  void run();

  /// Loads the image rows of every band of block `oh0` into `dst`: band s
  /// holds its rows from element los[s] · Wp + colPad of its partitions.
  /// Bands with the same rows in the block (all but the first and last,
  /// which meet the padding) are one pattern over the input, [bands,
  /// planes, rows, W]; split by bands across the queues.
  void loadBands(FlatSymbolRefAttr dst, int64_t oh0, ArrayRef<int64_t> los,
                 ArrayRef<int64_t> his, int64_t colPad);

  /// emitTaps over the `nt` plane tiles of a folded group (input tiles
  /// `rowsIn * Wp` apart, accumulators `R * OW` apart): one instruction per
  /// tap over all of them; a depthwise tap multiplies by each tile's
  /// weight column, broadcast along its pixels, into a product tile that
  /// the next instruction adds.
  void emitFoldedTaps(FlatSymbolRefAttr tile, int64_t nt, int64_t rows, FlatSymbolRefAttr w,
                      int64_t wcol, FlatSymbolRefAttr bt, int64_t bcol);

  /// The PSUM sums, the diagonals' ring of `copies` and the identity
  /// (ones, then every element off the diagonal zeroed).
  void allocateDiagonals(int64_t np, int64_t copies);

  /// The diagonals of weight tile `i` (weights at column `wcol`, over
  /// `parts` partitions) into its ring slot: diag[p, t·np + f] = ident[p, f]
  /// · w[p, wcol + t], one multiply with both operands broadcast.
  void buildDiagonals(int64_t i, int64_t wcol, int64_t parts);

  /// emitTaps on TensorE (see `onTensor`): per bank of the block's rows,
  /// each tap one multiply of its window by the tap's diagonal (of `diag`,
  /// the plane tile's), the first tap starting the sum; then the sum, plus
  /// the bias, into acc[slot].
  void emitTensorTaps(FlatSymbolRefAttr tile, int64_t nparts, int64_t rows, FlatSymbolRefAttr diag,
                      FlatSymbolRefAttr bt, int64_t bcol);

  /// The window's taps over output rows [0, rows) of a block whose input
  /// rows start at element `base` of `tile` (pitch Wp), into acc[slot]; a
  /// depthwise convolution's weights at columns `wcol` of `w` (bias at
  /// `bcol` of `bt`).
  void emitTaps(FlatSymbolRefAttr tile, int64_t base, int64_t nparts, int64_t rows,
                FlatSymbolRefAttr w, int64_t wcol, FlatSymbolRefAttr bt, int64_t bcol);

  /// Output rows [oh0, oh0 + rows) of planes [p0, p0 + nparts), accumulated
  /// in acc[slot]: the fused epilogue, or the average's scale, the
  /// conversion and the store; then the next slot.
  void finishBlock(int64_t p0, int64_t nparts, int64_t oh0, int64_t rows, int64_t at = 0,
                   bool advance = true);

  /// The least loaded vector engine for `o` over parts x n.
  Engine vecEngine(neuronc::isa::Opcode o, int64_t parts, int64_t n);

  /// "... plane tile(s) x ... row block(s)" for remarks.
  std::string describe() const;
};

} // namespace mlir::neuron::lowering

#endif // NEURONC_LIB_CONVERSION_LOWERING_WINDOWLOWERING_H
