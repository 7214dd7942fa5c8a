//===- Prediction.cpp - Measured against the prediction -------------------===//
//
// neuron-inspect predicts each kernel by replaying its program alone on one
// core without data (Replay.cpp). A profile measures the kernel where it
// really ran: with other cores sharing the chip's HBM, or after other runs.
// When the two spans differ by more than 1.5x, or the verdicts differ, the
// profile says why from what the two timelines measured: the HBM shared
// with other cores, the DMA rate, the resource that bounds each.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/Format.h"

using namespace neuronc;
using namespace neuronc::profile;

namespace {

/// heuristic: measurement and prediction agree within this factor.
constexpr double kAgree = 1.5;

std::string ratioText(double r) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.1fx", r);
  return s;
}

std::string percentText(double fraction) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.1f %%", 100 * fraction);
  return s;
}

/// The first clause of a verdict's evidence: what decided it.
std::string decidingEvidence(const Verdict &v) {
  return v.evidence.substr(0, v.evidence.find(';'));
}

} // namespace

std::string neuronc::profile::explainPrediction(const KernelStats &k, const KernelStats &alone) {
  if (alone.calls == 0 || alone.spanNs <= 0 || k.calls == 0 || k.spanNs <= 0)
    return {};
  double predicted = alone.spanNs / alone.calls, measured = k.spanNs / k.calls;
  double ratio = measured / predicted;
  bool sameVerdict = k.verdict.verdict == alone.verdict.verdict;
  if (sameVerdict && ratio <= kAgree && ratio >= 1 / kAgree)
    return {};
  std::string head = "measured " + formatNs(measured) + " per call (" + k.verdict.verdict + "), " +
                     ratioText(ratio) + " the prediction of " + formatNs(predicted) + " alone (" +
                     alone.verdict.verdict + "): ";
  const Utilization &here = k.utilization, &there = alone.utilization;
  if (k.evidence.hbmSharers > 1 && ratio > 1)
    return head + std::to_string(k.evidence.hbmSharers) +
           " cores shared the chip's HBM, so the DMA queues moved " + percentText(here.dma) +
           " of their peak vs " + percentText(there.dma) + " alone (MBU " + percentText(here.hbm) +
           " vs " + percentText(there.hbm) + ")";
  if (ratio < 1)
    return head +
           "the kernel started while earlier work was still running, so its loads "
           "overlapped it; here " +
           decidingEvidence(k.verdict);
  return head + "here " + decidingEvidence(k.verdict) + "; alone " +
         decidingEvidence(alone.verdict);
}

std::string neuronc::profile::predictionText(const Profile &p, size_t limit) {
  std::vector<const KernelStats *> apart;
  for (const KernelStats &k : p.kernels)
    if (!k.predictionNote.empty())
      apart.push_back(&k);
  if (apart.empty())
    return "Measured and predicted (each program replayed alone, as neuron-inspect does) agree "
           "within 1.5x, with the same verdicts, for every kernel\n";
  llvm::stable_sort(apart, [](const KernelStats *a, const KernelStats *b) {
    return a->spanNs - a->predictedNs > b->spanNs - b->predictedNs;
  });
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "Measured vs predicted (each program replayed alone, as neuron-inspect does), "
     << apart.size() << " kernel(s) more than 1.5x apart or with another verdict (largest gap "
     << "first):\n";
  for (size_t i = 0; i < apart.size() && i < limit; ++i)
    os << "  " << apart[i]->program << "/" << apart[i]->name << ": " << apart[i]->predictionNote
       << "\n";
  return out;
}
