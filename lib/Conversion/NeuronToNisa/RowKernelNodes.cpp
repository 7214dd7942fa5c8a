//===- RowKernelNodes.cpp - The ops of a row kernel as nodes -----------===//
//
// Each op becomes nodes (inputs, immediates, unary and binary functions,
// selects, casts, reductions, statistics). Named ops (rmsnorm, layernorm,
// softmax) are built from their one definition in
// neuronc/Dialect/Neuron/NamedKernels.h; this file only says how its steps
// become nodes (layernorm's mean and variance by bn_stats/bn_aggr).
//
//===----------------------------------------------------------------------===//

#include "RowKernelImpl.h"

#include "neuronc/Dialect/Neuron/NamedKernels.h"
#include "neuronc/Support/Activations.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace mlir::neuron::lowering {

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

int RowKernelImpl::trig(UKind k, int x, Operation *src, Type t) {
  // r = (turns · −2π_hi + x) + turns · −2π_lo with turns = round(x / 2π), in
  // f32 as neuronc::reduceAngle computes it. Instruction selection folds the
  // product into the rounding activation's scale and each multiply-add into
  // one scalar_tensor_tensor.
  // The sin and cos of one angle (RoPE's tables) share the reduction.
  auto [it, inserted] = reducedAngles.try_emplace(x, -1);
  if (inserted) {
    Type f32 = Float32Type::get(src->getContext());
    auto mul = [&](int a, double c) { return binary(AluOp::multiply, a, imm(c, f32), src, f32); };
    auto add = [&](int a, int b) { return binary(AluOp::add, a, b, src, f32); };
    int turns = unary(UKind::Round, mul(x, neuronc::kInvTwoPi), src, f32);
    int hi = add(mul(turns, -neuronc::kTwoPiHi), x);
    it->second = add(mul(turns, -neuronc::kTwoPiLo), hi);
  }
  return unary(k, it->second, src, t);
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

int RowKernelImpl::reduceRows(int x, AluOp alu, Operation *src, Type t, bool unitOnly) {
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
}

namespace {
/// Builds a named kernel's nodes from its one definition (NamedKernels.h):
/// f32 steps, the last written in the result's element type, and (mean,
/// variance) of full rows by bn_stats/bn_aggr.
class NodeSteps {
public:
  using Value = int;
  NodeSteps(RowKernelImpl &k, Operation *op, bool unitOnly, Type resultType, std::string &why)
      : k(k), op(op), unitOnly(unitOnly), rt(resultType), why(why),
        f32(Float32Type::get(op->getContext())) {}

  int input(unsigned i) { return k.nodeFor(op->getOperand(i), why); }
  int constant(double v) { return k.imm(v, f32); }
  int square(int a) { return k.unary(UKind::Square, a, op, f32); }
  int rsqrt(int a) { return k.unary(UKind::Rsqrt, a, op, f32); }
  int exp(int a) { return k.unary(UKind::Exp, a, op, f32); }
  int log(int a) { return k.unary(UKind::Log, a, op, f32); }
  int reciprocal(int a) { return k.unary(UKind::Reciprocal, a, op, f32); }
  int mul(int a, int b, bool out) { return k.binary(AluOp::multiply, a, b, op, out ? rt : f32); }
  int add(int a, int b, bool out) { return k.binary(AluOp::add, a, b, op, out ? rt : f32); }
  int sub(int a, int b, bool out) { return k.binary(AluOp::subtract, a, b, op, out ? rt : f32); }
  int sum(int a) { return k.reduceRows(a, AluOp::add, op, f32, unitOnly); }
  int max(int a) { return k.reduceRows(a, AluOp::max, op, f32, unitOnly); }
  double count() const { return unitOnly ? 1.0 : static_cast<double>(k.cols); }

  /// Full rows: one bn_stats/bn_aggr pass gives both; otherwise by sums.
  std::pair<int, int> meanAndVariance(int x) {
    if (unitOnly || !k.isFull(x))
      return meanAndVarianceBySums(*this, x);
    Node st;
    st.kind = NodeKind::Stats;
    st.args = {x};
    st.source = op;
    st.type = f32;
    st.mask = k.nodes[x].mask & ~k.fmask;
    int stats = k.addNode(st);
    k.hasReduction = true;
    auto part = [&](int which) {
      Node pt;
      pt.kind = NodeKind::Part;
      pt.args = {stats};
      pt.imm = which;
      pt.source = op;
      pt.type = f32;
      pt.mask = k.nodes[stats].mask;
      return k.addNode(pt);
    };
    int mean = part(0);
    return {mean, part(1)};
  }

private:
  RowKernelImpl &k;
  Operation *op;
  bool unitOnly;
  Type rt;
  std::string &why;
  Type f32;
};
} // namespace

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
      // An operand of the hero only: the matmul or convolution reads it.
      if (!c->use_empty() && llvm::all_of(c->getUsers(), [](Operation *u) {
            return isa<MatmulOp, ConvOp>(u);
          }))
        continue;
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
    if (isa<MatmulOp, ConvOp>(op)) {
      Node n;
      n.kind = NodeKind::Psum;
      n.type = f32;
      n.mask = maskOf(op->getResult(0));
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
      bool periodic = *k == UKind::Sin || *k == UKind::Cos;
      set(periodic ? trig(*k, a, op, rt) : unary(*k, a, op, rt));
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
    if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op)) {
      int x = arg(0);
      // Reducing only unit dims changes nothing.
      auto shape = cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
      auto axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
      if (llvm::none_of(axes, [&](int64_t a) { return shape[a] > 1; })) {
        set(x);
        continue;
      }
      int r = reduceRows(x, reduceAlu(op), op, rt, unitOnly);
      if (isa<ReduceMeanOp>(op))
        r = binary(AluOp::multiply, r, imm(1.0 / cols, rt), op, rt);
      set(r);
      continue;
    }
    if (isa<RmsNormOp, LayerNormOp, SoftmaxOp>(op)) {
      NodeSteps steps(*this, op, unitOnly, rt, why);
      if (auto n = dyn_cast<RmsNormOp>(op))
        set(decompose(steps, n));
      else if (auto n = dyn_cast<LayerNormOp>(op))
        set(decompose(steps, n));
      else
        set(decompose(steps, cast<SoftmaxOp>(op)));
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

} // namespace mlir::neuron::lowering
