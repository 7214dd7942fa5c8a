//===- Analyze.cpp - Device time by kernel and source op, and metrics -----===//
//
// See Profile.h for how device time is attributed. Utilizations are
// measured within a kernel's own spans; the summary's over the device time
// of every profiled run.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "neuronc/ISA/InstructionCost.h"
#include "neuronc/ISA/Roofline.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace neuronc;
using namespace neuronc::profile;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Total length of the union of intervals (sorted by start or not).
double unionLength(std::vector<std::pair<double, double>> &intervals) {
  llvm::sort(intervals);
  double total = 0, curStart = 0, curEnd = -1;
  bool open = false;
  for (auto [s, e] : intervals) {
    if (!open || s > curEnd) {
      if (open)
        total += curEnd - curStart;
      curStart = s;
      curEnd = e;
      open = true;
    } else {
      curEnd = std::max(curEnd, e);
    }
  }
  if (open)
    total += curEnd - curStart;
  return total;
}

/// Per-instruction facts the analysis needs.
struct InstInfo {
  uint32_t kernel;
  const std::string *op, *location;
  int64_t hbmRead = 0, hbmWrite = 0, bytes = 0;
};

/// The [first, last) bytes of an HBM access pattern's variable it reaches.
std::pair<double, double> hbmExtent(const isa::Operand &op) {
  int64_t last = op.offset;
  for (unsigned d = 0; d < op.rank; ++d)
    last += (op.sizes[d] - 1) * op.strides[d];
  int64_t eb = isa::dtypeBytes(op.dtype);
  return {static_cast<double>(op.offset * eb), static_cast<double>((last + 1) * eb)};
}

/// "multiply_moving of neuron.matmul at m.mlir:5:8": an instruction and
/// the source op it came from, for the dependency evidence.
std::string instructionSource(const neff::Program &p, const isa::Instruction &inst) {
  std::string s = isa::opcodeName(inst.opcode).str();
  if (inst.debug < p.debug.size()) {
    const neff::DebugEntry &de = p.debug[inst.debug];
    s += " of " + de.op + (de.location.empty() ? "" : " at " + de.location);
  }
  return s;
}

InstInfo infoOf(const neff::Program &p, const isa::Instruction &inst) {
  static const std::string unknown = "(unknown)", nowhere;
  InstInfo info{0, &unknown, &nowhere};
  if (inst.debug < p.debug.size()) {
    info.kernel = p.debug[inst.debug].kernel;
    info.op = &p.debug[inst.debug].op;
    info.location = &p.debug[inst.debug].location;
  }
  if (inst.opcode == isa::Opcode::DmaCopy && inst.operands.size() >= 2) {
    const isa::Operand &dst = inst.operands[0], &src = inst.operands[1];
    info.bytes = src.bytes();
    if (src.space == isa::Space::Hbm)
      info.hbmRead = info.bytes;
    if (dst.space == isa::Space::Hbm)
      info.hbmWrite = info.bytes;
  }
  return info;
}

} // namespace

std::string neuronc::profile::formatNs(double ns) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (ns >= 1e9)
    os << llvm::format("%.3f s", ns / 1e9);
  else if (ns >= 1e6)
    os << llvm::format("%.3f ms", ns / 1e6);
  else if (ns >= 1e3)
    os << llvm::format("%.3f us", ns / 1e3);
  else
    os << llvm::format("%.0f ns", ns);
  return s;
}

std::string neuronc::profile::formatBytes(double bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (bytes >= 1 << 30)
    os << llvm::format("%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20)
    os << llvm::format("%.1f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10)
    os << llvm::format("%.1f KiB", bytes / (1 << 10));
  else
    os << llvm::format("%.0f B", bytes);
  return s;
}

llvm::Expected<Profile> neuronc::profile::analyze(const rt::Runtime &runtime) {
  std::vector<const rt::Run *> runs;
  for (const auto &r : runtime.runs())
    if (r->done)
      runs.push_back(r.get());
  auto prof = analyzeRuns(*runtime.target(), std::move(runs), /*predict=*/true);
  if (prof)
    prof->runtime = &runtime;
  return prof;
}

llvm::Expected<Profile> neuronc::profile::analyzeRuns(const HardwareModel &hwModel,
                                                      std::vector<const rt::Run *> runs,
                                                      bool predict) {
  Profile prof;
  prof.hw = &hwModel;
  prof.runs = std::move(runs);
  if (prof.runs.empty())
    return fail("nothing to profile: no run has finished");
  for (const rt::Run *r : prof.runs)
    if (r->device.trace.empty() && r->program->instructionCount() > 0)
      return fail("run " + llvm::Twine(r->id) +
                  " has no device trace: profile with the runtime's device tracing on");
  const HardwareModel &hw = *prof.hw;
  double peakFlopsPerNs = hw.tensorBf16Tflops * 1e3;

  // Kernel stats, keyed by (program, kernel index).
  std::map<std::pair<const neff::Program *, uint32_t>, KernelStats> kernels;
  // Source ops by (name, location): distinct lines of one op name stay apart.
  std::map<std::pair<std::string, std::string>, OpStats> ops;
  std::array<std::vector<std::pair<double, double>>, 4> engineIntervals;
  std::vector<std::pair<double, double>> dmaIntervals;
  // Active time per engine, summed over runs: each run is on one core, so
  // its own intervals are merged and runs are added.
  std::array<double, 4> engineActive{};
  double dmaActive = 0;
  std::array<int64_t, 5> engineInstructions{};
  int64_t hbmRead = 0, hbmWrite = 0, dmaTransfers = 0, dmaBytes = 0, sbufBytes = 0,
          psumBytes = 0, matmulFlops = 0, transposeFlops = 0, engineElements = 0;
  double waitNs = 0;
  // Waits by (kernel, consumer, producer class), per producer source op.
  std::map<std::tuple<const neff::Program *, uint32_t, int, int>, std::map<std::string, double>>
      waitsBySource, waitsByConsumer;

  for (const rt::Run *run : prof.runs) {
    const neff::Program &p = *run->program;
    const sim::Result &res = run->device;
    // Each stream's signals in order (when each was sent, by which
    // instruction), to find which wait held an instruction longest.
    std::array<std::vector<const sim::TraceEvent *>, sim::kStreams> eventOf;
    for (size_t s = 0; s < p.streams.size(); ++s)
      eventOf[s].assign(p.streams[s].size(), nullptr);
    for (const sim::TraceEvent &e : res.trace)
      eventOf[e.stream][e.index] = &e;
    std::array<std::vector<std::pair<double, uint32_t>>, sim::kStreams> signals;
    // Wait intervals by (kernel, consumer, producer class): their union
    // within the kernel's span is the time the consumer waited (the two
    // TensorE rows, or the queues, wait at once).
    std::map<std::tuple<uint32_t, int, int>, std::vector<std::pair<double, double>>> waitIntervals;
    for (size_t s = 0; s < p.streams.size(); ++s)
      for (size_t i = 0; i < p.streams[s].size(); ++i)
        if (p.streams[s][i].has(isa::kSignal) && eventOf[s][i])
          signals[s].push_back({eventOf[s][i]->done, static_cast<uint32_t>(i)});
    prof.runDeviceNs.push_back(res.deviceNs);
    prof.deviceNs += res.deviceNs;
    waitNs += res.waitNs;
    // This run's kernel spans and the busy time of each (kernel, op).
    size_t nk = p.kernels.size();
    std::vector<double> begin(nk, INFINITY), end(nk, -INFINITY);
    // By (op name, location), as `ops` is keyed.
    std::vector<std::map<std::pair<llvm::StringRef, llvm::StringRef>, double>> opBusy(nk);
    std::vector<std::vector<std::pair<double, double>>> tensorIntervals(nk);
    // HBM byte ranges each kernel read, per variable.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<double, double>>> hbmRanges;
    std::vector<bool> ran(nk, false);
    // A tensor-parallel run: its collectives' intervals and everything else's.
    int64_t group = p.collectiveGroup();
    std::vector<std::pair<double, double>> collectiveIntervals, otherIntervals;
    CoreCommunication comm{run->id, run->core, group, res.deviceNs};
    for (const sim::TraceEvent &e : res.trace) {
      const isa::Instruction &inst = p.streams[e.stream][e.index];
      if (group > 1) {
        if (isa::isCollective(inst.opcode)) {
          collectiveIntervals.push_back({e.start, e.end});
          comm.waitNs += e.waitNs;
          comm.bytes += inst.operands[1].bytes();
        } else {
          otherIntervals.push_back({e.start, e.end});
        }
      }
      InstInfo info = infoOf(p, inst);
      if (info.kernel >= nk)
        continue;
      bool dma = inst.opcode == isa::Opcode::DmaCopy;
      double b = dma ? std::max(e.issue, e.start - hw.dmaLatencyNs) : e.start;
      begin[info.kernel] = std::min(begin[info.kernel], b);
      end[info.kernel] = std::max(end[info.kernel], e.end);
      ran[info.kernel] = true;
      double busy = e.end - e.start;
      opBusy[info.kernel][{*info.op, *info.location}] += busy;
      KernelStats &k = kernels[{&p, info.kernel}];
      OpStats &o = ops[{*info.op, *info.location}];
      o.busyNs += busy;
      ++o.instructions;
      if (e.waitNs > 0 && !inst.waits.empty()) {
        // The binding wait: the signal that came last.
        const isa::Wait *binding = nullptr;
        double latest = -INFINITY;
        for (const isa::Wait &w : inst.waits)
          if (w.count >= 1 && w.count <= signals[w.stream].size() &&
              signals[w.stream][w.count - 1].first > latest) {
            latest = signals[w.stream][w.count - 1].first;
            binding = &w;
          }
        if (binding) {
          const isa::Instruction &from =
              p.streams[binding->stream][signals[binding->stream][binding->count - 1].second];
          int producer = static_cast<int>(binding->stream);
          if (binding->stream >= isa::kFirstQueueStream)
            producer = !from.operands.empty() && from.operands[0].space == isa::Space::Hbm ? 5 : 4;
          int consumer = dma ? 4 : static_cast<int>(inst.engine);
          waitIntervals[{info.kernel, consumer, producer}].push_back({e.issue - e.waitNs, e.issue});
          waitsBySource[{&p, info.kernel, consumer, producer}][instructionSource(p, from)] +=
              e.waitNs;
          waitsByConsumer[{&p, info.kernel, consumer, producer}][instructionSource(p, inst)] +=
              e.waitNs;
        }
      }
      if (isa::isCollective(inst.opcode)) {
        // The collective engines' ring: neither a compute engine nor a DMA
        // transfer of this core's own.
        k.evidence.collectiveNs += busy;
        k.evidence.collectiveWaitNs += e.waitNs;
        k.evidence.collectiveBytes += inst.operands[1].bytes();
        k.evidence.collectiveGroup = inst.params[0];
        k.evidence.collectiveModelNs += collectiveNs(hw, inst);
        ++k.evidence.collectives;
        k.hbmReadBytes += inst.operands[1].bytes();
        k.hbmWriteBytes += inst.operands[0].bytes();
      } else if (dma) {
        k.dmaBusyNs += busy;
        ++k.dmaTransfers;
        k.dmaBytes += info.bytes;
        k.evidence.dmaRuns += dmaShapeOf(hw, inst).runs;
        int64_t queue = e.stream - isa::kFirstQueueStream;
        k.evidence.queueBusyNs[queue] += busy;
        k.evidence.queueCarries[queue] |= info.hbmWrite > 0 ? 2 : 1;
        // Gathers read rows an index picks: their pattern is not where they
        // read, so they count neither way.
        if (info.hbmRead > 0 && !inst.has(isa::kIndirect)) {
          k.evidence.hbmReadBytes += info.hbmRead;
          auto [first, last] = hbmExtent(inst.operands[1]);
          hbmRanges[{info.kernel, inst.operands[1].var}].push_back({first, last});
        }
        k.hbmReadBytes += info.hbmRead;
        k.hbmWriteBytes += info.hbmWrite;
        o.hbmReadBytes += info.hbmRead;
        o.hbmWriteBytes += info.hbmWrite;
        dmaIntervals.push_back({e.start, e.end});
        ++engineInstructions[4];
        hbmRead += info.hbmRead;
        hbmWrite += info.hbmWrite;
        ++dmaTransfers;
        dmaBytes += info.bytes;
      } else {
        int engine = static_cast<int>(inst.engine);
        k.busyNs[engine] += busy;
        if (inst.engine == isa::Engine::tensor)
          tensorIntervals[info.kernel].push_back({e.start, e.end});
        if (inst.opcode == isa::Opcode::LoadStationary)
          k.evidence.stationaryNs += busy;
        else if (inst.opcode == isa::Opcode::MultiplyMoving)
          k.evidence.multiplyNs += busy;
        else if (inst.engine == isa::Engine::tensor)
          k.evidence.transposeNs += busy;
        else if (llvm::any_of(llvm::drop_begin(inst.operands), [](const isa::Operand &o) {
                   return o.space == isa::Space::Psum;
                 }))
          k.evidence.psumReadNs[engine] += busy;
        ++k.instructions[engine];
        engineIntervals[engine].push_back({e.start, e.end});
        ++engineInstructions[engine];
      }
    }
    for (int e = 0; e < 4; ++e) {
      engineActive[e] += unionLength(engineIntervals[e]);
      engineIntervals[e].clear();
    }
    for (size_t k = 0; k < nk; ++k)
      if (!tensorIntervals[k].empty())
        kernels[{&p, static_cast<uint32_t>(k)}].tensorActiveNs += unionLength(tensorIntervals[k]);
    dmaActive += unionLength(dmaIntervals);
    dmaIntervals.clear();
    if (group > 1) {
      comm.collectiveNs = unionLength(collectiveIntervals);
      comm.computeNs = unionLength(otherIntervals);
      std::vector<std::pair<double, double>> both = collectiveIntervals;
      both.insert(both.end(), otherIntervals.begin(), otherIntervals.end());
      // |collective \ other| = |collective U other| - |other|.
      comm.exposedNs = std::max(0.0, unionLength(both) - comm.computeNs);
      prof.communication.push_back(comm);
    }
    for (auto &[key, ranges] : hbmRanges)
      kernels[{&p, key.first}].evidence.hbmDistinctReadBytes +=
          static_cast<int64_t>(unionLength(ranges));
    for (auto &[key, intervals] : waitIntervals) {
      auto [kernel, consumer, producer] = key;
      std::vector<std::pair<double, double>> clipped;
      for (auto [s, e] : intervals) {
        s = std::max(s, begin[kernel]);
        e = std::min(e, end[kernel]);
        if (e > s)
          clipped.push_back({s, e});
      }
      kernels[{&p, kernel}].evidence.waitNs[consumer][producer] += unionLength(clipped);
    }
    // Attribute device time: pieces between span boundaries, shared by the
    // kernels active in them.
    std::vector<std::pair<double, int>> edges; // (time, +k+1 opens / -(k+1) closes)
    for (size_t k = 0; k < nk; ++k)
      if (ran[k]) {
        edges.push_back({begin[k], static_cast<int>(k) + 1});
        edges.push_back({end[k], -static_cast<int>(k) - 1});
      }
    llvm::sort(edges, [](auto a, auto b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    std::vector<double> attributed(nk, 0);
    std::vector<int> active;
    double last = res.startNs, covered = 0;
    for (auto [t, code] : edges) {
      double dt = t - last;
      if (dt > 0 && !active.empty()) {
        for (int k : active)
          attributed[k] += dt / active.size();
        covered += dt;
      }
      last = std::max(last, t);
      if (code > 0)
        active.push_back(code - 1);
      else
        llvm::erase(active, -code - 1);
    }
    prof.idleNs += std::max(0.0, res.deviceNs - covered);
    for (size_t k = 0; k < nk; ++k) {
      if (!ran[k])
        continue;
      const neff::Kernel &kernel = p.kernels[k];
      KernelStats &s = kernels[{&p, static_cast<uint32_t>(k)}];
      s.program = p.name;
      s.name = kernel.name;
      s.kind = kernel.kind;
      s.source = kernel.source;
      s.location = kernel.location;
      ++s.calls;
      s.deviceNs += attributed[k];
      s.spanNs += end[k] - begin[k];
      s.matmulFlops += kernel.cost.matmulFlops;
      RooflineEstimate bound = kernelRoofline(hw, kernel.cost);
      s.boundNs += bound.boundNs();
      s.boundResource = bound.verdict();
      s.transposeFlops += kernel.cost.transposeFlops;
      s.vectorScalarElements += kernel.cost.elements[static_cast<int>(isa::Engine::vector)] +
                                kernel.cost.elements[static_cast<int>(isa::Engine::scalar)] +
                                kernel.cost.elements[static_cast<int>(isa::Engine::gpsimd)];
      matmulFlops += kernel.cost.matmulFlops;
      transposeFlops += kernel.cost.transposeFlops;
      for (isa::Engine e : {isa::Engine::vector, isa::Engine::scalar, isa::Engine::gpsimd})
        engineElements += kernel.cost.elements[static_cast<int>(e)];
      sbufBytes += kernel.cost.sbufBytes;
      psumBytes += kernel.cost.psumBytes;
      double busy = 0;
      for (auto &[op, ns] : opBusy[k])
        busy += ns;
      std::string where = p.name + "/" + kernel.name;
      for (auto &[op, ns] : opBusy[k]) {
        OpStats &o = ops[{op.first.str(), op.second.str()}];
        o.name = op.first.str();
        o.location = op.second.str();
        // The kernel's own source op stands for what the kernel absorbed.
        if (op.first == kernel.source && o.absorbed.empty())
          o.absorbed = kernel.absorbed;
        ++o.calls;
        o.deviceNs += busy > 0 ? attributed[k] * ns / busy : 0;
        if (!llvm::is_contained(o.kernels, where))
          o.kernels.push_back(where);
      }
    }
  }

  // The cores that share one chip's HBM: the most profiled cores on any one
  // chip (eight cores of a trn1 group sit two to a chip, not eight).
  llvm::SmallSet<unsigned, 8> coresUsed;
  for (const rt::Run *run : prof.runs)
    coresUsed.insert(run->core);
  std::map<unsigned, int> perChip;
  int sharers = 1;
  for (unsigned core : coresUsed)
    sharers = std::max(sharers, ++perChip[core / std::max<unsigned>(1, hw.coresPerChip)]);
  for (auto &[key, k] : kernels) {
    if (k.calls == 0)
      continue;
    Utilization &u = k.utilization;
    double span = std::max(k.spanNs, 1e-9);
    // Active time, as the summary's tensor_engine_active_time_percent.
    u.tensor = k.tensorActiveNs / span;
    u.vector = k.busyNs[static_cast<int>(isa::Engine::vector)] / span;
    u.scalar = k.busyNs[static_cast<int>(isa::Engine::scalar)] / span;
    u.gpsimd = k.busyNs[static_cast<int>(isa::Engine::gpsimd)] / span;
    u.dma = k.dmaBusyNs / (span * hw.dmaEngines);
    u.hbm = (k.hbmReadBytes + k.hbmWriteBytes) / span /
            (hw.chipHbmGBps / sharers);
    u.dmaMbu = k.dmaBytes / span / hw.dmaGBps();
    u.mfu = k.matmulFlops / span / peakFlopsPerNs;
    KernelEvidence &ev = k.evidence;
    ev.spanNs = k.spanNs;
    ev.utilization = u;
    ev.dmaBusyNs = k.dmaBusyNs;
    ev.dmaBytes = k.dmaBytes;
    ev.hbmSharers = sharers;
    // The producer source that held the waiting consumer longest, and the
    // consumer source it held longest.
    auto [consumer, producer] = dominantWait(ev);
    auto longest = [](const std::map<std::string, double> &bySource) {
      std::string top;
      double most = 0;
      for (auto &[source, ns] : bySource)
        if (ns > most) {
          most = ns;
          top = source;
        }
      return top;
    };
    ev.topProducer = longest(waitsBySource[{key.first, key.second, consumer, producer}]);
    ev.topConsumer = longest(waitsByConsumer[{key.first, key.second, consumer, producer}]);
    k.verdict = diagnose(ev, hw);
    prof.kernels.push_back(std::move(k));
  }
  if (predict)
    if (llvm::Error err = predictKernels(prof))
      return std::move(err);
  for (auto &[name, o] : ops)
    if (o.calls > 0)
      prof.ops.push_back(std::move(o));
  llvm::stable_sort(prof.kernels, [](const KernelStats &a, const KernelStats &b) {
    return a.deviceNs > b.deviceNs;
  });
  llvm::stable_sort(prof.ops, [](const OpStats &a, const OpStats &b) {
    return a.deviceNs > b.deviceNs;
  });

  // Summary metrics, named like the Neuron profiler's.
  auto &m = prof.summary;
  double total = std::max(prof.deviceNs, 1e-9);
  static const char *engineNames[] = {"tensor", "scalar", "vector", "gpsimd"};
  for (int e = 0; e < 4; ++e) {
    std::string name = engineNames[static_cast<int>(e)];
    m[name + "_engine_active_time_percent"] = 100 * engineActive[e] / total;
    m[name + "_instruction_count"] = static_cast<double>(engineInstructions[e]);
  }
  m["dma_active_time_percent"] = 100 * dmaActive / total;
  m["dma_instruction_count"] = static_cast<double>(engineInstructions[4]);
  m["total_time"] = prof.deviceNs / 1e9;
  m["iterations"] = static_cast<double>(prof.runs.size());
  m["idle_time_percent"] = 100 * prof.idleNs / total;
  m["hbm_read_bytes"] = static_cast<double>(hbmRead);
  m["hbm_write_bytes"] = static_cast<double>(hbmWrite);
  m["sbuf_bytes"] = static_cast<double>(sbufBytes);
  m["psum_bytes"] = static_cast<double>(psumBytes);
  m["hardware_flops"] = static_cast<double>(matmulFlops + transposeFlops);
  m["transpose_flops"] = static_cast<double>(transposeFlops);
  m["mfu_estimated_percent"] = 100 * matmulFlops / total / peakFlopsPerNs;
  m["hfu_estimated_percent"] = 100 * (matmulFlops + transposeFlops) / total / peakFlopsPerNs;
  // Memory-bandwidth utilization of each resource, as Neuron Explorer
  // reports hbm_ and dma_mbu_estimated_percent (docs/hardware-model.md):
  // HBM bytes (read + written) against the HBM bandwidth the profiled cores
  // could draw (a chip's, divided among its profiled cores), and the bytes the DMA
  // engines moved against their peak. The headline MBU is the busier one.
  double hbmGBps = hw.chipHbmGBps / sharers;
  double hbmBytes = static_cast<double>(hbmRead + hbmWrite);
  double hbmMbu = 100 * hbmBytes / total / hbmGBps;
  double dmaMbu = 100 * static_cast<double>(dmaBytes) / total / hw.dmaGBps();
  m["mbu_estimated_percent"] = std::max(hbmMbu, dmaMbu);
  m["hbm_mbu_estimated_percent"] = hbmMbu;
  m["dma_mbu_estimated_percent"] = dmaMbu;
  m["memory_bandwidth_bytes_per_s"] = std::min(hbmGBps, hw.dmaGBps()) * 1e9;
  m["hbm_bandwidth_bytes_per_s"] = hbmGBps * 1e9;
  m["dma_bandwidth_bytes_per_s"] = hw.dmaGBps() * 1e9;
  m["peak_flops"] = peakFlopsPerNs * 1e9;
  m["mm_arithmetic_intensity"] =
      hbmRead + hbmWrite > 0 ? static_cast<double>(matmulFlops) / (hbmRead + hbmWrite) : 0;
  m["arithmetic_intensity"] =
      hbmRead + hbmWrite > 0
          ? static_cast<double>(matmulFlops + engineElements) / (hbmRead + hbmWrite)
          : 0;
  m["peak_flops_bandwidth_ratio"] = peakFlopsPerNs / hw.memoryGBps();
  m["dma_transfer_count"] = static_cast<double>(dmaTransfers);
  m["dma_transfer_average_bytes"] =
      dmaTransfers ? static_cast<double>(dmaBytes) / dmaTransfers : 0;
  m["semaphore_wait_time"] = waitNs / 1e9;
  if (!prof.communication.empty()) {
    double collective = 0, exposed = 0, device = 0;
    for (const CoreCommunication &c : prof.communication) {
      collective += c.collectiveNs;
      exposed += c.exposedNs;
      device += c.deviceNs;
    }
    m["collective_time_percent"] = 100 * collective / std::max(device, 1e-9);
    m["exposed_communication_percent"] = 100 * exposed / std::max(device, 1e-9);
  }
  summarizeBottlenecks(prof);
  return prof;
}
