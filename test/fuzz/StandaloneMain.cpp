//===- StandaloneMain.cpp - Run a fuzz target without libFuzzer -----------===//
//
// Links with one target's LLVMFuzzerTestOneInput in the normal build (any
// compiler, no sanitizer runtime):
//   neuronc-fuzz-compile-standalone FILE...            replays inputs (findings)
//   neuronc-fuzz-compile-standalone (--seconds=S | --runs=N) [--seed=N] [--max-len=L]
//                                                      feeds random inputs
// Random inputs are not coverage-guided; CI uses them for the compile
// target, whose coverage-guided build needs all of the compiler under
// clang's sanitizers (scripts/fuzz.sh compile).
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  double seconds = 0;
  uint64_t seed = 1, maxRuns = 0;
  size_t maxLen = 1024;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (a.consume_front("--seconds="))
      seconds = std::atof(a.str().c_str());
    else if (a.consume_front("--runs="))
      maxRuns = std::strtoull(a.str().c_str(), nullptr, 10);
    else if (a.consume_front("--seed="))
      seed = std::strtoull(a.str().c_str(), nullptr, 10);
    else if (a.consume_front("--max-len="))
      maxLen = std::strtoull(a.str().c_str(), nullptr, 10);
    else if (a.starts_with("-")) {
      llvm::errs() << argv[0] << ": unknown flag '" << a
                   << "' (FILE... replays; --seconds=S or --runs=N [--seed=N] [--max-len=L] fuzzes)\n";
      return 2;
    } else
      files.push_back(a.str());
  }
  for (const std::string &f : files) {
    auto buf = llvm::MemoryBuffer::getFile(f);
    if (!buf) {
      llvm::errs() << argv[0] << ": cannot read " << f << ": " << buf.getError().message() << "\n";
      return 2;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
                           (*buf)->getBufferSize());
  }
  if (files.empty() && seconds <= 0 && !maxRuns) {
    llvm::errs() << argv[0] << ": give input files to replay, or --seconds=S or --runs=N to fuzz\n";
    return 2;
  }
  if (seconds <= 0 && !maxRuns)
    return 0;
  if (seconds <= 0)
    seconds = 1e9;
  std::mt19937_64 rng(seed);
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  std::vector<uint8_t> input;
  while (std::chrono::steady_clock::now() < end && (!maxRuns || runs < maxRuns)) {
    input.resize(rng() % (maxLen + 1));
    for (uint8_t &b : input)
      b = static_cast<uint8_t>(rng());
    LLVMFuzzerTestOneInput(input.data(), input.size());
    ++runs;
  }
  llvm::outs() << "standalone: " << runs << " random inputs (seed " << seed << "), no finding\n";
  return 0;
}
