//===- SpreadLoads.cpp - nisa-spread-loads ------------------------------===//
//
// Gives a kernel that stores nothing every DMA queue for its loads. The
// lowering keeps some queues for a kernel's stores, which wait for its
// results, so that they never hold back a load queued behind them; when
// nisa-forward-stores has turned every one of those stores into an SBUF
// copy, the kept queues sit idle while the loads wait in line on the
// others (an attention's in-projection loaded 2 MiB on 12 of 16 queues).
//
//===----------------------------------------------------------------------===//

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/InstructionCost.h"
#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::nisa {
#define GEN_PASS_DEF_NISASPREADLOADSPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

/// What `dma` costs its queue, as the lowering estimated it: its bytes and
/// one run overhead per contiguous run of its worse side.
double queueNs(DmaCopyOp dma, Type elementType, const neuronc::HardwareModel &hw) {
  int64_t elements = dma.getSrcAp().getTotalElements();
  int64_t run = std::max<int64_t>(
      1, std::min(dma.getSrcAp().getRunElements(), dma.getDstAp().getRunElements()));
  return neuronc::dmaQueueNs(hw, elements * elementBytes(elementType), elements / run, false);
}

/// Whether `dma` writes HBM (a store or an HBM-to-HBM copy).
bool writesHbm(DmaCopyOp dma) { return !dma.getDstAp().isTile(); }

struct SpreadLoadsPass : mlir::nisa::impl::NisaSpreadLoadsPassBase<SpreadLoadsPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    const neuronc::HardwareModel *hw = neuronc::lookupHardwareModel(program.getTarget());
    if (!hw)
      return signalPassFailure(); // the program verifier reports it
    MemoryResolver resolver(program);
    KernelOp previous;
    for (KernelOp kernel : program.getBodyBlock().getOps<KernelOp>()) {
      spread(kernel, previous, resolver, *hw);
      previous = kernel;
    }
  }

private:
  /// Reassigns `kernel`'s loads, in program order, each to the queue with
  /// the least of the kernel's load time so far (its own on a tie), when
  /// the kernel stores nothing and that shortens its busiest queue. Queues
  /// on which `previous` stores stay out of it: a load there would wait
  /// for the previous kernel's results.
  void spread(KernelOp kernel, KernelOp previous, MemoryResolver &resolver,
              const neuronc::HardwareModel &hw) {
    SmallVector<std::pair<DmaCopyOp, double>> loads;
    for (Operation &op : kernel.getBodyBlock()) {
      if (isa<InstructionOpInterface>(op) && !isa<DmaCopyOp>(op) &&
          cast<InstructionOpInterface>(op).getInstructionEngine() == Engine::dma)
        return; // a collective: its queue is its own
      auto dma = dyn_cast<DmaCopyOp>(op);
      if (!dma || dma->hasAttr(kPrefetchForAttrName))
        continue; // a load started here for a later kernel keeps its queue
      if (writesHbm(dma))
        return;
      auto tile = dyn_cast_or_null<AllocOp>(resolver.lookup(kernel, dma.getDstAttr()));
      if (!tile)
        return;
      loads.push_back({dma, queueNs(dma, tile.getElementType(), hw)});
    }
    int64_t engines = hw.dmaEngines;
    SmallVector<double> before(engines, 0.0);
    for (auto [dma, ns] : loads)
      if (dma.getQueue() < static_cast<uint64_t>(engines))
        before[dma.getQueue()] += ns;
      else
        return; // a queue the target does not have: the verifier's to report
    int64_t used = llvm::count_if(before, [](double ns) { return ns > 0; });
    if (used == engines || static_cast<int64_t>(loads.size()) <= used)
      return;

    llvm::SmallDenseSet<int64_t, 16> busy; // queues the previous kernel stores on
    if (previous)
      for (DmaCopyOp dma : previous.getBodyBlock().getOps<DmaCopyOp>())
        if (writesHbm(dma))
          busy.insert(static_cast<int64_t>(dma.getQueue()));
    SmallVector<double> after(engines, 0.0);
    SmallVector<int64_t> queues;
    for (auto [dma, ns] : loads) {
      auto best = static_cast<int64_t>(dma.getQueue());
      for (int64_t q = 0; q < engines; ++q)
        if (!busy.contains(q) && after[q] < after[best])
          best = q;
      after[best] += ns;
      queues.push_back(best);
    }
    double was = *llvm::max_element(before), now = *llvm::max_element(after);
    if (now >= was)
      return;
    OpBuilder b(kernel);
    for (auto [load, q] : llvm::zip(loads, queues))
      load.first.setQueueAttr(b.getI64IntegerAttr(q));
    if (remarks)
      kernel.emitRemark() << "stores nothing: its " << loads.size() << " loads spread from "
                          << used << " to "
                          << llvm::count_if(after, [](double ns) { return ns > 0; })
                          << " DMA queues (busiest " << llvm::formatv("{0:f1}", was / 1000).str() << " -> "
                          << llvm::formatv("{0:f1}", now / 1000).str() << " us)";
  }
};

} // namespace
