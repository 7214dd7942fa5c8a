//===- Summary.cpp - Summary metrics and verdicts as JSON -----------------===//

#include "neuronc/Profile/Profile.h"

#include <algorithm>

using namespace neuronc;
using namespace neuronc::profile;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

Object utilizationJson(const Utilization &u) {
  return Object{{"tensor_engine_active_percent", 100 * u.tensor},
                {"vector_engine_active_percent", 100 * u.vector},
                {"scalar_engine_active_percent", 100 * u.scalar},
                {"gpsimd_engine_active_percent", 100 * u.gpsimd},
                {"dma_queue_active_percent", 100 * u.dma},
                {"mbu_percent", 100 * u.hbm},
                {"mfu_percent", 100 * u.mfu}};
}

} // namespace

Value neuronc::profile::summaryJson(const Profile &p) {
  std::vector<double> sorted = p.runDeviceNs;
  llvm::sort(sorted);
  double median = medianOf(sorted);
  Object runs{{"count", static_cast<int64_t>(sorted.size())},
              {"device_time_ns", Array(p.runDeviceNs)},
              {"min_ns", sorted.empty() ? 0 : sorted.front()},
              {"median_ns", median},
              {"max_ns", sorted.empty() ? 0 : sorted.back()}};
  Object summary;
  for (const auto &[name, value] : p.summary)
    summary[name] = value;
  Array kernels;
  for (const KernelStats &k : p.kernels) {
    static const char *engines[] = {"tensor", "scalar", "vector", "gpsimd"};
    Object instructions;
    for (int e = 0; e < 4; ++e)
      instructions[engines[e]] = k.instructions[e];
    instructions["dma"] = k.dmaTransfers;
    kernels.push_back(Object{{"program", k.program},
                             {"name", k.name},
                             {"kind", k.kind},
                             {"source", k.source},
                             {"location", k.location},
                             {"calls", k.calls},
                             {"device_time_ns", k.deviceNs},
                             {"device_time_percent", p.deviceNs > 0 ? 100 * k.deviceNs / p.deviceNs : 0},
                             {"span_ns", k.spanNs},
                             {"instructions", std::move(instructions)},
                             {"dma_bytes", k.dmaBytes},
                             {"hbm_read_bytes", k.hbmReadBytes},
                             {"hbm_write_bytes", k.hbmWriteBytes},
                             {"matmul_flops", k.matmulFlops},
                             {"utilization", utilizationJson(k.utilization)},
                             {"verdict", k.verdict.verdict},
                             {"evidence", k.verdict.evidence},
                             {"hint", k.verdict.hint},
                             {"predicted_ns", k.predictedNs},
                             {"predicted_verdict", k.predictedVerdict},
                             {"prediction_note", k.predictionNote}});
  }
  Array ops;
  for (const OpStats &o : p.ops)
    ops.push_back(Object{{"name", o.name},
                         {"calls", o.calls},
                         {"device_time_ns", o.deviceNs},
                         {"device_time_percent", p.deviceNs > 0 ? 100 * o.deviceNs / p.deviceNs : 0},
                         {"busy_ns", o.busyNs},
                         {"instructions", o.instructions},
                         {"hbm_read_bytes", o.hbmReadBytes},
                         {"hbm_write_bytes", o.hbmWriteBytes},
                         {"kernels", Array(o.kernels)}});
  Array buckets;
  for (const BucketUse &u : bucketUses(p))
    buckets.push_back(Object{{"entry", u.entry},
                             {"bucket", u.bucket},
                             {"true_sizes", u.trueSizes},
                             {"runs", u.runs},
                             {"padding_fraction", u.paddingFraction}});
  Array opportunities;
  for (const Opportunity &o : p.opportunities)
    opportunities.push_back(Object{{"verdict", o.verdict},
                                   {"kernels", Array(o.kernels)},
                                   {"device_time_ns", o.deviceNs},
                                   {"savable_ns", o.savableNs},
                                   {"hint", o.hint}});
  Object bottlenecks{{"lower_bound_ns", p.lowerBoundNs},
                     {"device_time_over_bound", p.lowerBoundNs > 0 ? p.deviceNs / p.lowerBoundNs : 0},
                     {"opportunities", std::move(opportunities)}};
  return Object{{"target", p.hw->name},
                {"runs", std::move(runs)},
                {"bottlenecks", std::move(bottlenecks)},
                {"buckets", std::move(buckets)},
                {"summary", std::move(summary)},
                {"kernels", std::move(kernels)},
                {"ops", std::move(ops)}};
}

double neuronc::profile::medianOf(llvm::ArrayRef<double> sorted) {
  if (sorted.empty())
    return 0;
  size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}
