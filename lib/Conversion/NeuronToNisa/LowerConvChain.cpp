//===- LowerConvChain.cpp - Two convolutions in one kernel ----------------===//
//
// A conv-chain kernel (neuron-fuse-conv-chains): a convolution with its
// epilogue, then a pointwise convolution of that epilogue's value, then the
// second convolution's epilogue. Both are ConvLowerings on the same output
// tiles (whole rows of the first convolution's output; a pointwise
// convolution's output tile is its input tile):
//  - per output tile, the first convolution accumulates each of its output
//    channel tiles into PSUM and its epilogue stores what the program reads
//    elsewhere and writes the value the second one reads into that
//    convolution's input block, one channel tile per partition block;
//  - the second convolution multiplies a tile's block one tile later, after
//    the first one's multiplies of the next tile, so TensorE does not wait
//    for the epilogue (two blocks in a ring suffice: TensorE runs in order);
//  - both convolutions keep all their weights in SBUF; the first plans its
//    tiles in what the second's weights, blocks and epilogue leave, and the
//    PSUM banks are split between their accumulators.
// When the two do not fit together the kernel runs as two conv-epilogue
// kernels, the value between them through HBM, and the report says why.
//
//===----------------------------------------------------------------------===//

#include "ConvLowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

LogicalResult mlir::neuron::lowering::lowerConvChain(FunctionLowering &fl, KernelOp k,
                                                     ArrayRef<Operation *> ops,
                                                     ArrayRef<std::pair<Value, Value>> outputs) {
  ConvOp head, tail;
  // A conv-sum head: two convolutions added, one accumulated into the
  // other's PSUM tiles; the add's readers read the accumulator while the
  // kernel is planned and emitted (restored when it is not).
  std::optional<ConvSum> sum = findConvSum(ops);
  for (Operation *op : ops)
    if (auto conv = dyn_cast<ConvOp>(op)) {
      if (sum && (conv == sum->total.getLhs().getDefiningOp() ||
                  conv == sum->total.getRhs().getDefiningOp()))
        continue;
      (head || sum ? tail : head) = conv;
    }
  SmallVector<OpOperand *> sumUses;
  if (sum) {
    if (!sum->addend)
      return k.emitError("a conv-chain kernel whose two summed convolutions are not pointwise");
    head = sum->main;
    sumUses = llvm::map_to_vector(sum->total->getUses(), [](OpOperand &u) { return &u; });
    sum->total.getResult().replaceAllUsesWith(head.getResult());
  }
  auto summed = [&](Operation *op) {
    return sum && (op == sum->total.getOperation() || op == sum->addend.getOperation());
  };
  // The first convolution's side is what the value between them and the
  // kernel's results that do not read the second convolution are computed
  // from; the rest is the second one's (an op of its epilogue that reads
  // only the kernel's inputs may come before it); a constant goes with the
  // ops that read it (the fused body defines its constants first).
  Value link = tail.getInput();
  llvm::SmallPtrSet<Operation *, 16> late{tail.getOperation()};
  for (Operation *op : ops)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return late.contains(v.getDefiningOp()); }))
      late.insert(op);
  llvm::SmallPtrSet<Operation *, 16> early;
  SmallVector<Operation *> work;
  auto reach = [&](Value v) {
    if (Operation *def = v.getDefiningOp(); def && !isa<ConstantOp>(def) && early.insert(def).second)
      work.push_back(def);
  };
  reach(link);
  for (auto [inner, outer] : outputs)
    if (!late.contains(inner.getDefiningOp()))
      reach(inner);
  while (!work.empty())
    for (Value v : work.pop_back_val()->getOperands())
      reach(v);
  SmallVector<Operation *> headEpilogue, tailEpilogue;
  for (Operation *op : ops) {
    if (op == head.getOperation() || op == tail.getOperation() || summed(op))
      continue;
    if (!isa<ConstantOp>(op)) {
      (early.contains(op) ? headEpilogue : tailEpilogue).push_back(op);
      continue;
    }
    auto readBy = [&](bool first) {
      return llvm::any_of(op->getUsers(), [&](Operation *u) {
        return early.contains(u) == first && u != head.getOperation() &&
               u != tail.getOperation();
      });
    };
    if (readBy(true))
      headEpilogue.push_back(op);
    if (readBy(false))
      tailEpilogue.push_back(op);
  }
  SmallVector<std::pair<Value, Value>> headOutputs, tailOutputs;
  std::optional<Value> linkOuter;
  for (auto [inner, outer] : outputs) {
    if (sum && inner == sum->total.getResult())
      inner = head.getResult();
    Operation *def = inner.getDefiningOp();
    bool inTail = def == tail.getOperation() || llvm::is_contained(tailEpilogue, def);
    (inTail ? tailOutputs : headOutputs).push_back({inner, outer});
    if (inner == link)
      linkOuter = outer;
  }
  std::optional<KernelBuilder> kb;
  // The two convolutions as conv-epilogue kernels, the value between them
  // through HBM.
  auto separately = [&](const Twine &why) -> LogicalResult {
    if (kb) {
      kb->kernel().erase();
      kb.reset();
    }
    recordSplit(k, "conv-chain", "the pointwise convolution is a kernel of its own: " + why);
    if (fl.remarks)
      k->emitRemark("the pointwise convolution is a kernel of its own: ") << why;
    SmallVector<std::pair<Value, Value>> first = headOutputs;
    if (!linkOuter)
      first.push_back({link, link});
    if (sum) {
      // The head as a conv-sum kernel of its own.
      for (OpOperand *u : sumUses)
        u->set(sum->total.getResult());
      for (auto &[inner, outer] : first)
        if (inner == head.getResult())
          inner = sum->total.getResult();
      SmallVector<Operation *> headOps;
      for (Operation *op : ops)
        if (op == head.getOperation() || summed(op) || llvm::is_contained(headEpilogue, op))
          headOps.push_back(op);
      if (failed(lowerConvSum(fl, k, headOps, first)))
        return failure();
    } else if (failed(lowerConv(fl, k, head, headEpilogue, first, "conv-epilogue"))) {
      return failure();
    }
    if (linkOuter)
      fl.setBuffer(link, fl.bufferOf(*linkOuter));
    return lowerConv(fl, k, tail, tailEpilogue, tailOutputs, "conv-epilogue");
  };
  const neuronc::HardwareModel &hw = fl.pb.hw();
  std::string why;
  // The epilogue of `conv` (`epilogueOps`), storing `stored` and, when
  // `sink`, leaving the value between the convolutions in the blocks.
  auto planEpilogue = [&](ConvOp conv, ArrayRef<Operation *> epilogueOps,
                          ArrayRef<std::pair<Value, Value>> stored, bool sink) {
    RowKernelSpec spec;
    spec.ops.push_back(conv);
    spec.ops.append(epilogueOps.begin(), epilogueOps.end());
    spec.bufferOf = [&](Value v) { return fl.bufferOf(v); };
    spec.constantBuffer = [&](ConstantOp c) { return fl.constantBuffer(c); };
    if (sink)
      spec.outputs.push_back({link, HbmBuffer{}});
    for (auto [inner, outer] : stored)
      spec.outputs.push_back({inner, fl.resultBuffer(outer)});
    spec.psum = conv.getResult();
    return RowKernel::plan(std::move(spec), hw, why);
  };
  std::optional<RowKernel> headEpi = planEpilogue(head, headEpilogue, headOutputs, true);
  if (!headEpi)
    return separately("the first convolution's epilogue does not run on its tiles (" + why + ")");
  std::optional<RowKernel> tailEpi = planEpilogue(tail, tailEpilogue, tailOutputs, false);
  if (!tailEpi)
    return separately("its epilogue does not run on its tiles (" + why + ")");

  kb.emplace(fl.pb, "conv-chain", k);
  ConvLowering h(fl, *kb, head, &*headEpi), t(fl, *kb, tail, &*tailEpi);
  std::optional<ConvLowering> added;
  t.onChip = true;
  t.inSlots = 2;
  if (!t.readShapes(why))
    return separately(why);
  int64_t addedBytes = 0;
  if (sum) {
    added.emplace(fl, *kb, sum->addend, nullptr);
    if (!added->readShapes(why))
      return separately(why);
    addedBytes = added->summedBytes(
        std::max(hw.psumBankFp32(), head.getResult().getType().getShape().back()));
  }
  // An upper bound: an output tile holds at most a PSUM bank of pixels.
  // The second convolution's epilogue keeps as many tiles in flight as it
  // has (at most kMaxEpilogueRing) where the first one's plan still fits
  // next to them, else two: the next kernel then finds them in SBUF
  // (nisa-forward-stores) instead of waiting for their stores.
  int64_t bank = hw.psumBankFp32();
  int64_t tiles = llvm::divideCeil(t.Fg, t.P) * llvm::divideCeil(t.N * t.OH * t.OW, bank);
  for (int ring : {static_cast<int>(std::min<int64_t>(ConvLowering::kMaxEpilogueRing, tiles)), 2}) {
    t.epilogueBuffers = std::max(2, ring);
    h.reserved = t.chainedBytes(bank) + addedBytes;
    if (h.plan(why))
      break;
    if (ring <= 2)
      return separately("the first convolution does not fit next to it: " + why);
  }
  if (h.fChunk < h.Fg || h.groups != 1 || h.ncw < h.OW)
    return separately("the first convolution's weights are not all resident or its output "
                      "rows not whole");
  if (!t.planChained(h, why))
    return separately(why);
  if (added) {
    if (h.khPack > 1)
      return separately("the first convolution packs kernel rows");
    if (!added->planSummed(h, h.reserved - t.chainedBytes(h.nb * h.R * h.ncw), why))
      return separately("the convolution summed into the first one: " + why);
    h.addend = &*added;
  }
  int64_t banks = hw.psumBanks;
  h.accSlots = std::min<int64_t>(h.accSlots, banks / 2);
  t.accSlots = std::min<int64_t>(4, banks - h.accSlots);
  h.chained = &t;

  kb->setSource(head);
  kb->shareQueues(h.loadBytes() + t.loadBytes(), h.storeBytes() + t.storeBytes());
  h.begin();
  t.begin();
  // Nothing is stored before the weights arrive: they may use every queue.
  int64_t storeQueues = kb->storeQueues;
  kb->storeQueues = 0;
  h.loadWeights(0, 0, h.Fg);
  t.loadWeights(0, 0, t.Fg);
  kb->storeQueues = storeQueues;
  // The second convolution's multiplies and epilogue of tile `o`.
  auto multiplySecond = [&](const OutTile &o, int slot) {
    for (int64_t f = 0; f < t.Fg; f += t.P) {
      int64_t fsz = std::min(t.P, t.Fg - f);
      int a = t.accSlot;
      t.accSlot = (t.accSlot + 1) % t.accSlots;
      t.multiply(o, slot, f, fsz, a);
      t.store(o, 0, f, fsz, a);
    }
  };
  std::optional<std::pair<OutTile, int>> pending;
  for (const OutTile &o : h.outputTiles()) {
    h.inSlot = (h.inSlot + 1) % h.inSlots;
    h.loadInput(o, 0, h.inSlot);
    h.chainSlot = (h.chainSlot + 1) % t.inSlots;
    for (int64_t f = 0; f < h.Fg; f += h.P) {
      int64_t fsz = std::min(h.P, h.Fg - f);
      int a = h.accSlot;
      h.accSlot = (h.accSlot + 1) % h.accSlots;
      h.multiply(o, h.inSlot, f, fsz, a);
      h.store(o, 0, f, fsz, a);
    }
    if (pending)
      multiplySecond(pending->first, pending->second);
    pending = {o, h.chainSlot};
  }
  if (pending)
    multiplySecond(pending->first, pending->second);
  kb->program().levelQueues();
  if (fl.remarks)
    k->emitRemark("lowered as two chained convolutions: ")
        << h.ct << " channel tile(s) x " << h.T << " taps, then " << t.ct
        << " channel tile(s) x 1 tap"
        << (added ? ", the first one plus " + std::to_string(added->ct) +
                        " channel tile(s) of a pointwise convolution summed in PSUM"
                  : std::string())
        << ", on output tiles of " << h.nb << " image(s) x " << h.R
        << " row(s) x " << h.ncw << " columns; the value between them stays in SBUF"
        << (h.epilogueBuffers != 2
                ? ", " + std::to_string(h.epilogueBuffers) + " epilogue tiles in flight"
                : std::string())
        << "; stores on " << kb->storeQueues << " of " << hw.dmaEngines << " DMA queues";
  return success();
}
