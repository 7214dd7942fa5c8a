//===- CompileCache.cpp - Executables keyed by what made them -------------===//

#include "neuronc/Pipelines/CompileCache.h"

#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Support/AtomicWrite.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>

using namespace neuronc;

std::string CompileCache::defaultDir() {
  llvm::SmallString<256> dir;
  if (std::optional<std::string> xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty()) {
    dir = *xdg;
  } else if (std::optional<std::string> home = llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    dir = *home;
    llvm::sys::path::append(dir, ".cache");
  } else {
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, dir);
  }
  llvm::sys::path::append(dir, "neuronc");
  return std::string(dir);
}

std::string CompileCache::compilerIdentity() {
  std::string id = "neuronc " + getVersionString().str() + " format " +
                   std::to_string(neff::kMajorVersion) + "." +
                   std::to_string(neff::kMinorVersion);
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::sys::fs::file_status st;
  if (!exe.empty() && !llvm::sys::fs::status(exe, st))
    id += " exe " + std::to_string(st.getSize()) + " " +
          std::to_string(st.getLastModificationTime().time_since_epoch().count());
  return id;
}

std::string CompileCache::key(llvm::StringRef source, llvm::StringRef options) {
  // Two independent 64-bit hashes of length-prefixed fields: 128 bits.
  std::string identity = compilerIdentity();
  // A lowering broken on purpose (tests of checked runs) makes other code.
  if (const char *fault = std::getenv("NEURONC_INJECT_LOWERING_FAULT"))
    identity += std::string(";fault=") + fault;
  std::string all;
  for (llvm::StringRef part : {llvm::StringRef(identity), options, source})
    all += std::to_string(part.size()) + ":" + part.str() + ";";
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(all.data()), all.size());
  uint64_t a = llvm::xxh3_64bits(bytes);
  uint64_t b = llvm::xxHash64(bytes);
  return llvm::utohexstr(a, /*LowerCase=*/true, 16) + llvm::utohexstr(b, true, 16);
}

std::string CompileCache::pathOf(llvm::StringRef key) const {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, key + ".neff");
  return std::string(p);
}

CompileCache::Lookup CompileCache::lookup(llvm::StringRef key) const {
  Lookup out;
  std::string path = pathOf(key);
  if (!llvm::sys::fs::exists(path))
    return out;
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    out.corrupt = "cannot read " + path + ": " + buf.getError().message();
    (void)llvm::sys::fs::remove(path);
    return out;
  }
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
                                (*buf)->getBufferSize());
  if (llvm::Error err = neff::verifyNeffChecksums(bytes)) {
    out.corrupt = path + ": " + llvm::toString(std::move(err));
    (void)llvm::sys::fs::remove(path);
    return out;
  }
  out.bytes.emplace(bytes.begin(), bytes.end());
  return out;
}

llvm::Error CompileCache::store(llvm::StringRef key, const neff::Executable &exe) const {
  return store(key, neff::writeNeff(exe));
}

llvm::Error CompileCache::store(llvm::StringRef key, llvm::ArrayRef<uint8_t> bytes) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create the cache directory " + dir + ": " +
                                           ec.message());
  return writeFileAtomically(pathOf(key), std::string(bytes.begin(), bytes.end()));
}
