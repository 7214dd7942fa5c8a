//===- MergeSiblingMatmuls.cpp - neuron-merge-sibling-matmuls ------------===//
//
// Matmuls that multiply one lhs by different constant weights (the separate
// query, key and value projections of BERT, T5 or Llama) each load the lhs,
// transpose it on TensorE and run their own kernel. Here they become one
// matmul whose weight is theirs concatenated along N, and slices of its
// result: the lhs is read and transposed once, one kernel replaces several,
// and the slices fold into their readers' loads like a fused projection's.
// Siblings whose results meet again within a few elementwise ops (a SwiGLU's
// gate and up projections, which general fusion runs as one matmul-swiglu
// kernel) stay apart.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <cstring>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONMERGESIBLINGMATMULSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using mlir::neuron::fusion::recordRejected;

namespace {

/// heuristic: a merged weight is a new constant of the sum of the siblings'
/// sizes, held at compile time next to theirs; bigger ones stay apart.
constexpr int64_t kMaxMergedBytes = int64_t(256) << 20;
/// How many ops past a sibling's result its users are followed when looking
/// for a meeting point with another sibling (through elementwise ops).
constexpr int kMeetDepth = 3;

/// The bytes of a constant weight the pass can concatenate (dense, not a
/// splat, whole bytes per element, held by the compiler), or std::nullopt.
std::optional<ArrayRef<char>> weightBytes(ConstantOp c) {
  ElementsAttr value = c.getValue();
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!fusion::wholeBytes(value) || (dense && dense.isSplat()))
    return std::nullopt;
  std::optional<ArrayRef<char>> raw = fusion::constantBytes(value);
  auto type = cast<RankedTensorType>(c.getType());
  if (!raw || raw->size() != static_cast<size_t>(type.getNumElements()) *
                                 (type.getElementTypeBitWidth() / 8))
    return std::nullopt;
  return raw;
}

/// The constant [K, N] weight of a matmul that can join a merge, or null.
ConstantOp siblingWeight(MatmulOp mm) {
  if (mm.getTransposeLhs() || mm.getTransposeRhs() || mm.getLhs() == mm.getRhs())
    return {};
  auto c = mm.getRhs().getDefiningOp<ConstantOp>();
  if (!c || cast<RankedTensorType>(c.getType()).getRank() != 2 || !weightBytes(c))
    return {};
  return c;
}

/// The elementwise ops reachable from `v` within `depth` uses through
/// elementwise ops only (two projections' results also meet at the scores
/// matmul of an attention, or a return: not an epilogue they share).
void reach(Value v, int depth, llvm::DenseSet<Operation *> &seen) {
  if (depth == 0)
    return;
  for (Operation *u : v.getUsers()) {
    if (!fusion::isElementwise(u) || !seen.insert(u).second)
      continue;
    for (Value r : u->getResults())
      reach(r, depth - 1, seen);
  }
}

/// Whether the results of `a` and `b` meet within kMeetDepth ops.
bool meet(MatmulOp a, MatmulOp b) {
  llvm::DenseSet<Operation *> fromA, fromB;
  reach(a.getResult(), kMeetDepth, fromA);
  reach(b.getResult(), kMeetDepth, fromB);
  return llvm::any_of(fromA, [&](Operation *op) { return fromB.contains(op); });
}

/// The weights of `group` concatenated along N ([K, ΣN]).
DenseElementsAttr concatWeights(MutableArrayRef<MatmulOp> group, RankedTensorType merged) {
  int64_t K = merged.getDimSize(0), total = merged.getDimSize(1);
  size_t eb = merged.getElementTypeBitWidth() / 8;
  std::vector<char> out(static_cast<size_t>(K * total) * eb);
  int64_t n0 = 0;
  for (MatmulOp mm : group) {
    ConstantOp c = mm.getRhs().getDefiningOp<ConstantOp>();
    ArrayRef<char> raw = *weightBytes(c);
    int64_t n = cast<RankedTensorType>(c.getType()).getDimSize(1);
    for (int64_t k = 0; k < K; ++k)
      std::memcpy(&out[static_cast<size_t>(k * total + n0) * eb], &raw[static_cast<size_t>(k * n) * eb],
                  static_cast<size_t>(n) * eb);
    n0 += n;
  }
  return DenseElementsAttr::getFromRawBuffer(merged, out);
}

struct MergeSiblingMatmulsPass
    : mlir::neuron::impl::NeuronMergeSiblingMatmulsPassBase<MergeSiblingMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // Candidates by lhs, in program order.
    llvm::MapVector<Value, SmallVector<MatmulOp>> byLhs;
    fn.walk([&](MatmulOp mm) {
      if (siblingWeight(mm))
        byLhs[mm.getLhs()].push_back(mm);
    });
    for (auto &[lhs, candidates] : byLhs) {
      // Groups of siblings alike in K, weight type and result type (but
      // its last dim), none meeting another's result.
      SmallVector<SmallVector<MatmulOp>> groups;
      for (MatmulOp mm : candidates) {
        auto alike = [&](SmallVector<MatmulOp> &g) {
          MatmulOp first = g.front();
          auto gt = cast<RankedTensorType>(first.getRhs().getType());
          auto wt = cast<RankedTensorType>(mm.getRhs().getType());
          return gt.getDimSize(0) == wt.getDimSize(0) &&
                 gt.getElementType() == wt.getElementType() &&
                 first.getType().getElementType() == mm.getType().getElementType() &&
                 first.getType().getShape().drop_back() == mm.getType().getShape().drop_back();
        };
        auto *g = llvm::find_if(groups, alike);
        if (g == groups.end())
          groups.push_back({mm});
        else if (llvm::any_of(*g, [&](MatmulOp other) { return meet(other, mm); }))
          recordRejected(mm, "sibling matmuls",
                         "its result meets a sibling's in an elementwise op (gated: general "
                         "fusion keeps the pair's epilogue)");
        else
          g->push_back(mm);
      }
      for (auto &g : groups)
        if (g.size() > 1)
          merge(fn, g);
    }
  }

  /// Replaces `group` (one lhs, constant weights) by one matmul and slices.
  void merge(func::FuncOp fn, MutableArrayRef<MatmulOp> group) {
    auto first = cast<RankedTensorType>(group.front().getRhs().getType());
    int64_t total = 0;
    for (MatmulOp mm : group)
      total += cast<RankedTensorType>(mm.getRhs().getType()).getDimSize(1);
    auto mergedType = RankedTensorType::get({first.getDimSize(0), total}, first.getElementType());
    int64_t bytes = mergedType.getNumElements() * (mergedType.getElementTypeBitWidth() / 8);
    if (bytes > kMaxMergedBytes) {
      recordRejected(group.front(), "sibling matmuls",
                     "the merged weight would take " + std::to_string(bytes >> 20) +
                         " MiB (more than " + std::to_string(kMaxMergedBytes >> 20) + ")");
      return;
    }
    MatmulOp earliest = group.front();
    for (MatmulOp mm : group)
      if (mm->isBeforeInBlock(earliest))
        earliest = mm;
    OpBuilder b(earliest);
    SmallVector<Operation *> ops(group.begin(), group.end());
    Location loc = fusion::fusedLocation(ops);
    auto weight = ConstantOp::create(b, loc, concatWeights(group, mergedType));
    auto resultType = group.front().getType();
    SmallVector<int64_t> shape(resultType.getShape());
    shape.back() = total;
    auto merged = MatmulOp::create(b, loc, resultType.clone(shape), group.front().getLhs(), weight,
                                   UnitAttr(), UnitAttr());
    int64_t n0 = 0;
    int64_t rank = resultType.getRank();
    SmallVector<Location> absorbed;
    for (MatmulOp mm : group) {
      auto t = mm.getType();
      SmallVector<int64_t> offsets(rank, 0), sizes(t.getShape()), strides(rank, 1);
      offsets.back() = n0;
      n0 += t.getShape().back();
      auto slice = SliceOp::create(b, mm.getLoc(), t, merged, b.getDenseI64ArrayAttr(offsets),
                                   b.getDenseI64ArrayAttr(sizes), b.getDenseI64ArrayAttr(strides));
      mm.getResult().replaceAllUsesWith(slice.getResult());
      absorbed.push_back(mm.getLoc());
    }
    llvm::SetVector<ConstantOp> weights;
    for (MatmulOp mm : group) {
      weights.insert(mm.getRhs().getDefiningOp<ConstantOp>());
      mm.erase();
    }
    for (ConstantOp c : weights)
      if (c->use_empty())
        c.erase();
    // Each sibling read the lhs once: all but one read are saved.
    auto lt = cast<RankedTensorType>(merged.getLhs().getType());
    int64_t saved = static_cast<int64_t>(group.size() - 1) * lt.getNumElements() *
                    ((lt.getElementTypeBitWidth() + 7) / 8);
    neuronc::recordFusionDecision(fn, {"sibling matmuls", true, "", loc, absorbed, saved});
  }
};

} // namespace
