//===- InstructionTimes.cpp - Measured times per instruction --------------===//
//
// For neuron-inspect --profile: per program and stream, one
// [start_ns, duration_ns, wait_ns] triple per instruction (start relative to
// the run's start), averaged over the program's profiled runs. The
// executable's content hash ties the file to the .neff it measured.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>

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
      streams[isa::streamName(s)] = std::move(rows);
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

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<MeasuredTimes>
neuronc::profile::parseInstructionTimes(llvm::StringRef text, llvm::StringRef name,
                                        const neff::Executable &exe) {
  llvm::Expected<Value> doc = llvm::json::parse(text);
  if (!doc)
    return fail(name + " is not JSON: " + llvm::toString(doc.takeError()));
  const Object *root = doc->getAsObject();
  if (!root || root->getString("format") != "neuronc-instruction-times-1")
    return fail(name + " is not a neuronc instruction-times file (neuron-run --profile writes "
                       "one)");
  std::string hash = llvm::formatv("{0:x16}", exe.contentHash).str();
  if (root->getString("content_hash") != hash)
    return fail("the profile " + name + " measured executable " +
                root->getString("content_hash").value_or("?") + ", not this one (" + hash +
                "): profile this .neff again");
  MeasuredTimes measured;
  const Array *programs = root->getArray("programs");
  for (const Value &pv : programs ? *programs : Array()) {
    const Object *po = pv.getAsObject();
    std::string prog = po && po->getString("name") ? po->getString("name")->str() : "";
    const neff::Program *p = nullptr;
    for (const neff::Program &candidate : exe.programs)
      if (candidate.name == prog)
        p = &candidate;
    if (!p)
      return fail("the profile names program '" + prog + "', which this executable lacks");
    if (measured.count(prog))
      return fail("the profile lists program '" + prog + "' twice");
    auto &times = measured[prog];
    const Object *streams = po->getObject("streams");
    for (const auto &[key, value] : streams ? *streams : Object()) {
      std::optional<int64_t> s = isa::parseStreamName(key.str());
      const Array *rows = value.getAsArray();
      if (!s || !rows ||
          rows->size() != p->streams[*s].size())
        return fail("the profile's stream '" + key.str() + "' of @" + prog +
                    " does not match the executable's");
      if (!times[*s].empty())
        return fail("the profile lists stream '" + key.str() + "' of @" + prog + " twice");
      for (const Value &r : *rows) {
        const Array *t = r.getAsArray();
        std::array<double, 3> row{};
        bool ok = t && t->size() == 3;
        for (size_t k = 0; ok && k < 3; ++k) {
          std::optional<double> v = (*t)[k].getAsNumber();
          ok = v && std::isfinite(*v) && *v >= 0;
          row[k] = ok ? *v : 0;
        }
        if (!ok)
          return fail("malformed instruction time in stream '" + key.str() +
                      "' (expected [start_ns, duration_ns, wait_ns], finite and >= 0)");
        times[*s].push_back(row);
      }
    }
  }
  return measured;
}

llvm::Expected<MeasuredTimes>
neuronc::profile::readInstructionTimes(llvm::StringRef path, const neff::Executable &exe) {
  llvm::SmallString<256> file(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(file, "instructions.json");
  auto buf = llvm::MemoryBuffer::getFile(file);
  if (!buf)
    return fail("cannot read the profile " + file + ": " + buf.getError().message());
  return parseInstructionTimes((*buf)->getBuffer(), file, exe);
}
