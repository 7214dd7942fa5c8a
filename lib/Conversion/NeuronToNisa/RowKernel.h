//===- RowKernel.h - Elementwise, reduction and norm kernels ----*- C++ -*-===//
//
// Lowers a group of neuron ops that work over one iteration domain to one
// nisa kernel: elementwise ops with broadcasting, reductions, rmsnorm,
// layernorm, softmax, and the fused neuron.kernel regions built from them.
// The domain's dims are split into rows, tiled onto 128 partitions, and
// columns, on the free axis; every reduction in the group reduces exactly
// the columns. Each input is read through its own strides (broadcasts are
// stride-0 DMA patterns), so one plan covers every operand layout.
//
// The same machinery emits a matmul's epilogue on each PSUM output tile.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_LOWERING_ROWKERNEL_H
#define NEURONC_LIB_CONVERSION_LOWERING_ROWKERNEL_H

#include "KernelBuilder.h"

#include "llvm/ADT/FunctionExtras.h"

#include <memory>
#include <string>

namespace mlir::neuron::lowering {

/// What a row kernel computes and where its values live.
struct RowKernelSpec {
  /// The ops, in program order (the body of a neuron.kernel, or one op).
  SmallVector<Operation *> ops;
  /// HBM buffer of a value defined outside `ops`.
  std::function<HbmBuffer(Value)> bufferOf;
  /// HBM const tensor for a non-splat constant inside `ops`.
  std::function<HbmBuffer(ConstantOp)> constantBuffer;
  /// Values computed by `ops` to store, and where.
  SmallVector<std::pair<Value, HbmBuffer>> outputs;
  /// Epilogue mode: the matmul result the epilogue reads from PSUM.
  Value psum;
};

class RowKernelImpl;

/// A planned row kernel.
class RowKernel {
public:
  ~RowKernel();
  RowKernel(RowKernel &&);

  /// Plans `spec` for `hw`; on failure `why` says what the row kernel cannot
  /// express (the caller then lowers the ops one by one).
  static std::optional<RowKernel> plan(RowKernelSpec spec, const neuronc::HardwareModel &hw,
                                       std::string &why);

  /// Emits the whole kernel (standalone mode).
  void emit(KernelBuilder &kb);

  /// The planned layout: column chunks of `chunk` with `buffers` copies of
  /// every per-step tile.
  struct Layout {
    int64_t chunk;
    int buffers;
    bool operator==(const Layout &) const = default;
  };
  Layout layout() const;
  /// Faster layouts than the planned one, best first, that the planning
  /// estimate (every node a tile) rules out but that may fit SBUF once
  /// instruction selection has folded nodes away: resident row tiles with
  /// two buffers, then with one. The caller emits each and keeps the first
  /// whose tiles fit (lowerRowGroup).
  SmallVector<Layout> fasterLayouts() const;
  /// Replaces the planned layout (before emit).
  void setLayout(Layout layout);

  /// Epilogue mode: emits the epilogue of the output block rows [r0, r0+nr)
  /// x cols [c0, c0+nc) of the matmul result, whose values are in PSUM tile
  /// `psum` at element `psumOffset` of each partition.
  void emitEpilogue(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                    FlatSymbolRefAttr psum, int64_t psumOffset);

  /// Epilogue mode with an output left on chip: as emitEpilogue, but the
  /// values of the output given no HBM buffer are computed into tile `dst`
  /// at `dstAp` (nc elements per partition, any layout) instead of stored
  /// (a convolution's planes that a fused pooling reads, the input blocks
  /// of a chained pointwise convolution); the other outputs are stored.
  void emitEpilogueInto(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                        FlatSymbolRefAttr psum, int64_t psumOffset, FlatSymbolRefAttr dst,
                        nisa::AccessPatternAttr dstAp);

  /// SBUF bytes per partition the epilogue of an nr x nc block needs with
  /// `buffers` tiles per value (two: double-buffered), for the matmul's
  /// budget.
  int64_t epilogueBytesPerPartition(int64_t nc, int buffers = 2) const;
  /// Tiles per value the epilogue cycles through (two unless set before
  /// the first emitEpilogue): more keep more stores in flight.
  void setEpilogueBuffers(int buffers);
  /// Epilogue mode over row bands (before the first emitEpilogue): each
  /// emitEpilogue(r0, nr, c0, nc) then covers partitions [0, nr·segments),
  /// partition block s holding rows [r0, r0 + nr) at columns
  /// c0 + s·segmentCols (a depthwise convolution's planes cut into bands
  /// of output rows, each band on partitions of its own). Only when
  /// canSegmentEpilogue().
  void setEpilogueSegments(int64_t segments, int64_t segmentCols);
  /// False when the kernel reduces along its columns: a band holds only
  /// part of a row.
  bool canSegmentEpilogue() const;
  /// Bytes of the HBM tensors the kernel reads, each counted once (an
  /// epilogue's residual or scale operands: its share of the kernel's loads
  /// when the caller splits the DMA queues between loads and stores).
  int64_t inputBytes() const;
  /// Bytes of the HBM tensors the kernel writes, in their stored element
  /// types (a bf16 store of an f32 accumulation counts two bytes).
  int64_t outputBytes() const;

  /// Rows and columns of the domain (epilogue mode: the matmul result
  /// flattened to [batch * M, N]).
  int64_t numRows() const;
  int64_t numCols() const;

  /// "resident", "streamed in N chunks over K passes", for remarks.
  std::string describe() const;

private:
  explicit RowKernel(std::unique_ptr<RowKernelImpl> impl);
  std::unique_ptr<RowKernelImpl> impl;
};

} // namespace mlir::neuron::lowering

#endif // NEURONC_LIB_CONVERSION_LOWERING_ROWKERNEL_H
