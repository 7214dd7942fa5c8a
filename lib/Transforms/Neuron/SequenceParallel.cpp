//===- SequenceParallel.cpp - neuron-sequence-parallel --------------------===//
//
// Sequence parallelism on a tensor-parallel program: the all-reduces after
// the row-parallel projections become reduce-scatters along the sequence,
// the layer input arrives split along it, and the row-local ops between
// (norms, residual adds, casts) work on each core's rows; an all-gather
// restores the whole tensor before anything else reads it. See the pass
// description in dialects/NeuronPasses.td and docs/tensor-parallel.md.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONSEQUENCEPARALLELPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// `t` with dim `dim` divided (or multiplied) by `n`.
RankedTensorType resized(Type t, int64_t dim, int64_t n, bool shrink) {
  auto rt = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape(rt.getShape());
  shape[dim] = shrink ? shape[dim] / n : shape[dim] * n;
  return RankedTensorType::get(shape, rt.getElementType());
}

/// Whether every reduced axis comes after `dim` (the row along `dim` is
/// reduced on its own, and `dim` keeps its place in the result).
bool reducesAfter(ArrayRef<int64_t> axes, int64_t rank, int64_t dim) {
  return llvm::all_of(axes, [&](int64_t a) { return (a < 0 ? a + rank : a) > dim; });
}

/// Rewrites one function of a tensor-parallel group of `n` cores.
class SequenceSplitter {
public:
  SequenceSplitter(func::FuncOp fn, int64_t n) : fn(fn), n(n) {}

  /// Turns the qualifying all-reduces into reduce-scatters and propagates
  /// the split; false when none qualifies (the reason in `why`).
  bool run(std::string &why);

private:
  /// Where each split value has its sequence dim.
  DenseMap<Value, int64_t> seqDim;
  /// The whole tensor of a split value, gathered once.
  DenseMap<Value, Value> gathered;
  func::FuncOp fn;
  int64_t n;

  /// The split dim of the result of row-local `op`, or nullopt when `op`
  /// does not keep rows apart (or an operand cannot be read split).
  std::optional<int64_t> rowLocalResult(Operation *op);
  /// `v`'s whole tensor (an all_gather after its definition).
  Value gather(Value v);
};

std::optional<int64_t> SequenceSplitter::rowLocalResult(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result)
    return std::nullopt;
  int64_t rank = result.getRank();
  // Reductions and norms over later dims: the split operand is operand 0.
  auto overLater = [&](ArrayRef<int64_t> axes) -> std::optional<int64_t> {
    auto it = seqDim.find(op->getOperand(0));
    if (it == seqDim.end() || !reducesAfter(axes, rank, it->second))
      return std::nullopt;
    return it->second;
  };
  if (auto r = dyn_cast<ReduceSumOp>(op))
    return overLater(r.getAxes());
  if (auto r = dyn_cast<ReduceMeanOp>(op))
    return overLater(r.getAxes());
  if (auto r = dyn_cast<ReduceMaxOp>(op))
    return overLater(r.getAxes());
  if (auto r = dyn_cast<RmsNormOp>(op)) {
    if (r.getWeight() && seqDim.count(r.getWeight()))
      return std::nullopt;
    return overLater(r.getAxes());
  }
  if (!isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, NegOp, AbsOp, ExpOp, LogOp, SqrtOp,
           RsqrtOp, ReciprocalOp, SquareOp, TanhOp, SigmoidOp, ErfOp, SinOp, CosOp, GeluOp,
           SiluOp, ReluOp, CastOp>(op))
    return std::nullopt;
  // Elementwise (numpy broadcasting, right-aligned): split operands agree
  // on the result's dim; the others broadcast along it.
  std::optional<int64_t> dim;
  for (Value v : op->getOperands()) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t shift = rank - t.getRank();
    if (auto it = seqDim.find(v); it != seqDim.end()) {
      if (dim && *dim != it->second + shift)
        return std::nullopt;
      dim = it->second + shift;
    }
  }
  if (!dim)
    return std::nullopt;
  for (Value v : op->getOperands()) {
    if (seqDim.count(v))
      continue;
    auto t = cast<RankedTensorType>(v.getType());
    int64_t at = *dim - (rank - t.getRank());
    if (at >= 0 && t.getDimSize(at) != 1)
      return std::nullopt; // a whole-sequence operand: no core-local slice of it
  }
  return dim;
}

Value SequenceSplitter::gather(Value v) {
  if (Value g = gathered.lookup(v))
    return g;
  OpBuilder b(fn.getContext());
  if (Operation *def = v.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(&fn.getBody().front());
  int64_t dim = seqDim.lookup(v);
  auto g = AllGatherOp::create(b, v.getLoc(), resized(v.getType(), dim, n, false), v, dim, n);
  return gathered[v] = g.getResult();
}

bool SequenceSplitter::run(std::string &why) {
  Block &body = fn.getBody().front();
  // The all-reduces whose sequence dim (second to last) n divides.
  SmallVector<Type> streamTypes;
  for (auto ar : llvm::make_early_inc_range(body.getOps<AllReduceOp>())) {
    auto t = cast<RankedTensorType>(ar.getType());
    int64_t dim = t.getRank() - 2;
    if (dim < 0 || t.getDimSize(dim) % n) {
      why = "the sequence dim (" + std::to_string(dim) + ") of the all-reduced " +
            std::to_string(t.getRank()) + "-d tensor (" +
            std::to_string(dim < 0 ? 1 : t.getDimSize(dim)) + " rows) is not a multiple of " +
            std::to_string(n);
      continue;
    }
    OpBuilder b(ar);
    auto rs = ReduceScatterOp::create(b, ar.getLoc(), resized(t, dim, n, true), ar.getInput(),
                                      dim, n);
    seqDim[rs.getResult()] = dim;
    streamTypes.push_back(t);
    ar.getResult().replaceAllUsesWith(rs.getResult());
    ar.erase();
  }
  if (streamTypes.empty())
    return false;
  // The layer input: a replicated argument of the residual stream's type.
  for (BlockArgument arg : fn.getArguments()) {
    if (fn.getArgAttr(arg.getArgNumber(), kShardAttrName) ||
        !llvm::is_contained(streamTypes, arg.getType()))
      continue;
    int64_t dim = cast<RankedTensorType>(arg.getType()).getRank() - 2;
    arg.setType(resized(arg.getType(), dim, n, true));
    fn.setArgAttr(arg.getArgNumber(), kShardAttrName,
                  OpBuilder(fn.getContext()).getDenseI64ArrayAttr({dim, n}));
    seqDim[arg] = dim;
  }
  // The split follows row-local ops; anything else reads the gathered tensor.
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (isa<ReduceScatterOp, AllGatherOp>(op))
      continue;
    if (llvm::none_of(op.getOperands(), [&](Value v) { return seqDim.count(v); }))
      continue;
    // The layer's output of the residual stream's type stays split along
    // the sequence, as its input arrives: the next layer takes it so.
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (OpOperand &use : ret->getOpOperands()) {
        Value v = use.get();
        if (!seqDim.count(v))
          continue;
        int64_t dim = seqDim.lookup(v);
        if (llvm::is_contained(streamTypes, resized(v.getType(), dim, n, false)))
          fn.setResultAttr(use.getOperandNumber(), kShardAttrName,
                           OpBuilder(fn.getContext()).getDenseI64ArrayAttr({dim, n}));
        else
          use.set(gather(v));
      }
      continue;
    }
    if (std::optional<int64_t> dim = rowLocalResult(&op)) {
      Value r = op.getResult(0);
      r.setType(resized(r.getType(), *dim, n, true));
      seqDim[r] = *dim;
      continue;
    }
    for (OpOperand &use : op.getOpOperands())
      if (seqDim.count(use.get()))
        use.set(gather(use.get()));
  }
  fn.setType(FunctionType::get(fn.getContext(), body.getArgumentTypes(),
                               body.getTerminator()->getOperandTypes()));
  return true;
}

/// Sequence parallelism on every tensor-parallel function of the module.
struct SequenceParallelPass
    : mlir::neuron::impl::NeuronSequenceParallelPassBase<SequenceParallelPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      auto tp = fn->getAttrOfType<IntegerAttr>(kTensorParallelAttrName);
      if (!tp || tp.getInt() < 2)
        continue;
      std::string why = "it has no all-reduce";
      if (!SequenceSplitter(fn, tp.getInt()).run(why)) {
        fn.emitError() << "cannot apply sequence parallelism to '@" << fn.getSymName()
                       << "' over " << tp.getInt() << " cores: " << why;
        return signalPassFailure();
      }
    }
  }
};

} // namespace
