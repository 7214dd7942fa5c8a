//===- Bottleneck.cpp - What bounds a kernel, from its timeline -------------===//
//
// A kernel's verdict names the resource that explains its time, from what
// the simulated timeline measured within the kernel's own spans:
//
// 1. HBM bandwidth, when the kernel moves bytes at 60 % of the peak or more;
//    with other cores on the chip, queues moving long runs below their rate
//    are held by the shared HBM too;
// 2. DMA efficiency, when the queues are busy 60 % of the time or more but
//    move bytes at less than 75 % of their rate (short contiguous runs,
//    small transfers): the run length says what to fix;
//    SBUF capacity comes before both when the kernel read its HBM operands
//    twice or more (re-read because they did not stay in SBUF);
// 3. an engine busy 60 % of the time or more: TensorE is compute-bound, or
//    under-fed when stationary loads or transposes take most of its time;
//    VectorE or ScalarE mostly reading PSUM are PSUM-eviction-bound;
// 4. latency, only when the kernel is short against the DMA's fixed
//    latency (ten round trips);
// 5. otherwise dependencies: the engine that waited longest on semaphores
//    and what its binding waits were for (DMA loads, stores, another
//    engine), with the source ops of that producer and of the waiting
//    instructions.
//
// Every verdict carries its evidence (the numbers that decided it, and the
// next resources when they take a quarter of the time or more) and a hint.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "neuronc/ISA/InstructionCost.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace neuronc;
using namespace neuronc::profile;

namespace {

/// heuristic: a resource busy this fraction of a kernel's time bounds it.
constexpr double kBusy = 0.6;
/// heuristic: queues moving bytes below this fraction of their rate are
/// inefficient (runs under ~768 B at the modeled run cost).
constexpr double kEfficient = 0.75;
/// heuristic: a utilization close enough to the peak that nothing is left.
constexpr double kNearPeak = 0.9;
/// heuristic: a share of the time worth naming beside the verdict.
constexpr double kNotable = 0.25;
/// heuristic: kernels shorter than this many DMA latencies are latency-bound
/// when nothing is busy.
constexpr double kShortLatencies = 10;
/// heuristic: HBM operands read this many times over are re-read because
/// they did not fit (a capacity verdict).
constexpr double kReread = 2;
/// heuristic: a share of TensorE's busy time in transposes worth a hint.
constexpr double kTransposes = 0.15;
/// heuristic: a share of an engine's busy time that names what it did.
constexpr double kMostly = 0.5;

std::string percent(double fraction) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.1f %%", 100 * fraction);
  return s;
}

std::string bytes(double b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (b >= 1024 * 1024)
    os << llvm::format("%.1f MiB", b / (1024 * 1024));
  else if (b >= 1024)
    os << llvm::format("%.1f KiB", b / 1024);
  else
    os << llvm::format("%.0f B", b);
  return s;
}

/// Names of the consumers and producers of KernelEvidence::waitNs.
const char *const kEngineNames[] = {"TensorE", "ScalarE", "VectorE", "GpSimdE"};
const char *consumerName(int c) { return c < 4 ? kEngineNames[c] : "DMA queues"; }
const char *producerName(int p) {
  return p < 4 ? kEngineNames[p] : p == 4 ? "DMA loads" : "DMA stores";
}

/// The DMA facts of a kernel.
struct DmaFacts {
  double occupancy = 0; ///< average queue busy fraction
  double rate = 0;      ///< bytes moved over the busy time, as a fraction of a queue's rate
  double runBytes = 0, transferBytes = 0;
};

DmaFacts dmaFacts(const KernelEvidence &ev, const HardwareModel &hw, double span) {
  DmaFacts d;
  d.occupancy = ev.dmaBusyNs / (span * hw.dmaEngines);
  if (ev.dmaBusyNs > 0)
    d.rate = static_cast<double>(ev.dmaBytes) / (ev.dmaBusyNs * hw.dmaBytesPerNsPerEngine);
  if (ev.dmaRuns > 0)
    d.runBytes = static_cast<double>(ev.dmaBytes) / static_cast<double>(ev.dmaRuns);
  return d;
}

std::string dmaText(const DmaFacts &d) {
  return "DMA queues " + percent(d.occupancy) + " busy, moving bytes at " + percent(d.rate) +
         " of their rate (" + bytes(d.runBytes) + " per contiguous run)";
}

/// What to do about inefficient transfers.
std::string runHint(const DmaFacts &d) {
  return "transfers move " + bytes(d.runBytes) +
         " per contiguous run; runs of 2 KiB or more reach about 90 % of the queues' rate: "
         "tile along the contiguous dim, or give the operand a layout with longer rows "
         "(--prepack-weights for transposed weights)";
}

/// "; also TensorE 45.0 %" for the resources, other than those in `except`
/// (already in the evidence), that take a notable share of the time.
std::string alsoBusy(const Utilization &u, const DmaFacts &d,
                     std::initializer_list<llvm::StringRef> except) {
  std::string s;
  auto add = [&](llvm::StringRef what, double v) {
    if (!llvm::is_contained(except, what) && v >= kNotable)
      s += (s.empty() ? "; also " : ", ") + what.str() + " " + percent(v);
  };
  add("MBU", u.mbu());
  add("DMA queues", d.occupancy);
  add("TensorE", u.tensor);
  add("VectorE", u.vector);
  add("ScalarE", u.scalar);
  add("GpSimdE", u.gpsimd);
  return s;
}

} // namespace

std::pair<int, int> neuronc::profile::dominantWait(const KernelEvidence &ev) {
  // The engine doing the kernel's main work is the one whose idling costs
  // time: the busiest compute engine that waited at all. The queues waiting
  // on engines (a buffer to be released) is back-pressure, named only when
  // no engine waited.
  const Utilization &u = ev.utilization;
  double busy[] = {u.tensor, u.scalar, u.vector, u.gpsimd};
  int best = -1;
  for (int c = 0; c < 4; ++c) {
    double waited = 0;
    for (double w : ev.waitNs[c])
      waited += w;
    if (waited > 0 && (best < 0 || busy[c] > busy[best]))
      best = c;
  }
  int consumer = best < 0 ? 4 : best;
  const auto &waits = ev.waitNs[consumer];
  int producer = static_cast<int>(std::max_element(waits.begin(), waits.end()) - waits.begin());
  return {consumer, producer};
}

Verdict neuronc::profile::diagnose(const KernelEvidence &ev, const HardwareModel &hw) {
  const Utilization &u = ev.utilization;
  double span = std::max(ev.spanNs, 1e-9);
  DmaFacts d = dmaFacts(ev, hw, span);
  Verdict v;

  // A collective: the ring's time against its model, and how long the core
  // waited (before the span) for the group's last core to arrive.
  if (ev.collectiveNs > 0) {
    int64_t group = ev.collectiveGroup;
    std::string where = group <= hw.coresPerChip ? "inside one chip, through its HBM"
                                                 : "over NeuronLink";
    std::string waited = ev.collectiveWaitNs > 0
                             ? "; before it, waited " + formatNs(ev.collectiveWaitNs) +
                                   " for the group's last core"
                             : "";
    if (ev.collectiveWaitNs > ev.collectiveNs) {
      v.verdict = "imbalance-bound (waits for the group's slowest core)";
      v.evidence = "collective over " + std::to_string(group) + " cores waited " +
                   formatNs(ev.collectiveWaitNs) + " for the last core, then ran " +
                   formatNs(ev.collectiveNs);
      v.hint = "the cores reach the collective at different times: their shares of the work "
               "before it differ (uneven splits), or other programs share their HBM";
      return v;
    }
    v.verdict = "communication-bound (collective)";
    v.evidence = "collectives of " + bytes(static_cast<double>(ev.collectiveBytes)) +
                 " per core over " + std::to_string(group) + " cores " + where + ": " +
                 formatNs(ev.collectiveNs) + " (the ring or tree model gives " +
                 formatNs(ev.collectiveModelNs) + ", of which " +
                 formatNs(hw.collectiveStepNs) + " per step)" + waited;
    v.hint = "fewer cores per group (a group inside one chip rings through its HBM), fewer and "
             "larger collectives, bf16 values (half the bytes), or independent work to "
             "overlap";
    return v;
  }

  // SBUF capacity: operands read twice or more, in a kernel that waits on
  // its transfers.
  double reread = ev.hbmDistinctReadBytes > 0 ? static_cast<double>(ev.hbmReadBytes) /
                                                    static_cast<double>(ev.hbmDistinctReadBytes)
                                              : 0;
  auto [consumer, producer] = dominantWait(ev);
  bool waitsOnLoads = producer == 4 && ev.waitNs[consumer][4] >= kNotable * span;
  if (reread >= kReread && (u.mbu() >= kBusy || d.occupancy >= kBusy || waitsOnLoads)) {
    v.verdict = "capacity-bound (SBUF: operands re-read)";
    v.evidence = "HBM reads " + bytes(static_cast<double>(ev.hbmReadBytes)) + " of " +
                 bytes(static_cast<double>(ev.hbmDistinctReadBytes)) + " distinct (" +
                 llvm::formatv("{0:f1}", reread).str() + "x), MBU " + percent(u.mbu()) + ", " +
                 dmaText(d) + alsoBusy(u, d, {"MBU", "DMA queues"});
    v.hint = "the operands did not stay in SBUF and were loaded again: larger blocks per "
             "load (fewer passes over the other operand), or a smaller working set per tile";
    return v;
  }
  // 1. The HBM's bandwidth, or the DMA queues' moving bytes at their rate;
  // with other cores on the chip, queues moving long runs below their rate
  // are held by the shared HBM too.
  bool longRuns = d.runBytes > 0 &&
                  dmaRunEfficiency(hw, static_cast<int64_t>(d.runBytes)) >= kEfficient;
  bool shared = ev.hbmSharers > 1 && d.occupancy >= kBusy && d.rate < kEfficient && longRuns;
  if (u.hbm >= kBusy || (u.dmaMbu >= kBusy && d.rate >= kEfficient) || shared) {
    v.verdict = "memory-bound (HBM)";
    v.evidence = "MBU " + percent(u.mbu()) + " (>= 60 % is good; HBM " + percent(u.hbm) +
                 ", DMA " + percent(u.dmaMbu) + ")" + alsoBusy(u, d, {"MBU"});
    if (ev.hbmSharers > 1) {
      v.evidence += "; " + std::to_string(ev.hbmSharers) + " cores shared the chip's HBM";
      if (shared)
        v.evidence += ": " + dmaText(d) + ", runs long enough for " +
                      percent(dmaRunEfficiency(hw, static_cast<int64_t>(d.runBytes))) +
                      " alone";
      v.hint = "the chip's HBM is shared by the cores running: fewer bytes per core (keep "
               "operands on chip, bf16), or spread the traffic over time";
    } else if (d.rate < kEfficient && u.mbu() < kNearPeak) {
      v.hint = runHint(d);
    }
    return v;
  }
  // 2. Busy queues moving few bytes.
  if (d.occupancy >= kBusy && d.rate < kEfficient) {
    v.verdict = "DMA-bound (short transfers)";
    v.evidence = dmaText(d) + ", MBU " + percent(u.mbu()) + alsoBusy(u, d, {"DMA queues", "MBU"});
    v.hint = runHint(d);
    return v;
  }
  // 3. An engine.
  struct Engine {
    double value;
    const char *verdict, *what;
  } engines[] = {{u.tensor, "compute-bound (TensorE)", "TensorE"},
                 {u.vector, "engine-bound (VectorE)", "VectorE"},
                 {u.scalar, "engine-bound (ScalarE)", "ScalarE"},
                 {u.gpsimd, "engine-bound (GpSimdE)", "GpSimdE"}};
  const Engine *best = &engines[0];
  for (const Engine &e : engines)
    if (e.value > best->value)
      best = &e;
  if (best->value >= kBusy) {
    v.verdict = best->verdict;
    v.evidence = std::string(best->what) + " active " + percent(best->value);
    if (best == &engines[0]) {
      double tensorBusy = ev.stationaryNs + ev.multiplyNs + ev.transposeNs;
      v.evidence += ", MFU " + percent(u.mfu);
      if (tensorBusy > 0) {
        v.evidence += "; its busy time: multiplies " + percent(ev.multiplyNs / tensorBusy) +
                      ", stationary loads " + percent(ev.stationaryNs / tensorBusy) +
                      ", transposes " + percent(ev.transposeNs / tensorBusy);
        if (ev.multiplyNs < kMostly * tensorBusy) {
          bool loads = ev.stationaryNs >= ev.transposeNs;
          v.verdict = std::string("compute-bound (TensorE under-fed: ") +
                      (loads ? "stationary reloads" : "transposes") + ")";
          v.hint = loads ? "each stationary matrix is used by too few moving columns: a wider "
                           "moving tile (more rows of the other operand per load), or swap the "
                           "operands so the larger one moves"
                         : "TensorE transposes operands it could read transposed: "
                           "--prepack-weights for weights, or fold the transpose into the "
                           "producer's layout";
        }
      }
    } else if (best->value > 0) {
      int e = best == &engines[1] ? static_cast<int>(isa::Engine::vector)
              : best == &engines[2] ? static_cast<int>(isa::Engine::scalar)
                                    : static_cast<int>(isa::Engine::gpsimd);
      double engineBusy = best->value * span;
      if (ev.psumReadNs[e] >= kMostly * engineBusy &&
          e != static_cast<int>(isa::Engine::gpsimd)) {
        v.verdict = std::string("PSUM-eviction-bound (") + best->what + ")";
        v.evidence = std::string(best->what) + " active " + percent(best->value) + ", " +
                     percent(ev.psumReadNs[e] / engineBusy) +
                     " of it reading matmul results out of PSUM";
        v.hint = "each multiply's result is copied out of PSUM by itself: accumulate more "
                 "(a longer contraction per output tile), fuse the epilogue into the copy, or "
                 "split the evictions between VectorE and ScalarE";
        v.evidence += alsoBusy(u, d, {best->what});
        return v;
      }
    }
    v.evidence += " (>= 90 % active is good)" + alsoBusy(u, d, {best->what});
    double tensorBusy = ev.stationaryNs + ev.multiplyNs + ev.transposeNs;
    if (best == &engines[0] && v.hint.empty() && ev.transposeNs >= kTransposes * tensorBusy &&
        tensorBusy > 0)
      v.hint = "TensorE spends " + percent(ev.transposeNs / tensorBusy) +
               " of its busy time transposing operands: --prepack-weights for weights stored "
               "[out, in], or fold the transpose into the producer's layout";
    else if (best == &engines[0] && v.hint.empty() && u.mfu < 0.5 * u.tensor)
      v.hint = "TensorE is busy but multiplies at " + percent(u.mfu / u.tensor) +
               " of its active time's peak: narrow moving tiles or fp32 operands";
    return v;
  }
  double busiest = std::max({u.mbu(), d.occupancy, best->value});
  std::string busiestText =
      "no resource busy more than " + percent(busiest) + " of the kernel's time";
  // The transfers the main engine waits on may be bound by the queues that
  // carry them, though the others idle: judged on those queues alone.
  if (producer >= 4 && ev.waitNs[consumer][producer] > 0) {
    int bit = producer == 4 ? 1 : 2, carrying = 0;
    double busyNs = 0;
    for (size_t q = 0; q < ev.queueBusyNs.size(); ++q)
      if (ev.queueCarries[q] & bit) {
        ++carrying;
        busyNs += ev.queueBusyNs[q];
      }
    double occupancy = carrying ? busyNs / (carrying * span) : 0;
    if (occupancy >= kBusy && carrying < hw.dmaEngines) {
      const char *what = producer == 4 ? "loads" : "stores";
      v.verdict = std::string("DMA-bound (") + what + " on " + std::to_string(carrying) + " of " +
                  std::to_string(hw.dmaEngines) + " queues)";
      v.evidence = "the " + std::to_string(carrying) + " queues carrying its " + what + " are " +
                   percent(occupancy) + " busy, and " + consumerName(consumer) + " waited " +
                   percent(ev.waitNs[consumer][producer] / span) + " on them; " + dmaText(d);
      v.hint = d.rate < kEfficient
                   ? runHint(d)
                   : std::string("the ") + what +
                         " saturate their queues: move fewer bytes (a bf16 result, fusion) or "
                         "spread them over more queues";
      return v;
    }
  }
  // 4. Short kernels, or tiny ones whose span is other kernels' work on
  // the engines they share.
  double ownBusy = (u.tensor + u.vector + u.scalar + u.gpsimd) * span + ev.dmaBusyNs;
  double fixed = kShortLatencies * hw.dmaLatencyNs;
  if (ev.spanNs < fixed || ownBusy < fixed / hw.dmaEngines) {
    v.verdict = "latency-bound (too small to fill the machine)";
    v.evidence = busiestText + " in " + formatNs(ev.spanNs) + " (" +
                 llvm::formatv("{0:f1}", ev.spanNs / hw.dmaLatencyNs).str() + " DMA latencies)";
    if (ev.spanNs < fixed)
      v.evidence += "; DMA start latency and semaphore waits dominate";
    else
      v.evidence += "; its instructions are busy " + formatNs(ownBusy) +
                    " in all, the rest is waiting behind other kernels' work on the engines "
                    "and queues it shares";
    v.hint = "fuse it with its neighbours or batch more work per kernel";
    return v;
  }
  // 5. Dependencies.
  double waited = ev.waitNs[consumer][producer] / span;
  if (ev.waitNs[consumer][producer] <= 0) {
    v.verdict = "issue-bound (fixed costs per instruction)";
    v.evidence = busiestText + " and no semaphore wait: instructions too small for their fixed "
                               "costs";
    if (d.occupancy >= kNotable)
      v.evidence += "; " + dmaText(d);
    v.hint = "larger tiles per instruction";
    return v;
  }
  v.verdict = std::string("dependency-bound (") + consumerName(consumer) +
              (consumer == 4 ? " wait on " : " waits on ") + producerName(producer) + ")";
  v.evidence = std::string(consumerName(consumer)) + " waited " + percent(waited) +
               " of the kernel's time on " + producerName(producer);
  if (!ev.topProducer.empty())
    v.evidence += " (" + ev.topProducer + ")";
  if (!ev.topConsumer.empty() && ev.topConsumer != ev.topProducer)
    v.evidence += ", held in " + ev.topConsumer;
  v.evidence += "; " + busiestText;
  if (d.occupancy >= kNotable)
    v.evidence += "; " + dmaText(d);
  if (producer >= 4)
    v.hint = d.rate < kEfficient ? runHint(d)
                                 : "issue the transfers earlier (deeper buffering) so their "
                                   "latency hides behind the compute";
  else
    v.hint = std::string("the ") + producerName(producer) + " -> " + consumerName(consumer) +
             " chain runs in lockstep: more buffers between them let them overlap";
  return v;
}
