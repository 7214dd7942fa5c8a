//===- neff_sealed_fuzz.cpp - libFuzzer target: records inside good checksums ===//
//
// The plain reader target mostly meets checksum mismatches: a mutated
// section rarely keeps its CRC-32. This one reseals the bytes first (every
// section CRC, the content hash, the file size and the header CRC, as the
// writer computes them), so the mutations reach the record decoders and
// the semantic checks: strings, enums, operand reach, per-opcode rules,
// programs, entry points and buckets. It holds the reader to the same
// contract: an error or an executable that writes back to itself.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Target/Neff.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  neuronc::neff::resealNeff(bytes);
  llvm::Expected<neuronc::neff::Executable> exe = neuronc::neff::readNeff(bytes);
  if (!exe) {
    llvm::consumeError(exe.takeError());
    return 0;
  }
  llvm::Expected<neuronc::neff::Executable> back =
      neuronc::neff::readNeff(neuronc::neff::writeNeff(*exe));
  if (!back) { // accepted once, refused when written back
    llvm::errs() << "written back, the executable is refused: " << llvm::toString(back.takeError())
                 << "\n";
    std::abort();
  }
  // The writer writes its own format version (1.1) whatever it read.
  exe->major = neuronc::neff::kMajorVersion;
  exe->minor = neuronc::neff::kMinorVersion;
  if (!(*back == *exe)) { // accepted once, changed when written back
    llvm::errs() << "written back, the executable reads differently\n";
    std::abort();
  }
  return 0;
}
