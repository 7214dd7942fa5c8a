//===- Bottleneck.cpp - What bounds a kernel, from its timeline -------------===//
//
// A kernel's verdict names the resource that explains its time, from what
// the simulated timeline measured within the kernel's own spans:
//
// 1. HBM bandwidth, when the kernel moves bytes at 60 % of the peak or more;
// 2. DMA efficiency, when the queues are busy 60 % of the time or more but
//    move bytes at less than 75 % of their rate (short contiguous runs,
//    small transfers): the run length says what to fix;
// 3. an engine busy 60 % of the time or more (TensorE: compute-bound);
// 4. latency, only when the kernel is short against the DMA's fixed
//    latency (ten round trips);
// 5. otherwise dependencies: the engine that waited longest on semaphores
//    and what its binding waits were for (DMA loads, stores, another
//    engine), with the source op of that producer.
//
// Every verdict carries its evidence (the numbers that decided it, and the
// next resources when they take a quarter of the time or more) and a hint.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

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
  add("MBU", u.hbm);
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

  // 1. HBM bandwidth.
  if (u.hbm >= kBusy) {
    v.verdict = "memory-bound (HBM)";
    v.evidence = "MBU " + percent(u.hbm) + " (>= 60 % is good)" + alsoBusy(u, d, {"MBU"});
    if (d.rate < kEfficient && u.hbm < kNearPeak)
      v.hint = runHint(d);
    return v;
  }
  // 2. Busy queues moving few bytes.
  if (d.occupancy >= kBusy && d.rate < kEfficient) {
    v.verdict = "DMA-bound (short transfers)";
    v.evidence = dmaText(d) + ", MBU " + percent(u.hbm) + alsoBusy(u, d, {"DMA queues", "MBU"});
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
    if (best == &engines[0])
      v.evidence += ", MFU " + percent(u.mfu);
    v.evidence += " (>= 90 % active is good)" + alsoBusy(u, d, {best->what});
    if (best == &engines[0] && u.mfu < 0.5 * u.tensor)
      v.hint = "TensorE is busy but multiplies at " + percent(u.mfu / u.tensor) +
               " of its active time's peak: transposes, stationary loads or narrow moving tiles "
               "take the rest";
    return v;
  }
  // What the kernel's main engine waited on.
  auto [consumer, producer] = dominantWait(ev);
  double busiest = std::max({u.hbm, d.occupancy, best->value});
  std::string busiestText =
      "no resource busy more than " + percent(busiest) + " of the kernel's time";
  // 4. Short kernels.
  if (ev.spanNs < kShortLatencies * hw.dmaLatencyNs) {
    v.verdict = "latency-bound (too small to fill the machine)";
    v.evidence = busiestText + " in " + formatNs(ev.spanNs) + " (" +
                 llvm::formatv("{0:f1}", ev.spanNs / hw.dmaLatencyNs).str() +
                 " DMA latencies); DMA start latency and semaphore waits dominate";
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
