//===- neff_reader_fuzz.cpp - libFuzzer target: the executable reader -----===//
//
// Any bytes: readNeff either returns an executable or an error, never
// crashes, hangs or leaks. What it accepts must write back to bytes that it
// accepts again and that decode to the same executable.
//
//===----------------------------------------------------------------------===//

#include "NeffRoundTrip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  neuronc::fuzzing::checkNeffRoundTrip(llvm::ArrayRef<uint8_t>(data, size));
  return 0;
}
