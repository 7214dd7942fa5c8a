//===- RowKernelImpl.h - The row kernel's plan and state --------*- C++ -*-===//
//
// Private to the RowKernel*.cpp files, one per idea:
//   - RowKernelDomain.cpp: dimension unification (which dims are rows, which
//     columns) and each input's strides over the domain;
//   - RowKernelNodes.cpp: the ops as a graph of nodes, with the named
//     kernels (rmsnorm, layernorm, softmax) decomposed into them;
//   - RowKernelPlan.cpp: the resident-vs-streamed plan, chunk and buffers,
//     and the public RowKernel API;
//   - RowKernelSelect.cpp: instruction selection, folding what an engine
//     does in one instruction;
//   - RowKernelSchedule.cpp: tiles, loads and stores, and the
//     double-buffered step schedule (standalone and epilogue mode).
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_NEURONTONISA_ROWKERNELIMPL_H
#define NEURONC_LIB_CONVERSION_NEURONTONISA_ROWKERNELIMPL_H

#include "RowKernel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <optional>
#include <vector>

namespace mlir::neuron::lowering {

using nisa::ActFunc;
using nisa::AluOp;
using neuronc::isa::Opcode;


/// Stats: a row's mean and variance (bn_stats/bn_aggr) as a [P, 2] tile;
/// Part: one of them (imm = 0 or 1).
enum class NodeKind { Input, Psum, Imm, Unary, Binary, Select, Cast, Reduce, Stats, Part };

/// Unary functions the nodes compute.
enum class UKind {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Reciprocal, Square, Tanh, Sigmoid, Erf, Gelu,
  GeluTanh, Silu, Relu, Round, Floor, Ceil, Sin, Cos, Copy
};

struct Node {
  NodeKind kind;
  Operation *source = nullptr;
  SmallVector<int, 3> args;
  Type type;
  uint64_t mask = 0; ///< domain dims the value depends on
  UKind unary = UKind::Copy;
  AluOp alu = AluOp::bypass;
  double imm = 0;
  int input = -1;
  SmallVector<int, 4> users;
  int outputs = 0; ///< how many kernel outputs it is
};

/// A dim of the iteration domain: `size` indices of class `cls`, each
/// stepping `mult` indices of that class (a class split in two has the
/// outer half with mult = inner size).
struct DomainDim {
  int64_t size;
  int cls;
  int64_t mult;
};

struct InputInfo {
  HbmBuffer buf;
  SmallVector<int64_t> strides; ///< per domain dim
  int node = -1;
};

struct OutputInfo {
  int node;
  HbmBuffer buf;
  SmallVector<int64_t> strides;
};

/// Union-find over dim classes.
struct Classes {
  SmallVector<int> parent;
  SmallVector<int64_t> size;
  int make(int64_t s) {
    parent.push_back(parent.size());
    size.push_back(s);
    return parent.size() - 1;
  }
  int find(int c) {
    while (parent[c] != c)
      c = parent[c] = parent[parent[c]];
    return c;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[b] = a;
  }
};

/// A value as an instruction operand: an immediate or a tile access.
struct Val {
  bool isImm = false;
  double imm = 0;
  FlatSymbolRefAttr sym;
  nisa::AccessPatternAttr ap;
  Type type;
  bool full = false;
  bool inPsum = false;
};

/// The ALU operation of a binary neuron op.
inline std::optional<AluOp> aluOf(Operation *op) {
  if (isa<AddOp>(op)) return AluOp::add;
  if (isa<SubOp>(op)) return AluOp::subtract;
  if (isa<MulOp>(op)) return AluOp::multiply;
  if (isa<DivOp>(op)) return AluOp::divide;
  if (isa<MaxOp>(op)) return AluOp::max;
  if (isa<MinOp>(op)) return AluOp::min;
  if (isa<PowOp>(op)) return AluOp::pow;
  if (isa<BitwiseAndOp>(op)) return AluOp::bitwise_and;
  if (isa<BitwiseOrOp>(op)) return AluOp::bitwise_or;
  if (isa<BitwiseXorOp>(op)) return AluOp::bitwise_xor;
  if (isa<ShiftLeftOp>(op)) return AluOp::shift_left;
  if (isa<ShiftRightOp>(op)) return AluOp::shift_right_arithmetic;
  if (isa<ShiftRightLogicalOp>(op)) return AluOp::shift_right_logical;
  if (auto c = dyn_cast<CompareOp>(op)) {
    switch (c.getPredicate()) {
    case ComparePredicate::eq: return AluOp::is_equal;
    case ComparePredicate::lt: return AluOp::is_lt;
    case ComparePredicate::le: return AluOp::is_le;
    case ComparePredicate::gt: return AluOp::is_gt;
    case ComparePredicate::ge: return AluOp::is_ge;
    }
  }
  return std::nullopt;
}

inline std::optional<UKind> unaryOf(Operation *op) {
  if (isa<NegOp>(op)) return UKind::Neg;
  if (isa<AbsOp>(op)) return UKind::Abs;
  if (isa<ExpOp>(op)) return UKind::Exp;
  if (isa<LogOp>(op)) return UKind::Log;
  if (isa<SqrtOp>(op)) return UKind::Sqrt;
  if (isa<RsqrtOp>(op)) return UKind::Rsqrt;
  if (isa<ReciprocalOp>(op)) return UKind::Reciprocal;
  if (isa<SquareOp>(op)) return UKind::Square;
  if (isa<TanhOp>(op)) return UKind::Tanh;
  if (isa<SigmoidOp>(op)) return UKind::Sigmoid;
  if (isa<ErfOp>(op)) return UKind::Erf;
  if (auto g = dyn_cast<GeluOp>(op))
    return g.getApproximate() == GeluApproximation::tanh ? UKind::GeluTanh : UKind::Gelu;
  if (isa<SiluOp>(op)) return UKind::Silu;
  if (isa<ReluOp>(op)) return UKind::Relu;
  if (isa<RoundOp>(op)) return UKind::Round;
  if (isa<FloorOp>(op)) return UKind::Floor;
  if (isa<CeilOp>(op)) return UKind::Ceil;
  if (isa<SinOp>(op)) return UKind::Sin;
  if (isa<CosOp>(op)) return UKind::Cos;
  return std::nullopt;
}

/// ScalarE's function for a unary node, if it has one.
inline std::optional<ActFunc> actFuncOf(UKind k) {
  switch (k) {
  case UKind::Exp: return ActFunc::exp;
  case UKind::Log: return ActFunc::log;
  case UKind::Sqrt: return ActFunc::sqrt;
  case UKind::Rsqrt: return ActFunc::rsqrt;
  case UKind::Reciprocal: return ActFunc::reciprocal;
  case UKind::Tanh: return ActFunc::tanh;
  case UKind::Sigmoid: return ActFunc::sigmoid;
  case UKind::Erf: return ActFunc::erf;
  case UKind::Gelu: return ActFunc::gelu;
  case UKind::GeluTanh: return ActFunc::gelu_tanh;
  case UKind::Silu: return ActFunc::silu;
  case UKind::Square: return ActFunc::square;
  case UKind::Abs: return ActFunc::abs;
  case UKind::Relu: return ActFunc::relu;
  case UKind::Round: return ActFunc::round;
  case UKind::Floor: return ActFunc::floor;
  case UKind::Ceil: return ActFunc::ceil;
  case UKind::Sin: return ActFunc::sin;
  case UKind::Cos: return ActFunc::cos;
  case UKind::Copy:
  case UKind::Neg: return ActFunc::copy;
  }
  return std::nullopt;
}

inline bool isCommutative(AluOp op) {
  return op == AluOp::add || op == AluOp::multiply || op == AluOp::max || op == AluOp::min ||
         op == AluOp::is_equal || op == AluOp::bitwise_and || op == AluOp::bitwise_or ||
         op == AluOp::bitwise_xor;
}

/// Identity of a reduction, to start an accumulator.
inline AluOp reduceAlu(Operation *op) {
  if (isa<ReduceMaxOp>(op)) return AluOp::max;
  if (isa<ReduceMinOp>(op)) return AluOp::min;
  if (isa<ReduceProdOp>(op)) return AluOp::multiply;
  return AluOp::add;
}


class RowKernelImpl {
public:
  RowKernelImpl(RowKernelSpec spec, const neuronc::HardwareModel &hw)
      : spec(std::move(spec)), hw(hw), P(hw.partitions) {}

  LogicalResult analyze(std::string &why);
  void emit(KernelBuilder &kb);
  void emitEpilogue(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                    FlatSymbolRefAttr psum, int64_t psumOffset);
  int64_t bytesPerColumn() const;
  /// Buffers per value of a resident standalone kernel: enough row tiles in
  /// flight to hide the DMA latency when each tile's transfers are short.
  int residentDepth() const;
  /// Where emitEpilogue leaves the output instead of storing it (null: it
  /// stores).
  FlatSymbolRefAttr sinkTile;
  nisa::AccessPatternAttr sinkAp;
  std::string describe() const;

  RowKernelSpec spec;
  const neuronc::HardwareModel &hw;
  const int64_t P; ///< partitions: rows of one row tile

  // Domain.
  SmallVector<DomainDim> pdims, fdims;
  uint64_t fmask = 0;
  int64_t rows = 1, cols = 1;

  // Nodes.
  SmallVector<Node> nodes;
  SmallVector<InputInfo> inputs;
  SmallVector<OutputInfo> outputs;
  bool hasReduction = false;

  // Emission plan.
  int64_t chunk = 1, nchunks = 1;
  int nbuf = 2;
  /// Tiles per value in epilogue mode (RowKernel::setEpilogueBuffers).
  int epilogueBuffers = 2;
  bool resident = true;
  int phases = 1;
  SmallVector<int> ready;

  // The members below are the plan and emission state shared by the
  // RowKernel*.cpp files.
  // Analysis helpers.
  Classes classes;
  DenseMap<Value, SmallVector<int>> dims;
  SmallVector<int> dimsOf(Value v);
  uint64_t maskOf(Value v);
  int addNode(Node n);
  int nodeFor(Value v, std::string &why);
  int binary(AluOp op, int a, int b, Operation *src, Type t);
  int unary(UKind k, int a, Operation *src, Type t);
  int imm(double v, Type t);
  /// sin or cos (`k`) of node `x`: the range reduction to [−π, π] as nodes
  /// (one activation and two scalar_tensor_tensor once selected), then
  /// ScalarE's function, whose table spans one period.
  int trig(UKind k, int x, Operation *src, Type t);
  DenseMap<int, int> reducedAngles; ///< per node: its angle reduced by trig()
  /// `x` reduced with `alu` along the columns (unit-only reductions and
  /// column-invariant values need no reduction).
  int reduceRows(int x, AluOp alu, Operation *src, Type t, bool unitOnly);
  LogicalResult buildNodes(std::string &why);
  LogicalResult unify(std::string &why);
  SmallVector<int64_t> stridesOver(Value v, ArrayRef<int64_t> shape);
  DenseMap<Value, int> valueNode;
  DenseMap<Value, HbmBuffer> inputBuffer;
  DenseSet<int> reducedRoots;
  SmallVector<std::pair<Operation *, SmallVector<int>>> reductions;

  // Emission state.
  KernelBuilder *kb = nullptr;
  DenseMap<int, Val> stepVals;   ///< full nodes of the current step
  llvm::DenseSet<int> stepNeeds; ///< every node the current step computes
  DenseMap<int, Val> rowVals;    ///< row nodes of the current row tile
  DenseMap<int, Val> hoisted;    ///< inputs loaded once per kernel
  DenseMap<std::pair<int, int>, FlatSymbolRefAttr> tiles; ///< (node, slot) -> tile
  DenseMap<int, int> useCount;   ///< per node: how many steps used a slot
  DenseMap<int, int> stepSlot;   ///< per node: its slot in the current step
  DenseMap<int, Val> negated;    ///< -x of row values, per row tile
  DenseSet<int> storedRows;      ///< row outputs stored in this row tile
  void storeRowOutput(int n, const Val &v);
  Val accumulateStats(int n, bool first, bool last);
  Val computePart(int n);
  DenseMap<int, int64_t> statsCount; ///< bn_stats triples written, per Stats node
  FlatSymbolRefAttr junk[4];
  /// The current box: domain rows [p0, p0 + rowsPerSegment) x columns
  /// [c0, c0 + nc) on partitions [0, np). In epilogue mode with segments
  /// (RowKernel::setEpilogueSegments), np = rowsPerSegment x segments and
  /// partition block s holds columns c0 + s * segmentCols of the same rows.
  int64_t p0 = 0, np = 0, c0 = 0, nc = 0;
  int64_t rowsPerSegment = 0, segments = 1, segmentCols = 0;
  /// Row tiles per step in a standalone kernel of few columns
  /// (chooseGroups): step t holds rows (t·groups + g)·P + q at partition q,
  /// free elements [g·cols, (g+1)·cols), so a tile is [P, groups x cols],
  /// row values are [P, groups] and reductions reduce the inner columns.
  /// Each row stays on the partition it has in one-row-tile steps, so a
  /// producer's tile can still be forwarded (nisa-forward-stores).
  int64_t groups = 1;
  /// Partitions a tile of the kernel spans: its rows, times the segments.
  int64_t tileParts() const { return std::min<int64_t>(rows * segments, P); }
  /// The current box's access of a full value ([np, groups x nc]), of a
  /// row value ([np, groups]), and of a row value spread over the columns.
  nisa::AccessPatternAttr fullAP() const;
  nisa::AccessPatternAttr rowAP() const;
  nisa::AccessPatternAttr spreadAP() const;
  /// Elements per partition of a full (or row) value in the current box.
  int64_t elemsOf(bool full) const { return full ? groups * nc : groups; }
  /// The rows per partition for a resident standalone kernel whose row
  /// tiles are tiny (1 when grouping does not apply).
  int64_t chooseGroups(int64_t budget) const;
  /// `kb->transfer` of the current box between `tile` (from element
  /// `tileOffset` of each partition) and `view`: columns [c0, c0 + nc) for
  /// a full value, column 0 for a row value; one transfer per segment.
  void transferBox(bool toTile, FlatSymbolRefAttr tile, Type type, const HbmView &view,
                   bool full, int64_t tileOffset = 0);
  int rowTile = 0;
  /// Tiles per row value, used in turn by successive row tiles.
  int rowSlots = 2;
  FlatSymbolRefAttr psumTile;
  int64_t psumOffset = 0;

  bool isFull(int n) const { return nodes[n].mask & fmask; }
  FlatSymbolRefAttr tileFor(int n, bool full, int slot);
  Val fullVal(int n, int slot);
  Val rowVal(int n);
  Val materialize(int n);
  Val computeNode(int n, std::optional<Val> dst = std::nullopt);
  Val emitUnary(int n, Val dst);
  Val emitBinary(int n, Val dst);
  void accumulateReduce(int r, bool first, bool last);
  Val reduceInto(int r, Val dst);
  Val destFor(int n);
  Val negate(int rowNode);
  Val asTile(Val v, Type type);
  HbmView viewOf(const HbmBuffer &buf, ArrayRef<int64_t> strides, bool withCols);
  void loadInput(int n, Val dst);
  void storeOutputs(bool fullOnes, ArrayRef<int> computed);
  llvm::SetVector<int> neededNodes(ArrayRef<int> targets);
  SmallVector<int> neededFull(ArrayRef<int> targets);
  std::map<std::pair<double, const void *>, Val> constTiles;
  /// Epilogue mode: per row input, a tile for each distinct set of rows it
  /// was loaded for (keyed by the rows' HBM element offsets), kept for the
  /// whole kernel: a convolution's per-channel operands repeat for every
  /// image and spatial block, and reloading them put a DMA round trip before
  /// each block's epilogue.
  std::map<std::pair<int, std::vector<int64_t>>, Val> rowInputTiles;
  int64_t rowInputTileBytes = 0;
  /// The cached tile of row input `n` for the current rows, loading it on
  /// first use; nullopt when the cache is full (the caller loads per block).
  std::optional<Val> cachedRowInput(int n);
  void runStep(ArrayRef<int> targets, ArrayRef<int> fullNodes);
};

/// True when node `a` is used only by `user`.
bool onlyFeeds(const SmallVector<Node> &nodes, int a, int user);

} // namespace mlir::neuron::lowering

#endif // NEURONC_LIB_CONVERSION_NEURONTONISA_ROWKERNELIMPL_H
