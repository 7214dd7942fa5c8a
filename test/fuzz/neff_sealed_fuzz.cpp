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

#include "NeffRoundTrip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  neuronc::neff::resealNeff(bytes);
  neuronc::fuzzing::checkNeffRoundTrip(bytes);
  return 0;
}
