//===- FusePool.cpp - neuron-fuse-pool ------------------------------------===//
//
// A pooling whose input is a convolution (alone or with its fused epilogue,
// a `conv-epilogue` kernel) joins that convolution's kernel as its last op:
// the kernel of kind `conv-pool` keeps each output channel tile's
// convolution planes in SBUF and pools them there, so the convolution's
// output is never written to HBM and read back (ResNet's stem: conv, ReLU,
// 3x3/2 max pool).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSEPOOLPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// The convolution a kernel is built around, if it is a convolution's
/// epilogue kernel with one result.
ConvOp convHero(KernelOp k) {
  if (k.getKind() != "conv-epilogue" || k.getNumResults() != 1)
    return {};
  for (Operation &op : k.getBody().front())
    if (auto conv = dyn_cast<ConvOp>(op))
      return conv;
  return {};
}

struct FusePoolPass : public mlir::neuron::impl::NeuronFusePoolPassBase<FusePoolPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<PoolOp> pools(getOperation().getBody().front().getOps<PoolOp>());
    for (PoolOp pool : pools) {
      Operation *producer = pool.getInput().getDefiningOp();
      auto kernel = dyn_cast_or_null<KernelOp>(producer);
      ConvOp conv = kernel ? convHero(kernel) : dyn_cast_or_null<ConvOp>(producer);
      if (!conv)
        continue; // not a convolution's output: nothing to say
      if (std::string why = whyNot(pool, conv, producer); !why.empty()) {
        recordRejected(pool, "conv-pool", why);
        continue;
      }
      fuse(pool, producer, kernel);
    }
  }

  /// Why `pool` cannot join `conv`'s kernel (`producer`: the convolution
  /// or its epilogue kernel), or "" when it can.
  std::string whyNot(PoolOp pool, ConvOp conv, Operation *producer) {
    std::string who = describe(producer, "the convolution");
    if (!producer->hasOneUse())
      return who + " has other users than the pooling, which would read it from HBM anyway";
    auto in = cast<RankedTensorType>(pool.getInput().getType());
    if (!in.hasStaticShape())
      return "the pooling's input has dynamic dims (bucket them first)";
    if (in.getRank() > 4)
      return "the pooling has more than two spatial dims";
    auto x = conv.getInput().getType();
    if (static_cast<int64_t>(conv.getGroups()) == x.getDimSize(1) && x.getDimSize(1) > 1 &&
        conv.getWeight().getType().getDimSize(0) == x.getDimSize(1))
      return who + " is depthwise: it runs plane-per-partition on the vector engines, which do "
                   "not keep its planes for a pooling";
    // One padded plane of each output channel tile stays in SBUF: it must
    // leave the convolution most of each partition.
    ArrayRef<int64_t> pad = pool.getPadding();
    int64_t k = in.getRank() - 2, rows = 1, cols = in.getShape().back() + pad[k - 1] + pad.back();
    if (k == 2)
      rows = in.getDimSize(2) + pad[0] + pad[2];
    int64_t plane = rows * cols * elementBytes(in.getElementType());
    int64_t limit = neuronc::hardwareModels().front().sbufPartitionBytes / 2;
    if (plane > limit)
      return "one padded plane of the convolution's output (" + std::to_string(plane) +
             " bytes per partition) takes more than half a partition of SBUF (" +
             std::to_string(limit) + " bytes)";
    return {};
  }

  /// Replaces `producer` (a bare convolution or its epilogue kernel) and
  /// `pool` by one conv-pool kernel.
  void fuse(PoolOp pool, Operation *producer, KernelOp kernel) {
    OpBuilder b(pool);
    SmallVector<Value> inputs = kernel ? SmallVector<Value>(kernel.getInputs())
                                       : SmallVector<Value>(producer->getOperands());
    SmallVector<Operation *> chain{producer, pool};
    auto fused = KernelOp::create(b, fusedLocation(chain), TypeRange{pool.getType()},
                                  b.getStringAttr("conv-pool"), inputs);
    Block *body = new Block();
    fused.getBody().push_back(body);
    IRMapping map;
    for (Value in : inputs)
      map.map(in, body->addArgument(in.getType(), in.getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    Value pooled;
    if (kernel) {
      for (auto [arg, in] : llvm::zip(kernel.getBody().getArguments(), inputs))
        map.map(arg, map.lookup(in));
      for (Operation &op : kernel.getBody().front().without_terminator())
        inner.clone(op, map);
      pooled = map.lookup(cast<YieldOp>(kernel.getBody().front().getTerminator()).getValues()[0]);
    } else {
      pooled = inner.clone(*producer, map)->getResult(0);
    }
    IRMapping poolMap;
    poolMap.map(pool.getInput(), pooled);
    Value result = inner.clone(*pool, poolMap)->getResult(0);
    YieldOp::create(inner, pool.getLoc(), result);
    recordFused(fused, "kernel (conv-pool)", chain, bytesSaved(chain, fused));
    pool.getResult().replaceAllUsesWith(fused.getResult(0));
    pool.erase();
    producer->erase();
  }
};

} // namespace
