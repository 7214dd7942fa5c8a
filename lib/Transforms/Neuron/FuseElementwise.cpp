//===- FuseElementwise.cpp - neuron-fuse-elementwise ------------------------===//
//
// General producer→consumer fusion into neuron.kernel regions, in the spirit
// of XLA's loop/input fusion and IREE's dispatch regions. Consumers are
// visited last to first; each unfused fusible op roots a kernel and pulls in
// its producers until a boundary: an op that cannot be fused, a producer
// with users outside the kernel, a second hero, or the SBUF budget.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "neuronc/Dialect/Neuron/AutoCast.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Transforms/Passes.h"

#include <limits>

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSEELEMENTWISEPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::fusion;

namespace {

/// A reshape that merges or splits dims: a row kernel cannot run it (the
/// lowering split every kernel holding one, and ran the reshape as a copy);
/// outside kernels it is a view of its input's buffer.
bool isRegroupingReshape(Operation *op) {
  auto r = dyn_cast<ReshapeOp>(op);
  return r && regroupsDims(r);
}

/// A narrowing float cast whose users all convert on chip (a matmul or
/// convolution operand) and whose input has other users: taken into the
/// producer's kernel it would be an extra result stored to HBM (an LSTM
/// step's h, stored in f32 for the output and in bf16 for the next step's
/// matmul); left alone, the lowering folds it into the loads.
bool foldsWhereItIs(Operation *op) {
  auto c = dyn_cast<CastOp>(op);
  return c && !c.getInput().hasOneUse() && isNarrowingFloatCast(c) &&
         onlyConvertingUses(c.getResult());
}

/// Constants copied into a kernel body rather than passed in.
bool isInlinableConstant(Operation *op) {
  auto c = dyn_cast<ConstantOp>(op);
  return c && (isa<SplatElementsAttr>(c.getValue()) || c.getType().getNumElements() <= 4096);
}

/// Rows of one tile: the partitions of the default target (fusion runs before
/// a target is chosen; every target has as many).
int64_t tileRows() { return neuronc::hardwareModels().front().partitions; }

/// Bytes of `v` that one row tile holds: rows are all dims but the last,
/// of which a tile holds at most `columns`.
int64_t tileBytes(Value v, int64_t columns) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.hasStaticShape())
    return 0;
  int64_t last = t.getRank() ? t.getShape().back() : 1;
  int64_t rows = last ? t.getNumElements() / last : 0;
  return std::min<int64_t>(rows, tileRows()) * std::min(last, columns) *
         elementBytes(t.getElementType());
}

/// The working set of a group: every value it reads or produces, per tile.
/// A matmul's (or convolution's) operands are not in it: its lowering tiles them
/// itself (with the epilogue's share of SBUF in its plan), so only its
/// result counts, as the epilogue reads it. A group that needs whole rows
/// (a reduction, a row hero) holds them; any other streams its rows in
/// chunks (a matmul's epilogue one PSUM bank of columns at a time), so a
/// tile holds one bank's width of columns of every value.
int64_t workingSet(const llvm::SetVector<Operation *> &group) {
  llvm::SmallPtrSet<Value, 16> seen;
  int64_t total = 0;
  int64_t columns = std::numeric_limits<int64_t>::max();
  if (llvm::none_of(group, [](Operation *op) {
        return isReduction(op) || (isHero(op) && !isa<MatmulOp, ConvOp>(op));
      }))
    columns = neuronc::hardwareModels().front().psumBankFp32();
  auto add = [&](Value v) {
    if (seen.insert(v).second)
      total += tileBytes(v, columns);
  };
  for (Operation *op : group) {
    for (Value v : op->getOperands())
      if (!isa_and_nonnull<ConstantOp>(v.getDefiningOp()) && !isa<MatmulOp, ConvOp>(op))
        add(v);
    for (Value v : op->getResults())
      add(v);
  }
  return total;
}

/// Why a reduction over rows (reducesAcrossRows) stays a kernel of its own.
std::string acrossRowsReason(Operation *op) {
  return describe(op, "the reduction") +
         " keeps its innermost dim: it reduces across partitions alone, where a row kernel "
         "would read its reduced elements one DMA run each";
}

/// "512 B", "96.0 KiB", "24.0 MiB".
std::string formatBytes(int64_t bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (bytes < 1024)
    os << bytes << " B";
  else if (bytes < 1024 * 1024)
    os << llvm::format("%.1f KiB", bytes / 1024.0);
  else
    os << llvm::format("%.1f MiB", bytes / (1024.0 * 1024.0));
  return s;
}

struct FuseElementwisePass
    : mlir::neuron::impl::NeuronFuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    splitConvBiases(block);
    llvm::SmallPtrSet<Operation *, 32> taken;
    fuseResidualRmsNorms(block, taken);
    SmallVector<Operation *> roots;
    for (Operation &op : llvm::reverse(block))
      roots.push_back(&op);
    for (Operation *root : roots) {
      if (taken.contains(root) || !(isElementwise(root) || isReduction(root)) ||
          isRegroupingReshape(root))
        continue;
      if (reducesAcrossRows(root)) {
        recordRejected(root, "kernel", acrossRowsReason(root));
        continue;
      }
      if (foldsWhereItIs(root)) {
        recordRejected(root, "kernel",
                       describe(root, "the cast") +
                           " is converted on chip by the matmuls or convolutions reading it; "
                           "in its producer's kernel it would be one more result to store");
        continue;
      }
      llvm::SetVector<Operation *> group;
      group.insert(root);
      Operation *hero = nullptr;
      llvm::MapVector<Operation *, std::string> rejected;
      // Pull producers in until nothing changes (a producer rejected because
      // another of its users was not in yet gets another chance).
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < group.size(); ++i) {
          Operation *op = group[i];
          if (op == hero)
            continue; // a hero's inputs are the kernel's inputs
          for (Value v : op->getOperands()) {
            Operation *p = v.getDefiningOp();
            if (!p || group.contains(p) || isa<ConstantOp>(p) || taken.contains(p))
              continue;
            bool heroCandidate = isHero(p);
            if ((!isElementwise(p) && !isReduction(p) && !heroCandidate) ||
                isRegroupingReshape(p) || reducesAcrossRows(p))
              continue; // a boundary: data movement, gather, a reshape the
                        // lowering runs as a view, a reduction across rows
                        // (recorded when it is the root), ...
            std::string why;
            int64_t outside = llvm::count_if(p->getUsers(), [&](Operation *u) {
              return !group.contains(u);
            });
            // A hero reads its operands from HBM (the kernel's inputs): what
            // computes one of them stays out, whichever path reached it (a
            // residual add that also feeds the next convolution).
            auto feeds = [](Operation *producer, Operation *consumer) {
              return llvm::any_of(consumer->getOperands(), [&](Value o) {
                return o.getDefiningOp() == producer;
              });
            };
            if (hero && feeds(p, hero))
              why = describe(p, "the producer") + " computes an operand of the hero " +
                    hero->getName().getStringRef().str() +
                    ", which reads its operands from memory";
            else if (heroCandidate &&
                     llvm::any_of(group, [&](Operation *g) { return feeds(g, p); }))
              why = describe(p, "the producer") +
                    " would read an operand computed in the kernel (a hero reads its operands "
                    "from memory)";
            else if (outside)
              why = whyNotWithExtraResult(p, group, outside, heroCandidate);
            else if (heroCandidate && hero)
              why = describe(p, "the producer") + " would be a second hero next to " +
                    hero->getName().getStringRef().str();
            if (why.empty()) {
              group.insert(p);
              int64_t ws = workingSet(group);
              if (ws > sbufBytes) {
                group.pop_back();
                why = "adding " + describe(p, "the producer") + " makes the working set " +
                      formatBytes(ws) + " per " + std::to_string(tileRows()) +
                      "-row tile, over the SBUF budget of " +
                      formatBytes(sbufBytes);
              }
            }
            if (!why.empty()) {
              rejected[p] = why;
              continue;
            }
            rejected.erase(p);
            if (heroCandidate)
              hero = p;
            changed = true;
          }
        }
      }
      for (auto &[p, why] : rejected)
        recordRejected(p, "kernel", why);
      if (group.size() < 2)
        continue;
      // The cost model: only form a kernel that saves HBM traffic.
      if (int64_t saved = estimatedSavings(group); saved <= 0) {
        recordRejected(root, "kernel",
                       "fusing " + std::to_string(group.size()) +
                           " ops saves no HBM traffic (" + std::to_string(saved) + " bytes)");
        continue;
      }
      for (Operation *op : group)
        taken.insert(op);
      outline(group, hero, taken);
    }
  }

  /// A convolution whose users are all elementwise gets its bias as an add
  /// of their epilogue: the fused kernel reads the convolution from PSUM,
  /// which only TensorE writes. (With several users, the biased value
  /// becomes the kernel's extra result: a block output that a residual add
  /// reads in f32 and the next convolution reads cast to bf16.)
  void splitConvBiases(Block &block) {
    SmallVector<ConvOp> convs;
    for (auto conv : block.getOps<ConvOp>())
      if (conv.getBias() && !conv->use_empty() &&
          llvm::all_of(conv->getUsers(), [](Operation *u) { return isElementwise(u); }))
        convs.push_back(conv);
    for (ConvOp conv : convs) {
      OpBuilder b(conv);
      auto type = conv.getResult().getType();
      auto plain = ConvOp::create(b, conv.getLoc(), type, conv.getInput(), conv.getWeight(),
                                  Value(), conv.getStridesAttr(), conv.getPaddingAttr(),
                                  conv.getDilationsAttr(), conv.getGroupsAttr());
      Value bias = conv.getBias();
      auto bt = cast<RankedTensorType>(bias.getType());
      if (bt.getElementType() != type.getElementType())
        bias = CastOp::create(b, conv.getLoc(),
                              RankedTensorType::get(bt.getShape(), type.getElementType()), bias);
      SmallVector<int64_t> shape(type.getRank(), 1);
      shape[1] = bt.getDimSize(0);
      Value channel = ReshapeOp::create(
          b, conv.getLoc(), RankedTensorType::get(shape, type.getElementType()), bias);
      Value sum = AddOp::create(b, conv.getLoc(), type, plain, channel);
      conv.getResult().replaceAllUsesWith(sum);
      conv.erase();
    }
  }

  /// A producer that other ops outside the kernel also use can join as an
  /// extra kernel result, written once instead of written and read back,
  /// when the cost model says that pays. Returns why not, or "" when it may.
  std::string whyNotWithExtraResult(Operation *p, llvm::SetVector<Operation *> &group,
                                    int64_t outside, bool heroCandidate) {
    std::string who = describe(p, "the producer") + " has " + std::to_string(outside) +
                      " user(s) outside the kernel";
    if (heroCandidate)
      return who + " (a hero is neither duplicated nor returned as an extra result)";
    Operation *root = group.front();
    if (llvm::any_of(p->getUsers(), [&](Operation *u) {
          return !group.contains(u) && (u->getBlock() != root->getBlock() ||
                                        u->isBeforeInBlock(root));
        }))
      return who + ", one of them before the kernel";
    int64_t without = estimatedSavings(group);
    group.insert(p);
    int64_t with = estimatedSavings(group);
    group.pop_back();
    if (with <= without)
      return who + ", and returning it as an extra result saves nothing";
    return {};
  }

  /// h = x + r; y = rmsnorm(h), as every decoder layer writes it: one kernel
  /// computing both, returning h too when later layers use it (the next
  /// residual), so h is not read back from HBM for the norm.
  void fuseResidualRmsNorms(Block &block, llvm::SmallPtrSetImpl<Operation *> &taken) {
    SmallVector<RmsNormOp> norms(block.getOps<RmsNormOp>());
    for (RmsNormOp norm : norms) {
      auto add = norm.getInput().getDefiningOp<AddOp>();
      if (!add || add->getBlock() != &block)
        continue;
      if (llvm::any_of(add->getUsers(),
                       [&](Operation *u) { return u != norm && u->isBeforeInBlock(norm); })) {
        recordRejected(add, "kernel",
                       describe(add, "the residual add") +
                           " is used before its rmsnorm, so one kernel cannot produce both");
        continue;
      }
      llvm::SetVector<Operation *> group;
      group.insert(add);
      group.insert(norm);
      if (estimatedSavings(group) <= 0)
        continue;
      extendWithEpilogue(group);
      for (Operation *op : group)
        taken.insert(op);
      outline(group, norm, taken, "residual-rmsnorm");
    }
  }

  /// The norm's only user, and that one's only user, ..., while each is
  /// elementwise (a weight, the cast --auto-cast puts before the next
  /// matmul): computed in the kernel, the norm's output is stored once, in
  /// the dtype its readers want, instead of stored and read back. Stops
  /// where a value the kernel returns has a user before the chain's end
  /// (the kernel is placed at its last op).
  void extendWithEpilogue(llvm::SetVector<Operation *> &group) {
    Operation *tail = group.back();
    while (tail->getNumResults() == 1 && tail->getResult(0).hasOneUse()) {
      Operation *next = *tail->getResult(0).user_begin();
      if (next->getBlock() != tail->getBlock() || !isElementwise(next) ||
          isRegroupingReshape(next) || next->getNumResults() != 1)
        break;
      if (auto c = dyn_cast<CastOp>(next); c && !castPaysInRowKernel(c)) {
        recordRejected(c, "kernel",
                       describe(c, "the cast") +
                           " stays out of the norm's kernel: converting its few rows there "
                           "costs more than the bytes it saves; the matmuls or convolutions "
                           "reading it convert it while they load");
        break;
      }
      bool usedBefore = llvm::any_of(group, [&](Operation *op) {
        return llvm::any_of(op->getUsers(), [&](Operation *u) {
          return u != next && !group.contains(u) && u->isBeforeInBlock(next);
        });
      });
      if (usedBefore)
        break;
      group.insert(next);
      tail = next;
    }
  }

  /// Whether a narrowing cast whose readers would convert on chip (a
  /// matmul loading K over the partitions) is cheaper in a row kernel: there
  /// it runs over the kernel's rows, one per partition (a decode step's one
  /// row converts all its columns on one partition), and saves the bytes
  /// the narrower value does not move (written once, read by each user).
  static bool castPaysInRowKernel(CastOp c) {
    if (!isNarrowingFloatCast(c) || !onlyConvertingUses(c.getResult()))
      return true;
    auto in = cast<RankedTensorType>(c.getInput().getType());
    auto out = cast<RankedTensorType>(c.getType());
    if (!in.hasStaticShape() || in.getRank() == 0)
      return true;
    const neuronc::HardwareModel &hw = neuronc::hardwareModels().front();
    int64_t cols = in.getShape().back();
    int64_t rows = cols ? in.getNumElements() / cols : 0;
    int64_t perPartition = (rows + hw.partitions - 1) / hw.partitions * cols;
    double castNs = static_cast<double>(perPartition) * static_cast<double>(hw.partitions) /
                    (static_cast<double>(hw.vectorElementsPerCycle) * hw.vectorClockGHz);
    int64_t saved = in.getNumElements() *
                    (elementBytes(in.getElementType()) - elementBytes(out.getElementType())) *
                    (1 + static_cast<int64_t>(llvm::range_size(c->getUses())));
    return castNs <= static_cast<double>(saved) / hw.hbmGBps;
  }

  /// HBM bytes the group's ops move minus what a kernel of them would move
  /// (its inputs once, its externally used results once).
  static int64_t estimatedSavings(const llvm::SetVector<Operation *> &group) {
    int64_t before = 0, after = 0;
    llvm::SmallPtrSet<Value, 16> inputs;
    for (Operation *op : group) {
      if (auto cost = dyn_cast<CostOpInterface>(op))
        if (std::optional<OpCost> c = cost.getCost())
          before += c->bytes();
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if ((!def || !group.contains(def)) && !(def && isInlinableConstant(def)) &&
            inputs.insert(v).second)
          after += tensorBytes(v.getType()).value_or(0);
      }
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !group.contains(u); }))
          after += tensorBytes(r.getType()).value_or(0);
    }
    return before - after;
  }

  /// Replaces the group by one neuron.kernel placed at its root.
  /// `taken` gets every op this erases (the group and the constants only it
  /// used), so that callers walking a list of ops skip them.
  void outline(const llvm::SetVector<Operation *> &groupSet, Operation *hero,
               llvm::SmallPtrSetImpl<Operation *> &taken, StringRef kindOverride = {}) {
    SmallVector<Operation *> group(groupSet.begin(), groupSet.end());
    llvm::sort(group, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    llvm::SmallPtrSet<Operation *, 16> inGroup(group.begin(), group.end());
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> constants;
    SmallVector<Value> results;
    for (Operation *op : group) {
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && inGroup.contains(def))
          continue;
        // A convolution's weight stays a kernel input: its lowering packs
        // and tiles it, and it is not part of the epilogue's domain.
        if (def && isInlinableConstant(def) && !isa<ConvOp>(op))
          constants.insert(def);
        else
          inputs.insert(v);
      }
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !inGroup.contains(u); }))
          results.push_back(r);
    }
    // SwiGLU: a silu gating a product, silu(gate) * up.
    bool swiglu = llvm::any_of(group, [&](Operation *op) {
      return isa<SiluOp>(op) && op->hasOneUse() && isa<MulOp>(*op->user_begin()) &&
             inGroup.contains(*op->user_begin());
    });
    std::string kind = !kindOverride.empty() ? kindOverride.str()
                       : swiglu ? (hero ? hero->getName().stripDialect() + "-swiglu" : "swiglu")
                                      .str()
                       : hero ? (hero->getName().stripDialect() + "-epilogue").str()
                       : llvm::any_of(group, isReduction) ? "reduction"
                                                          : "elementwise";
    Operation *root = group.back();
    OpBuilder b(root);
    SmallVector<Type> resultTypes;
    for (Value r : results)
      resultTypes.push_back(r.getType());
    auto kernel = KernelOp::create(b, fusedLocation(group), resultTypes, b.getStringAttr(kind),
                                   inputs.getArrayRef());
    Block *body = new Block();
    kernel.getBody().push_back(body);
    IRMapping map;
    for (Value in : inputs)
      map.map(in, body->addArgument(in.getType(), in.getLoc()));
    OpBuilder inner = OpBuilder::atBlockBegin(body);
    for (Operation *c : constants)
      inner.clone(*c, map);
    for (Operation *op : group)
      inner.clone(*op, map);
    SmallVector<Value> yielded;
    for (Value r : results)
      yielded.push_back(map.lookup(r));
    YieldOp::create(inner, root->getLoc(), yielded);

    recordFused(kernel, "kernel (" + kind + ")", group, bytesSaved(group, kernel));
    for (auto [r, k] : llvm::zip(results, kernel.getResults()))
      r.replaceAllUsesWith(k);
    // Also erases the constants only the group used (erasing them here too
    // would touch freed operations: AddressSanitizer found it).
    for (Operation *c : constants)
      taken.insert(c);
    for (Operation *op : group)
      taken.insert(op);
    eraseDeadChain(group);
  }
};

} // namespace
