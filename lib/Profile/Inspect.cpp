//===- Inspect.cpp - What an executable holds, as text or JSON ------------===//

#include "neuronc/Profile/Inspect.h"
#include "neuronc/Support/Shape.h"

#include "neuronc/ISA/Disassemble.h"
#include "neuronc/ISA/Roofline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace neuronc;

namespace {

/// One report: the options and the stream, shared by its parts.
struct Inspector {
  const profile::InspectOptions &opts;
  llvm::raw_ostream &os;
  /// The replay of every program (null when it failed: `replayError` says
  /// why).
  const profile::Profile *predicted = nullptr;
  std::string replayError;

  /// The predicted stats of `kernel` of `program`, if replayed.
  const profile::KernelStats *predictionOf(const neff::Program &p, const neff::Kernel &k) {
    if (!predicted)
      return nullptr;
    for (const profile::KernelStats &s : predicted->kernels)
      if (s.program == p.name && s.name == k.name)
        return &s;
    return nullptr;
  }

  /// The replayed device time of `program` (0 when not replayed).
  double predictedProgramNs(const neff::Program &p) {
    if (!predicted)
      return 0;
    for (size_t r = 0; r < predicted->runs.size(); ++r)
      if (predicted->runs[r]->program == &p)
        return predicted->runDeviceNs[r];
    return 0;
  }

  llvm::json::Object predictionJSON(const profile::KernelStats &k) {
    return llvm::json::Object{{"predicted_ns", k.spanNs},
                              {"verdict", k.verdict.verdict},
                              {"evidence", k.verdict.evidence},
                              {"hint", k.verdict.hint}};
  }

  /// The measured times of instruction `i` of stream `s`, if profiled.
  const std::array<double, 3> *measuredOf(const neff::Program &p, size_t s, size_t i) {
    if (!opts.measured)
      return nullptr;
    auto it = opts.measured->find(p.name);
    if (it == opts.measured->end() || i >= it->second[s].size())
      return nullptr;
    return &it->second[s][i];
  }

  std::string formatNs(double ns) {
    if (ns < 1000)
      return llvm::formatv("{0:f1} ns", ns).str();
    if (ns < 1e6)
      return llvm::formatv("{0:f2} us", ns / 1e3).str();
    return llvm::formatv("{0:f3} ms", ns / 1e6).str();
  }

  std::string formatBytes(int64_t b) {
    if (b < 10 * 1024)
      return std::to_string(b) + " B";
    if (b < 10 * 1024 * 1024)
      return llvm::formatv("{0:f1} KiB", b / 1024.0).str();
    return llvm::formatv("{0:f1} MiB", b / (1024.0 * 1024.0)).str();
  }

  llvm::json::Object rooflineJSON(const HardwareModel &hw, const neff::CostTable &c) {
    RooflineEstimate r = kernelRoofline(hw, c);
    return llvm::json::Object{
        {"tensor_ns", r.tensorNs},
        {"vector_ns", r.vectorNs},
        {"scalar_ns", r.scalarNs},
        {"gpsimd_ns", r.gpsimdNs},
        {"hbm_ns", r.hbmNs},
        {"latency_ns", r.latencyNs},
        {"predicted_ns", r.boundNs()},
        {"verdict", r.verdict()},
        {"matmul_flops", c.matmulFlops},
        {"hbm_read_bytes", c.hbmReadBytes},
        {"hbm_write_bytes", c.hbmWriteBytes},
        {"arithmetic_intensity", arithmeticIntensity(c)},
        {"ridge_point", hw.ridgePoint()},
        {"dma_count", c.dmaCount},
        {"instructions", llvm::json::Array{c.instructions[0], c.instructions[1],
                                           c.instructions[2], c.instructions[3]}},
    };
  }

  void printJSON(const neff::Executable &exe, llvm::ArrayRef<neff::SectionInfo> sections,
                 const HardwareModel &hw) {
    llvm::json::Array secs, entries, programs;
    for (const auto &s : sections)
      secs.push_back(llvm::json::Object{{"name", s.name},
                                        {"offset", static_cast<int64_t>(s.offset)},
                                        {"size", static_cast<int64_t>(s.size)},
                                        {"crc32", static_cast<int64_t>(s.crc)}});
    for (const auto &e : exe.entries) {
      llvm::json::Array buckets;
      for (const auto &b : e.buckets) {
        llvm::json::Object o{{"program", static_cast<int64_t>(b.program)},
                             {"dims", llvm::json::Array(b.dims)}};
        if (!b.dims.empty()) {
          const neff::Program &p = exe.programs[b.program];
          o["kernels"] = static_cast<int64_t>(p.kernels.size());
          o["roofline"] = rooflineJSON(hw, programCost(p));
        }
        buckets.push_back(std::move(o));
      }
      llvm::json::Object entry{{"name", e.name}, {"buckets", std::move(buckets)}};
      const BucketSignature &sig = e.signature;
      if (sig.dynamic()) {
        auto dims = [](const std::vector<std::vector<int64_t>> &list) {
          llvm::json::Array a;
          for (const auto &d : list)
            a.push_back(llvm::json::Array(d));
          return a;
        };
        llvm::json::Array work;
        for (const WorkTerm &t : sig.work)
          work.push_back(llvm::json::Object{{"coefficient", t.coefficient},
                                            {"exponents", llvm::json::Array(t.exponents)}});
        entry["signature"] = llvm::json::Object{{"symbols", llvm::json::Array(sig.symbols)},
                                                {"inputs", dims(sig.inputs)},
                                                {"outputs", dims(sig.outputs)},
                                                {"masks", llvm::json::Array(sig.masks)},
                                                {"work", std::move(work)}};
      }
      entries.push_back(std::move(entry));
    }
    for (const auto &p : exe.programs) {
      llvm::json::Array vars, kernels, streams;
      for (const auto &v : p.variables) {
        llvm::json::Object o{{"name", v.name},
                             {"kind", neff::varKindName(v.kind)},
                             {"type", isa::variableTypeString(v)},
                             {"bytes", v.bytes()},
                             {"index", v.index}};
        if (v.hostTransposed || v.sharded())
          o["host_shape"] = llvm::json::Array(v.hostShape());
        if (v.sharded())
          o["shard"] = llvm::json::Object{{"dim", v.shardDim}, {"parts", v.shardParts}};
        vars.push_back(std::move(o));
      }
      for (const auto &k : p.kernels) {
        llvm::json::Object o{{"name", k.name},
                             {"kind", k.kind},
                             {"source", k.source},
                             {"location", k.location},
                             {"roofline", rooflineJSON(hw, k.cost)}};
        if (const profile::KernelStats *s = predictionOf(p, k))
          o["prediction"] = predictionJSON(*s);
        kernels.push_back(std::move(o));
      }
      for (size_t s = 0; s < p.streams.size(); ++s) {
        if (p.streams[s].empty())
          continue;
        llvm::json::Object o{{"stream", isa::streamName(s)},
                             {"instructions", static_cast<int64_t>(p.streams[s].size())}};
        if (opts.disassemble) {
          llvm::json::Array list;
          for (const auto &inst : p.streams[s]) {
            const neff::DebugEntry *d = p.debug.empty() ? nullptr : &p.debug[inst.debug];
            llvm::json::Object entry{{"text", isa::instructionString(p, inst)},
                                     {"kernel", d ? p.kernels[d->kernel].name : ""},
                                     {"op", d ? d->op : ""},
                                     {"location", d ? d->location : ""}};
            if (const auto *m = measuredOf(p, s, list.size()))
              entry["measured"] = llvm::json::Object{
                  {"start_ns", (*m)[0]}, {"duration_ns", (*m)[1]}, {"wait_ns", (*m)[2]}};
            list.push_back(std::move(entry));
          }
          o["listing"] = std::move(list);
        }
        streams.push_back(std::move(o));
      }
      llvm::json::Object program{{"name", p.name},
                                 {"target", p.target},
                                 {"scratch_bytes", p.scratchBytes},
                                 {"variables", std::move(vars)},
                                 {"streams", std::move(streams)},
                                 {"kernels", std::move(kernels)},
                                 {"roofline", rooflineJSON(hw, programCost(p))}};
      if (predicted)
        program["predicted_ns"] = predictedProgramNs(p);
      else
        program["prediction_error"] = replayError;
      programs.push_back(std::move(program));
    }
    llvm::json::Object root{
        {"format", llvm::formatv("{0}.{1}", exe.major, exe.minor).str()},
        {"target", exe.target},
        {"compiler", exe.compiler},
        {"required_features", static_cast<int64_t>(exe.requiredFeatures)},
        {"content_hash", llvm::formatv("{0:x16}", exe.contentHash).str()},
        {"sections", std::move(secs)},
        {"entry_points", std::move(entries)},
        {"programs", std::move(programs)},
    };
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  }

  void printText(const neff::Executable &exe, llvm::ArrayRef<neff::SectionInfo> sections,
                 const HardwareModel &hw) {
    os << "executable: format " << exe.major << "." << exe.minor << ", target " << exe.target
       << " (" << hw.core << "), " << exe.compiler << "\n";
    os << "  content hash " << llvm::formatv("{0:x16}", exe.contentHash) << ", required features: ";
    if (!exe.requiredFeatures)
      os << "none";
    if (exe.requiredFeatures & neff::kFeatureIndirectDma)
      os << "indirect-dma ";
    if (exe.requiredFeatures & neff::kFeatureBuckets)
      os << "buckets ";
    if (exe.requiredFeatures & neff::kFeatureHostLayouts)
      os << "host-layouts ";
    if (exe.requiredFeatures & neff::kFeatureTensorParallel)
      os << "tensor-parallel";
    os << "\n\nsections (" << sections.size() << "):\n";
    for (const auto &s : sections)
      os << llvm::formatv("  {0,-14} offset {1,9}  size {2,10}  crc32 {3:x8}\n", s.name, s.offset,
                          s.size, s.crc);
    os << "\nentry points (" << exe.entries.size() << "):\n";
    for (const auto &e : exe.entries) {
      const BucketSignature &sig = e.signature;
      os << "  @" << e.name << ": " << e.buckets.size() << " bucket(s)";
      if (sig.dynamic()) {
        os << " over " << llvm::join(sig.symbols, ", ") << "; inputs";
        for (const auto &d : sig.inputs)
          os << " " << sig.formatDims(d);
        os << ", outputs";
        for (const auto &d : sig.outputs)
          os << " " << sig.formatDims(d);
        if (!sig.masks.empty()) {
          os << ", masks";
          for (uint32_t m : sig.masks)
            os << " " << sig.symbols[m];
        }
      }
      os << "\n";
      for (const auto &b : e.buckets) {
        const neff::Program &p = exe.programs[b.program];
        if (b.dims.empty()) {
          os << "    program " << b.program << " (" << p.name << ") static shapes\n";
          continue;
        }
        RooflineEstimate r = kernelRoofline(hw, programCost(p));
        os << llvm::formatv("    {0,-20} program {1,-3} {2,-28} {3,3} kernel(s)  predicted {4}, "
                            "bound {5} ({6})\n",
                            sig.formatSizes(b.dims), b.program, "(" + p.name + ")",
                            p.kernels.size(), formatNs(predictedProgramNs(p)),
                            formatNs(r.boundNs()), r.verdict());
      }
    }
    for (const auto &p : exe.programs) {
      os << "\nprogram @" << p.name << " on " << p.target << ": " << p.inputs().size()
         << " input(s), " << p.outputs().size() << " output(s), scratch "
         << formatBytes(p.scratchBytes) << "\n";
      if (int64_t group = p.collectiveGroup(); group > 1)
        os << "  one core's part of a tensor-parallel group of " << group
           << " cores: runs on cores 0-" << group - 1
           << " together, sharded inputs split by the runtime\n";
      for (const auto &v : p.variables) {
        os << llvm::formatv("  {0,-10} {1,-8} {2,-28} {3}", v.name, neff::varKindName(v.kind),
                            isa::variableTypeString(v), formatBytes(v.bytes()));
        if (v.hostTransposed)
          os << "  (given as " << formatShape(v.localHostShape())
             << ", its last two dims swapped at load)";
        if (v.sharded())
          os << "  (part of " << formatShape(v.hostShape()) << ": dim " << v.shardDim << " in "
             << v.shardParts << " parts)";
        os << "\n";
      }
      os << "  instructions:";
      int64_t dma = 0, queues = 0;
      for (size_t s = 0; s < p.streams.size(); ++s) {
        if (s < static_cast<size_t>(isa::kFirstQueueStream))
          os << " " << isa::streamName(s) << " " << p.streams[s].size() << ",";
        else if (!p.streams[s].empty()) {
          dma += p.streams[s].size();
          ++queues;
        }
      }
      os << " dma " << dma << " on " << queues << " queue(s); " << p.instructionCount()
         << " in all\n";
      os << "  kernels: predicted by replaying the streams alone without data (the cost "
            "formulas, DMA efficiency, semaphore dependencies); bound: the static roofline "
            "(busiest resource at its peak; ridge point "
         << llvm::format("%.0f", hw.ridgePoint()) << " FLOP/B)";
      if (!predicted)
        os << "; no prediction: " << replayError;
      os << "\n";
      os << llvm::formatv(
          "    {0,-6} {1,-18} {2,-20} {3,7} {4,10} {5,10} {6,9} {7,11} {8,11}  {9}\n", "kernel",
          "kind", "source", "instrs", "MFLOP", "HBM", "FLOP/B", "bound", "predicted", "verdict");
      auto row = [&](llvm::StringRef name, llvm::StringRef kind, llvm::StringRef source,
                     const neff::CostTable &c, double predictedNs, llvm::StringRef verdict) {
        RooflineEstimate r = kernelRoofline(hw, c);
        int64_t instrs = c.instructions[0] + c.instructions[1] + c.instructions[2] +
                         c.instructions[3] + c.dmaCount;
        os << llvm::formatv(
            "    {0,-6} {1,-18} {2,-20} {3,7} {4,10:f2} {5,10} {6,9:f1} {7,11} {8,11}  {9}\n",
            name, kind.take_front(18), source.take_front(20), instrs, c.matmulFlops / 1e6,
            formatBytes(c.hbmReadBytes + c.hbmWriteBytes), arithmeticIntensity(c),
            formatNs(r.boundNs()), predicted ? formatNs(predictedNs) : "-",
            verdict.empty() ? llvm::StringRef("bound: " + r.verdict()) : verdict);
      };
      std::vector<std::pair<std::string, const profile::KernelStats *>> explained;
      for (const auto &k : p.kernels) {
        const profile::KernelStats *s = predictionOf(p, k);
        row(k.name, k.kind, k.source, k.cost, s ? s->spanNs : 0,
            s ? llvm::StringRef(s->verdict.verdict) : "");
        if (s)
          explained.push_back({k.name, s});
      }
      row("all", "", "", programCost(p), predictedProgramNs(p), "");
      for (auto &[name, s] : explained) {
        os << "    " << name << ": " << s->verdict.evidence << "\n";
        if (!s->verdict.hint.empty())
          os << "    " << std::string(name.size(), ' ') << "  hint: " << s->verdict.hint << "\n";
      }
    }
    if (!opts.disassemble)
      return;
    for (const auto &p : exe.programs) {
      os << "\n";
      for (size_t s = 0; s < p.streams.size(); ++s) {
        if (p.streams[s].empty())
          continue;
        os << "== program @" << p.name << ", stream " << isa::streamName(s) << " ("
           << p.streams[s].size() << " instructions";
        if (measuredOf(p, s, 0)) {
          double busy = 0;
          for (size_t i = 0; i < p.streams[s].size(); ++i)
            busy += (*measuredOf(p, s, i))[1];
          os << ", measured busy " << formatNs(busy);
        }
        os << ")\n";
        if (measuredOf(p, s, 0))
          os << "         start        duration    wait\n";
        for (size_t i = 0; i < p.streams[s].size(); ++i) {
          const isa::Instruction &inst = p.streams[s][i];
          os << llvm::formatv("  {0,5}  ", i);
          if (const auto *m = measuredOf(p, s, i))
            os << llvm::formatv("{0,12} {1,10} {2,8}  ", formatNs((*m)[0]), formatNs((*m)[1]),
                                (*m)[2] > 0 ? formatNs((*m)[2]) : std::string("-"));
          os << isa::instructionString(p, inst);
          if (!p.debug.empty()) {
            const neff::DebugEntry &d = p.debug[inst.debug];
            os << "    ; " << p.kernels[d.kernel].name << " " << d.op;
            if (!d.location.empty())
              os << " " << d.location;
          }
          os << "\n";
        }
      }
    }
  }
};

} // namespace

void neuronc::profile::printExecutable(llvm::raw_ostream &os, const neff::Executable &exe,
                                       llvm::ArrayRef<neff::SectionInfo> sections,
                                       const HardwareModel &hw, const InspectOptions &options) {
  Inspector inspector{options, os};
  llvm::Expected<profile::Profile> predicted = profile::replay(exe, hw);
  if (predicted)
    inspector.predicted = &*predicted;
  else
    inspector.replayError = llvm::toString(predicted.takeError());
  if (options.json)
    inspector.printJSON(exe, sections, hw);
  else
    inspector.printText(exe, sections, hw);
}
