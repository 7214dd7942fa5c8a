//===- InstructionTimes.cpp - Measured times per instruction --------------===//
//
// For neuron-inspect --profile: per program and stream, one
// [start_ns, duration_ns, wait_ns] triple per instruction (start relative to
// the run's start), averaged over the program's profiled runs. The
// executable's content hash ties the file to the .neff it measured.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/Format.h"

#include <map>

using namespace neuronc;
using namespace neuronc::profile;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

Value neuronc::profile::instructionTimes(const Profile &p) {
  struct Acc {
    int64_t runs = 0;
    std::array<std::vector<std::array<double, 3>>, sim::kStreams> streams;
  };
  std::map<const neff::Program *, Acc> perProgram;
  uint64_t hash = 0;
  for (const rt::Run *run : p.runs) {
    hash = run->model->executable().contentHash;
    Acc &a = perProgram[run->program];
    ++a.runs;
    for (int64_t s = 0; s < sim::kStreams; ++s)
      a.streams[s].resize(run->program->streams[s].size());
    for (const sim::TraceEvent &e : run->device.trace) {
      auto &t = a.streams[e.stream][e.index];
      t[0] += e.start - run->device.startNs;
      t[1] += e.end - e.start;
      t[2] += e.waitNs;
    }
  }
  Array programs;
  for (auto &[prog, a] : perProgram) {
    Object streams;
    for (int64_t s = 0; s < sim::kStreams; ++s) {
      if (a.streams[s].empty())
        continue;
      Array rows;
      for (auto &t : a.streams[s])
        rows.push_back(Array{t[0] / a.runs, t[1] / a.runs, t[2] / a.runs});
      streams[mlir::nisa::streamName(s)] = std::move(rows);
    }
    programs.push_back(Object{{"name", prog->name},
                              {"runs", a.runs},
                              {"streams", std::move(streams)}});
  }
  std::string hex;
  llvm::raw_string_ostream(hex) << llvm::format("0x%016llx", static_cast<unsigned long long>(hash));
  return Object{{"format", "neuronc-instruction-times-1"},
                {"content_hash", hex},
                {"target", p.hw->name},
                {"programs", std::move(programs)}};
}
