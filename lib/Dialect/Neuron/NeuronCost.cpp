//===- NeuronCost.cpp - CostOpInterface of the neuron ops ----------------===//
//
// Each op states its FLOPs, transcendental evaluations and bytes moved.
// Elementwise ops and reductions get theirs from the ODS classes (see
// NeuronOps.td); the ops with a shape of their own are here. The constants
// per element are documented in docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// Bytes of every operand read once plus every result written once.
std::optional<OpCost> memoryCost(Operation *op) {
  OpCost c;
  for (Value v : op->getOperands()) {
    std::optional<int64_t> b = tensorBytes(v.getType());
    if (!b)
      return std::nullopt;
    c.bytesRead += *b;
  }
  for (Value v : op->getResults()) {
    std::optional<int64_t> b = tensorBytes(v.getType());
    if (!b)
      return std::nullopt;
    c.bytesWritten += *b;
  }
  return c;
}

int64_t numElements(Value v) { return cast<RankedTensorType>(v.getType()).getNumElements(); }

/// A normalization: `perElement` flops per input element plus one
/// transcendental (rsqrt, or exp for softmax) per element or per row.
std::optional<OpCost> normCost(Operation *op, int64_t perElement, int64_t transPerElement,
                               int64_t rowLen) {
  std::optional<OpCost> c = memoryCost(op);
  if (!c)
    return std::nullopt;
  int64_t n = numElements(op->getOperand(0));
  c->flops = perElement * n;
  c->transcendentals = transPerElement ? transPerElement * n : (rowLen ? n / rowLen : 0);
  return c;
}

int64_t rowLength(RankedTensorType t, ArrayRef<int64_t> axes) {
  int64_t len = 1;
  for (int64_t a : axes)
    len *= t.getDimSize(a);
  return len;
}

} // namespace

std::optional<OpCost> mlir::neuron::detail::elementwiseCost(Operation *op, int64_t flops, int64_t trans) {
  std::optional<OpCost> c = memoryCost(op);
  if (!c)
    return std::nullopt;
  int64_t n = numElements(op->getResult(0));
  c->flops = flops * n;
  c->transcendentals = trans * n;
  return c;
}

std::optional<OpCost> mlir::neuron::detail::reductionCost(Operation *op) {
  std::optional<OpCost> c = memoryCost(op);
  if (!c)
    return std::nullopt;
  c->flops = numElements(op->getOperand(0));
  return c;
}

/// Constants live in the executable and are loaded by their users.
std::optional<OpCost> ConstantOp::getCost() { return OpCost{}; }

/// 2·M·N·K per batch (a multiply and an add per term).
std::optional<OpCost> MatmulOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  auto lhs = getLhs().getType();
  int64_t k = getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                : lhs.getDimSize(lhs.getRank() - 1);
  c->flops = 2 * numElements(getResult()) * k;
  return c;
}

/// One add per element and core of the group; the link traffic is the
/// simulator's (ring all-reduce), the HBM traffic reads and writes it once.
std::optional<OpCost> AllReduceOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  c->flops = numElements(getResult()) * (getGroup() - 1);
  return c;
}

/// Pure data movement: no arithmetic.
std::optional<OpCost> AllGatherOp::getCost() { return memoryCost(*this); }
std::optional<OpCost> AllToAllOp::getCost() { return memoryCost(*this); }
std::optional<OpCost> SendRecvOp::getCost() { return memoryCost(*this); }

/// One add per element of the whole tensor and core of the group.
std::optional<OpCost> ReduceScatterOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  c->flops = numElements(getInput()) * (getGroup() - 1);
  return c;
}
std::optional<OpCost> TransposeOp::getCost() { return memoryCost(*this); }
std::optional<OpCost> BroadcastToOp::getCost() { return memoryCost(*this); }
std::optional<OpCost> ConcatOp::getCost() { return memoryCost(*this); }

/// Reshape only relabels the shape of a row-major buffer: nothing moves.
std::optional<OpCost> ReshapeOp::getCost() {
  if (!memoryCost(*this))
    return std::nullopt;
  return OpCost{};
}

/// A slice reads only the elements it keeps.
std::optional<OpCost> SliceOp::getCost() {
  std::optional<int64_t> b = tensorBytes(getResult().getType());
  if (!b)
    return std::nullopt;
  return OpCost{0, 0, *b, *b};
}

/// A gather reads its indices and the rows it picks.
std::optional<OpCost> GatherOp::getCost() {
  std::optional<int64_t> idx = tensorBytes(getIndices().getType());
  std::optional<int64_t> out = tensorBytes(getResult().getType());
  if (!idx || !out)
    return std::nullopt;
  return OpCost{0, 0, *idx + *out, *out};
}

/// A kernel reads its inputs and writes its results once; what its body
/// computes stays on chip, so only the arithmetic of the body counts.
/// A hand-written kernel's cost is what its instructions cost; the graph
/// level does not know it.
std::optional<OpCost> CustomKernelOp::getCost() { return std::nullopt; }

std::optional<OpCost> KernelOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  for (Operation &op : getBody().front().without_terminator()) {
    auto inner = dyn_cast<CostOpInterface>(op);
    std::optional<OpCost> ic = inner ? inner.getCost() : std::nullopt;
    if (!ic)
      return std::nullopt;
    c->flops += ic->flops;
    c->transcendentals += ic->transcendentals;
  }
  return c;
}

/// square, sum, scale, weight: 4 flops per element; one rsqrt per row.
std::optional<OpCost> RmsNormOp::getCost() {
  return normCost(*this, 4, 0, rowLength(getInput().getType(), getAxes()));
}

/// sum, subtract, square, sum, scale, weight, bias: 7 flops per element.
std::optional<OpCost> LayerNormOp::getCost() {
  return normCost(*this, 7, 0, rowLength(getInput().getType(), getAxes()));
}

/// Two matmuls (2·D and 2·Dv flops per score) plus scale, mask, max,
/// subtract, sum and normalize (6 per score) and one exp per score. Masked
/// scores a causal offset skips are still counted: the bound is the dense one.
std::optional<OpCost> AttentionOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  auto q = getQuery().getType();
  int64_t rank = q.getRank();
  int64_t n = getValue().getType().getDimSize(rank - 2);
  int64_t dv = getValue().getType().getDimSize(rank - 1);
  int64_t scores = numElements(getQuery()) / q.getDimSize(rank - 1) * n;
  c->flops = scores * (2 * q.getDimSize(rank - 1) + 2 * dv + 6);
  c->transcendentals = scores;
  return c;
}

/// max, subtract, sum, scale: 4 flops and one exp per element.
std::optional<OpCost> SoftmaxOp::getCost() { return normCost(*this, 4, 1, 0); }

/// 2 flops (multiply, add) per output element, input channel of its group
/// and kernel tap; padded taps are counted, as the dense bound does.
std::optional<OpCost> ConvOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  auto w = getWeight().getType();
  int64_t perOutput = w.getNumElements() / w.getDimSize(0); // C / groups x taps
  c->flops = 2 * numElements(getResult()) * perOutput;
  return c;
}

/// One max or add per output element and window tap (plus the average's
/// scale).
std::optional<OpCost> PoolOp::getCost() {
  std::optional<OpCost> c = memoryCost(*this);
  if (!c)
    return std::nullopt;
  int64_t taps = 1;
  for (int64_t k : getKernel())
    taps *= k;
  c->flops = numElements(getResult()) * (taps + (getKind() == PoolKind::avg ? 1 : 0));
  return c;
}
