//===- instruction_times_fuzz.cpp - libFuzzer target: the profile reader ---===//
//
// neuron-inspect --profile reads a profile's instructions.json against an
// executable. Any text: parseInstructionTimes returns the times or an error,
// never crashes or hangs, and what it accepts has one triple per
// instruction of each stream it lists. The executable is the one
// NEURONC_FUZZ_NEFF names (scripts/fuzz.sh compiles it and profiles it for
// the seed corpus).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"
#include "neuronc/ISA/Neff.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>

namespace {

const neuronc::neff::Executable &executable() {
  static neuronc::neff::Executable *exe = [] {
    const char *path = std::getenv("NEURONC_FUZZ_NEFF");
    if (!path) {
      llvm::errs() << "instruction_times_fuzz: set NEURONC_FUZZ_NEFF to the profiled .neff\n";
      std::exit(2);
    }
    auto read = neuronc::neff::readNeffFile(path);
    if (!read) {
      llvm::errs() << "instruction_times_fuzz: " << llvm::toString(read.takeError()) << "\n";
      std::exit(2);
    }
    return new neuronc::neff::Executable(std::move(*read));
  }();
  return *exe;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const neuronc::neff::Executable &exe = executable();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto times = neuronc::profile::parseInstructionTimes(text, "fuzz.json", exe);
  if (!times) {
    llvm::consumeError(times.takeError());
    return 0;
  }
  for (const auto &[name, streams] : *times) {
    const neuronc::neff::Program *prog = nullptr;
    for (const neuronc::neff::Program &p : exe.programs)
      if (p.name == name)
        prog = &p;
    if (!prog)
      std::abort(); // accepted a program the executable lacks
    for (size_t s = 0; s < streams.size(); ++s) {
      if (!streams[s].empty() && streams[s].size() != prog->streams[s].size())
        std::abort(); // accepted a stream of the wrong length
      for (const auto &t : streams[s])
        for (double v : t)
          if (!std::isfinite(v) || v < 0)
            std::abort(); // accepted a time that is not a duration
    }
  }
  return 0;
}
