//===- InsertSemaphores.cpp - nisa-insert-semaphores --------------------===//
//
// Each stream keeps a vector clock: for every other stream, the position of
// the last instruction it knows has finished. A dependency on instruction j
// of stream t at position p is satisfied when the clock says >= p;
// otherwise the consumer waits for j (which then signals) and learns j's
// own clock. Waits are counted in signals, so positions become counts once
// every signalling instruction is known.
//
//===----------------------------------------------------------------------===//

#include "NisaRegions.h"

#include "neuronc/Transforms/NisaPasses.h"

#include "mlir/IR/Builders.h"

namespace mlir::nisa {
#define GEN_PASS_DEF_NISAINSERTSEMAPHORESPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

using Clock = SmallVector<int64_t, kMaxStreams>;

struct InsertSemaphoresPass
    : mlir::nisa::impl::NisaInsertSemaphoresPassBase<InsertSemaphoresPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    SmallVector<Step, 0> steps;
    if (failed(collectSteps(program, steps)))
      return signalPassFailure();
    // known[s][t]: highest position of stream t that stream s knows finished.
    SmallVector<Clock> known(kMaxStreams, Clock(kMaxStreams, -1));
    std::vector<Clock> clockAt(steps.size());
    std::vector<bool> signals(steps.size(), false);
    // Per consumer step: (producer stream, producer step index).
    std::vector<SmallVector<std::pair<int64_t, int64_t>, 2>> waits(steps.size());
    ConflictIndex index;
    for (size_t i = 0; i < steps.size(); ++i) {
      Step &step = steps[i];
      int64_t s = step.stream;
      // The latest dependency per producer stream.
      SmallVector<int64_t, kMaxStreams> need(kMaxStreams, -1);
      index.visit(i, step, [&](int64_t j, const MemRegion &, const MemRegion &) {
        int64_t t = steps[j].stream;
        if (t != s)
          need[t] = std::max(need[t], j);
      });
      // Dependencies the stream does not know finished; a dependency that
      // another one implies (its producer knew it finished) needs no wait.
      SmallVector<int64_t, 4> open;
      for (int64_t t = 0; t < kMaxStreams; ++t)
        if (need[t] >= 0 && known[s][t] < steps[need[t]].pos)
          open.push_back(need[t]);
      for (int64_t j : open) {
        int64_t t = steps[j].stream;
        bool implied = llvm::any_of(open, [&](int64_t k) {
          return k != j && clockAt[k][t] >= steps[j].pos;
        });
        if (implied)
          continue;
        signals[j] = true;
        waits[i].push_back({t, j});
      }
      // Waiting teaches s everything the producers knew then.
      for (int64_t j : open)
        for (int64_t u = 0; u < kMaxStreams; ++u)
          known[s][u] = std::max(known[s][u], clockAt[j][u]);
      known[s][s] = step.pos;
      clockAt[i] = known[s];
    }
    // Positions to signal counts.
    SmallVector<int64_t, kMaxStreams> signalled(kMaxStreams, 0);
    std::vector<int64_t> count(steps.size(), 0);
    for (size_t i = 0; i < steps.size(); ++i)
      if (signals[i])
        count[i] = ++signalled[steps[i].stream];
    Builder b(program.getContext());
    for (size_t i = 0; i < steps.size(); ++i) {
      Operation *op = steps[i].inst;
      if (signals[i])
        op->setAttr("signal", b.getUnitAttr());
      else
        op->removeAttr("signal");
      if (waits[i].empty()) {
        op->removeAttr("wait");
        continue;
      }
      SmallVector<int64_t> pairs;
      llvm::sort(waits[i]);
      for (auto [t, j] : waits[i]) {
        pairs.push_back(t);
        pairs.push_back(count[j]);
      }
      op->setAttr("wait", b.getDenseI64ArrayAttr(pairs));
    }
  }
};

} // namespace
