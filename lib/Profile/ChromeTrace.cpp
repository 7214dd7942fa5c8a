//===- ChromeTrace.cpp - The profile as Chrome Trace Event JSON -----------===//
//
// The Trace Event Format (the JSON object form). Two clocks that share no
// origin: pid 1 + c is NeuronCore c on the simulated chip's clock, in us
// from the start of the first profiled run; pid 0 is the host runtime on its
// wall clock (us since the runtime started), drawn from a round offset past
// the device clock's last run, since a viewer draws both on one axis and
// overlapping them would suggest a relation that does not exist. The process
// names say which clock each uses; otherData.clocks gives the offset and
// every run's host dispatch time beside its device start and end.
// There are no flow arrows: one from a host dispatch to a device instruction
// would join two unrelated clocks (and point backwards); the correlation_id
// argument on both sides links them instead.
//
// Every thread is one sequencer, so no two complete ("X") events of a
// thread overlap: TensorE is split into its LoadStationary and
// MultiplyMoving rows (PE transposes on the latter), DMA queues carry their
// data phases, and kernel spans (the profile's: first start, a DMA's from
// its issue but at most one DMA latency early, to last end) are spread over
// as many "Kernels" lanes as overlap needs. Semaphores are counter ("C")
// tracks.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "neuronc/ISA/InstructionCost.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <set>

using namespace neuronc;
using namespace neuronc::profile;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

constexpr int kHostPid = 0;
constexpr int kLoadTid = 1, kMultiplyTid = 2, kVectorTid = 3, kScalarTid = 4, kGpsimdTid = 5,
              kCollectiveTid = 6;
constexpr int kFirstKernelTid = 100, kFirstQueueTid = 10;

int tidOf(const isa::Instruction &inst) {
  if (isa::isCollective(inst.opcode))
    return kCollectiveTid; // its own track, though issued on a DMA queue
  switch (inst.engine) {
  case isa::Engine::tensor:
    return inst.opcode == isa::Opcode::LoadStationary ? kLoadTid : kMultiplyTid;
  case isa::Engine::vector:
    return kVectorTid;
  case isa::Engine::scalar:
    return kScalarTid;
  case isa::Engine::gpsimd:
    return kGpsimdTid;
  case isa::Engine::dma:
    return kFirstQueueTid + inst.queue;
  }
  return kVectorTid;
}

Object meta(llvm::StringRef what, int pid, int tid, Value value) {
  Object args;
  args[what == "thread_sort_index" || what == "process_sort_index" ? "sort_index" : "name"] =
      std::move(value);
  return Object{{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                {"args", std::move(args)}};
}

std::string waitsOf(const isa::Instruction &inst) {
  std::string s;
  for (const isa::Wait &w : inst.waits)
    s += (s.empty() ? "" : ", ") + isa::streamName(w.stream) + " >= " +
         std::to_string(w.count);
  return s;
}

/// The smallest 1, 2 or 5 times a power of ten at or above `us` (0 for 0):
/// where the host clock is drawn from, a round number to subtract.
double roundUp(double us) {
  if (us <= 0)
    return 0;
  double step = std::pow(10, std::floor(std::log10(us)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * step >= us)
      return m * step;
  return 10 * step;
}

/// The host process: its name (saying which clock it is on) and its phases,
/// at `hostOffsetUs` plus the wall-clock us since the runtime started.
void appendHost(Array &events, const Profile &p, double hostOffsetUs) {
  std::string hostName;
  llvm::raw_string_ostream(hostName)
      << "Host: neuronc runtime (wall clock: us since the runtime started, drawn from "
      << llvm::format("%g", hostOffsetUs) << " us on, after the device clock)";
  events.push_back(meta("process_name", kHostPid, 0, hostName));
  events.push_back(meta("process_sort_index", kHostPid, 0, 0));
  events.push_back(meta("thread_name", kHostPid, 0, "runtime"));

  // Host phases, and where each run's dispatch is.
  for (const rt::HostEvent &h : p.runtime->hostEvents()) {
    Object args{{"core", h.core}};
    if (h.run)
      args["correlation_id"] = static_cast<int64_t>(h.run);
    if (h.name == "dispatch") {
      events.push_back(Object{{"name", "dispatch"},
                              {"cat", "runtime"},
                              {"ph", "i"},
                              {"s", "t"},
                              {"ts", hostOffsetUs + h.startNs / 1e3},
                              {"pid", kHostPid},
                              {"tid", 0},
                              {"args", std::move(args)}});
      continue;
    }
    events.push_back(Object{{"name", h.name},
                            {"cat", "runtime"},
                            {"ph", "X"},
                            {"ts", hostOffsetUs + h.startNs / 1e3},
                            {"dur", std::max(0.0, h.endNs - h.startNs) / 1e3},
                            {"pid", kHostPid},
                            {"tid", 0},
                            {"args", std::move(args)}});
  }
}

} // namespace

Value neuronc::profile::chromeTrace(const Profile &p) {
  Array events;
  const HardwareModel &hw = *p.hw;

  // The device clock's origin: the chip's clock at the first profiled run.
  // The host clock is drawn after the device clock's last run ends.
  double origin = INFINITY, deviceEnd = 0;
  for (const rt::Run *run : p.runs)
    origin = std::min(origin, run->device.startNs);
  for (const rt::Run *run : p.runs)
    deviceEnd = std::max(deviceEnd, run->device.endNs - origin);
  auto ts = [&](double chipNs) { return (chipNs - origin) / 1e3; };
  // At least 5 % of the device clock's span between the two.
  double hostOffsetUs = roundUp(deviceEnd / 1e3 * 1.05);

  appendHost(events, p, hostOffsetUs);

  std::set<unsigned> cores;
  for (const rt::Run *run : p.runs)
    cores.insert(run->core);
  for (unsigned c : cores) {
    int pid = 1 + static_cast<int>(c);
    events.push_back(meta("process_name", pid, 0,
                          "NeuronCore " + std::to_string(c) + " (" + hw.name.str() +
                              ", simulated device clock, us from the first profiled run)"));
    events.push_back(meta("process_sort_index", pid, 0, pid));
    std::pair<int, const char *> threads[] = {
        {kLoadTid, "TensorE (LoadStationary)"}, {kMultiplyTid, "TensorE (MultiplyMoving)"},
        {kVectorTid, "VectorE"}, {kScalarTid, "ScalarE"}, {kGpsimdTid, "GpSimdE"}};
    for (auto [tid, name] : threads) {
      events.push_back(meta("thread_name", pid, tid, name));
      events.push_back(meta("thread_sort_index", pid, tid, tid));
    }
    int64_t group = 1;
    for (const rt::Run *run : p.runs)
      if (run->core == c)
        group = std::max(group, run->program->collectiveGroup());
    if (group > 1) {
      events.push_back(meta("thread_name", pid, kCollectiveTid,
                            "Collectives (" + std::to_string(group) + " cores)"));
      events.push_back(meta("thread_sort_index", pid, kCollectiveTid, kCollectiveTid));
    }
    for (int q = 0; q < hw.dmaEngines; ++q) {
      events.push_back(meta("thread_name", pid, kFirstQueueTid + q, "DMA q" + std::to_string(q)));
      events.push_back(meta("thread_sort_index", pid, kFirstQueueTid + q, kFirstQueueTid + q));
    }
  }

  Array runClocks;
  std::map<unsigned, std::vector<double>> laneEnds; // per core: kernel lanes
  for (const rt::Run *run : p.runs) {
    const neff::Program &prog = *run->program;
    int pid = 1 + static_cast<int>(run->core);
    runClocks.push_back(Object{{"correlation_id", static_cast<int64_t>(run->id)},
                               {"core", run->core},
                               {"host_dispatch_us", hostOffsetUs + run->dispatchNs / 1e3},
                               {"device_start_us", ts(run->device.startNs)},
                               {"device_end_us", ts(run->device.endNs)}});
    std::vector<double> kbegin(prog.kernels.size(), INFINITY),
        kend(prog.kernels.size(), -INFINITY);
    std::array<int64_t, sim::kStreams> signals{};
    // Semaphores start from zero with every run.
    std::array<bool, sim::kStreams> signalling{};
    for (int64_t st = 0; st < sim::kStreams; ++st)
      for (const isa::Instruction &inst : prog.streams[st])
        if (inst.has(isa::kSignal)) {
          signalling[st] = true;
          break;
        }
    for (int64_t st = 0; st < sim::kStreams; ++st)
      if (signalling[st])
        events.push_back(Object{{"name", "semaphore " + isa::streamName(st)},
                                {"ph", "C"},
                                {"ts", ts(run->device.startNs)},
                                {"pid", pid},
                                {"args", Object{{"value", 0}}}});
    for (const sim::TraceEvent &e : run->device.trace) {
      const isa::Instruction &inst = prog.streams[e.stream][e.index];
      const neff::DebugEntry *d =
          inst.debug < prog.debug.size() ? &prog.debug[inst.debug] : nullptr;
      const neff::Kernel *k = d && d->kernel < prog.kernels.size() ? &prog.kernels[d->kernel]
                                                                    : nullptr;
      bool dma = inst.opcode == isa::Opcode::DmaCopy;
      if (k) {
        double b = dma ? std::max(e.issue, e.start - hw.dmaLatencyNs) : e.start;
        kbegin[d->kernel] = std::min(kbegin[d->kernel], b);
        kend[d->kernel] = std::max(kend[d->kernel], e.end);
      }
      Object args{{"correlation_id", static_cast<int64_t>(run->id)},
                  {"stream", isa::streamName(e.stream)},
                  {"index", static_cast<int64_t>(e.index)}};
      if (k)
        args["kernel"] = k->name + " (" + k->kind + ")";
      if (d) {
        args["op"] = d->op;
        if (!d->location.empty())
          args["location"] = d->location;
      }
      if (isa::isCollective(inst.opcode)) {
        args["bytes"] = inst.operands[1].bytes();
        args["group"] = inst.params[0];
        args["queue"] = static_cast<int64_t>(inst.queue);
        args["waited_for_group_us"] = e.waitNs / 1e3;
      } else if (dma) {
        args["bytes"] = inst.operands.size() > 1 ? inst.operands[1].bytes() : 0;
        if (inst.operands.size() > 1) {
          args["from"] = isa::spaceName(inst.operands[1].space);
          args["to"] = isa::spaceName(inst.operands[0].space);
        }
        args["issued_us"] = ts(e.issue);
      } else {
        args["elements"] = inst.operands.empty() ? 0 : inst.operands.back().numElements();
        if (inst.opcode == isa::Opcode::MultiplyMoving && inst.operands.size() > 1)
          args["flops"] = 2 * inst.operands[1].partCount * inst.operands[1].numElements() *
                          inst.operands[0].partCount;
      }
      if (!inst.waits.empty()) {
        args["waits"] = waitsOf(inst);
        args["wait_ns"] = e.waitNs;
      }
      int tid = tidOf(inst);
      events.push_back(Object{{"name", isa::opcodeName(inst.opcode)},
                              {"cat", k ? k->name : std::string("device")},
                              {"ph", "X"},
                              {"ts", ts(e.start)},
                              {"dur", (e.end - e.start) / 1e3},
                              {"pid", pid},
                              {"tid", tid},
                              {"args", std::move(args)}});
      if (inst.has(isa::kSignal))
        events.push_back(Object{{"name", "semaphore " + isa::streamName(e.stream)},
                                {"ph", "C"},
                                {"ts", ts(e.done)},
                                {"pid", pid},
                                {"args", Object{{"value", ++signals[e.stream]}}}});
    }
    // Kernel spans, each on the first lane free at its start.
    std::vector<size_t> order;
    for (size_t i = 0; i < prog.kernels.size(); ++i)
      if (kend[i] >= kbegin[i])
        order.push_back(i);
    llvm::sort(order, [&](size_t a, size_t b) { return kbegin[a] < kbegin[b]; });
    std::vector<double> &lanes = laneEnds[run->core];
    for (size_t i : order) {
      size_t lane = 0;
      while (lane < lanes.size() && lanes[lane] > ts(kbegin[i]))
        ++lane;
      if (lane == lanes.size()) {
        lanes.push_back(0);
        int tid = kFirstKernelTid + static_cast<int>(lane);
        events.push_back(meta("thread_name", pid, tid,
                              lane ? "Kernels (" + std::to_string(lane + 1) + ")"
                                   : std::string("Kernels")));
        events.push_back(meta("thread_sort_index", pid, tid, -100 + static_cast<int>(lane)));
      }
      lanes[lane] = ts(kend[i]);
      const neff::Kernel &k = prog.kernels[i];
      events.push_back(Object{{"name", k.kind},
                              {"cat", "kernel"},
                              {"ph", "X"},
                              {"ts", ts(kbegin[i])},
                              {"dur", (kend[i] - kbegin[i]) / 1e3},
                              {"pid", pid},
                              {"tid", kFirstKernelTid + static_cast<int>(lane)},
                              {"args", Object{{"kernel", prog.name + "/" + k.name},
                                              {"source", k.source},
                                              {"location", k.location},
                                              {"span_ns", kend[i] - kbegin[i]},
                                              {"correlation_id", static_cast<int64_t>(run->id)}}}});
    }
  }
  Object clocks{
      {"host", "wall clock of the host runtime (pid 0): ts is host_offset_us plus the us since "
               "the runtime started, so that it is drawn after the device clock"},
      {"host_offset_us", hostOffsetUs},
      {"device", "simulated chip clock (pids 1 + core): ts is the us from the start of the "
                 "first profiled run; it shares no origin with the host clock"},
      {"kernel_span", "a kernel slice spans its first instruction's start (a DMA's from its "
                      "issue, at most one DMA latency before its data phase) to its last "
                      "instruction's end: summary.json's span_ns per call"},
      {"runs", std::move(runClocks)}};
  Object other{{"target", hw.name},
               {"runs", static_cast<int64_t>(p.runs.size())},
               {"device_time_ns", p.deviceNs},
               {"clocks", std::move(clocks)}};
  return Object{{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ns"},
                {"otherData", std::move(other)}};
}
