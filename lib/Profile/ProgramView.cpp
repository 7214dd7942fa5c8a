//===- ProgramView.cpp - Where a program's device time goes, by bottleneck ===//
//
// The program-level view of the kernels' verdicts: the kernels grouped by
// verdict, each group with the device time it takes and the time reaching
// the kernels' roofline bounds would save (device time above
// max(FLOPs / peak, bytes / bandwidth), per kernel), ranked by that saving;
// and the whole program's roofline lower bound with the gap to it.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/Format.h"

using namespace neuronc;
using namespace neuronc::profile;

double neuronc::profile::kernelLowerBoundNs(const KernelStats &k, const HardwareModel &hw) {
  double computeNs = static_cast<double>(k.matmulFlops) / (hw.tensorBf16Tflops * 1e3);
  double memoryNs = static_cast<double>(k.hbmReadBytes + k.hbmWriteBytes) / hw.memoryGBps();
  return std::max(computeNs, memoryNs);
}

void neuronc::profile::summarizeBottlenecks(Profile &p) {
  p.opportunities.clear();
  p.lowerBoundNs = 0;
  std::map<std::string, Opportunity> byVerdict;
  std::map<std::string, double> hintWeight;
  for (const KernelStats &k : p.kernels) {
    double bound = kernelLowerBoundNs(k, *p.hw);
    p.lowerBoundNs += bound;
    Opportunity &o = byVerdict[k.verdict.verdict];
    o.verdict = k.verdict.verdict;
    o.kernels.push_back(k.program + "/" + k.name);
    o.deviceNs += k.deviceNs;
    o.savableNs += std::max(0.0, k.deviceNs - bound);
    if (!k.verdict.hint.empty() && k.deviceNs > hintWeight[o.verdict]) {
      hintWeight[o.verdict] = k.deviceNs;
      o.hint = k.verdict.hint;
    }
  }
  for (auto &[verdict, o] : byVerdict)
    p.opportunities.push_back(std::move(o));
  llvm::stable_sort(p.opportunities, [](const Opportunity &a, const Opportunity &b) {
    return a.savableNs > b.savableNs;
  });
}

std::string neuronc::profile::bottleneckText(const Profile &p, size_t limit) {
  std::string out;
  llvm::raw_string_ostream os(out);
  double total = std::max(p.deviceNs, 1e-9);
  os << "Roofline lower bound " << formatNs(p.lowerBoundNs) << " (each kernel's max(matmul FLOPs / "
     << "TensorE bf16 peak, HBM bytes / memory bandwidth), summed): device time is "
     << llvm::format("%.2f", p.deviceNs / std::max(p.lowerBoundNs, 1e-9)) << "x of it\n";
  os << "Top opportunities (time above the kernels' bounds):\n";
  size_t n = 0;
  for (const Opportunity &o : p.opportunities) {
    if (n++ >= limit || o.savableNs <= 0)
      break;
    os << "  " << n << ". " << o.verdict << ": " << formatNs(o.savableNs) << " of "
       << formatNs(o.deviceNs) << " (" << llvm::format("%.1f", 100 * o.deviceNs / total)
       << " % of device time) in " << o.kernels.size() << " kernel(s): ";
    for (size_t i = 0; i < o.kernels.size() && i < 3; ++i)
      os << (i ? ", " : "") << o.kernels[i];
    if (o.kernels.size() > 3)
      os << ", ...";
    os << "\n";
    if (!o.hint.empty())
      os << "     " << o.hint << "\n";
  }
  return out;
}
