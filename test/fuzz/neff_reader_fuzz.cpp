//===- neff_reader_fuzz.cpp - libFuzzer target: the executable reader -----===//
//
// Any bytes: readNeff either returns an executable or an error, never
// crashes, hangs or leaks. What it accepts must write back to bytes that it
// accepts again and that decode to the same executable.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Target/Neff.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::ArrayRef<uint8_t> bytes(data, size);
  llvm::Expected<neuronc::neff::Executable> exe = neuronc::neff::readNeff(bytes);
  if (!exe) {
    llvm::consumeError(exe.takeError());
    return 0;
  }
  std::vector<uint8_t> again = neuronc::neff::writeNeff(*exe);
  llvm::Expected<neuronc::neff::Executable> back = neuronc::neff::readNeff(again);
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
