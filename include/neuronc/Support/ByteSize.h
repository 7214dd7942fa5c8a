//===- ByteSize.h - Sizes for people ------------------------------*- C++ -*-===//
//
// "512 B", "2.0 KiB", "372.5 GiB": how every resource-limit message prints
// a size.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_BYTESIZE_H
#define NEURONC_SUPPORT_BYTESIZE_H

#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace neuronc {

/// A byte count with a binary unit and one decimal.
inline std::string formatByteSize(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0)
    return llvm::formatv("{0} B", static_cast<long long>(bytes)).str();
  return llvm::formatv("{0:F1} {1}", bytes, units[u]).str();
}

} // namespace neuronc

#endif // NEURONC_SUPPORT_BYTESIZE_H
