//===- FuseConvSums.cpp - neuron-fuse-conv-sums ----------------------------===//
//
// A convolution kernel whose epilogue adds the output of another, bare
// convolution of the same output shape (ResNet's downsample path: conv3 of
// the first bottleneck of a stage plus the 1x1 strided projection of the
// block's input) takes that convolution in: the kernel of kind `conv-sum`
// computes conv_a(x) + conv_b(y) + (bias_a + bias_b), and the lowering
// accumulates both convolutions into the same PSUM tiles, so the projection's
// output (f32, as large as the block's) is neither stored nor read back.
//
// The body stays exact: the two per-channel bias adds become one add of
// their sum after `add(conv_a, conv_b)`.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSECONVSUMSPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// The constant `v` is, inside a kernel's body or as one of its inputs,
/// possibly reshaped (the values in the same order).
ConstantOp constantOf(Value v) {
  if (auto reshape = v.getDefiningOp<ReshapeOp>())
    v = reshape.getInput();
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto k = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
      v = k.getInputs()[arg.getArgNumber()];
  return v.getDefiningOp<ConstantOp>();
}

/// A per-channel f32 constant of the body ([1, F, 1, 1] or [F, 1, 1]) and
/// the value it is added to, when `v` is `add(x, c)` or `add(c, x)`.
std::optional<std::pair<Value, Value>> channelAdd(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [x, c] :
       {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    ConstantOp cst = constantOf(c);
    auto type = cast<RankedTensorType>(c.getType());
    if (!cst || x.getType() != add.getType() || !isa<DenseElementsAttr>(cst.getValue()) ||
        !type.getElementType().isF32())
      continue;
    auto out = cast<RankedTensorType>(add.getType()).getShape();
    if (type.getRank() < 3 || type.getRank() > static_cast<int64_t>(out.size()))
      continue;
    auto shape = type.getShape();
    int64_t lead = static_cast<int64_t>(out.size()) - type.getRank();
    bool perChannel = true;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (shape[d] != 1 && (d + lead != 1 || shape[d] != out[1]))
        perChannel = false;
    if (perChannel)
      return std::pair(x, c);
  }
  return std::nullopt;
}

/// The one convolution of a `conv-epilogue` kernel, else null.
ConvOp heroConv(KernelOp k) {
  if (k.getKind() != "conv-epilogue")
    return {};
  ConvOp found;
  for (Operation &op : k.getBody().front()) {
    if (isa<MatmulOp, PoolOp>(op))
      return {};
    if (auto conv = dyn_cast<ConvOp>(op)) {
      if (found)
        return {};
      found = conv;
    }
  }
  return found;
}

/// One match: `sum = add(a-side, b-side)` in `kernel`'s body, each side the
/// convolution's value or it plus a per-channel constant.
struct Match {
  KernelOp kernel;
  ConvOp a, b;      ///< the kernel's convolution and the bare one
  unsigned arg;     ///< the block argument that reads b's output
  AddOp sum;
  AddOp addA, addB; ///< the sides' constant adds, if any
  Value biasA, biasB; ///< their constants (in the body or kernel inputs)
};

struct FuseConvSumsPass : public mlir::neuron::impl::NeuronFuseConvSumsPassBase<FuseConvSumsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<ConvOp> bare;
    for (Operation &op : getOperation().getBody().front())
      if (auto conv = dyn_cast<ConvOp>(op))
        bare.push_back(conv);
    for (ConvOp conv : bare) {
      if (!conv->hasOneUse())
        continue;
      auto k = dyn_cast<KernelOp>(*conv->user_begin());
      if (!k || !heroConv(k))
        continue; // not read by a convolution's epilogue: nothing to say
      Match m;
      if (std::string why = match(conv, k, m); !why.empty()) {
        recordRejected(k, "conv-sum", why);
        continue;
      }
      fuse(m);
    }
  }

  /// Fills `m` for the bare convolution `b` read by kernel `k`, or says why
  /// the two cannot share PSUM tiles.
  std::string match(ConvOp b, KernelOp k, Match &m) {
    ConvOp a = heroConv(k);
    std::string who = describe(b, "the convolution");
    auto uses = llvm::count_if(k.getInputs(), [&](Value v) { return v == b.getResult(); });
    if (uses != 1)
      return who + " is read by the kernel more than once";
    // One of the two accumulates into the other's tiles: it must be
    // pointwise (its input block per output tile is whole rows, strided).
    auto w = b.getWeight().getType();
    auto pointwise = [](ConvOp c) {
      auto t = c.getWeight().getType();
      return t.getRank() == 4 && t.hasStaticShape() && t.getDimSize(2) == 1 &&
             t.getDimSize(3) == 1 && llvm::all_of(c.getPadding(), [](int64_t p) { return p == 0; });
    };
    if (!pointwise(b) && !pointwise(a)) {
      if (w.getRank() != 4 || !w.hasStaticShape() || w.getDimSize(2) != 1 || w.getDimSize(3) != 1)
        return who + " is not a pointwise 2-D convolution (its window is not 1x1), nor is the "
                     "kernel's";
      return who + " has padding, and the kernel's convolution is not pointwise";
    }
    if (b.getGroups() != 1 || a.getGroups() != 1)
      return "a grouped convolution (each output tile needs every input channel of both)";
    if (b.getBias() || a.getBias())
      return "a convolution has a bias operand (only an epilogue's add runs on the kernel's "
             "tiles)";
    if (b.getResult().getType() != a.getResult().getType() ||
        !a.getResult().getType().hasStaticShape() || !b.getInput().getType().hasStaticShape())
      return who + " computes another type or shape than the kernel's convolution (or a dynamic "
                   "one)";
    if (b.getInput().getType().getElementType() != a.getInput().getType().getElementType())
      return who + " multiplies another element type than the kernel's convolution";
    Block &body = k.getBody().front();
    m.kernel = k;
    m.a = a;
    m.b = b;
    m.arg = static_cast<unsigned>(
        llvm::find(k.getInputs(), b.getResult()) - k.getInputs().begin());
    // Each side: the value, or it plus a per-channel constant, read once.
    auto side = [&](Value v, AddOp &add, Value &bias) -> Value {
      if (!v.hasOneUse())
        return {};
      Operation *user = *v.getUsers().begin();
      if (auto ca = channelAdd(user->getResult(0)); ca && ca->first == v && user->getResult(0).hasOneUse()) {
        add = cast<AddOp>(user);
        bias = ca->second;
        return user->getResult(0);
      }
      return v;
    };
    Value sa = side(a.getResult(), m.addA, m.biasA);
    Value sb = side(body.getArgument(m.arg), m.addB, m.biasB);
    if (!sa || !sb || !sa.hasOneUse() || !sb.hasOneUse())
      return describe(k, "the kernel") +
             " reads its convolution's value or the other convolution's in more than one place";
    auto sum = dyn_cast<AddOp>(*sa.getUsers().begin());
    if (!sum || *sb.getUsers().begin() != sum.getOperation() || sa == sb)
      return describe(k, "the kernel") +
             " does not add the two convolutions' values (plus per-channel constants) directly";
    m.sum = sum;
    if (m.biasA && m.biasB && m.biasA.getType() != m.biasB.getType())
      return "the two per-channel constants have different shapes";
    return {};
  }

  /// Moves `m.b` into the kernel: add(conv_a, conv_b) plus the two
  /// constants' sum, folded now; the kernel reads b's input and weight.
  void fuse(Match m) {
    KernelOp k = m.kernel;
    Block &body = k.getBody().front();
    int64_t saved = 2 * cast<RankedTensorType>(m.b.getType()).getNumElements() *
                    std::max<int64_t>(1, m.b.getType().getElementTypeBitWidth() / 8);
    k->setLoc(fusedLocation({m.b.getOperation(), k.getOperation()}));
    recordFused(k, "kernel (conv-sum)", {m.b.getOperation(), k.getOperation()}, saved);
    unsigned base = k->getNumOperands();
    k->insertOperands(base, {m.b.getInput(), m.b.getWeight()});
    Value x = body.addArgument(m.b.getInput().getType(), m.b.getLoc());
    Value w = body.addArgument(m.b.getWeight().getType(), m.b.getLoc());
    OpBuilder builder(m.sum);
    IRMapping map;
    map.map(m.b.getInput(), x);
    map.map(m.b.getWeight(), w);
    Value convB = builder.clone(*m.b, map)->getResult(0);
    Type type = m.sum.getType();
    Value total = AddOp::create(builder, m.sum.getLoc(), type, m.a.getResult(), convB);
    Value bias = m.biasA ? m.biasA : m.biasB;
    if (m.biasA && m.biasB) {
      auto ca = cast<DenseElementsAttr>(constantOf(m.biasA).getValue());
      auto cb = cast<DenseElementsAttr>(constantOf(m.biasB).getValue());
      SmallVector<float> values;
      for (auto [p, q] : llvm::zip(ca.getValues<float>(), cb.getValues<float>()))
        values.push_back(p + q);
      auto t = cast<RankedTensorType>(m.biasA.getType());
      bias = ConstantOp::create(builder, m.biasA.getLoc(), t,
                                cast<ElementsAttr>(DenseElementsAttr::get(t, ArrayRef(values))));
    }
    if (bias)
      total = AddOp::create(builder, m.sum.getLoc(), type, total, bias);
    m.sum.getResult().replaceAllUsesWith(total);
    m.sum->erase();
    for (AddOp add : {m.addA, m.addB})
      if (add)
        add->erase();
    // The constants' ops nothing reads now (a reshape, then its constant).
    for (Value c : {m.biasA, m.biasB != m.biasA ? m.biasB : Value()})
      for (Operation *def = c ? c.getDefiningOp() : nullptr; def && def->use_empty();) {
        Operation *next = isa<ReshapeOp>(def) ? def->getOperand(0).getDefiningOp() : nullptr;
        def->erase();
        def = next;
      }
    // The inputs nothing reads now: b's output and the constants it held.
    for (unsigned i = body.getNumArguments(); i-- > 0;)
      if (body.getArgument(i).use_empty() &&
          (i == m.arg || k.getInputs()[i].getDefiningOp<ConstantOp>())) {
        body.eraseArgument(i);
        k->eraseOperand(i);
      }
    k.setKind("conv-sum");
    m.b->erase();
  }
};

} // namespace
