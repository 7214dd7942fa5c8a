//===- CompileCache.h - Executables keyed by what made them ------*- C++ -*-===//
//
// `neuronc --cache-dir`: a compiled executable is stored under a key that
// hashes the input text, every option that changes the output and the
// compiler's identity, so that an unchanged recompile (a cold start of a
// service, a rerun of a script) reads the executable back instead of
// compiling. Entries are whole `.neff` files, written atomically; a read
// verifies the header, every section's CRC and the content hash, and an
// entry that fails is reported, discarded and rebuilt, never used.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_PIPELINES_COMPILECACHE_H
#define NEURONC_PIPELINES_COMPILECACHE_H

#include "neuronc/ISA/Neff.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace neuronc {

/// A directory of executables keyed by content.
class CompileCache {
public:
  /// `$XDG_CACHE_HOME/neuronc`, else `$HOME/.cache/neuronc`.
  static std::string defaultDir();
  /// What identifies this compiler build: its version, the format version
  /// and the size and modification time of the running executable (so a
  /// rebuilt compiler never reads its predecessor's entries).
  static std::string compilerIdentity();
  /// The key of `source` compiled with `options` (CompileOptions::fingerprint).
  static std::string key(llvm::StringRef source, llvm::StringRef options);

  explicit CompileCache(std::string dir) : dir(std::move(dir)) {}

  /// The entry's path.
  std::string pathOf(llvm::StringRef key) const;

  /// What a lookup found.
  struct Lookup {
    std::optional<std::vector<uint8_t>> bytes; ///< a valid entry (checksums verified)
    std::string corrupt; ///< why an existing entry was refused (and removed)
  };
  Lookup lookup(llvm::StringRef key) const;

  /// Stores `exe` under `key` (atomically; the directory is created).
  llvm::Error store(llvm::StringRef key, const neff::Executable &exe) const;
  /// Stores the encoded executable `bytes` under `key` (a remote hit).
  llvm::Error store(llvm::StringRef key, llvm::ArrayRef<uint8_t> bytes) const;

private:
  std::string dir;
};

} // namespace neuronc

#endif // NEURONC_PIPELINES_COMPILECACHE_H
