//===- RefineShapes.cpp - neuron-refine-shapes -----------------------------===//
//
// Forward propagation of static shapes through the neuron ops, with the
// shape rules of lib/Support/Shape.cpp (the ones the verifiers use).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Support/Shape.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONREFINESHAPESPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

std::optional<SmallVector<int64_t>> staticShape(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  return SmallVector<int64_t>(t.getShape());
}

/// The static shape `op`'s (first) result must have given its operands, if
/// they are static and the rules determine it.
std::optional<SmallVector<int64_t>> inferShape(Operation *op) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<SmallVector<int64_t>> in;
  for (Value v : op->getOperands()) {
    std::optional<SmallVector<int64_t>> s = staticShape(v);
    if (!s)
      return std::nullopt;
    in.push_back(*s);
  }
  if (in.empty())
    return std::nullopt;
  auto broadcastAll = [&]() -> std::optional<SmallVector<int64_t>> {
    neuronc::Shape out(in.front().begin(), in.front().end());
    for (size_t i = 1; i < in.size(); ++i) {
      neuronc::Shape next;
      if (!neuronc::broadcastShapes(out, in[i], next))
        return std::nullopt;
      out = next;
    }
    return SmallVector<int64_t>(out.begin(), out.end());
  };
  return llvm::TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
      .Case([&](ReshapeOp r) -> std::optional<SmallVector<int64_t>> {
        ArrayRef<int64_t> want = result.getShape();
        const SmallVector<int64_t> &have = in.front();
        // A reshape that only relaxes dims keeps them.
        if (want.size() == have.size() &&
            llvm::all_of(llvm::zip(want, have), [](auto p) {
              return std::get<0>(p) == ShapedType::kDynamic || std::get<0>(p) == std::get<1>(p);
            }))
          return have;
        // One dynamic dim follows from the element count.
        int64_t dynamic = llvm::count(want, ShapedType::kDynamic);
        if (dynamic != 1)
          return std::nullopt;
        int64_t known = 1;
        for (int64_t d : want)
          if (d != ShapedType::kDynamic)
            known *= d;
        int64_t total = neuronc::numElements(have);
        if (!known || total % known)
          return std::nullopt;
        SmallVector<int64_t> out(want);
        for (int64_t &d : out)
          if (d == ShapedType::kDynamic)
            d = total / known;
        return out;
      })
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp, CompareOp, SelectOp>(
          [&](Operation *) { return broadcastAll(); })
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp, TanhOp,
            SigmoidOp, ErfOp, SinOp, CosOp, SiluOp, ReluOp, RoundOp, FloorOp, CeilOp, GeluOp,
            CastOp, SoftmaxOp, RmsNormOp, LayerNormOp>([&](Operation *) { return in.front(); })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          [&](Operation *r) -> std::optional<SmallVector<int64_t>> {
            auto axes = cast<DenseI64ArrayAttr>(r->getAttr("axes")).asArrayRef();
            if (!neuronc::checkAxes(axes, in.front().size()).empty())
              return std::nullopt;
            neuronc::Shape s = neuronc::reducedShape(in.front(), axes, r->hasAttr("keepdims"));
            return SmallVector<int64_t>(s.begin(), s.end());
          })
      .Case([&](TransposeOp t) -> std::optional<SmallVector<int64_t>> {
        if (!neuronc::checkPermutation(t.getPerm(), in.front().size()).empty())
          return std::nullopt;
        neuronc::Shape s = neuronc::transposedShape(in.front(), t.getPerm());
        return SmallVector<int64_t>(s.begin(), s.end());
      })
      .Case([&](MatmulOp m) -> std::optional<SmallVector<int64_t>> {
        neuronc::Shape s;
        if (!neuronc::matmulShape(in[0], in[1], m.getTransposeLhs(), m.getTransposeRhs(), s)
                 .empty())
          return std::nullopt;
        return SmallVector<int64_t>(s.begin(), s.end());
      })
      .Case([&](ConvOp c) -> std::optional<SmallVector<int64_t>> {
        neuronc::Shape s;
        if (!neuronc::convShape(in[0], in[1], c.getGroups(), c.getStrides(), c.getPadding(),
                                c.getDilations(), s)
                 .empty())
          return std::nullopt;
        return SmallVector<int64_t>(s.begin(), s.end());
      })
      .Case([&](PoolOp p) -> std::optional<SmallVector<int64_t>> {
        neuronc::Shape s;
        if (!neuronc::poolShape(in[0], p.getKernel(), p.getStrides(), p.getPadding(), s).empty())
          return std::nullopt;
        return SmallVector<int64_t>(s.begin(), s.end());
      })
      .Default([](Operation *) { return std::nullopt; });
}

struct RefineShapesPass : mlir::neuron::impl::NeuronRefineShapesPassBase<RefineShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() != 1 || !isa<NeuronDialect>(op->getDialect()))
        return;
      auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || type.hasStaticShape())
        return;
      std::optional<SmallVector<int64_t>> shape = inferShape(op);
      if (!shape || shape->size() != static_cast<size_t>(type.getRank()))
        return;
      // Only ever make a dim known, never change a known one.
      for (auto [want, have] : llvm::zip(type.getShape(), *shape))
        if (want != ShapedType::kDynamic && want != have)
          return;
      auto refined = RankedTensorType::get(*shape, type.getElementType());
      Value result = op->getResult(0);
      // Users that must keep the old type (the return) get a reshape back.
      SmallVector<OpOperand *> keep;
      for (OpOperand &use : result.getUses())
        if (!isa<NeuronDialect>(use.getOwner()->getDialect()))
          keep.push_back(&use);
      result.setType(refined);
      if (!keep.empty()) {
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        Value back = ReshapeOp::create(b, op->getLoc(), type, result);
        for (OpOperand *use : keep)
          use->set(back);
      }
    });
  }
};

} // namespace
