//===- Lowering.h - neuron -> nisa, shared by the kernel lowerings -*- C++ -*-===//
//
// The state of lowering one function: where every neuron value lives in
// HBM, and the entry points of the kernel lowerings (row kernels, matmuls,
// data movement) that Lower.cpp dispatches to.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_LOWERING_LOWERING_H
#define NEURONC_LIB_CONVERSION_LOWERING_LOWERING_H

#include "KernelBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::neuron::lowering {

/// Lowering one function into one program.
class FunctionLowering {
public:
  FunctionLowering(ProgramBuilder &program, bool remarks) : pb(program), remarks(remarks) {}

  ProgramBuilder &pb;
  bool remarks;

  /// Where `v` lives: an input, a computed value, a constant (declared on
  /// first use) or a view of another buffer.
  HbmBuffer bufferOf(Value v);
  /// Where the op computing `v` writes it: a program output when returned,
  /// else a new internal tensor. Recorded as v's buffer.
  HbmBuffer resultBuffer(Value v);
  /// Records a buffer for `v`.
  void setBuffer(Value v, HbmBuffer b) { buffers[v] = std::move(b); }
  bool hasBuffer(Value v) const { return buffers.count(v); }
  /// Drops what is recorded for the results of `op`, a temporary the
  /// lowering built and is about to erase (a later op may reuse its
  /// address).
  void forget(Operation *op) {
    for (Value v : op->getResults()) {
      buffers.erase(v);
      outputDestinations.erase(v);
    }
  }
  /// An HBM const tensor holding `c`'s value.
  HbmBuffer constantBuffer(ConstantOp c);

  /// Forgets and erases `temps`, ops a lowering built next to the op it
  /// lowers and has lowered (last first: users before their operands).
  void eraseTemporaries(ArrayRef<Operation *> temps) {
    for (Operation *op : llvm::reverse(temps)) {
      forget(op);
      op->erase();
    }
  }

  /// Values whose computation writes straight into a program output.
  DenseMap<Value, HbmBuffer> outputDestinations;

  /// Whether the kernel lowered from `op` (or from the function-level op
  /// holding it) is the program's last: only views, slices and permutes
  /// that keep the contiguous dim (copies the backend folds into its
  /// stores) follow it. Nothing runs after its last stores.
  static bool endsProgram(Operation *op);

private:
  DenseMap<Value, HbmBuffer> buffers;
  DenseMap<Attribute, HbmBuffer> constants;
};

/// For a consumer that cannot convert on chip after all (no room for its
/// staging tiles): when `v` (a value or a fused kernel's argument) is an
/// --auto-cast cast folded into its consumers, whose buffer is the wider
/// source, lowers the cast as its own kernel and rebinds `v` and the cast's
/// result to the narrow copy. Nothing otherwise.
LogicalResult materializeFoldedCast(FunctionLowering &fl, Value v);

/// Elementwise ops, reductions, norms, softmax, and fused kernels without a
/// matmul. Falls back to one kernel per op when the group has no common
/// iteration domain.
LogicalResult lowerRowGroup(FunctionLowering &fl, Operation *anchor, ArrayRef<Operation *> ops,
                            ArrayRef<std::pair<Value, Value>> outputs, StringRef kind);

/// A matmul, alone or as the hero of a fused kernel with its epilogue
/// (`epilogueOps` computing `outputs` from the matmul result).
LogicalResult lowerMatmul(FunctionLowering &fl, Operation *anchor, MatmulOp matmul,
                          ArrayRef<Operation *> epilogueOps,
                          ArrayRef<std::pair<Value, Value>> outputs, StringRef kind);

/// A conv-chain kernel (`ops`: a convolution, its epilogue, a pointwise
/// convolution of the epilogue's value, that one's epilogue) as one kernel
/// that keeps the value between the convolutions in SBUF; as two
/// conv-epilogue kernels when they do not fit together.
LogicalResult lowerConvChain(FunctionLowering &fl, KernelOp k, ArrayRef<Operation *> ops,
                             ArrayRef<std::pair<Value, Value>> outputs);

/// A conv-sum kernel (`ops`: two convolutions, their add and an epilogue on
/// the sum) as one kernel that accumulates the pointwise convolution into
/// the other's PSUM tiles; as a bare convolution and a conv-epilogue kernel
/// when they do not fit together.
LogicalResult lowerConvSum(FunctionLowering &fl, KernelOp k, ArrayRef<Operation *> ops,
                           ArrayRef<std::pair<Value, Value>> outputs);

/// A convolution as an implicit GEMM on TensorE, alone or as the hero of a
/// fused kernel with its epilogue (`epilogueOps` computing `outputs`).
LogicalResult lowerConv(FunctionLowering &fl, Operation *anchor, ConvOp conv,
                        ArrayRef<Operation *> epilogueOps,
                        ArrayRef<std::pair<Value, Value>> outputs, StringRef kind);

/// A convolution whose input rows are too wide for SBUF as convolutions of
/// two column halves of its output, each over the input columns its windows
/// read (with the padding that falls outside the input), joined along the
/// last dim; each half splits again if it must. The epilogue, if any, runs
/// after the join as its own kernel. The pieces are built next to `conv`,
/// lowered, and erased; `conv`'s result is where the join was written.
LogicalResult lowerConvInColumnHalves(FunctionLowering &fl, Operation *anchor, ConvOp conv,
                                      ArrayRef<Operation *> epilogueOps,
                                      ArrayRef<std::pair<Value, Value>> outputs, StringRef kind);

/// Max or average pooling on VectorE/GpSimdE; its result goes where
/// `result` (the pooling's own result when null: a fused kernel's outer
/// value otherwise) is expected.
LogicalResult lowerPool(FunctionLowering &fl, PoolOp op, Value result = {});

struct WindowLowering;
/// A pooling fused after a convolution (a conv-pool kernel): the
/// convolution writes each output plane, padding included, into an SBUF
/// tile that stays for the whole kernel, and blocks of pooled rows are
/// computed from it as soon as the rows their windows read are there.
/// Plane p of a tile is (image, channel) plane `planeBase + p` of the
/// pooling's input.
class FusedPool {
public:
  FusedPool(FunctionLowering &fl, KernelBuilder &kb, PoolOp pool, Value result);
  ~FusedPool();
  /// Plans the pooled row blocks; false with `why` when the pooling
  /// cannot read from planes (a stride over the window leaves input rows
  /// nobody reads, which the convolution would still write).
  bool plan(std::string &why);
  /// Elements per partition of one padded plane, its row pitch, and where
  /// input element (0, 0) sits in it.
  int64_t planeElements() const;
  int64_t planePitch() const;
  int64_t planeOrigin() const;
  /// Input rows and columns some window reads (a prefix of each dim): the
  /// convolution writes only these, so nothing it writes goes unread.
  int64_t usedRows() const;
  int64_t usedCols() const;
  /// Bytes of the pooled result.
  int64_t outputBytes() const;
  /// SBUF bytes per partition of the pooling's own tiles (not the planes).
  int64_t bytesPerPartition() const;
  /// Allocates the pooling's tiles.
  void allocate(int64_t partitions);
  /// Fills the padding of `plane` (partitions [0, np)) that windows read:
  /// -inf for max, 0 for average. Once per plane tile: the convolution
  /// never writes there.
  void fillPadding(FlatSymbolRefAttr plane, int64_t np);
  /// Output rows whose windows read only the input's first `rows` rows
  /// (all of them once `rows` reaches usedRows()).
  int64_t rowsReady(int64_t rows) const;
  /// Output rows per block.
  int64_t blockRows() const;
  /// Pools output rows [oh0, oh0 + n) of the planes in `plane` and stores
  /// them.
  void emitRows(FlatSymbolRefAttr plane, int64_t planeBase, int64_t np, int64_t oh0, int64_t n);
  /// "... row block(s) of ..., ... taps each" for remarks.
  std::string describe() const;

private:
  std::unique_ptr<WindowLowering> impl;
};

class RowKernel;
/// A depthwise convolution (one filter per channel, 1-D or 2-D): VectorE
/// and GpSimdE, not TensorE, as lowerConv dispatches it.
bool isDepthwise(ConvOp conv);
/// Fails with `*wantsNarrowInput` set (and nothing emitted) when its input
/// is a folded cast's wider source and the staging tiles do not fit.
LogicalResult lowerDepthwiseConv(FunctionLowering &fl, KernelBuilder &kb, Operation *anchor,
                                 ConvOp conv, RowKernel *epilogue, bool *wantsNarrowInput);

/// Scaled dot-product attention as one flash-attention kernel.
LogicalResult lowerAttention(FunctionLowering &fl, AttentionOp op);

/// A standalone reduction across partitions (kept dims innermost, or a full
/// reduction): TensorE ones-vector sums, GpSimdE max/min/product. Returns
/// false, emitting nothing, when the reduction suits the free axis.
FailureOr<bool> lowerPartitionReduction(FunctionLowering &fl, Operation *op);

/// A tensor-parallel all-reduce: one nisa.all_reduce on a DMA queue.
LogicalResult lowerAllReduce(FunctionLowering &fl, AllReduceOp op);
/// A tensor-parallel all-gather: one nisa.all_gather on a DMA queue.
LogicalResult lowerAllGather(FunctionLowering &fl, AllGatherOp op);
/// A tensor-parallel reduce-scatter: one nisa.reduce_scatter on a DMA queue.
LogicalResult lowerReduceScatter(FunctionLowering &fl, ReduceScatterOp op);
/// An all-to-all: one nisa.all_to_all on a DMA queue.
LogicalResult lowerAllToAll(FunctionLowering &fl, AllToAllOp op);
/// A send/recv: one nisa.send_recv on a DMA queue.
LogicalResult lowerSendRecv(FunctionLowering &fl, SendRecvOp op);

/// Transpose, slice, concat, gather, broadcast_to and copies: DMA.
LogicalResult lowerDataMovement(FunctionLowering &fl, Operation *op);

/// A call of a hand-written kernel: the callee's kernels, cloned into the
/// program over the call's buffers.
LogicalResult lowerCustomKernel(FunctionLowering &fl, CustomKernelOp op);

/// `batches` row-major [rows, cols] matrices of `src` into [cols, rows] in
/// `dst`, through SBUF: long-run loads, 128 x 128 TensorE transposes, long-run
/// stores (converting to dst's element type on the way out of PSUM).
void transposeThroughSbuf(FunctionLowering &fl, Operation *source, const HbmBuffer &dst,
                          const HbmBuffer &src, int64_t batches, int64_t rows, int64_t cols);
/// The same for matrices anywhere in HBM: `in` is one [rows, cols] matrix
/// (rows and cols with their own strides) and `out` its [cols, rows]
/// result, each moved by the element offsets of one pair per batch.
void transposeThroughSbuf(FunctionLowering &fl, Operation *source, const HbmView &in,
                          const HbmView &out, ArrayRef<std::pair<int64_t, int64_t>> offsets);

/// An HBM to HBM copy of a whole buffer.
void copyBuffer(FunctionLowering &fl, Operation *source, const HbmBuffer &dst,
                const HbmBuffer &src);

/// Records on the module that the fused kernel `kernel` (of kind `kind`)
/// runs as two kernels, and why, for the fusion report
/// (kLoweringSplitsAttrName).
void recordSplit(Operation *kernel, StringRef kind, const Twine &why);

/// Strides (elements) of a row-major shape.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape);

/// Test-only fault injection: the kernel index NEURONC_INJECT_LOWERING_FAULT
/// names, if set.
std::optional<int64_t> faultInjectionKernel();
/// Makes kernel `index` of `program` compute a wrong value: after its last
/// instruction that computes into a tile, an engine maps that tile's x to 2x + 1
/// (nothing when the kernel only moves data). `neuron-run --check` must
/// name that kernel.
void injectFault(nisa::ProgramOp program, int64_t index);

} // namespace mlir::neuron::lowering

#endif // NEURONC_LIB_CONVERSION_LOWERING_LOWERING_H
