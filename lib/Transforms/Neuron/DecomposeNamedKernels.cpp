//===- DecomposeNamedKernels.cpp - neuron-decompose-named-kernels ---------===//
//
// Writes neuron.rmsnorm, neuron.layernorm and neuron.softmax out as
// primitive neuron ops from their one definition (NamedKernels.h), the
// definition the row-kernel lowering also builds its instructions from.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NamedKernels.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONDECOMPOSENAMEDKERNELSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// Builds a named kernel's steps as neuron ops in f32 at `op`: broadcasting
/// arithmetic, keepdims reductions over `axes`, the result cast back.
class OpSteps {
public:
  using Value = mlir::Value;
  OpSteps(PatternRewriter &rewriter, Operation *op, ArrayRef<int64_t> axes)
      : r(rewriter), op(op), loc(op->getLoc()), axes(axes), f32(r.getF32Type()),
        resultType(cast<RankedTensorType>(op->getResult(0).getType())) {}

  Value input(unsigned i) {
    Value v = op->getOperand(i);
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() == f32)
      return v;
    return CastOp::create(r, loc, t.clone(f32), v);
  }
  Value constant(double v) {
    auto t = RankedTensorType::get({}, f32);
    return ConstantOp::create(r, loc, t, cast<ElementsAttr>(DenseElementsAttr::get(t, static_cast<float>(v))));
  }
  Value square(Value a) { return SquareOp::create(r, loc, a); }
  Value rsqrt(Value a) { return RsqrtOp::create(r, loc, a); }
  Value exp(Value a) { return ExpOp::create(r, loc, a); }
  Value log(Value a) { return LogOp::create(r, loc, a); }
  Value reciprocal(Value a) { return ReciprocalOp::create(r, loc, a); }
  Value mul(Value a, Value b, bool out) { return binary<MulOp>(a, b, out); }
  Value add(Value a, Value b, bool out) { return binary<AddOp>(a, b, out); }
  Value sub(Value a, Value b, bool out) { return binary<SubOp>(a, b, out); }
  Value sum(Value a) { return reduce<ReduceSumOp>(a); }
  Value max(Value a) { return reduce<ReduceMaxOp>(a); }
  double count() const {
    double n = 1;
    for (int64_t a : axes)
      n *= static_cast<double>(resultType.getDimSize(a));
    return n;
  }
  std::pair<Value, Value> meanAndVariance(Value x) { return meanAndVarianceBySums(*this, x); }

private:
  /// a op b broadcast numpy-style, in f32; `out` casts to the result type.
  template <typename OpT>
  Value binary(Value a, Value b, bool out) {
    SmallVector<int64_t> shape;
    OpTrait::util::getBroadcastedShape(cast<RankedTensorType>(a.getType()).getShape(),
                                       cast<RankedTensorType>(b.getType()).getShape(), shape);
    Value v = OpT::create(r, loc, RankedTensorType::get(shape, f32), a, b);
    if (out && resultType.getElementType() != f32)
      v = CastOp::create(r, loc, resultType, v);
    return v;
  }
  /// a reduced over the op's axes, keeping them as size-1 dims.
  template <typename OpT>
  Value reduce(Value a) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(a.getType()).getShape());
    for (int64_t ax : axes)
      shape[ax] = 1;
    return OpT::create(r, loc, RankedTensorType::get(shape, f32), a, r.getDenseI64ArrayAttr(axes),
                       r.getUnitAttr());
  }

  PatternRewriter &r;
  Operation *op;
  Location loc;
  ArrayRef<int64_t> axes;
  Type f32;
  RankedTensorType resultType;
};

/// Replaces a named kernel by its steps.
template <typename OpT>
struct DecomposeNamed : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "the result shape is not static");
    SmallVector<int64_t> axes;
    if constexpr (std::is_same_v<OpT, SoftmaxOp>)
      axes.push_back(op.getAxis());
    else
      llvm::append_range(axes, op.getAxes());
    OpSteps steps(rewriter, op, axes);
    rewriter.replaceOp(op, decompose(steps, op));
    return success();
  }
};

struct NeuronDecomposeNamedKernelsPass
    : neuron::impl::NeuronDecomposeNamedKernelsPassBase<NeuronDecomposeNamedKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeNamed<RmsNormOp>, DecomposeNamed<LayerNormOp>,
                 DecomposeNamed<SoftmaxOp>>(&getContext());
    // Only the named ops change: no folding of the rest of the function.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
