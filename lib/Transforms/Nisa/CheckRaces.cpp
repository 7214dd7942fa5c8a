//===- CheckRaces.cpp - nisa-check-races --------------------------------===//
//
// Trusts nothing but the semaphore fields. First it runs the streams
// symbolically (an instruction issues once the signals it waits for have
// been given) to find an order that completes, or the deadlock. In that
// order it computes what every instruction knows has finished (vector
// clocks through the waits). Then every pair of conflicting accesses from
// different streams must be ordered as the program orders them.
//
// Ordered accesses can still be wrong: a write that lands on bytes an
// earlier write left for a reader that has not read them yet (a prefetch
// into the buffer the current step still reads) is ordered as written, and
// so computes with the wrong data. Such a lost write is reported too: every
// write must be read, in part at least, before anything overwrites it.
//
//===----------------------------------------------------------------------===//

#include "NisaRegions.h"

#include "neuronc/Transforms/NisaPasses.h"

namespace mlir::nisa {
#define GEN_PASS_DEF_NISACHECKRACESPASS
#include "neuronc/Dialect/Nisa/NisaPasses.h.inc"
} // namespace mlir::nisa

using namespace mlir;
using namespace mlir::nisa;

namespace {

using Clock = SmallVector<int64_t, kMaxStreams>;

/// Writes nothing has read yet, bucketed by address like ConflictIndex. A
/// read of any of a write's bytes consumes it (it was meant for someone); a
/// later write overlapping an unconsumed one overwrites data that was never
/// used.
class UnreadWrites {
public:
  /// Calls `onLost(earlierStep, earlierRegion, laterRegion)` for every
  /// unread write of an earlier step that a write of `step` overlaps, after
  /// the step's reads consumed what they read; then records its writes.
  void visit(int64_t index, const Step &step,
             llvm::function_ref<void(int64_t, const MemRegion &, const MemRegion &)> onLost) {
    for (const MemRegion &r : step.reads)
      forOverlapping(r, [&](Entry &e) { e.consumed = true; });
    for (const MemRegion &w : step.writes)
      forOverlapping(w, [&](Entry &e) {
        if (e.step == index)
          return;
        onLost(e.step, e.region, w);
        e.consumed = true; // reported once
      });
    for (const MemRegion &w : step.writes) {
      if (w.discard)
        continue;
      int64_t id = entries.size();
      entries.push_back({index, w});
      for (auto [b0, b1] : w.buckets(kBucketBytes))
        for (int64_t b = b0; b <= b1; ++b)
          buckets[keyOf(w, b)].push_back(id);
    }
  }

private:
  struct Entry {
    int64_t step;
    MemRegion region;
    bool consumed = false;
  };
  static constexpr int64_t kBucketBytes = 4096;
  static std::tuple<const void *, int, int64_t> keyOf(const MemRegion &r, int64_t b) {
    return {r.memory, static_cast<int>(r.space), b};
  }
  /// Calls `f` on every unconsumed entry overlapping `r`, dropping consumed
  /// ones from the buckets it visits.
  void forOverlapping(const MemRegion &r, llvm::function_ref<void(Entry &)> f) {
    for (auto [b0, b1] : r.buckets(kBucketBytes))
      for (int64_t b = b0; b <= b1; ++b) {
        auto it = buckets.find(keyOf(r, b));
        if (it == buckets.end())
          continue;
        for (int64_t id : it->second)
          if (!entries[id].consumed && entries[id].region.overlaps(r))
            f(entries[id]);
        llvm::erase_if(it->second, [&](int64_t id) { return entries[id].consumed; });
      }
  }
  std::vector<Entry> entries;
  llvm::DenseMap<std::tuple<const void *, int, int64_t>, SmallVector<int64_t, 4>> buckets;
};

/// The (stream, count) pairs of an instruction's wait field.
SmallVector<std::pair<int64_t, int64_t>, 2> waitsOf(Operation *op) {
  SmallVector<std::pair<int64_t, int64_t>, 2> out;
  if (auto w = op->getAttrOfType<DenseI64ArrayAttr>("wait"))
    for (int64_t i = 0; i + 1 < static_cast<int64_t>(w.size()); i += 2)
      out.push_back({w[i], w[i + 1]});
  return out;
}

struct CheckRacesPass : mlir::nisa::impl::NisaCheckRacesPassBase<CheckRacesPass> {
  using Base::Base;

  void runOnOperation() override {
    ProgramOp program = getOperation();
    SmallVector<Step, 0> steps;
    if (failed(collectSteps(program, steps)))
      return signalPassFailure();
    if (failed(checkStreamRules(steps)))
      return signalPassFailure();

    // Streams, and which step gives each stream's n-th signal.
    SmallVector<SmallVector<int64_t>> streams(kMaxStreams);
    SmallVector<SmallVector<int64_t>> signalStep(kMaxStreams);
    for (size_t i = 0; i < steps.size(); ++i) {
      streams[steps[i].stream].push_back(i);
      if (steps[i].inst->hasAttr("signal"))
        signalStep[steps[i].stream].push_back(i);
    }
    bool ok = true;
    for (size_t i = 0; i < steps.size(); ++i)
      for (auto [t, c] : waitsOf(steps[i].inst))
        if (t < 0 || t >= kMaxStreams || c < 1 || c > static_cast<int64_t>(signalStep[t].size())) {
          steps[i].inst->emitOpError("waits for signal ")
              << c << " of stream " << streamName(t) << ", which gives " << signalStep[t].size()
              << ": it would wait forever";
          ok = false;
        }
    if (!ok)
      return signalPassFailure();

    // Run the streams: each issues while its waits are met.
    SmallVector<int64_t> cursor(kMaxStreams, 0), given(kMaxStreams, 0);
    std::vector<int64_t> order;
    order.reserve(steps.size());
    for (bool progress = true; progress;) {
      progress = false;
      for (int64_t s = 0; s < kMaxStreams; ++s) {
        while (cursor[s] < static_cast<int64_t>(streams[s].size())) {
          int64_t i = streams[s][cursor[s]];
          auto ws = waitsOf(steps[i].inst);
          if (!llvm::all_of(ws, [&](auto w) { return given[w.first] >= w.second; }))
            break;
          order.push_back(i);
          if (steps[i].inst->hasAttr("signal"))
            ++given[s];
          ++cursor[s];
          progress = true;
        }
      }
    }
    if (order.size() != steps.size()) {
      for (int64_t s = 0; s < kMaxStreams; ++s)
        if (cursor[s] < static_cast<int64_t>(streams[s].size())) {
          Operation *stuck = steps[streams[s][cursor[s]]].inst;
          InFlightDiagnostic d = stuck->emitOpError("deadlock: stream ")
                                 << streamName(s) << " waits forever here";
          for (auto [t, c] : waitsOf(stuck))
            if (given[t] < c)
              d << "; stream " << streamName(t) << " gives only " << given[t] << " of the " << c
                << " signals needed";
        }
      return signalPassFailure();
    }

    // Vector clocks in that order.
    std::vector<Clock> clock(steps.size());
    SmallVector<Clock> known(kMaxStreams, Clock(kMaxStreams, -1));
    for (int64_t i : order) {
      int64_t s = steps[i].stream;
      Clock before = known[s];
      auto ws = waitsOf(steps[i].inst);
      for (auto [t, c] : ws) {
        int64_t j = signalStep[t][c - 1];
        for (int64_t u = 0; u < kMaxStreams; ++u)
          known[s][u] = std::max(known[s][u], clock[j][u]);
      }
      // A wait the stream already knew (or that another wait implies) is
      // synchronization nobody needs.
      for (auto [t, c] : ws) {
        int64_t j = signalStep[t][c - 1];
        bool implied = before[t] >= steps[j].pos || llvm::any_of(ws, [&](auto other) {
                         int64_t k = signalStep[other.first][other.second - 1];
                         return k != j && clock[k][t] >= steps[j].pos;
                       });
        if (implied) {
          steps[i].inst->emitOpError("waits for signal ")
              << c << " of stream " << streamName(t) << ", which it already knows finished";
          ok = false;
        }
      }
      known[s][s] = steps[i].pos;
      clock[i] = known[s];
    }

    // A signal nobody waits for is synchronization nobody needs.
    std::vector<bool> awaited(steps.size(), false);
    for (Step &st : steps)
      for (auto [t, c] : waitsOf(st.inst))
        awaited[signalStep[t][c - 1]] = true;
    for (size_t i = 0; i < steps.size(); ++i)
      if (steps[i].inst->hasAttr("signal") && !awaited[i]) {
        steps[i].inst->emitOpError("signals, but no instruction waits for it");
        ok = false;
      }

    // Every conflicting pair from different streams, ordered as written.
    ConflictIndex index;
    int64_t races = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      index.visit(i, steps[i], [&](int64_t j, const MemRegion &earlier, const MemRegion &later) {
        if (steps[j].stream == steps[i].stream)
          return;
        if (clock[i][steps[j].stream] >= steps[j].pos)
          return;
        if (races++ < 20) {
          InFlightDiagnostic d = steps[i].inst->emitOpError("races with an earlier instruction "
                                                            "on stream ")
                                 << streamName(steps[j].stream) << ": "
                                 << describeAccess(steps[i].inst, later) << " overlaps "
                                 << describeAccess(steps[j].inst, earlier)
                                 << ", and nothing makes this instruction wait for it";
          d.attachNote(steps[j].inst->getLoc()) << "the earlier instruction";
        }
        ok = false;
      });
    }
    if (races > 20)
      program.emitError() << races << " races in all";

    // Every write is read before anything overwrites it.
    UnreadWrites unread;
    int64_t lost = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      unread.visit(i, steps[i], [&](int64_t j, const MemRegion &earlier, const MemRegion &later) {
        if (lost++ < 20) {
          InFlightDiagnostic d = steps[i].inst->emitOpError("overwrites data nothing has read "
                                                            "yet: ")
                                 << describeAccess(steps[i].inst, later) << " overlaps "
                                 << describeAccess(steps[j].inst, earlier)
                                 << ", written by an earlier instruction on stream "
                                 << streamName(steps[j].stream)
                                 << "; the reader that data was for would see this write "
                                    "instead";
          d.attachNote(steps[j].inst->getLoc()) << "the earlier write";
        }
        ok = false;
      });
    }
    if (lost > 20)
      program.emitError() << lost << " lost writes in all";
    if (!ok)
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// TensorE stream rules: every multiply_moving follows a load_stationary
  /// whose K (partitions) it shares and whose M is its accumulator's rows.
  LogicalResult checkStreamRules(MutableArrayRef<Step> steps) {
    LoadStationaryOp stationary;
    for (Step &s : steps) {
      if (auto ls = dyn_cast<LoadStationaryOp>(s.inst.getOperation())) {
        stationary = ls;
        continue;
      }
      auto mm = dyn_cast<MultiplyMovingOp>(s.inst.getOperation());
      if (!mm)
        continue;
      if (!stationary)
        return mm.emitOpError("multiplies before any load_stationary on TensorE");
      if (stationary.getSrcAp().getPartCount() != mm.getSrcAp().getPartCount())
        return mm.emitOpError("moving matrix has K = ")
               << mm.getSrcAp().getPartCount() << " partitions but the stationary one has "
               << stationary.getSrcAp().getPartCount();
      if (stationary.getSrcAp().getNumElements() != mm.getDstAp().getPartCount())
        return mm.emitOpError("accumulator has ")
               << mm.getDstAp().getPartCount() << " rows but the stationary matrix has M = "
               << stationary.getSrcAp().getNumElements();
    }
    return success();
  }
};

} // namespace
