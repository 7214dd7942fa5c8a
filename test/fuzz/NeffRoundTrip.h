//===- NeffRoundTrip.h - The reader's contract, for the .neff targets -*- C++ -*-===//
//
// Whatever bytes readNeff is given, it returns an error or an executable;
// an executable it returns must write back to bytes that it reads again as
// the same executable. A broken contract aborts (the fuzzer's finding).
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TEST_FUZZ_NEFFROUNDTRIP_H
#define NEURONC_TEST_FUZZ_NEFFROUNDTRIP_H

#include "neuronc/ISA/Neff.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace neuronc::fuzzing {

/// Reads `bytes`; if they are accepted, checks the write-back round trip.
inline void checkNeffRoundTrip(llvm::ArrayRef<uint8_t> bytes) {
  llvm::Expected<neff::Executable> exe = neff::readNeff(bytes);
  if (!exe) {
    llvm::consumeError(exe.takeError());
    return;
  }
  llvm::Expected<neff::Executable> back = neff::readNeff(neff::writeNeff(*exe));
  if (!back) {
    llvm::errs() << "written back, the executable is refused: "
                 << llvm::toString(back.takeError()) << "\n";
    std::abort();
  }
  // The writer writes its own format version (1.1) whatever it read.
  exe->major = neff::kMajorVersion;
  exe->minor = neff::kMinorVersion;
  if (!(*back == *exe)) {
    llvm::errs() << "written back, the executable reads differently\n";
    std::abort();
  }
}

} // namespace neuronc::fuzzing

#endif // NEURONC_TEST_FUZZ_NEFFROUNDTRIP_H
