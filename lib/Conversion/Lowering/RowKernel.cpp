//===- RowKernel.cpp - Elementwise, reduction and norm kernels -----------===//
//
// Planning: the dims of every value are unified into classes (numpy
// broadcasting lines dims up from the right; reshapes that only add or drop
// unit dims keep them; reductions keep their kept dims). The classes a
// reduction reduces become the columns, the others the rows. Named ops are
// decomposed into nodes (rmsnorm: sum of squares, rsqrt(ss/N + eps), two
// products). Every input is read through its strides over the domain.
//
// Emission: rows are tiled by 128 partitions. When the working set of one
// row tile fits SBUF ("resident"), each input is loaded once and every node
// computed once per row tile. Otherwise the columns are streamed in chunks,
// one pass per level of reductions, recomputing what a pass needs. Loads of
// the next step are issued before the current step computes when there are
// two buffers (double buffering); with one they follow it. Instruction
// selection folds what the engines do in one instruction: func(scale*x +
// bias) with a row sum (activation), two scalar operations (tensor_scalar),
// (a op s) op b (scalar_tensor_tensor).
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using nisa::ActFunc;
using nisa::AluOp;
using neuronc::isa::Opcode;

namespace mlir::neuron::lowering {

namespace {

/// Stats: a row's mean and variance (bn_stats/bn_aggr) as a [P, 2] tile;
/// Part: one of them (imm = 0 or 1).
enum class NodeKind { Input, Psum, Imm, Unary, Binary, Select, Cast, Reduce, Stats, Part };

/// Unary functions the nodes compute.
enum class UKind {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Reciprocal, Square, Tanh, Sigmoid, Erf, Gelu,
  GeluTanh, Silu, Relu, Round, Copy
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
std::optional<AluOp> aluOf(Operation *op) {
  if (isa<AddOp>(op)) return AluOp::add;
  if (isa<SubOp>(op)) return AluOp::subtract;
  if (isa<MulOp>(op)) return AluOp::multiply;
  if (isa<DivOp>(op)) return AluOp::divide;
  if (isa<MaxOp>(op)) return AluOp::max;
  if (isa<MinOp>(op)) return AluOp::min;
  if (isa<PowOp>(op)) return AluOp::pow;
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

std::optional<UKind> unaryOf(Operation *op) {
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
  return std::nullopt;
}

/// ScalarE's function for a unary node, if it has one.
std::optional<ActFunc> actFuncOf(UKind k) {
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
  case UKind::Copy:
  case UKind::Neg: return ActFunc::copy;
  }
  return std::nullopt;
}

bool isCommutative(AluOp op) {
  return op == AluOp::add || op == AluOp::multiply || op == AluOp::max || op == AluOp::min ||
         op == AluOp::is_equal;
}

/// Identity of a reduction, to start an accumulator.
AluOp reduceAlu(Operation *op) {
  if (isa<ReduceMaxOp>(op)) return AluOp::max;
  if (isa<ReduceMinOp>(op)) return AluOp::min;
  if (isa<ReduceProdOp>(op)) return AluOp::multiply;
  return AluOp::add;
}

} // namespace

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

class RowKernelImpl {
public:
  RowKernelImpl(RowKernelSpec spec, const neuronc::HardwareModel &hw)
      : spec(std::move(spec)), hw(hw) {}

  LogicalResult analyze(std::string &why);
  void emit(KernelBuilder &kb);
  void emitEpilogue(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                    FlatSymbolRefAttr psum, int64_t psumOffset);
  int64_t bytesPerColumn() const;
  std::string describe() const;

  RowKernelSpec spec;
  const neuronc::HardwareModel &hw;

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
  bool resident = true;
  int phases = 1;
  SmallVector<int> ready;

private:
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
  int64_t p0 = 0, np = 0, c0 = 0, nc = 0; ///< current box
  int rowTile = 0;
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
  void runStep(ArrayRef<int> targets, ArrayRef<int> fullNodes);
};

SmallVector<int> RowKernelImpl::dimsOf(Value v) {
  auto it = dims.find(v);
  if (it != dims.end())
    return it->second;
  SmallVector<int> d;
  for (int64_t s : cast<RankedTensorType>(v.getType()).getShape())
    d.push_back(s > 1 ? classes.make(s) : -1);
  return dims[v] = d;
}

LogicalResult RowKernelImpl::unify(std::string &why) {
  auto alignRight = [&](Value operand, Value result) {
    SmallVector<int> o = dimsOf(operand);
    SmallVector<int> r = dimsOf(result);
    int shift = static_cast<int>(r.size()) - static_cast<int>(o.size());
    for (size_t i = 0; i < o.size(); ++i)
      if (o[i] >= 0 && static_cast<int>(i) + shift >= 0 && r[i + shift] >= 0)
        classes.unite(r[i + shift], o[i]);
  };
  auto nonUnit = [&](Value v) {
    SmallVector<int> out;
    for (int c : dimsOf(v))
      if (c >= 0)
        out.push_back(c);
    return out;
  };
  for (Operation *op : spec.ops) {
    if (isa<ConstantOp>(op))
      continue;
    if (auto mm = dyn_cast<MatmulOp>(op)) {
      if (mm.getResult() != spec.psum) {
        why = "a matmul inside the kernel is not its hero";
        return failure();
      }
      (void)dimsOf(mm.getResult());
      continue;
    }
    if (aluOf(op) || unaryOf(op) || isa<SelectOp, CastOp, BroadcastToOp>(op)) {
      for (Value v : op->getOperands())
        alignRight(v, op->getResult(0));
      continue;
    }
    if (auto r = dyn_cast<ReshapeOp>(op)) {
      SmallVector<int> a = nonUnit(r.getInput()), b = nonUnit(r.getResult());
      if (a.size() != b.size() || llvm::any_of(llvm::zip(a, b), [&](auto p) {
            return classes.size[std::get<0>(p)] != classes.size[std::get<1>(p)];
          })) {
        why = "a reshape inside the kernel merges or splits dims";
        return failure();
      }
      for (auto [x, y] : llvm::zip(a, b))
        classes.unite(x, y);
      continue;
    }
    auto markReduced = [&](Value input, ArrayRef<int64_t> axes, Value result, bool keep) {
      SmallVector<int> in = dimsOf(input);
      SmallVector<int> red;
      for (int64_t a : axes)
        if (in[a] >= 0)
          red.push_back(in[a]);
      reductions.push_back({op, red});
      if (!result)
        return;
      SmallVector<int> out = dimsOf(result);
      size_t k = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        bool reduced = llvm::is_contained(axes, static_cast<int64_t>(i));
        if (keep) {
          if (!reduced && in[i] >= 0 && out[i] >= 0)
            classes.unite(out[i], in[i]);
        } else if (!reduced) {
          if (in[i] >= 0 && out[k] >= 0)
            classes.unite(out[k], in[i]);
          ++k;
        }
      }
    };
    if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op)) {
      auto axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
      markReduced(op->getOperand(0), axes, op->getResult(0), op->hasAttr("keepdims"));
      continue;
    }
    if (isa<RmsNormOp, LayerNormOp, SoftmaxOp>(op)) {
      Value x = op->getOperand(0);
      for (Value v : op->getOperands())
        alignRight(v, op->getResult(0));
      alignRight(x, op->getResult(0));
      SmallVector<int64_t> axes;
      if (auto s = dyn_cast<SoftmaxOp>(op))
        axes.push_back(s.getAxis());
      else
        llvm::append_range(axes, cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef());
      markReduced(x, axes, Value(), false);
      continue;
    }
    why = "'" + op->getName().getStringRef().str() + "' cannot be part of a row kernel";
    return failure();
  }
  return success();
}

SmallVector<int64_t> RowKernelImpl::stridesOver(Value v, ArrayRef<int64_t> shape) {
  // Row-major strides of `shape`, keyed by the class of each dim of `v`.
  SmallVector<int> d = dimsOf(v);
  SmallVector<int64_t> rowMajor(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    rowMajor[i] = rowMajor[i + 1] * shape[i + 1];
  auto strideOfClass = [&](int cls) -> int64_t {
    for (size_t i = 0; i < d.size(); ++i)
      if (d[i] >= 0 && classes.find(d[i]) == cls)
        return rowMajor[i];
    return 0;
  };
  SmallVector<int64_t> out;
  for (const DomainDim &dd : pdims)
    out.push_back(strideOfClass(dd.cls) * dd.mult);
  for (const DomainDim &dd : fdims)
    out.push_back(strideOfClass(dd.cls) * dd.mult);
  return out;
}

uint64_t RowKernelImpl::maskOf(Value v) {
  uint64_t m = 0;
  for (int c : dimsOf(v)) {
    if (c < 0)
      continue;
    int root = classes.find(c);
    for (size_t i = 0; i < pdims.size(); ++i)
      if (pdims[i].cls == root)
        m |= uint64_t(1) << i;
    for (size_t i = 0; i < fdims.size(); ++i)
      if (fdims[i].cls == root)
        m |= uint64_t(1) << (pdims.size() + i);
  }
  return m;
}

int RowKernelImpl::addNode(Node n) {
  nodes.push_back(std::move(n));
  return nodes.size() - 1;
}

int RowKernelImpl::imm(double v, Type t) {
  Node n;
  n.kind = NodeKind::Imm;
  n.imm = v;
  n.type = t;
  return addNode(n);
}

int RowKernelImpl::unary(UKind k, int a, Operation *src, Type t) {
  if (nodes[a].kind == NodeKind::Imm && k == UKind::Neg)
    return imm(-nodes[a].imm, t);
  Node n;
  n.kind = NodeKind::Unary;
  n.unary = k;
  n.args = {a};
  n.source = src;
  n.type = t;
  n.mask = nodes[a].mask;
  return addNode(n);
}

int RowKernelImpl::binary(AluOp op, int a, int b, Operation *src, Type t) {
  if (op == AluOp::multiply && a == b)
    return unary(UKind::Square, a, src, t);
  Node n;
  n.kind = NodeKind::Binary;
  n.alu = op;
  n.args = {a, b};
  n.source = src;
  n.type = t;
  n.mask = nodes[a].mask | nodes[b].mask;
  return addNode(n);
}

int RowKernelImpl::nodeFor(Value v, std::string &why) {
  auto it = valueNode.find(v);
  if (it != valueNode.end())
    return it->second;
  Type et = cast<RankedTensorType>(v.getType()).getElementType();
  if (std::optional<double> s = getSplatValue(v)) {
    int n = imm(*s, et);
    valueNode[v] = n;
    return n;
  }
  // A value from outside the ops: an HBM input.
  Node n;
  n.kind = NodeKind::Input;
  n.type = et;
  n.mask = maskOf(v);
  n.input = inputs.size();
  int id = addNode(n);
  InputInfo info;
  info.buf = spec.bufferOf(v);
  info.strides = stridesOver(v, cast<RankedTensorType>(v.getType()).getShape());
  info.node = id;
  inputs.push_back(info);
  valueNode[v] = id;
  return id;
}

LogicalResult RowKernelImpl::buildNodes(std::string &why) {
  Builder b(spec.ops.front()->getContext());
  Type f32 = b.getF32Type();
  for (Operation *op : spec.ops) {
    auto set = [&](int n) { valueNode[op->getResult(0)] = n; };
    auto arg = [&](int i) { return nodeFor(op->getOperand(i), why); };
    Type rt = op->getNumResults() ? cast<RankedTensorType>(op->getResult(0).getType())
                                        .getElementType()
                                  : Type();
    if (auto c = dyn_cast<ConstantOp>(op)) {
      if (std::optional<double> s = getSplatValue(c.getResult())) {
        set(imm(*s, rt));
        continue;
      }
      Node n;
      n.kind = NodeKind::Input;
      n.type = rt;
      n.mask = maskOf(c.getResult());
      n.input = inputs.size();
      int id = addNode(n);
      InputInfo info;
      info.buf = spec.constantBuffer(c);
      info.strides = stridesOver(c.getResult(), c.getType().getShape());
      info.node = id;
      inputs.push_back(info);
      set(id);
      continue;
    }
    if (auto mm = dyn_cast<MatmulOp>(op)) {
      Node n;
      n.kind = NodeKind::Psum;
      n.type = f32;
      n.mask = maskOf(mm.getResult());
      n.source = op;
      set(addNode(n));
      continue;
    }
    if (std::optional<AluOp> alu = aluOf(op)) {
      int a = arg(0), c = arg(1);
      if (nodes[a].kind == NodeKind::Imm && nodes[c].kind == NodeKind::Imm) {
        why = "an operation on two constants was not folded";
        return failure();
      }
      set(binary(*alu, a, c, op, rt));
      continue;
    }
    if (std::optional<UKind> k = unaryOf(op)) {
      int a = arg(0);
      if (nodes[a].kind == NodeKind::Imm && *k != UKind::Neg) {
        why = "an operation on a constant was not folded";
        return failure();
      }
      set(unary(*k, a, op, rt));
      continue;
    }
    if (auto s = dyn_cast<SelectOp>(op)) {
      Node n;
      n.kind = NodeKind::Select;
      n.args = {arg(0), arg(1), arg(2)};
      n.source = op;
      n.type = rt;
      n.mask = nodes[n.args[0]].mask | nodes[n.args[1]].mask | nodes[n.args[2]].mask;
      set(addNode(n));
      continue;
    }
    if (isa<CastOp>(op)) {
      int a = arg(0);
      if (nodes[a].type == rt) {
        set(a);
        continue;
      }
      Node n;
      n.kind = NodeKind::Cast;
      n.args = {a};
      n.source = op;
      n.type = rt;
      n.mask = nodes[a].mask;
      set(addNode(n));
      continue;
    }
    if (isa<BroadcastToOp, ReshapeOp>(op)) {
      set(arg(0));
      continue;
    }
    // An op that only reduces unit dims reduces single elements.
    bool unitOnly = false;
    if (isa<RmsNormOp, LayerNormOp, SoftmaxOp>(op)) {
      auto shape = cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
      SmallVector<int64_t> axes;
      if (auto s = dyn_cast<SoftmaxOp>(op))
        axes.push_back(s.getAxis());
      else
        llvm::append_range(axes, cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef());
      unitOnly = llvm::none_of(axes, [&](int64_t a) { return shape[a] > 1; });
    }
    auto reduce = [&](int x, AluOp alu, Operation *src, Type t) -> int {
      if (unitOnly)
        return x;
      if (!isFull(x)) {
        // The columns do not change x: sum is x * N, prod x^N, max/min x.
        double n = static_cast<double>(cols);
        if (alu == AluOp::add)
          return binary(AluOp::multiply, x, imm(n, t), src, t);
        if (alu == AluOp::multiply)
          return binary(AluOp::pow, x, imm(n, t), src, t);
        return x;
      }
      Node n;
      n.kind = NodeKind::Reduce;
      n.alu = alu;
      n.args = {x};
      n.source = src;
      n.type = t;
      n.mask = nodes[x].mask & ~fmask;
      hasReduction = true;
      return addNode(n);
    };
    if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op)) {
      int x = arg(0);
      // Reducing only unit dims changes nothing.
      auto shape = cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
      auto axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
      if (llvm::none_of(axes, [&](int64_t a) { return shape[a] > 1; })) {
        set(x);
        continue;
      }
      int r = reduce(x, reduceAlu(op), op, rt);
      if (isa<ReduceMeanOp>(op))
        r = binary(AluOp::multiply, r, imm(1.0 / cols, rt), op, rt);
      set(r);
      continue;
    }
    if (auto n = dyn_cast<RmsNormOp>(op)) {
      // ss = sum(x^2); r = rsqrt(ss/N + eps); y = x * r [* w]
      int x = arg(0);
      int ss = reduce(unary(UKind::Square, x, op, f32), AluOp::add, op, f32);
      int t = binary(AluOp::multiply, ss, imm(unitOnly ? 1.0 : 1.0 / cols, f32), op, f32);
      t = binary(AluOp::add, t, imm(n.getEpsilon().convertToFloat(), f32), op, f32);
      int r = unary(UKind::Rsqrt, t, op, f32);
      int y = binary(AluOp::multiply, x, r, op, n.getWeight() ? f32 : rt);
      if (n.getWeight())
        y = binary(AluOp::multiply, y, arg(1), op, rt);
      set(y);
      continue;
    }
    if (auto n = dyn_cast<LayerNormOp>(op)) {
      // (mean, var) of each row by bn_stats/bn_aggr in one pass;
      // y = (x - mean) * rsqrt(var + eps) [* w] [+ b]
      int x = arg(0);
      int mean, var;
      if (unitOnly || !isFull(x)) {
        double inv = unitOnly ? 1.0 : 1.0 / cols;
        mean = binary(AluOp::multiply, reduce(x, AluOp::add, op, f32), imm(inv, f32), op, f32);
        int d = binary(AluOp::subtract, x, mean, op, f32);
        var = binary(AluOp::multiply, reduce(unary(UKind::Square, d, op, f32), AluOp::add, op, f32),
                     imm(inv, f32), op, f32);
      } else {
        Node st;
        st.kind = NodeKind::Stats;
        st.args = {x};
        st.source = op;
        st.type = f32;
        st.mask = nodes[x].mask & ~fmask;
        int stats = addNode(st);
        hasReduction = true;
        auto part = [&](int which) {
          Node pt;
          pt.kind = NodeKind::Part;
          pt.args = {stats};
          pt.imm = which;
          pt.source = op;
          pt.type = f32;
          pt.mask = nodes[stats].mask;
          return addNode(pt);
        };
        mean = part(0);
        var = part(1);
      }
      int c = binary(AluOp::subtract, x, mean, op, f32);
      int t = binary(AluOp::add, var, imm(n.getEpsilon().convertToFloat(), f32), op, f32);
      int r = unary(UKind::Rsqrt, t, op, f32);
      bool more = n.getWeight() || n.getBias();
      int y = binary(AluOp::multiply, c, r, op, more ? f32 : rt);
      unsigned next = 1;
      if (n.getWeight())
        y = binary(AluOp::multiply, y, arg(next++), op, n.getBias() ? f32 : rt);
      if (n.getBias())
        y = binary(AluOp::add, y, arg(next++), op, rt);
      set(y);
      continue;
    }
    if (auto s = dyn_cast<SoftmaxOp>(op)) {
      // m = max(x); d = x - m; e = exp(d); s = sum(e); y = e * (1/s) or d - log(s)
      int x = arg(0);
      int m = reduce(x, AluOp::max, op, f32);
      int d = binary(AluOp::subtract, x, m, op, f32);
      int e = unary(UKind::Exp, d, op, f32);
      int sum = reduce(e, AluOp::add, op, f32);
      if (s.getLog())
        set(binary(AluOp::subtract, d, unary(UKind::Log, sum, op, f32), op, rt));
      else
        set(binary(AluOp::multiply, e, unary(UKind::Reciprocal, sum, op, f32), op, rt));
      continue;
    }
    why = "'" + op->getName().getStringRef().str() + "' cannot be part of a row kernel";
    return failure();
  }
  if (!why.empty())
    return failure();
  for (auto &[v, buf] : spec.outputs) {
    auto it = valueNode.find(v);
    if (it == valueNode.end()) {
      why = "an output of the kernel is not computed by it";
      return failure();
    }
    int n = it->second;
    // A stored value needs a tile spanning what the output spans: the
    // matmul result leaves PSUM through a copy, and a value broadcast along
    // the columns is spread over them.
    uint64_t want = maskOf(v);
    if (nodes[n].kind == NodeKind::Psum || nodes[n].kind == NodeKind::Imm ||
        ((want & fmask) && !(nodes[n].mask & fmask))) {
      Type et = cast<RankedTensorType>(v.getType()).getElementType();
      Node c;
      c.kind = nodes[n].type == et ? NodeKind::Unary : NodeKind::Cast;
      c.unary = UKind::Copy;
      c.args = {n};
      c.source = v.getDefiningOp() ? v.getDefiningOp() : spec.ops.back();
      c.type = et;
      c.mask = nodes[n].mask | want;
      n = addNode(c);
    }
    OutputInfo out;
    out.node = n;
    out.buf = buf;
    out.strides = stridesOver(v, cast<RankedTensorType>(v.getType()).getShape());
    // Every output must cover the rows (an output broadcast along rows
    // would be written once per row).
    uint64_t pmask = (uint64_t(1) << pdims.size()) - 1;
    if ((maskOf(v) & pmask) != pmask) {
      why = "an output of the kernel does not vary along every row dim";
      return failure();
    }
    ++nodes[n].outputs;
    outputs.push_back(out);
  }
  for (size_t i = 0; i < nodes.size(); ++i)
    for (int a : nodes[i].args)
      nodes[a].users.push_back(i);
  return success();
}

LogicalResult RowKernelImpl::analyze(std::string &why) {
  if (failed(unify(why)))
    return failure();
  // Every reduction reduces the same classes: the columns.
  std::optional<SmallVector<int>> reduced;
  for (auto &[op, red] : reductions) {
    SmallVector<int> roots;
    for (int c : red)
      roots.push_back(classes.find(c));
    llvm::sort(roots);
    if (reduced && *reduced != roots) {
      why = "its reductions reduce different dims";
      return failure();
    }
    reduced = roots;
  }
  // The domain order: the value with the most classes.
  Value ref;
  size_t best = 0;
  SmallVector<Value> all;
  for (Operation *op : spec.ops) {
    // A matmul hero's operands are the matmul's business, not the domain's.
    if (!isa<MatmulOp>(op))
      for (Value v : op->getOperands())
        all.push_back(v);
    for (Value v : op->getResults())
      all.push_back(v);
  }
  llvm::SetVector<int> universe;
  for (Value v : all) {
    llvm::SetVector<int> mine;
    for (int c : dimsOf(v))
      if (c >= 0) {
        if (!mine.insert(classes.find(c))) {
          why = "a value uses the same dim twice";
          return failure();
        }
        universe.insert(classes.find(c));
      }
    if (mine.size() > best || !ref) {
      best = mine.size();
      ref = v;
    }
  }
  if (best < universe.size()) {
    why = "no value spans the kernel's whole iteration space";
    return failure();
  }
  SmallVector<int> order;
  for (int c : dimsOf(ref))
    if (c >= 0)
      order.push_back(classes.find(c));
  for (int c : order) {
    DomainDim d{classes.size[c], c, 1};
    if (reduced && llvm::is_contained(*reduced, c))
      fdims.push_back(d);
    else
      pdims.push_back(d);
  }
  if (reduced && fdims.empty())
    reduced.reset(); // only unit dims reduced
  if (spec.psum) {
    // The epilogue's domain is the matmul result [batch..., M, N]: rows are
    // batch x M, columns N, as the matmul's output tiles are.
    SmallVector<int> mine;
    for (int c : dimsOf(spec.psum))
      if (c >= 0)
        mine.push_back(classes.find(c));
    int64_t n = cast<RankedTensorType>(spec.psum.getType()).getShape().back();
    if (reduced || mine != order) {
      why = "the epilogue does not follow the matmul's output tiles (it reduces, or reads a "
            "bigger domain)";
      return failure();
    }
    if (n > 1) {
      fdims.push_back(pdims.back());
      pdims.pop_back();
    }
  } else if (!reduced && !pdims.empty()) {
    fdims.push_back(pdims.back());
    pdims.pop_back();
  }
  auto total = [](ArrayRef<DomainDim> d) {
    int64_t n = 1;
    for (const DomainDim &x : d)
      n *= x.size;
    return n;
  };
  if (!reduced && !spec.psum) {
    // Few rows: move part of the first column dim onto the partitions.
    int64_t prow = total(pdims);
    if (prow < 128 && !fdims.empty()) {
      DomainDim &f = fdims.front();
      for (int64_t k = 128 / prow; k > 1; --k) {
        if (f.size % k == 0 && f.size / k >= 64) {
          pdims.push_back({k, f.cls, f.mult * (f.size / k)});
          f.size /= k;
          break;
        }
      }
    }
    // Short rows: move part of the last row dim into the columns.
    int64_t fcol = total(fdims);
    prow = total(pdims);
    if (fcol < 256 && prow >= 256 && !pdims.empty()) {
      DomainDim &p = pdims.back();
      for (int64_t j = std::min<int64_t>(2048 / fcol, prow / 128); j > 1; --j) {
        if (p.size % j == 0) {
          fdims.insert(fdims.begin(), {j, p.cls, p.mult});
          p.size /= j;
          p.mult *= j;
          break;
        }
      }
    }
  }
  if (pdims.size() + fdims.size() > 60) {
    why = "the iteration space has too many dims";
    return failure();
  }
  for (size_t i = 0; i < fdims.size(); ++i)
    fmask |= uint64_t(1) << (pdims.size() + i);
  rows = total(pdims);
  cols = total(fdims);
  if (failed(buildNodes(why)))
    return failure();

  // Readiness: the pass after which each node's value exists (streaming).
  ready.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    int r = 0;
    for (int a : nodes[i].args)
      r = std::max(r, ready[a]);
    if (nodes[i].kind == NodeKind::Reduce || nodes[i].kind == NodeKind::Stats)
      r += 1;
    ready[i] = r;
  }
  phases = 1;
  for (const OutputInfo &o : outputs)
    phases = std::max(phases, ready[o.node] + 1);

  // SBUF: resident when a whole row tile fits, else stream the columns.
  int64_t budget = hw.sbufPartitionBytes * 3 / 4;
  int64_t perCol = bytesPerColumn();
  if (spec.psum)
    return success();
  if (perCol * cols * 2 <= budget) {
    nbuf = 2;
    chunk = cols;
  } else if (hasReduction && perCol * cols <= budget) {
    nbuf = 1;
    chunk = cols;
  } else {
    nbuf = 2;
    chunk = std::max<int64_t>(1, budget / (perCol * 2));
    if (chunk > 512)
      chunk -= chunk % 512;
  }
  nchunks = (cols + chunk - 1) / chunk;
  resident = nchunks == 1;
  return success();
}

int64_t RowKernelImpl::bytesPerColumn() const {
  // Every full node may need a tile; ScalarE writes results nobody reads
  // into a scratch tile.
  int64_t bytes = 4;
  for (const Node &n : nodes)
    if ((n.mask & fmask) && n.kind != NodeKind::Imm && n.kind != NodeKind::Psum)
      bytes += nisa::elementBytes(n.type);
  return bytes;
}

std::string RowKernelImpl::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << rows << " rows x " << cols << " columns, ";
  if (resident)
    os << "resident";
  else
    os << "streamed in " << nchunks << " chunks of " << chunk << " over " << phases << " pass"
       << (phases > 1 ? "es" : "");
  return s;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

HbmView RowKernelImpl::viewOf(const HbmBuffer &buf, ArrayRef<int64_t> strides, bool withCols) {
  HbmView v;
  v.sym = buf.sym;
  v.elementType = buf.elementType;
  for (size_t i = 0; i < pdims.size(); ++i) {
    v.rowSizes.push_back(pdims[i].size);
    v.rowStrides.push_back(strides[i]);
  }
  if (withCols)
    for (size_t i = 0; i < fdims.size(); ++i) {
      v.colSizes.push_back(fdims[i].size);
      v.colStrides.push_back(strides[pdims.size() + i]);
    }
  return v;
}

FlatSymbolRefAttr RowKernelImpl::tileFor(int n, bool full, int slot) {
  auto key = std::make_pair(n, slot);
  auto it = tiles.find(key);
  if (it != tiles.end())
    return it->second;
  int64_t parts = std::min<int64_t>(rows, 128);
  FlatSymbolRefAttr sym =
      kb->alloc(MemorySpace::sbuf, parts, full ? chunk : 1, nodes[n].type, full ? "t" : "r");
  tiles[key] = sym;
  return sym;
}

Val RowKernelImpl::fullVal(int n, int slot) {
  Val v;
  v.sym = tileFor(n, true, slot);
  v.ap = kb->tileAP(0, np, 0, nc);
  v.type = nodes[n].type;
  v.full = true;
  return v;
}

Val RowKernelImpl::rowVal(int n) {
  Val v;
  v.sym = tileFor(n, false, rowTile % 2);
  v.ap = kb->tileAP(0, np, 0, 1);
  v.type = nodes[n].type;
  return v;
}

Val RowKernelImpl::destFor(int n) {
  if (!isFull(n))
    return rowVal(n);
  auto it = stepSlot.find(n);
  int slot;
  if (it != stepSlot.end()) {
    slot = it->second;
  } else {
    slot = useCount[n]++ % nbuf;
    stepSlot[n] = slot;
  }
  return fullVal(n, slot);
}


/// Loads input node `n` into `dst` for the current box.
void RowKernelImpl::loadInput(int n, Val dst) {
  const InputInfo &in = inputs[nodes[n].input];
  bool full = isFull(n);
  HbmView view = viewOf(in.buf, in.strides, full);
  // The load is the work of the op that reads the input (not of a constant
  // that happens to come first in the group).
  Operation *reader = nullptr;
  for (int u : nodes[n].users)
    if ((reader = nodes[u].source))
      break;
  if (!reader)
    for (Operation *op : spec.ops)
      if (!isa<ConstantOp, ReshapeOp>(op) && (reader = op))
        break;
  kb->setSource(reader ? reader : spec.ops.front());
  kb->transfer(/*toTile=*/true, dst.sym, nodes[n].type, 0, 0, view, p0, np, full ? c0 : 0,
               full ? nc : 1);
}

Val RowKernelImpl::asTile(Val v, Type type) {
  if (!v.isImm)
    return v;
  // An immediate where an instruction needs a tile: a [P, 1] constant,
  // written once for the whole kernel.
  auto key = std::make_pair(v.imm, type.getAsOpaquePointer());
  auto it = constTiles.find(key);
  if (it == constTiles.end()) {
    int64_t parts = std::min<int64_t>(rows, 128);
    Val t;
    t.sym = kb->alloc(MemorySpace::sbuf, parts, 1, type, "c");
    t.type = type;
    Engine e = kb->pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, parts, 1);
    kb->emit<nisa::MemsetOp>(e, t.sym, kb->tileAP(0, parts, 0, 1),
                             kb->builder().getF32FloatAttr(v.imm), DenseI64ArrayAttr(),
                             UnitAttr());
    it = constTiles.try_emplace(key, t).first;
  }
  Val t = it->second;
  t.ap = kb->tileAP(0, np, 0, 1);
  return t;
}

Val RowKernelImpl::negate(int rowNode) {
  auto it = negated.find(rowNode);
  if (it != negated.end())
    return it->second;
  Val src = materialize(rowNode);
  auto key = std::make_pair(rowNode, -3 - rowTile % 2);
  FlatSymbolRefAttr sym = tiles.lookup(key);
  if (!sym) {
    sym = kb->alloc(MemorySpace::sbuf, std::min<int64_t>(rows, 128), 1, nodes[rowNode].type, "n");
    tiles[key] = sym;
  }
  Val dst;
  dst.sym = sym;
  dst.ap = kb->tileAP(0, np, 0, 1);
  dst.type = nodes[rowNode].type;
  Engine e = kb->pick(Opcode::TensorScalar,
                      src.inPsum ? ArrayRef<Engine>{Engine::vector}
                                 : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                      np, 1);
  Builder &b = kb->builder();
  kb->emit<nisa::TensorScalarOp>(e, dst.sym, dst.ap, src.sym, src.ap, AluOp::multiply,
                                 b.getF32FloatAttr(-1.0f), FlatSymbolRefAttr(),
                                 nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(),
                                 FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                 UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
  return negated[rowNode] = dst;
}

Val RowKernelImpl::materialize(int n) {
  const Node &node = nodes[n];
  if (node.kind == NodeKind::Imm) {
    Val v;
    v.isImm = true;
    v.imm = node.imm;
    v.type = node.type;
    return v;
  }
  if (node.kind == NodeKind::Psum) {
    Val v;
    v.sym = psumTile;
    v.ap = kb->tileAP(0, np, psumOffset, nc);
    v.type = node.type;
    v.full = true;
    v.inPsum = true;
    return v;
  }
  if (isFull(n)) {
    auto it = stepVals.find(n);
    if (it != stepVals.end())
      return it->second;
    auto h = hoisted.find(n);
    if (h != hoisted.end()) {
      Val v = h->second;
      v.ap = kb->tileAP(0, np, 0, nc);
      return v;
    }
  } else {
    auto it = rowVals.find(n);
    if (it != rowVals.end())
      return it->second;
  }
  Val v = computeNode(n);
  if (isFull(n))
    stepVals[n] = v;
  else
    rowVals[n] = v;
  // Row outputs are stored as soon as they exist.
  storeRowOutput(n, v);
  return v;
}

void RowKernelImpl::storeRowOutput(int n, const Val &v) {
  if (isFull(n) || !nodes[n].outputs || spec.psum || !storedRows.insert(n).second)
    return;
  for (const OutputInfo &o : outputs)
    if (o.node == n) {
      HbmView view = viewOf(o.buf, o.strides, false);
      kb->transfer(false, v.sym, nodes[n].type, 0, 0, view, p0, np, 0, 1);
    }
}

Val RowKernelImpl::computeNode(int n, std::optional<Val> dstArg) {
  const Node &node = nodes[n];
  if (node.source)
    kb->setSource(node.source);
  if (node.kind == NodeKind::Stats || node.kind == NodeKind::Part)
    return node.kind == NodeKind::Stats ? accumulateStats(n, true, true)
                                        : computePart(n);
  Val dst = dstArg ? *dstArg : destFor(n);
  switch (node.kind) {
  case NodeKind::Input:
    loadInput(n, dst);
    return dst;
  case NodeKind::Unary:
    return emitUnary(n, dst);
  case NodeKind::Binary:
    return emitBinary(n, dst);
  case NodeKind::Cast: {
    Val src = materialize(node.args[0]);
    if (src.isImm) {
      Engine e = kb->pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, np, dst.full ? nc : 1);
      kb->emit<nisa::MemsetOp>(e, dst.sym, dst.ap, kb->builder().getF32FloatAttr(src.imm),
                               DenseI64ArrayAttr(), UnitAttr());
      return dst;
    }
    if (dst.full && !src.full)
      src.ap = kb->tileAP(0, np, 0, {nc}, {0});
    SmallVector<Engine, 3> engines = {Engine::vector, Engine::scalar};
    if (!src.inPsum)
      engines.push_back(Engine::gpsimd);
    Engine e = kb->pick(Opcode::TensorCopy, engines, np, dst.full ? nc : 1, src.inPsum);
    kb->emit<nisa::TensorCopyOp>(e, dst.sym, dst.ap, src.sym, src.ap, DenseI64ArrayAttr(),
                                 UnitAttr());
    return dst;
  }
  case NodeKind::Select: {
    Val c = asTile(materialize(node.args[0]), nodes[node.args[0]].type);
    Val a = asTile(materialize(node.args[1]), nodes[node.args[1]].type);
    Val f = asTile(materialize(node.args[2]), nodes[node.args[2]].type);
    auto spread = [&](Val v) {
      if (dst.full && !v.full)
        v.ap = kb->tileAP(0, np, 0, {nc}, {0});
      return v;
    };
    c = spread(c);
    a = spread(a);
    f = spread(f);
    bool psum = c.inPsum || a.inPsum || f.inPsum;
    Engine e = kb->pick(Opcode::Select,
                        psum ? ArrayRef<Engine>{Engine::vector}
                             : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                        np, dst.full ? nc : 1);
    kb->emit<nisa::SelectOp>(e, dst.sym, dst.ap, c.sym, c.ap, a.sym, a.ap, f.sym, f.ap,
                             DenseI64ArrayAttr(), UnitAttr());
    return dst;
  }
  case NodeKind::Reduce:
    return reduceInto(n, dst);
  case NodeKind::Stats:
  case NodeKind::Part:
  case NodeKind::Imm:
  case NodeKind::Psum:
    break;
  }
  llvm_unreachable("not computed by an instruction");
}

/// True when node `a` only feeds `user` and is not stored, so the user's
/// instruction may compute it in passing.
static bool onlyFeeds(const SmallVector<Node> &nodes, int a, int user) {
  const Node &n = nodes[a];
  return n.outputs == 0 && n.users.size() == 1 && n.users[0] == user &&
         (n.kind == NodeKind::Binary || n.kind == NodeKind::Unary);
}

Val RowKernelImpl::emitUnary(int n, Val dst) {
  const Node &node = nodes[n];
  Builder &b = kb->builder();
  bool isFloatType = isa<FloatType>(node.type);
  int x = node.args[0];
  // Integers: VectorE/GpSimdE arithmetic.
  if (!isFloatType) {
    Val src = materialize(x);
    Engine e = kb->pick(Opcode::TensorScalar,
                        src.inPsum ? ArrayRef<Engine>{Engine::vector}
                                   : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                        np, dst.full ? nc : 1);
    auto ts = [&](Val to, Val from, AluOp op, float k) {
      kb->emit<nisa::TensorScalarOp>(e, to.sym, to.ap, from.sym, from.ap, op,
                                     b.getF32FloatAttr(k), FlatSymbolRefAttr(),
                                     nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(),
                                     FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                     UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    };
    switch (node.unary) {
    case UKind::Neg:
      ts(dst, src, AluOp::multiply, -1.0f);
      return dst;
    case UKind::Relu:
      ts(dst, src, AluOp::max, 0.0f);
      return dst;
    case UKind::Square:
      kb->emit<nisa::TensorTensorOp>(e, AluOp::multiply, dst.sym, dst.ap, src.sym, src.ap,
                                     src.sym, src.ap, DenseI64ArrayAttr(), UnitAttr());
      return dst;
    case UKind::Abs:
      // |x| = max(x, -x)
      ts(dst, src, AluOp::multiply, -1.0f);
      kb->emit<nisa::TensorTensorOp>(e, AluOp::max, dst.sym, dst.ap, dst.sym, dst.ap, src.sym,
                                     src.ap, DenseI64ArrayAttr(), UnitAttr());
      return dst;
    default:
      llvm_unreachable("float-only unary op on integers");
    }
  }
  if (node.unary == UKind::Copy) {
    // A plain copy (out of PSUM, or spreading a row value over the columns).
    Val src = materialize(x);
    if (src.isImm) {
      Engine e = kb->pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, np,
                          dst.full ? nc : 1);
      kb->emit<nisa::MemsetOp>(e, dst.sym, dst.ap, b.getF32FloatAttr(src.imm),
                               DenseI64ArrayAttr(), UnitAttr());
      return dst;
    }
    if (dst.full && !src.full)
      src.ap = kb->tileAP(0, np, 0, {nc}, {0});
    SmallVector<Engine, 3> engines = {Engine::vector, Engine::scalar};
    if (!src.inPsum)
      engines.push_back(Engine::gpsimd);
    Engine e = kb->pick(Opcode::TensorCopy, engines, np, dst.full ? nc : 1, src.inPsum);
    kb->emit<nisa::TensorCopyOp>(e, dst.sym, dst.ap, src.sym, src.ap, DenseI64ArrayAttr(),
                                 UnitAttr());
    return dst;
  }
  // func(scale * y + bias): fold a single-use add/sub of a scalar into the
  // bias, and a single-use product by a scalar into the scale.
  ActFunc func = *actFuncOf(node.unary);
  float scaleImm = node.unary == UKind::Neg ? -1.0f : 1.0f;
  std::optional<Val> scale, bias;
  float biasImm = 0.0f;
  int y = x, parent = n;
  // In `t op s`, s is the per-partition (or immediate) operand and t the
  // tile the function is applied to.
  auto split = [&](const Node &bin, bool commutative) -> std::optional<std::pair<int, int>> {
    auto ok = [&](int t, int s) {
      return !isFull(s) && nodes[t].kind != NodeKind::Imm && (!isFull(n) || isFull(t));
    };
    if (ok(bin.args[0], bin.args[1]))
      return std::make_pair(bin.args[0], bin.args[1]);
    if (commutative && ok(bin.args[1], bin.args[0]))
      return std::make_pair(bin.args[1], bin.args[0]);
    return std::nullopt;
  };
  auto absorbable = [&](int v, AluOp a, AluOp b) {
    return node.unary != UKind::Neg && onlyFeeds(nodes, v, parent) &&
           nodes[v].kind == NodeKind::Binary && (nodes[v].alu == a || nodes[v].alu == b) &&
           isa<FloatType>(nodes[v].type);
  };
  if (absorbable(y, AluOp::add, AluOp::subtract)) {
    const Node &add = nodes[y];
    if (auto ts = split(add, add.alu == AluOp::add)) {
      auto [t, sc] = *ts;
      bool neg = add.alu == AluOp::subtract;
      if (nodes[sc].kind == NodeKind::Imm)
        biasImm = static_cast<float>(neg ? -nodes[sc].imm : nodes[sc].imm);
      else
        bias = neg ? negate(sc) : materialize(sc);
      parent = y;
      y = t;
    }
  }
  if (absorbable(y, AluOp::multiply, AluOp::multiply)) {
    if (auto ts = split(nodes[y], true)) {
      auto [t, sc] = *ts;
      if (nodes[sc].kind == NodeKind::Imm)
        scaleImm = static_cast<float>(nodes[sc].imm);
      else
        scale = materialize(sc);
      y = t;
    }
  }
  Val src = materialize(y);
  if (src.isImm)
    src = asTile(src, nodes[y].type);
  if (dst.full && !src.full)
    src.ap = kb->tileAP(0, np, 0, {nc}, {0});
  // A row sum of this value that this step also computes rides along.
  FlatSymbolRefAttr accSym;
  nisa::AccessPatternAttr accAp;
  kb->charge(Engine::scalar, kb->estimate(Opcode::Activation, Engine::scalar, np,
                                          dst.full ? nc : 1));
  kb->emit<nisa::ActivationOp>(
      func, dst.sym, dst.ap, src.sym, src.ap,
      scale ? FloatAttr() : (scaleImm != 1.0f ? b.getF32FloatAttr(scaleImm) : FloatAttr()),
      scale ? scale->sym : FlatSymbolRefAttr(),
      scale ? scale->ap : nisa::AccessPatternAttr(),
      bias ? FloatAttr() : (biasImm != 0.0f ? b.getF32FloatAttr(biasImm) : FloatAttr()),
      bias ? bias->sym : FlatSymbolRefAttr(), bias ? bias->ap : nisa::AccessPatternAttr(),
      accSym, accAp, DenseI64ArrayAttr(), UnitAttr());
  return dst;
}

Val RowKernelImpl::emitBinary(int n, Val dst) {
  const Node &node = nodes[n];
  Builder &b = kb->builder();
  AluOp op = node.alu;
  int ia = node.args[0], ib = node.args[1];
  auto isScalarArg = [&](int a) { return nodes[a].kind == NodeKind::Imm || !isFull(a); };
  bool full = isFull(n);
  int64_t elems = full ? nc : 1;

  auto scalarAttrs = [&](const Val &s, FloatAttr &imm, FlatSymbolRefAttr &sym,
                         nisa::AccessPatternAttr &ap) {
    if (s.isImm)
      imm = b.getF32FloatAttr(static_cast<float>(s.imm));
    else {
      sym = s.sym;
      ap = s.ap;
    }
  };

  if (full && isScalarArg(ia) != isScalarArg(ib)) {
    // tensor (op) scalar, possibly after another tensor (op) scalar.
    bool reverse0 = isScalarArg(ia);
    int t = reverse0 ? ib : ia, s = reverse0 ? ia : ib;
    // (x op0 s0) op s: one tensor_scalar with two operations.
    std::optional<Val> s0v;
    AluOp op0 = op;
    bool rev0 = reverse0;
    std::optional<AluOp> op1;
    bool rev1 = false;
    Val s1v;
    int x = t;
    if (onlyFeeds(nodes, t, n) && nodes[t].kind == NodeKind::Binary &&
        isScalarArg(nodes[t].args[0]) != isScalarArg(nodes[t].args[1]) &&
        nodes[t].type == node.type) {
      const Node &inner = nodes[t];
      bool innerRev = isScalarArg(inner.args[0]);
      x = innerRev ? inner.args[1] : inner.args[0];
      s0v = materialize(innerRev ? inner.args[0] : inner.args[1]);
      op0 = inner.alu;
      rev0 = innerRev;
      op1 = op;
      rev1 = reverse0;
      s1v = materialize(s);
    } else {
      s0v = materialize(s);
    }
    Val src = materialize(x);
    if (src.isImm)
      src = asTile(src, nodes[x].type);
    bool actOk = isa<FloatType>(node.type) && !src.inPsum;
    for (AluOp o : {op0, op1.value_or(AluOp::add)})
      actOk &= o == AluOp::add || o == AluOp::subtract || o == AluOp::multiply;
    SmallVector<Engine, 3> engines = {Engine::vector};
    if (!src.inPsum)
      engines.push_back(Engine::gpsimd);
    if (actOk)
      engines.push_back(Engine::scalar);
    Engine e = kb->pick(Opcode::TensorScalar, engines, np, elems, src.inPsum);
    FloatAttr imm0, imm1;
    FlatSymbolRefAttr sym0, sym1;
    nisa::AccessPatternAttr ap0, ap1;
    scalarAttrs(*s0v, imm0, sym0, ap0);
    if (op1)
      scalarAttrs(s1v, imm1, sym1, ap1);
    kb->emit<nisa::TensorScalarOp>(
        e, dst.sym, dst.ap, src.sym, src.ap, op0, imm0, sym0, ap0,
        rev0 ? b.getUnitAttr() : UnitAttr(),
        op1 ? nisa::AluOpAttr::get(b.getContext(), *op1) : nisa::AluOpAttr(), imm1, sym1, ap1,
        rev1 ? b.getUnitAttr() : UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    return dst;
  }

  if (full) {
    // (x op0 s) op b in one scalar_tensor_tensor.
    for (int side = 0; side < 2; ++side) {
      int t = side ? ib : ia, other = side ? ia : ib;
      if (side && !isCommutative(op))
        break;
      if (!onlyFeeds(nodes, t, n) || nodes[t].kind != NodeKind::Binary ||
          nodes[t].type != node.type)
        continue;
      const Node &inner = nodes[t];
      if (isScalarArg(inner.args[0]) || !isScalarArg(inner.args[1]))
        continue;
      Val x = materialize(inner.args[0]);
      Val s = materialize(inner.args[1]);
      Val rhs = materialize(other);
      if (x.inPsum && rhs.inPsum)
        continue;
      bool psum = x.inPsum || rhs.inPsum;
      Engine e = kb->pick(Opcode::ScalarTensorTensor,
                          psum ? ArrayRef<Engine>{Engine::vector}
                               : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                          np, elems, psum);
      FloatAttr imm0;
      FlatSymbolRefAttr sym0;
      nisa::AccessPatternAttr ap0;
      scalarAttrs(s, imm0, sym0, ap0);
      kb->emit<nisa::ScalarTensorTensorOp>(e, dst.sym, dst.ap, x.sym, x.ap, inner.alu, imm0,
                                           sym0, ap0, op, rhs.sym, rhs.ap, DenseI64ArrayAttr(),
                                           UnitAttr());
      return dst;
    }
  }

  // Two tiles (or two row values, or a row value and an immediate).
  Val a = materialize(ia), c = materialize(ib);
  if (a.isImm && c.isImm)
    a = asTile(a, nodes[ia].type);
  if (a.isImm || c.isImm) {
    bool rev = a.isImm;
    Val t = rev ? c : a, s = rev ? a : c;
    // GpSimdE cannot read PSUM (a matmul epilogue's input).
    Engine e = kb->pick(Opcode::TensorScalar,
                        t.inPsum ? ArrayRef<Engine>{Engine::vector}
                                 : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                        np, elems);
    kb->emit<nisa::TensorScalarOp>(e, dst.sym, dst.ap, t.sym, t.ap, op,
                                   b.getF32FloatAttr(static_cast<float>(s.imm)),
                                   FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                   rev ? b.getUnitAttr() : UnitAttr(), nisa::AluOpAttr(),
                                   FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                   UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    return dst;
  }
  if (full && !a.full)
    a.ap = kb->tileAP(0, np, 0, {nc}, {0});
  if (full && !c.full)
    c.ap = kb->tileAP(0, np, 0, {nc}, {0});
  bool psum = a.inPsum || c.inPsum;
  Engine e = kb->pick(Opcode::TensorTensor,
                      psum ? ArrayRef<Engine>{Engine::vector}
                           : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                      np, elems, psum);
  kb->emit<nisa::TensorTensorOp>(e, op, dst.sym, dst.ap, a.sym, a.ap, c.sym, c.ap,
                                 DenseI64ArrayAttr(), UnitAttr());
  return dst;
}

/// Reduces the current chunk of node `r`'s argument into `dst` ([P, 1]).
Val RowKernelImpl::reduceInto(int r, Val dst) {
  const Node &node = nodes[r];
  int x = node.args[0];
  Builder &b = kb->builder();
  const Node &arg = nodes[x];
  // A sum of an activation's result: the activation accumulates it.
  if (node.alu == AluOp::add && arg.kind == NodeKind::Unary && isa<FloatType>(arg.type) &&
      isa<FloatType>(node.type) && !stepVals.count(x) && arg.outputs == 0) {
    // Users outside this step (a later pass recomputes the value) do not
    // count: a value written for nobody would be a lost write.
    bool othersNeedIt =
        llvm::any_of(arg.users, [&](int u) { return u != r && stepNeeds.contains(u); });
    Val out;
    if (othersNeedIt) {
      out = destFor(x);
    } else {
      if (!junk[1])
        junk[1] = kb->alloc(MemorySpace::sbuf, std::min<int64_t>(rows, 128), chunk,
                            b.getF32Type(), "scratch", /*discard=*/true);
      out.sym = junk[1];
      out.ap = kb->tileAP(0, np, 0, nc);
      out.full = true;
      out.type = b.getF32Type();
    }
    // Emit the activation with the accumulator attached.
    Val v = emitUnary(x, out);
    auto act = cast<nisa::ActivationOp>(kb->kernel().getBodyBlock().back());
    act.setAccAttr(dst.sym);
    act.setAccApAttr(dst.ap);
    if (othersNeedIt)
      stepVals[x] = v;
    return dst;
  }
  Val src = materialize(x);
  Engine e = kb->pick(Opcode::TensorReduce,
                      src.inPsum ? ArrayRef<Engine>{Engine::vector}
                                 : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                      np, nc, src.inPsum);
  kb->emit<nisa::TensorReduceOp>(e, node.alu, dst.sym, dst.ap, src.sym, src.ap,
                                 DenseI64ArrayAttr(), UnitAttr());
  return dst;
}

/// One chunk's contribution to reduction `r`: the first chunk writes the
/// accumulator, later ones a partial that is then combined into it.
void RowKernelImpl::accumulateReduce(int r, bool first, bool last) {
  Val acc = rowVal(r);
  if (first) {
    reduceInto(r, acc);
  } else {
    auto key = std::make_pair(r, -1 - rowTile % 2);
    FlatSymbolRefAttr partSym = tiles.lookup(key);
    if (!partSym) {
      partSym = kb->alloc(MemorySpace::sbuf, std::min<int64_t>(rows, 128), 1, nodes[r].type, "p");
      tiles[key] = partSym;
    }
    Val part;
    part.sym = partSym;
    part.ap = kb->tileAP(0, np, 0, 1);
    part.type = nodes[r].type;
    reduceInto(r, part);
    Engine e = kb->pick(Opcode::TensorTensor, {Engine::vector, Engine::gpsimd}, np, 1);
    kb->emit<nisa::TensorTensorOp>(e, nodes[r].alu, acc.sym, acc.ap, acc.sym, acc.ap, part.sym,
                                   part.ap, DenseI64ArrayAttr(), UnitAttr());
  }
  if (last)
    rowVals[r] = acc;
}

/// One chunk's bn_stats of Stats node `n` (one triple per 512 columns),
/// and on the last chunk the bn_aggr that makes (mean, variance).
Val RowKernelImpl::accumulateStats(int n, bool first, bool last) {
  const Node &node = nodes[n];
  kb->setSource(node.source);
  int slot = rowTile % 2;
  int64_t parts = std::min<int64_t>(rows, 128);
  int64_t triples = 3 * ((cols + 511) / 512 + (cols + chunk - 1) / chunk);
  auto key = std::make_pair(n, -5 - slot);
  FlatSymbolRefAttr acc = tiles.lookup(key);
  if (!acc) {
    acc = kb->alloc(MemorySpace::sbuf, parts, triples, node.type, "stats");
    tiles[key] = acc;
  }
  if (first)
    statsCount[n] = 0;
  Val x = materialize(node.args[0]);
  for (int64_t j = 0; j < nc; j += 512) {
    int64_t len = std::min<int64_t>(512, nc - j);
    kb->charge(Engine::vector, kb->estimate(Opcode::BnStats, Engine::vector, np, len));
    kb->emit<nisa::BnStatsOp>(acc, kb->tileAP(0, np, 3 * statsCount[n]++, 3), x.sym,
                              kb->tileAP(0, np, x.ap.getOffset() + j, len), DenseI64ArrayAttr(),
                              UnitAttr());
  }
  Val v;
  v.type = node.type;
  if (!last)
    return v;
  auto rkey = std::make_pair(n, -7 - slot);
  FlatSymbolRefAttr result = tiles.lookup(rkey);
  if (!result) {
    result = kb->alloc(MemorySpace::sbuf, parts, 2, node.type, "meanvar");
    tiles[rkey] = result;
  }
  kb->charge(Engine::vector,
             kb->estimate(Opcode::BnAggr, Engine::vector, np, 3 * statsCount[n]));
  kb->emit<nisa::BnAggrOp>(result, kb->tileAP(0, np, 0, 2), acc,
                           kb->tileAP(0, np, 0, 3 * statsCount[n]), DenseI64ArrayAttr(),
                           UnitAttr());
  v.sym = result;
  v.ap = kb->tileAP(0, np, 0, 2);
  rowVals[n] = v;
  return v;
}

/// The mean (0) or variance (1) column of a Stats node's result.
Val RowKernelImpl::computePart(int n) {
  Val stats = materialize(nodes[n].args[0]);
  stats.ap = kb->tileAP(0, np, static_cast<int64_t>(nodes[n].imm), 1);
  return stats;
}

/// The nodes a step must compute to produce `targets`: streamed passes stop
/// at row values (they exist from earlier passes) and at the finished
/// reductions of earlier passes.
llvm::SetVector<int> RowKernelImpl::neededNodes(ArrayRef<int> targets) {
  llvm::SetVector<int> seen;
  SmallVector<int> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    int n = stack.pop_back_val();
    bool accumulates = nodes[n].kind == NodeKind::Reduce || nodes[n].kind == NodeKind::Stats;
    if (!resident && !isFull(n) && !accumulates)
      continue;
    if (!resident && accumulates && !llvm::is_contained(targets, n))
      continue;
    if (!seen.insert(n))
      continue;
    for (int a : nodes[n].args)
      stack.push_back(a);
  }
  return seen;
}

/// The full inputs a step must load to produce `targets`.
SmallVector<int> RowKernelImpl::neededFull(ArrayRef<int> targets) {
  SmallVector<int> out;
  for (int n : neededNodes(targets))
    if (nodes[n].kind == NodeKind::Input && isFull(n) && !hoisted.count(n))
      out.push_back(n);
  llvm::sort(out);
  return out;
}

void RowKernel::emit(KernelBuilder &kb) { impl->emit(kb); }

void RowKernelImpl::emit(KernelBuilder &builder) {
  kb = &builder;
  // Inputs that do not change from one row tile to the next are loaded once.
  uint64_t pmask = (uint64_t(1) << pdims.size()) - 1;
  int64_t rowTiles = (rows + 127) / 128;
  struct Step {
    int rowTile;
    int phase;
    int64_t c0, nc;
    SmallVector<int> targets;
    SmallVector<int> loads;
  };
  SmallVector<Step> steps;
  SmallVector<int> fullOutputs, rowOutputs;
  for (const OutputInfo &o : outputs)
    (isFull(o.node) ? fullOutputs : rowOutputs).push_back(o.node);
  p0 = 0;
  np = std::min<int64_t>(rows, 128);
  c0 = 0;
  nc = chunk;
  if (resident && rowTiles > 1) {
    for (const InputInfo &in : inputs) {
      int n = in.node;
      if (isFull(n) && !(nodes[n].mask & pmask)) {
        Val v;
        v.sym = kb->alloc(MemorySpace::sbuf, np, chunk, nodes[n].type, "w");
        v.ap = kb->tileAP(0, np, 0, chunk);
        v.type = nodes[n].type;
        v.full = true;
        loadInput(n, v);
        hoisted[n] = v;
      }
    }
  }
  for (int64_t rt = 0; rt < rowTiles; ++rt) {
    if (resident) {
      Step s{static_cast<int>(rt), phases - 1, 0, cols, {}, {}};
      for (int o : fullOutputs)
        s.targets.push_back(o);
      for (int o : rowOutputs)
        s.targets.push_back(o);
      steps.push_back(s);
      continue;
    }
    // One pass per level of reductions, then one computing the outputs.
    int reducePasses = 0;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].kind == NodeKind::Reduce || nodes[i].kind == NodeKind::Stats)
        reducePasses = std::max(reducePasses, ready[i]);
    int passes = reducePasses + (fullOutputs.empty() ? 0 : 1);
    for (int ph = 0; ph < passes; ++ph)
      for (int64_t c = 0; c < cols; c += chunk) {
        Step s{static_cast<int>(rt), ph, c, std::min(chunk, cols - c), {}, {}};
        if (ph < reducePasses) {
          for (size_t i = 0; i < nodes.size(); ++i)
            if ((nodes[i].kind == NodeKind::Reduce || nodes[i].kind == NodeKind::Stats) &&
                ready[i] == ph + 1)
              s.targets.push_back(i);
        } else {
          for (int o : fullOutputs)
            s.targets.push_back(o);
        }
        steps.push_back(s);
      }
  }
  for (Step &s : steps)
    s.loads = neededFull(s.targets);

  // Inputs with one value per row, loaded with the first step of each row
  // tile (into the row tile's parity slot).
  SmallVector<int> rowInputs;
  for (const InputInfo &in : inputs)
    if (!isFull(in.node) && nodes[in.node].kind == NodeKind::Input)
      rowInputs.push_back(in.node);

  SmallVector<DenseMap<int, Val>> loaded(steps.size()), loadedRows(steps.size());
  auto issueLoads = [&](size_t i) {
    Step &s = steps[i];
    p0 = s.rowTile * 128;
    np = std::min<int64_t>(128, rows - p0);
    c0 = s.c0;
    nc = s.nc;
    if (i == 0 || steps[i - 1].rowTile != s.rowTile)
      for (int n : rowInputs) {
        Val v;
        v.sym = tileFor(n, false, s.rowTile % 2);
        v.ap = kb->tileAP(0, np, 0, 1);
        v.type = nodes[n].type;
        loadInput(n, v);
        loadedRows[i][n] = v;
      }
    for (int n : s.loads) {
      int slot = useCount[n]++ % nbuf;
      Val v = fullVal(n, slot);
      loadInput(n, v);
      loaded[i][n] = v;
    }
  };
  // With two buffers the loads of step i+1 go to the other one and are
  // issued before step i computes. With one they would overwrite what step
  // i still reads, so they wait for it.
  bool prefetch = nbuf >= 2;
  if (!steps.empty() && prefetch)
    issueLoads(0);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!prefetch)
      issueLoads(i);
    else if (i + 1 < steps.size())
      issueLoads(i + 1);
    Step &s = steps[i];
    p0 = s.rowTile * 128;
    np = std::min<int64_t>(128, rows - p0);
    c0 = s.c0;
    nc = s.nc;
    if (i == 0 || steps[i - 1].rowTile != s.rowTile) {
      rowTile = s.rowTile;
      rowVals.clear();
      negated.clear();
      storedRows.clear();
      for (auto &[n, v] : loadedRows[i]) {
        rowVals[n] = v;
        storeRowOutput(n, v); // an input that is also an output
      }
    }
    stepVals = loaded[i];
    stepSlot.clear();
    stepNeeds.clear();
    for (int n : neededNodes(s.targets))
      stepNeeds.insert(n);
    bool lastChunk = s.c0 + s.nc == cols;
    bool firstChunk = s.c0 == 0;
    for (int t : s.targets) {
      if (nodes[t].kind == NodeKind::Reduce && !resident) {
        accumulateReduce(t, firstChunk, lastChunk);
        continue;
      }
      if (nodes[t].kind == NodeKind::Stats && !resident) {
        accumulateStats(t, firstChunk, lastChunk);
        continue;
      }
      Val v = materialize(t);
      if (isFull(t))
        for (const OutputInfo &o : outputs)
          if (o.node == t) {
            Val src = v;
            if (src.isImm)
              src = asTile(src, nodes[t].type);
            HbmView view = viewOf(o.buf, o.strides, true);
            kb->setSource(nodes[t].source ? nodes[t].source : spec.ops.back());
            kb->transfer(false, src.sym, nodes[t].type, 0, 0, view, p0, np, c0, nc);
          }
    }
    // Row outputs of a streamed kernel exist once its reductions are done.
    bool lastOfRowTile = i + 1 == steps.size() || steps[i + 1].rowTile != s.rowTile;
    if (!resident && lastOfRowTile)
      for (int o : rowOutputs)
        storeRowOutput(o, materialize(o));
  }
}

void RowKernel::emitEpilogue(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                             FlatSymbolRefAttr psum, int64_t psumOffset) {
  impl->emitEpilogue(kb, r0, nr, c0, nc, psum, psumOffset);
}

void RowKernelImpl::emitEpilogue(KernelBuilder &builder, int64_t r0, int64_t nr, int64_t cs,
                                 int64_t ncols, FlatSymbolRefAttr psum, int64_t off) {
  kb = &builder;
  p0 = r0;
  np = nr;
  c0 = cs;
  nc = ncols;
  chunk = std::max(chunk, ncols);
  nbuf = 2;
  psumTile = psum;
  psumOffset = off;
  ++rowTile;
  rowVals.clear();
  negated.clear();
  stepVals.clear();
  stepSlot.clear();
  // Inputs first, so their DMA starts before the engines need them.
  SmallVector<int> targets;
  for (const OutputInfo &o : outputs)
    targets.push_back(o.node);
  stepNeeds.clear();
  for (int n : neededNodes(targets))
    stepNeeds.insert(n);
  for (int n : neededFull(targets)) {
    Val v = destFor(n);
    loadInput(n, v);
    stepVals[n] = v;
  }
  for (const OutputInfo &o : outputs) {
    Val v = materialize(o.node);
    HbmView view = viewOf(o.buf, o.strides, true);
    kb->transfer(false, v.sym, nodes[o.node].type, 0, 0, view, p0, np, c0, nc);
  }
}

//===----------------------------------------------------------------------===//
// RowKernel
//===----------------------------------------------------------------------===//

RowKernel::RowKernel(std::unique_ptr<RowKernelImpl> impl) : impl(std::move(impl)) {}
RowKernel::~RowKernel() = default;
RowKernel::RowKernel(RowKernel &&) = default;

std::optional<RowKernel> RowKernel::plan(RowKernelSpec spec, const neuronc::HardwareModel &hw,
                                         std::string &why) {
  auto impl = std::make_unique<RowKernelImpl>(std::move(spec), hw);
  if (failed(impl->analyze(why)))
    return std::nullopt;
  return RowKernel(std::move(impl));
}

RowKernel::Layout RowKernel::layout() const { return {impl->chunk, impl->nbuf}; }

SmallVector<RowKernel::Layout> RowKernel::fasterLayouts() const {
  SmallVector<Layout> out;
  if (impl->spec.psum)
    return out;
  Layout planned = layout();
  for (Layout l : {Layout{impl->cols, 2}, Layout{impl->cols, 1}}) {
    if (l == planned)
      break;
    // One buffer cannot overlap loads with compute; it pays only when it
    // saves the streamed passes' second read of the inputs.
    if (l.buffers == 1 && !impl->hasReduction)
      continue;
    out.push_back(l);
  }
  return out;
}

void RowKernel::setLayout(Layout l) {
  impl->chunk = l.chunk;
  impl->nbuf = l.buffers;
  impl->nchunks = (impl->cols + l.chunk - 1) / l.chunk;
  impl->resident = impl->nchunks == 1;
}

int64_t RowKernel::epilogueBytesPerPartition(int64_t nc) const {
  return impl->bytesPerColumn() * nc * 2;
}
int64_t RowKernel::numRows() const { return impl->rows; }
int64_t RowKernel::numCols() const { return impl->cols; }
std::string RowKernel::describe() const { return impl->describe(); }

} // namespace mlir::neuron::lowering
