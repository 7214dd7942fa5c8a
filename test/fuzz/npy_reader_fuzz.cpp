//===- npy_reader_fuzz.cpp - libFuzzer target: the .npy reader ------------===//
//
// Any bytes: decodeNpy returns a tensor or an error; a tensor it returns
// encodes and decodes back to the same shape and type.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Host/Npy.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<neuronc::Tensor> t = neuronc::decodeNpy(bytes);
  if (!t) {
    llvm::consumeError(t.takeError());
    return 0;
  }
  std::string again = neuronc::encodeNpy(*t);
  llvm::Expected<neuronc::Tensor> back = neuronc::decodeNpy(again);
  if (!back || back->shape() != t->shape() || back->dtype() != t->dtype())
    std::abort();
  return 0;
}
