//===- FuseConvChains.cpp - neuron-fuse-conv-chains ------------------------===//
//
// A pointwise convolution (1x1, stride 1, no padding, one group) whose input
// is the output of another convolution's kernel (conv-epilogue, or conv-sum:
// two convolutions summed in PSUM) - directly or through an --auto-cast
// narrowing - joins that kernel as its tail: the kernel of kind
// `conv-chain` computes, per output tile, every output channel of the first
// convolution and its epilogue, keeps the tile in SBUF and multiplies it
// into the second convolution's accumulators, so the value between them is
// never read back from HBM. ResNet's bottleneck output (conv3, the residual
// add, ReLU) feeds the next block's 1x1 conv1; MobileNetV2's projection
// feeds the next expansion. The first convolution's value is still stored
// when something else reads it (the next residual add).
//
// Each kernel joins at most one chain; the pairs that save the most bytes
// go first (a ResNet block's f32 output read by the next conv1 before the
// bf16 value between its 3x3 conv2 and 1x1 conv3).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSECONVCHAINSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// The one convolution of a `conv-epilogue` kernel or a bare convolution,
/// else null; with `sums`, also the first of a `conv-sum` kernel's two
/// (both compute the kernel's output tiles).
ConvOp convOf(Operation *op, bool sums = false) {
  if (auto conv = dyn_cast_or_null<ConvOp>(op))
    return conv;
  auto k = dyn_cast_or_null<KernelOp>(op);
  bool sum = sums && k && k.getKind() == "conv-sum";
  if (!k || (k.getKind() != "conv-epilogue" && !sum))
    return {};
  ConvOp found;
  for (Operation &inner : k.getBody().front()) {
    if (isa<MatmulOp, PoolOp>(inner))
      return {};
    if (auto conv = dyn_cast<ConvOp>(inner)) {
      if (found && !sum)
        return {};
      found = found ? found : conv;
    }
  }
  return found;
}

/// The value outside `op` (a kernel or a bare convolution) that `conv`
/// reads as its input.
Value outerInput(Operation *op, ConvOp conv) {
  Value in = conv.getInput();
  if (auto arg = dyn_cast<BlockArgument>(in))
    if (auto k = dyn_cast<KernelOp>(op); k && arg.getOwner()->getParentOp() == k)
      return k.getInputs()[arg.getArgNumber()];
  return in;
}

/// Bytes of a ranked tensor value.
int64_t tensorBytes(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return t.getNumElements() * std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

/// heuristic: a chain loads the second convolution's weights when the
/// kernel starts, where as a kernel of its own they load while the kernel
/// before it runs; a tail whose weights outweigh the value the chain keeps
/// on chip by more than this loses more than it saves (EfficientNet-B0's
/// late blocks at 64², 2x2 pixels against 1152x192 weights: f32 444.4 ->
/// 454.4 us chained; at 64 no zoo model measured is slower than unchained,
/// at 256 EfficientNet-B0 bf16 was).
constexpr int64_t kMaxWeightsPerSavedByte = 64;

/// One pair of kernels the pass may chain.
struct Candidate {
  Operation *head, *tail; ///< the producer's kernel and the pointwise one
  CastOp cast;            ///< the narrowing between them, if any
  int64_t saved;          ///< bytes no longer read (and written) through HBM
};

struct FuseConvChainsPass
    : public mlir::neuron::impl::NeuronFuseConvChainsPassBase<FuseConvChainsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Candidate> candidates;
    for (Operation &op : getOperation().getBody().front()) {
      ConvOp conv = convOf(&op);
      if (!conv)
        continue;
      Value in = outerInput(&op, conv);
      CastOp cast = in.getDefiningOp<CastOp>();
      if (cast && !isNarrowingFloatCast(cast))
        cast = {};
      Value produced = cast ? cast.getInput() : in;
      Operation *head = produced.getDefiningOp();
      if (!convOf(head, /*sums=*/true) || head->getBlock() != op.getBlock())
        continue; // not a convolution's output: nothing to say
      if (std::string why = whyNot(head, &op, cast); !why.empty()) {
        recordRejected(&op, "conv-chain", why);
        continue;
      }
      int64_t saved = tensorBytes(produced);
      if (int64_t weights = tensorBytes(conv.getWeight()); weights > kMaxWeightsPerSavedByte * saved) {
        recordRejected(&op, "conv-chain",
                       describe(conv, "the convolution") + "'s weights (" +
                           std::to_string(weights) + " bytes) are more than " +
                           std::to_string(kMaxWeightsPerSavedByte) +
                           " times the value it would not read back (" + std::to_string(saved) +
                           " bytes): chained, they load when the kernel starts");
        continue;
      }
      if (llvm::all_of(produced.getUsers(), [&](Operation *u) { return u == &op || u == cast; }))
        saved *= 2; // nor written
      candidates.push_back({head, &op, cast, saved});
    }
    llvm::stable_sort(candidates,
                      [](const Candidate &a, const Candidate &b) { return a.saved > b.saved; });
    llvm::SmallPtrSet<Operation *, 16> taken;
    SmallVector<Candidate> chosen;
    for (const Candidate &c : candidates) {
      if (taken.contains(c.head) || taken.contains(c.tail)) {
        recordRejected(c.tail, "conv-chain",
                       describe(taken.contains(c.tail) ? c.tail : c.head, "the kernel") +
                           " is already in a chain that saves more bytes");
        continue;
      }
      taken.insert(c.head);
      taken.insert(c.tail);
      chosen.push_back(c);
    }
    for (const Candidate &c : chosen)
      fuse(c);
  }

  /// Why `tail` (a pointwise convolution's kernel reading `head`'s output,
  /// through `narrow` when set) cannot join `head`'s kernel, or "".
  std::string whyNot(Operation *head, Operation *tail, CastOp narrow) {
    ConvOp first = convOf(head, /*sums=*/true), second = convOf(tail);
    std::string who = describe(second, "the convolution");
    auto w = second.getWeight().getType();
    if (w.getRank() < 3 || !w.hasStaticShape())
      return who + " has no static kernel window";
    for (int64_t d = 2; d < w.getRank(); ++d)
      if (w.getDimSize(d) != 1)
        return who + " is not pointwise (its window is not 1x1)";
    if (llvm::any_of(second.getStrides(), [](int64_t s) { return s != 1; }) ||
        llvm::any_of(second.getPadding(), [](int64_t p) { return p != 0; }))
      return who + " has strides or padding (its input tile is not the producer's output tile)";
    if (second.getGroups() != 1 || first.getGroups() != 1)
      return "a grouped convolution in the chain (each output tile needs every channel of "
             "the first convolution)";
    if (first.getBias() || second.getBias())
      return "a convolution in the chain has a bias operand (only an epilogue's add runs on "
             "the kernel's tiles)";
    auto x = first.getInput().getType();
    if (!x.hasStaticShape() || !first.getResult().getType().hasStaticShape())
      return describe(first, "the first convolution") + " has dynamic dims (bucket them first)";
    if (!isa<KernelOp>(tail))
      return who + " has no epilogue of its own";
    if (isa<ConvOp>(head) && !narrow)
      return describe(first, "the first convolution") +
             " has no epilogue to leave its tiles in SBUF";
    int64_t out = first.getResult().getType().getShape().back();
    int64_t bank = neuronc::hardwareModels().front().psumBankFp32();
    if (out > bank)
      return "the first convolution's output rows (" + std::to_string(out) +
             " columns) are wider than a PSUM bank";
    for (Operation *k : {head, tail})
      if (auto kernel = dyn_cast<KernelOp>(k))
        for (Operation &op : kernel.getBody().front())
          if (isReduction(&op))
            return describe(k == head ? first : second,
                            k == head ? "the first convolution" : "the convolution") +
                   "'s epilogue reduces its output (it runs as a kernel of its own)";
    Value link = narrow ? narrow.getResult() : outerInput(tail, second);
    if (cast<RankedTensorType>(link.getType()).getShape() !=
        first.getResult().getType().getShape())
      return describe(head, "the first convolution's kernel") +
             " computes a value of another shape than its convolution's output (a "
             "squeeze-excitation's scale applied to a feature map): its epilogue does not run "
             "on the output tiles";
    ValueRange tailInputs = isa<KernelOp>(tail) ? llvm::cast<KernelOp>(tail).getInputs()
                                                : tail->getOperands();
    for (Value v : tailInputs)
      if (v != link && (v.getDefiningOp() == head || (narrow && v == narrow.getResult())))
        return who + " also reads the first convolution's value as another operand";
    // The merged kernel takes the tail's place: every other reader of the
    // head's values must come after it.
    auto later = [&](Value v) {
      return llvm::all_of(v.getUsers(), [&](Operation *u) {
        return u == tail || u == narrow.getOperation() || tail->isBeforeInBlock(u);
      });
    };
    if (!llvm::all_of(head->getResults(), later) || (narrow && !later(narrow.getResult())))
      return describe(head, "the first convolution's kernel") +
             " has a user between it and the pointwise convolution";
    return {};
  }

  /// Replaces `c.head`, `c.cast` and `c.tail` by one conv-chain kernel at
  /// the tail's place, yielding what other ops still read.
  void fuse(Candidate c) {
    OpBuilder b(c.tail);
    auto operandsOf = [](Operation *op) {
      SmallVector<Value> ins = isa<KernelOp>(op)
                                   ? SmallVector<Value>(cast<KernelOp>(op).getInputs())
                                   : SmallVector<Value>(op->getOperands());
      return ins;
    };
    Value link = c.cast ? c.cast.getResult() : outerInput(c.tail, convOf(c.tail));
    llvm::SetVector<Value> inputs;
    for (Value v : operandsOf(c.head))
      inputs.insert(v);
    for (Value v : operandsOf(c.tail))
      if (v != link)
        inputs.insert(v);
    // Results: the head's values read elsewhere, the narrowed link when read
    // elsewhere, then the tail's.
    auto usedElsewhere = [&](Value v) {
      return llvm::any_of(v.getUsers(), [&](Operation *u) {
        return u != c.tail && u != c.cast.getOperation();
      });
    };
    SmallVector<Value> outer;
    for (Value r : c.head->getResults())
      if (usedElsewhere(r))
        outer.push_back(r);
    if (c.cast && usedElsewhere(c.cast.getResult()))
      outer.push_back(c.cast.getResult());
    for (Value r : c.tail->getResults())
      outer.push_back(r);
    SmallVector<Type> types = llvm::map_to_vector(outer, [](Value v) { return v.getType(); });
    SmallVector<Operation *> chain{c.head};
    if (c.cast)
      chain.push_back(c.cast);
    chain.push_back(c.tail);
    auto fused = KernelOp::create(b, fusedLocation(chain), types, b.getStringAttr("conv-chain"),
                                  inputs.getArrayRef());
    Block *body = new Block();
    fused.getBody().push_back(body);
    IRMapping map;
    for (Value in : inputs)
      map.map(in, body->addArgument(in.getType(), in.getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    // Clones `op`'s computation; maps its outer results to the inner values.
    auto cloneIn = [&](Operation *op) {
      auto k = dyn_cast<KernelOp>(op);
      if (!k) {
        Operation *copy = inner.clone(*op, map);
        map.map(op->getResults(), copy->getResults());
        return;
      }
      for (auto [arg, in] : llvm::zip(k.getBody().getArguments(), k.getInputs()))
        map.map(arg, map.lookup(in));
      for (Operation &o : k.getBody().front().without_terminator())
        inner.clone(o, map);
      for (auto [r, v] :
           llvm::zip(k.getResults(), cast<YieldOp>(k.getBody().front().getTerminator()).getValues()))
        map.map(r, map.lookup(v));
    };
    cloneIn(c.head);
    if (c.cast)
      cloneIn(c.cast);
    cloneIn(c.tail);
    SmallVector<Value> yielded = llvm::map_to_vector(outer, [&](Value v) { return map.lookup(v); });
    YieldOp::create(inner, c.tail->getLoc(), yielded);
    recordFused(fused, "kernel (conv-chain)", chain, bytesSaved(chain, fused));
    for (auto [old, now] : llvm::zip(outer, fused.getResults()))
      old.replaceAllUsesWith(now);
    c.tail->erase();
    if (c.cast && c.cast->use_empty())
      c.cast->erase();
    c.head->erase();
  }
};

} // namespace
