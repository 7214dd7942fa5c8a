//===- Evaluate.cpp - Executing one neuron op on host tensors ------------===//

#include "neuronc/Dialect/Neuron/Evaluate.h"

#include "neuronc/Dialect/Neuron/HostTensor.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Host/Kernels.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;
using neuronc::Tensor;
namespace ref = neuronc::ref;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

ref::CompareKind compareKind(ComparePredicate p) {
  switch (p) {
  case ComparePredicate::eq: return ref::CompareKind::EQ;
  case ComparePredicate::lt: return ref::CompareKind::LT;
  case ComparePredicate::le: return ref::CompareKind::LE;
  case ComparePredicate::gt: return ref::CompareKind::GT;
  case ComparePredicate::ge: return ref::CompareKind::GE;
  }
  llvm_unreachable("unknown predicate");
}

/// The optional operand at `index` of `ops` when `present`, else null.
const Tensor *optional(ArrayRef<Tensor> ops, bool present, size_t &index) {
  return present ? &ops[index++] : nullptr;
}

} // namespace

llvm::Expected<Tensor> mlir::neuron::evaluateOp(Operation *op, ArrayRef<Tensor> in) {
  auto binaryOp = [&](ref::BinaryKind k) { return ref::binary(k, in[0], in[1]); };
  auto unaryOp = [&](ref::UnaryKind k) { return ref::unary(k, in[0]); };
  auto shapeOf = [&](Value v) { return cast<RankedTensorType>(v.getType()).getShape(); };

  return llvm::TypeSwitch<Operation *, llvm::Expected<Tensor>>(op)
      .Case([&](ConstantOp c) -> llvm::Expected<Tensor> {
        std::optional<Tensor> t = toHostTensor(c.getValue());
        if (!t && isa<DenseResourceElementsAttr>(c.getValue()))
          return fail("cannot read the constant's values: they are a dense_resource blob "
                      "(write them inline as dense<...>)");
        if (!t)
          return fail("cannot read the constant's values (f64/i64 constants must be "
                      "converted to f32/i32 first)");
        return *t;
      })
      .Case([&](AddOp) { return binaryOp(ref::BinaryKind::Add); })
      .Case([&](SubOp) { return binaryOp(ref::BinaryKind::Sub); })
      .Case([&](MulOp) { return binaryOp(ref::BinaryKind::Mul); })
      .Case([&](DivOp) { return binaryOp(ref::BinaryKind::Div); })
      .Case([&](MaxOp) { return binaryOp(ref::BinaryKind::Max); })
      .Case([&](MinOp) { return binaryOp(ref::BinaryKind::Min); })
      .Case([&](PowOp) { return binaryOp(ref::BinaryKind::Pow); })
      .Case([&](BitwiseAndOp) { return binaryOp(ref::BinaryKind::BitAnd); })
      .Case([&](BitwiseOrOp) { return binaryOp(ref::BinaryKind::BitOr); })
      .Case([&](BitwiseXorOp) { return binaryOp(ref::BinaryKind::BitXor); })
      .Case([&](ShiftLeftOp) { return binaryOp(ref::BinaryKind::Shl); })
      .Case([&](ShiftRightOp) { return binaryOp(ref::BinaryKind::ShrS); })
      .Case([&](ShiftRightLogicalOp) { return binaryOp(ref::BinaryKind::ShrU); })
      .Case([&](CompareOp c) {
        return ref::compare(compareKind(c.getPredicate()), in[0], in[1]);
      })
      .Case([&](SelectOp) { return ref::select(in[0], in[1], in[2]); })
      .Case([&](NegOp) { return unaryOp(ref::UnaryKind::Neg); })
      .Case([&](AbsOp) { return unaryOp(ref::UnaryKind::Abs); })
      .Case([&](ExpOp) { return unaryOp(ref::UnaryKind::Exp); })
      .Case([&](LogOp) { return unaryOp(ref::UnaryKind::Log); })
      .Case([&](SqrtOp) { return unaryOp(ref::UnaryKind::Sqrt); })
      .Case([&](RsqrtOp) { return unaryOp(ref::UnaryKind::Rsqrt); })
      .Case([&](ReciprocalOp) { return unaryOp(ref::UnaryKind::Reciprocal); })
      .Case([&](SquareOp) { return unaryOp(ref::UnaryKind::Square); })
      .Case([&](TanhOp) { return unaryOp(ref::UnaryKind::Tanh); })
      .Case([&](SigmoidOp) { return unaryOp(ref::UnaryKind::Sigmoid); })
      .Case([&](ErfOp) { return unaryOp(ref::UnaryKind::Erf); })
      .Case([&](SinOp) { return unaryOp(ref::UnaryKind::Sin); })
      .Case([&](CosOp) { return unaryOp(ref::UnaryKind::Cos); })
      .Case([&](SiluOp) { return unaryOp(ref::UnaryKind::Silu); })
      .Case([&](ReluOp) { return unaryOp(ref::UnaryKind::Relu); })
      .Case([&](RoundOp) { return unaryOp(ref::UnaryKind::Round); })
      .Case([&](FloorOp) { return unaryOp(ref::UnaryKind::Floor); })
      .Case([&](CeilOp) { return unaryOp(ref::UnaryKind::Ceil); })
      .Case([&](GeluOp g) {
        return unaryOp(g.getApproximate() == GeluApproximation::tanh ? ref::UnaryKind::GeluTanh
                                                                     : ref::UnaryKind::GeluErf);
      })
      .Case([&](ReduceSumOp r) {
        return ref::reduce(ref::ReduceKind::Sum, in[0], r.getAxes(), r.getKeepdims());
      })
      .Case([&](ReduceMeanOp r) {
        return ref::reduce(ref::ReduceKind::Mean, in[0], r.getAxes(), r.getKeepdims());
      })
      .Case([&](ReduceMaxOp r) {
        return ref::reduce(ref::ReduceKind::Max, in[0], r.getAxes(), r.getKeepdims());
      })
      .Case([&](ReduceMinOp r) {
        return ref::reduce(ref::ReduceKind::Min, in[0], r.getAxes(), r.getKeepdims());
      })
      .Case([&](ReduceProdOp r) {
        return ref::reduce(ref::ReduceKind::Prod, in[0], r.getAxes(), r.getKeepdims());
      })
      .Case([&](MatmulOp m) -> llvm::Expected<Tensor> {
        std::optional<neuronc::DType> out = toDType(m.getResult().getType().getElementType());
        if (!out)
          return fail("unsupported matmul result type");
        return ref::matmul(in[0], in[1], m.getTransposeLhs(), m.getTransposeRhs(), *out);
      })
      .Case([&](TransposeOp t) { return ref::transpose(in[0], t.getPerm()); })
      .Case([&](ReshapeOp r) -> llvm::Expected<Tensor> {
        // A same-rank reshape whose static dims all match the input keeps
        // the input's shape (this is how a tensor.cast to dynamic dims
        // imports); otherwise one dynamic dim takes what the count leaves.
        neuronc::Shape shape(shapeOf(r.getResult()));
        if (static_cast<int64_t>(shape.size()) == in[0].rank()) {
          bool keeps = true;
          for (auto [want, have] : llvm::zip(shape, in[0].shape()))
            keeps &= want == ShapedType::kDynamic || want == have;
          if (keeps)
            return in[0];
        }
        int64_t known = 1, dynamicAt = -1;
        for (auto [i, d] : llvm::enumerate(shape)) {
          if (d == ShapedType::kDynamic) {
            if (dynamicAt >= 0)
              return fail("reshape to a shape with more than one dynamic dim is ambiguous");
            dynamicAt = static_cast<int64_t>(i);
          } else {
            known *= d;
          }
        }
        if (dynamicAt >= 0)
          shape[dynamicAt] = known ? in[0].numel() / known : 0;
        return ref::reshape(in[0], shape);
      })
      .Case([&](BroadcastToOp b) -> llvm::Expected<Tensor> {
        neuronc::Shape shape(shapeOf(b.getResult()));
        if (neuronc::numElements(shape) < 0)
          return fail("broadcast_to a dynamic shape is not executable");
        return ref::broadcastTo(in[0], shape);
      })
      .Case([&](SliceOp s) {
        return ref::slice(in[0], s.getOffsets(), s.getSizes(), s.getStrides());
      })
      .Case([&](ConcatOp c) { return ref::concat(in, c.getAxis()); })
      .Case([&](GatherOp g) { return ref::gather(in[0], in[1], g.getAxis()); })
      .Case([&](CastOp c) -> llvm::Expected<Tensor> {
        std::optional<neuronc::DType> to = toDType(c.getResult().getType().getElementType());
        if (!to)
          return fail("unsupported cast target type");
        return ref::cast(in[0], *to);
      })
      .Case([&](RmsNormOp r) {
        size_t next = 1;
        const Tensor *w = optional(in, static_cast<bool>(r.getWeight()), next);
        return ref::rmsnorm(in[0], w, r.getAxes(), r.getEpsilon().convertToFloat());
      })
      .Case([&](LayerNormOp l) {
        size_t next = 1;
        const Tensor *w = optional(in, static_cast<bool>(l.getWeight()), next);
        const Tensor *b = optional(in, static_cast<bool>(l.getBias()), next);
        return ref::layernorm(in[0], w, b, l.getAxes(), l.getEpsilon().convertToFloat());
      })
      .Case([&](AttentionOp a) -> llvm::Expected<Tensor> {
        std::optional<neuronc::DType> out = toDType(a.getResult().getType().getElementType());
        if (!out)
          return fail("unsupported attention result type");
        size_t next = 3;
        const Tensor *mask = optional(in, static_cast<bool>(a.getMask()), next);
        if (!a.getKeyTransposed())
          return ref::attention(in[0], in[1], in[2], mask, a.getScale().convertToFloat(),
                                a.getCausalOffset(), *out);
        SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, in[1].rank()));
        std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
        llvm::Expected<Tensor> k = ref::transpose(in[1], perm);
        if (!k)
          return k.takeError();
        return ref::attention(in[0], *k, in[2], mask, a.getScale().convertToFloat(),
                              a.getCausalOffset(), *out);
      })
      .Case([&](ConvOp c) -> llvm::Expected<Tensor> {
        std::optional<neuronc::DType> out = toDType(c.getResult().getType().getElementType());
        if (!out)
          return fail("unsupported conv result type");
        size_t next = 2;
        const Tensor *bias = optional(in, static_cast<bool>(c.getBias()), next);
        return ref::conv(in[0], in[1], bias, c.getGroups(), c.getStrides(), c.getPadding(),
                         c.getDilations(), *out);
      })
      .Case([&](PoolOp p) {
        return ref::pool(p.getKind() == PoolKind::max, in[0], p.getKernel(), p.getStrides(),
                         p.getPadding(), p.getCountIncludePad());
      })
      .Case([&](SoftmaxOp s) { return ref::softmax(in[0], s.getAxis(), s.getLog()); })
      .Case<AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp, SendRecvOp>(
          [&](auto a) -> llvm::Expected<Tensor> {
            return fail(a->getName().getStringRef() + " combines the values of " +
                        llvm::Twine(a.getGroup()) +
                        " cores and the interpreter runs one: run the program on the "
                        "simulator with its group (neuron-run --tp for a program it shards), "
                        "or the unsharded one here");
          })
      .Default([&](Operation *other) -> llvm::Expected<Tensor> {
        return fail("'" + other->getName().getStringRef() + "' has no reference kernel");
      });
}
