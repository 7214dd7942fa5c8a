//===- Prediction.cpp - Measured against the static prediction ------------===//
//
// neuron-inspect predicts each kernel's time from its instructions' cost
// formulas (the static roofline: the busiest resource, or the latency of a
// load -> compute -> store chain), assuming every resource overlaps the
// others perfectly. The profile measures it. When the two differ by more
// than 1.5x, the profile says why, from what the timeline measured: the
// engines waited on each other, the DMA queues moved bytes below their
// rate, a resource was busier than its instructions' formulas, or the
// kernel was too short for the prediction's latency floor.
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

} // namespace

std::string neuronc::profile::explainPrediction(const KernelStats &k) {
  if (k.predictedNs <= 0 || k.spanNs <= 0)
    return {};
  double ratio = k.spanNs / k.predictedNs;
  if (ratio <= kAgree && ratio >= 1 / kAgree)
    return {};
  std::string head = "measured " + formatNs(k.spanNs) + ", " + ratioText(ratio) +
                     " the static prediction of " + formatNs(k.predictedNs) + " (" +
                     k.predictedVerdict + "): ";
  if (ratio < 1)
    return head + "the prediction's latency floor (a load -> compute -> store chain per "
                  "kernel) is above what ran, where the kernel's loads overlapped its "
                  "neighbours'";
  const std::string &v = k.verdict.verdict;
  // The evidence's first clause: what decided the measured verdict.
  std::string measured = k.verdict.evidence.substr(0, k.verdict.evidence.find(';'));
  if (llvm::StringRef(v).starts_with("dependency-bound"))
    return head + "the static bound assumes the engines and queues overlap perfectly; here " +
           measured;
  if (llvm::StringRef(v).starts_with("DMA-bound") ||
      (llvm::StringRef(v).starts_with("memory-bound") && !k.verdict.hint.empty()))
    return head + "the transfers moved bytes below the queues' rate (" + measured + ")";
  if (llvm::StringRef(v).starts_with("latency-bound"))
    return head + "a short kernel pays DMA start latencies and semaphore hops the static "
                  "latency floor counts once";
  if (llvm::StringRef(v).starts_with("issue-bound"))
    return head + "instructions waited on their engines' fixed costs and ports (no semaphore "
                  "wait), which the formulas count per engine, not in sequence";
  // A resource bound: busier than its formulas, or a different resource.
  if (k.predictedVerdict != v)
    return head + "the static model expected " + k.predictedVerdict + ", the timeline measured " +
           v + " (" + measured +
           "): engines sharing a port or an SBUF/PSUM path, and instruction overheads, add to "
           "the busiest resource";
  return head +
         "the bounding resource was busier than its instructions' formulas (shared "
         "ports, per-instruction overheads) or not busy all the time (" +
         measured + ")";
}

std::string neuronc::profile::predictionText(const Profile &p, size_t limit) {
  std::vector<const KernelStats *> apart;
  for (const KernelStats &k : p.kernels)
    if (!k.predictionNote.empty())
      apart.push_back(&k);
  if (apart.empty())
    return "Measured and static predictions agree within 1.5x for every kernel\n";
  llvm::stable_sort(apart, [](const KernelStats *a, const KernelStats *b) {
    return a->spanNs - a->predictedNs > b->spanNs - b->predictedNs;
  });
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "Measured vs static prediction, " << apart.size()
     << " kernel(s) more than 1.5x apart (largest gap first):\n";
  for (size_t i = 0; i < apart.size() && i < limit; ++i)
    os << "  " << apart[i]->program << "/" << apart[i]->name << ": " << apart[i]->predictionNote
       << "\n";
  return out;
}
