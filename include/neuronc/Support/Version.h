//===- Version.h - The compiler's version -----------------------*- C++ -*-===//
//
// One version string for every tool and for the executables the compiler
// writes (their `compiler` field and the compile cache's key).
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_VERSION_H
#define NEURONC_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace neuronc {

/// The version string printed by `--version`.
llvm::StringRef getVersionString();

} // namespace neuronc

#endif // NEURONC_SUPPORT_VERSION_H
