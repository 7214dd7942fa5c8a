//===- Version.cpp - The compiler's version -------------------------------===//

#include "neuronc/Support/Version.h"

llvm::StringRef neuronc::getVersionString() { return NEURONC_VERSION_STRING; }
