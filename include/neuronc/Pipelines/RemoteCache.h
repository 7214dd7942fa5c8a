//===- RemoteCache.h - A compile cache shared over HTTP ----------*- C++ -*-===//
//
// `neuronc --cache-url=http://host:port/prefix`: the compile cache shared
// across machines through the HTTP remote-cache protocol of Bazel
// (`--remote_cache=http://...`) and bazel-remote. The executable is a
// content-addressed blob, `PUT/GET <prefix>/cas/<sha256 of the bytes>`; the
// action-cache entry `<prefix>/ac/<sha256 of the local cache key>` is a
// serialized `build.bazel.remote.execution.v2.ActionResult` whose one
// output file, `executable.neff`, names the blob's digest. Any server of
// that protocol, or a plain WebDAV server (nginx `dav_methods PUT`), serves
// it. A hit is trusted only when the blob's SHA-256 and size match the
// entry and the executable passes its own checks (header, section CRCs,
// content hash); see docs/compile-cache.md.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_PIPELINES_REMOTECACHE_H
#define NEURONC_PIPELINES_REMOTECACHE_H

#include "neuronc/Support/HttpClient.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace neuronc {

/// A blob's name in the remote-execution API: the lowercase hex SHA-256 of
/// its bytes and their number (`build.bazel.remote.execution.v2.Digest`).
struct CacheDigest {
  std::string hash;
  int64_t sizeBytes = 0;

  /// The digest of `bytes`.
  static CacheDigest of(llvm::ArrayRef<uint8_t> bytes);
  /// The lowercase hex SHA-256 of `text`.
  static std::string sha256Hex(llvm::StringRef text);
  bool operator==(const CacheDigest &other) const = default;
};

/// The path of the executable in an action-cache entry.
inline constexpr llvm::StringLiteral kRemoteCacheOutputPath = "executable.neff";

/// Serializes the ActionResult of a compile (protobuf wire format, written
/// by hand): exit code 0 (the proto3 default, so not written) and one
/// `output_files` entry (field 2) `{path: "executable.neff", digest:
/// {hash, size_bytes}}`.
std::string encodeActionResult(const CacheDigest &executable);

/// Decodes an ActionResult and returns the digest of its `executable.neff`.
/// Refuses anything else: malformed wire format (a truncated varint or
/// field, a group, a wire type a field does not have), a non-zero exit
/// code, no or two `executable.neff` outputs, a hash that is not 64 lowercase
/// hex digits, a negative size. Fields it does not know are skipped.
llvm::Expected<CacheDigest> decodeActionResult(llvm::StringRef bytes);

/// The shared cache at one URL: looks up and stores executables under the
/// local cache's keys, over one HttpClient.
class RemoteCache {
public:
  RemoteCache(HttpUrl url, std::chrono::milliseconds timeout)
      : url(std::move(url)), client(timeout) {}

  /// The action-cache name of a local cache key: its SHA-256, so that it is
  /// a valid digest whatever the key looks like.
  static std::string actionKey(llvm::StringRef key);
  /// `<url>/ac/<actionKey(key)>` and `<url>/cas/<hash>`, for messages.
  std::string actionUrl(llvm::StringRef key) const;
  std::string blobUrl(llvm::StringRef hash) const;
  /// The server's URL, normalized.
  std::string str() const { return url.str(); }

  /// What a lookup found: at most one of the three is set; none is a miss.
  struct Lookup {
    std::optional<std::vector<uint8_t>> bytes; ///< a verified executable
    std::string corrupt;     ///< why an entry the server has was refused
    std::string unavailable; ///< why the server could not be asked (transport, HTTP error)
  };
  /// Reads the action-cache entry of `key`, then its blob, and verifies the
  /// blob's size and SHA-256 and the executable's checksums. A missing
  /// entry, or an entry whose blob is gone (evicted), is a miss.
  Lookup lookup(llvm::StringRef key);

  /// Uploads `executable` under `key`: the blob first, then the entry that
  /// names it, so that a reader never finds an entry without its blob.
  /// Identical uploads from several machines are idempotent.
  llvm::Error store(llvm::StringRef key, llvm::ArrayRef<uint8_t> executable);

private:
  HttpUrl url;
  HttpClient client;
};

} // namespace neuronc

#endif // NEURONC_PIPELINES_REMOTECACHE_H
