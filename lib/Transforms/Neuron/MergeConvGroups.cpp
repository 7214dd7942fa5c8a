//===- MergeConvGroups.cpp - neuron-merge-conv-groups --------------------===//
//
// A grouped convolution lowers to one TensorE pass per group: its own
// weight load, its multiplies over Cg contraction partitions, its output
// stores. With few channels per group (RegNet's group width 8, ResNeXt's 4)
// TensorE sits nearly idle (a multiply costs the same for 8 contraction
// rows as for 128) and the groups' fixed costs add up: RegNetY-400MF's last
// stage ran 55 groups of 8 channels per convolution at about a microsecond
// each. Here k adjacent groups become one whose constant weight is
// block-diagonal:
//   w'[f, j*Cg + c, taps] = w[f, c, taps] if f's group is the j-th of its
//   merged group, else 0;   groups' = groups / k.
// k is the divisor of groups with k*Cg and k*Fg at most the partitions
// that saves the most: a DMA latency per group saved against the time to
// load the k-times larger weight.
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONMERGECONVGROUPSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// The groups a grouped convolution with `groups` groups of `cg` input and
/// `fg` output channels, weight `weightBytes`, runs together (1: none).
int64_t groupsToMerge(const neuronc::HardwareModel &hw, int64_t groups, int64_t cg, int64_t fg,
                      int64_t weightBytes) {
  int64_t best = 1;
  double bestGain = 0;
  for (int64_t k = 2; k <= groups; ++k) {
    if (groups % k || k * cg > hw.partitions || k * fg > hw.partitions)
      continue;
    double saved = static_cast<double>(groups - groups / k) * hw.dmaLatencyNs;
    double extra = static_cast<double>(k - 1) * weightBytes / hw.memoryGBps();
    if (saved - extra > bestGain) {
      bestGain = saved - extra;
      best = k;
    }
  }
  return best;
}

/// Rewrites a grouped convolution with a constant weight (or a cast of one)
/// into one with fewer, block-diagonal groups.
struct MergeGroups : OpRewritePattern<ConvOp> {
  MergeGroups(MLIRContext *ctx, const neuronc::HardwareModel &hw)
      : OpRewritePattern<ConvOp>(ctx), hw(hw) {}

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    int64_t groups = conv.getGroups();
    if (groups <= 1)
      return rewriter.notifyMatchFailure(conv, "not a grouped convolution");
    auto wType = cast<RankedTensorType>(conv.getWeight().getType());
    int64_t F = wType.getDimSize(0), cg = wType.getDimSize(1), fg = F / groups;
    if (cg == 1)
      return rewriter.notifyMatchFailure(conv, "depthwise: one channel per group runs on the "
                                               "vector engines");
    Value weight = conv.getWeight();
    auto weightCast = weight.getDefiningOp<CastOp>();
    Value source = weightCast ? weightCast.getInput() : weight;
    auto constant = source.getDefiningOp<ConstantOp>();
    auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
    if (!dense || !isa<FloatType>(dense.getElementType()))
      return rewriter.notifyMatchFailure(conv, "the weight is not a float constant");
    int64_t bytes = wType.getNumElements() * ((wType.getElementTypeBitWidth() + 7) / 8);
    int64_t k = groupsToMerge(hw, groups, cg, fg, bytes);
    if (k == 1)
      return rewriter.notifyMatchFailure(conv, "no merge saves time: the groups are wide, or "
                                               "the larger weight costs more than it saves");
    // The block-diagonal weight, in the constant's own element type.
    auto st = cast<RankedTensorType>(source.getType());
    int64_t taps = st.getNumElements() / (F * cg);
    const llvm::fltSemantics &sem = cast<FloatType>(st.getElementType()).getFloatSemantics();
    SmallVector<APFloat> values(static_cast<size_t>(F * k * cg * taps), APFloat::getZero(sem));
    SmallVector<APFloat> old = llvm::to_vector(dense.getValues<APFloat>()); // splats expand
    for (int64_t f = 0; f < F; ++f) {
      int64_t j = (f / fg) % k; // the group's place in its merged group
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t t = 0; t < taps; ++t)
          values[(f * k * cg + j * cg + c) * taps + t] =
              old[(f * cg + c) * taps + t];
    }
    SmallVector<int64_t> shape(st.getShape());
    shape[1] = k * cg;
    auto mergedType = RankedTensorType::get(shape, st.getElementType());
    Location loc = conv.getLoc();
    Value merged =
        ConstantOp::create(rewriter, loc, mergedType, DenseElementsAttr::get(mergedType, values));
    if (weightCast)
      merged = CastOp::create(rewriter, loc, RankedTensorType::get(shape, wType.getElementType()),
                              merged);
    rewriter.replaceOpWithNewOp<ConvOp>(
        conv, conv.getType(), conv.getInput(), merged, conv.getBias(), conv.getStridesAttr(),
        conv.getPaddingAttr(), conv.getDilationsAttr(), rewriter.getI64IntegerAttr(groups / k));
    return success();
  }

  const neuronc::HardwareModel &hw;
};

/// Applies MergeGroups to every grouped convolution.
struct MergeConvGroupsPass
    : mlir::neuron::impl::NeuronMergeConvGroupsPassBase<MergeConvGroupsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Fusion decisions are made for the first target (trn1), as elsewhere.
    patterns.add<MergeGroups>(&getContext(), neuronc::hardwareModels().front());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
