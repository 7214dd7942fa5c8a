//===- NamedKernels.h - The named row kernels as primitive steps -*- C++ -*-===//
//
// The one definition of what neuron.rmsnorm, neuron.layernorm and
// neuron.softmax compute, as steps over a builder. Two builders instantiate
// it: the `neuron-decompose-named-kernels` rewrite (neuron ops, checked
// against the interpreter's reference kernels) and the row-kernel lowering
// (nodes that become engine instructions), so the lowering has no
// definition of its own.
//
// A builder `B` has a value type `B::Value` and provides, all computing in
// f32 over the op's rows:
//   Value input(unsigned i);              operand i of the op
//   Value constant(double v);             a scalar
//   Value square(Value), rsqrt(Value), exp(Value), log(Value),
//         reciprocal(Value);
//   Value mul(Value, Value, bool out), add(...), sub(...);
//                                         `out`: the op's result, written in
//                                         its element type
//   Value sum(Value), max(Value);          reduced over the op's axes
//   double count();                       elements each reduction combines
//   std::pair<Value, Value> meanAndVariance(Value x);
//                                         (mean, population variance); a
//                                         builder without a better way calls
//                                         meanAndVarianceBySums below.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_NEURON_NAMEDKERNELS_H
#define NEURONC_DIALECT_NEURON_NAMEDKERNELS_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include <utility>

namespace mlir::neuron {

/// mean = Σx / N; var = Σ(x - mean)² / N.
template <typename B>
std::pair<typename B::Value, typename B::Value> meanAndVarianceBySums(B &b,
                                                                     typename B::Value x) {
  double inv = 1.0 / b.count();
  auto mean = b.mul(b.sum(x), b.constant(inv), false);
  auto d = b.sub(x, mean, false);
  auto var = b.mul(b.sum(b.square(d)), b.constant(inv), false);
  return {mean, var};
}

/// y = x * rsqrt(Σx² / N + eps) [* weight]
template <typename B>
typename B::Value decompose(B &b, RmsNormOp op) {
  auto x = b.input(0);
  auto ss = b.sum(b.square(x));
  auto t = b.mul(ss, b.constant(1.0 / b.count()), false);
  t = b.add(t, b.constant(op.getEpsilon().convertToFloat()), false);
  auto r = b.rsqrt(t);
  bool weighted = static_cast<bool>(op.getWeight());
  auto y = b.mul(x, r, !weighted);
  if (weighted)
    y = b.mul(y, b.input(1), true);
  return y;
}

/// y = (x - mean) * rsqrt(var + eps) [* weight] [+ bias]
template <typename B>
typename B::Value decompose(B &b, LayerNormOp op) {
  auto x = b.input(0);
  auto [mean, var] = b.meanAndVariance(x);
  auto c = b.sub(x, mean, false);
  auto t = b.add(var, b.constant(op.getEpsilon().convertToFloat()), false);
  auto r = b.rsqrt(t);
  bool weighted = static_cast<bool>(op.getWeight()), biased = static_cast<bool>(op.getBias());
  auto y = b.mul(c, r, !weighted && !biased);
  unsigned next = 1;
  if (weighted)
    y = b.mul(y, b.input(next++), !biased);
  if (biased)
    y = b.add(y, b.input(next++), true);
  return y;
}

/// m = max x; d = x - m; e = exp d; y = e / Σe, or d - log Σe with `log`.
template <typename B>
typename B::Value decompose(B &b, SoftmaxOp op) {
  auto x = b.input(0);
  auto m = b.max(x);
  auto d = b.sub(x, m, false);
  auto e = b.exp(d);
  auto s = b.sum(e);
  if (op.getLog())
    return b.sub(d, b.log(s), true);
  return b.mul(e, b.reciprocal(s), true);
}

} // namespace mlir::neuron

#endif // NEURONC_DIALECT_NEURON_NAMEDKERNELS_H
