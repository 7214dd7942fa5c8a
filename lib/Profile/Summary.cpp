//===- Summary.cpp - Summary metrics and verdicts as JSON -----------------===//

#include "SourceOps.h"

#include <algorithm>

using namespace neuronc;
using namespace neuronc::profile;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

/// The source ops a fused kernel absorbed: [{"op", "location"}, ...].
Array absorbedJson(llvm::ArrayRef<neff::AbsorbedOp> absorbed) {
  Array out;
  for (const neff::AbsorbedOp &a : absorbed)
    out.push_back(Object{{"op", a.op}, {"location", a.location}});
  return out;
}

Object utilizationJson(const Utilization &u) {
  return Object{{"tensor_engine_active_percent", 100 * u.tensor},
                {"vector_engine_active_percent", 100 * u.vector},
                {"scalar_engine_active_percent", 100 * u.scalar},
                {"gpsimd_engine_active_percent", 100 * u.gpsimd},
                {"dma_queue_active_percent", 100 * u.dma},
                {"mbu_percent", 100 * u.mbu()},
                {"hbm_mbu_percent", 100 * u.hbm},
                {"dma_mbu_percent", 100 * u.dmaMbu},
                {"mfu_percent", 100 * u.mfu}};
}

/// A summary metric's unit and meaning.
struct MetricDefinition {
  const char *name, *unit, *definition;
};

/// Every summary metric (Analyze.cpp names them), with its unit and what it
/// measures: summary.json carries this table beside the values.
const MetricDefinition kMetrics[] = {
    {"total_time", "s", "simulated device time, summed over the profiled runs"},
    {"iterations", "runs", "profiled runs (every core's run counts)"},
    {"idle_time_percent", "% of total_time", "device time with no kernel active"},
    {"tensor_engine_active_time_percent", "% of total_time",
     "TensorE active: the union of its instructions' intervals"},
    {"vector_engine_active_time_percent", "% of total_time", "VectorE active (union)"},
    {"scalar_engine_active_time_percent", "% of total_time", "ScalarE active (union)"},
    {"gpsimd_engine_active_time_percent", "% of total_time", "GpSimdE active (union)"},
    {"dma_active_time_percent", "% of total_time",
     "time with at least one DMA queue in a data phase"},
    {"tensor_instruction_count", "instructions", "TensorE instructions run"},
    {"vector_instruction_count", "instructions", "VectorE instructions run"},
    {"scalar_instruction_count", "instructions", "ScalarE instructions run"},
    {"gpsimd_instruction_count", "instructions", "GpSimdE instructions run"},
    {"dma_instruction_count", "instructions", "DMA transfers run"},
    {"dma_transfer_count", "transfers", "DMA transfers run"},
    {"dma_transfer_average_bytes", "bytes", "bytes per DMA transfer (32768 or more is efficient)"},
    {"hbm_read_bytes", "bytes", "bytes DMA read from HBM"},
    {"hbm_write_bytes", "bytes", "bytes DMA wrote to HBM"},
    {"sbuf_bytes", "bytes", "SBUF bytes read and written by the engines and DMA (cost tables)"},
    {"psum_bytes", "bytes", "PSUM bytes read and written (cost tables)"},
    {"hardware_flops", "FLOP", "TensorE work: matmul FLOPs plus transposes as identity matmuls"},
    {"transpose_flops", "FLOP", "TensorE transposes as identity matmuls"},
    {"peak_flops", "FLOP/s", "TensorE bf16 peak"},
    {"mfu_estimated_percent", "% of peak_flops",
     "model FLOPs utilization: matmul FLOPs over total_time against the bf16 peak"},
    {"hfu_estimated_percent", "% of peak_flops",
     "hardware FLOPs utilization: hardware_flops (matmuls and transposes) over total_time"},
    {"hbm_bandwidth_bytes_per_s", "bytes/s",
     "the chip's HBM bandwidth divided among the profiled cores"},
    {"dma_bandwidth_bytes_per_s", "bytes/s", "the DMA engines' summed peak of one core"},
    {"memory_bandwidth_bytes_per_s", "bytes/s",
     "the smaller of the two: what bounds memory-bound kernels"},
    {"hbm_mbu_estimated_percent", "% of hbm_bandwidth_bytes_per_s",
     "HBM bytes read and written over total_time"},
    {"dma_mbu_estimated_percent", "% of dma_bandwidth_bytes_per_s",
     "bytes the DMA engines moved (HBM to HBM counted once) over total_time"},
    {"mbu_estimated_percent", "%", "the larger of hbm_ and dma_mbu_estimated_percent"},
    {"mm_arithmetic_intensity", "FLOP/byte", "matmul FLOPs per HBM byte (0 without matmuls)"},
    {"arithmetic_intensity", "op/byte",
     "matmul FLOPs plus VectorE/ScalarE/GpSimdE element operations per HBM byte: every op"},
    {"peak_flops_bandwidth_ratio", "FLOP/byte",
     "the ridge point: peak_flops over memory_bandwidth_bytes_per_s"},
    {"semaphore_wait_time", "s (summed over streams)",
     "time instructions waited on semaphores after their engine was ready, summed over every "
     "engine and queue: it can exceed total_time"},
    {"collective_time_percent", "% of total_time",
     "tensor-parallel runs: the union of each core's collective (all-reduce) intervals, summed "
     "over the cores' runs"},
    {"exposed_communication_percent", "% of total_time",
     "tensor-parallel runs: collective time while nothing else ran on the core, summed over "
     "the cores' runs: communication not hidden behind compute"},
};

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
  Object definitions;
  for (const MetricDefinition &m : kMetrics)
    definitions[m.name] = Object{{"unit", m.unit}, {"definition", m.definition}};
  Array kernels;
  for (const KernelStats &k : p.kernels) {
    static const char *engines[] = {"tensor", "scalar", "vector", "gpsimd"};
    Object instructions;
    for (int e = 0; e < 4; ++e)
      instructions[engines[e]] = k.instructions[e];
    instructions["dma"] = k.dmaTransfers;
    const neff::Kernel *record = kernelRecord(p, k);
    llvm::ArrayRef<neff::AbsorbedOp> absorbed;
    if (record)
      absorbed = record->absorbed;
    kernels.push_back(Object{{"program", k.program},
                             {"name", k.name},
                             {"kind", k.kind},
                             {"source", k.source},
                             {"location", k.location},
                             {"absorbed", absorbedText(absorbed)},
                             {"absorbed_ops", absorbedJson(absorbed)},
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
                         {"location", o.location},
                         {"absorbed", absorbedText(o.absorbed)},
                         {"absorbed_ops", absorbedJson(o.absorbed)},
                         {"calls", o.calls},
                         {"device_time_ns", o.deviceNs},
                         {"device_time_percent", p.deviceNs > 0 ? 100 * o.deviceNs / p.deviceNs : 0},
                         {"busy_ns", o.busyNs},
                         {"instructions", o.instructions},
                         {"hbm_read_bytes", o.hbmReadBytes},
                         {"hbm_write_bytes", o.hbmWriteBytes},
                         {"kernels", Array(o.kernels)}});
  Array opsByName;
  for (const OpNameTotal &t : opNameTotals(p))
    opsByName.push_back(Object{{"name", t.name},
                               {"locations", t.rows},
                               {"calls", t.calls},
                               {"device_time_ns", t.deviceNs},
                               {"instructions", t.instructions}});
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
  Array communication;
  for (const CoreCommunication &c : p.communication)
    communication.push_back(Object{{"correlation_id", static_cast<int64_t>(c.run)},
                                   {"core", c.core},
                                   {"group", c.group},
                                   {"device_time_ns", c.deviceNs},
                                   {"compute_ns", c.computeNs},
                                   {"collective_ns", c.collectiveNs},
                                   {"exposed_communication_ns", c.exposedNs},
                                   {"collective_wait_ns", c.waitNs},
                                   {"collective_bytes", c.bytes}});
  return Object{{"target", p.hw->name},
                {"runs", std::move(runs)},
                {"tensor_parallel", std::move(communication)},
                {"bottlenecks", std::move(bottlenecks)},
                {"buckets", std::move(buckets)},
                {"summary", std::move(summary)},
                {"metric_definitions", std::move(definitions)},
                {"kernels", std::move(kernels)},
                {"ops", std::move(ops)},
                {"ops_by_name", std::move(opsByName)}};
}

double neuronc::profile::medianOf(llvm::ArrayRef<double> sorted) {
  if (sorted.empty())
    return 0;
  size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}
