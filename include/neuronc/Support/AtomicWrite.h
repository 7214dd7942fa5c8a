//===- AtomicWrite.h - Output files that are complete or absent -*- C++ -*-===//
//
// Every file the tools write (executables, .npy results, profiles, reports,
// cache entries) goes through here: a temporary file beside the target,
// renamed into place only when complete, so that a failure never leaves a
// partial file and never damages the previous one.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_ATOMICWRITE_H
#define NEURONC_SUPPORT_ATOMICWRITE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace neuronc {

/// A file to write: its path ("-" is standard output) and its bytes.
struct OutputFile {
  std::string path;
  std::string contents;
};

/// Writes all of `files` or none: each to a temporary file next to its path,
/// then, once every one is complete, renames them into place. On failure the
/// temporaries are removed, files already there are left as they were, and
/// the error reads "cannot write <path>: <reason>".
/// NEURONC_INJECT_WRITE_FAILURE=1 fails half way through the first file, for
/// the tests that check nothing partial is left.
llvm::Error writeFilesAtomically(llvm::ArrayRef<OutputFile> files);

/// One file.
inline llvm::Error writeFileAtomically(llvm::StringRef path, std::string contents) {
  return writeFilesAtomically({OutputFile{path.str(), std::move(contents)}});
}

} // namespace neuronc

#endif // NEURONC_SUPPORT_ATOMICWRITE_H
