//===- RemoteCache.cpp - A compile cache shared over HTTP -----------------===//

#include "neuronc/Pipelines/RemoteCache.h"

#include "neuronc/ISA/Neff.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace neuronc;

static llvm::Error cacheError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

CacheDigest CacheDigest::of(llvm::ArrayRef<uint8_t> bytes) {
  return {llvm::toHex(llvm::SHA256::hash(bytes), /*LowerCase=*/true),
          static_cast<int64_t>(bytes.size())};
}

std::string CacheDigest::sha256Hex(llvm::StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)), /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// The ActionResult in protobuf wire format
//===----------------------------------------------------------------------===//

namespace {

/// Protobuf wire types.
enum WireType : uint8_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

/// Field numbers of build.bazel.remote.execution.v2 (remote_execution.proto).
enum : uint32_t {
  kActionResultOutputFiles = 2,
  kActionResultExitCode = 4,
  kOutputFilePath = 1,
  kOutputFileDigest = 2,
  kDigestHash = 1,
  kDigestSizeBytes = 2,
};

void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void putBytesField(std::string &out, uint32_t field, llvm::StringRef bytes) {
  putVarint(out, (uint64_t(field) << 3) | LengthDelimited);
  putVarint(out, bytes.size());
  out += bytes.str();
}

/// One field as read from the wire.
struct WireField {
  uint32_t number = 0;
  uint8_t type = 0;
  uint64_t value = 0;    ///< Varint (and fixed) fields
  llvm::StringRef bytes; ///< LengthDelimited fields
};

/// Reads the fields of one message, bounds-checked; `what` names the
/// message in errors.
class WireReader {
public:
  WireReader(llvm::StringRef in, llvm::StringRef what) : in(in), what(what) {}

  /// The next field, std::nullopt at the end of the message.
  llvm::Expected<std::optional<WireField>> next() {
    if (pos == in.size())
      return std::nullopt;
    llvm::Expected<uint64_t> tag = varint();
    if (!tag)
      return tag.takeError();
    WireField f;
    f.type = static_cast<uint8_t>(*tag & 7);
    uint64_t number = *tag >> 3;
    if (number == 0 || number > (1u << 29) - 1)
      return error("field number " + llvm::Twine(number) + " is out of range");
    f.number = static_cast<uint32_t>(number);
    switch (f.type) {
    case Varint: {
      llvm::Expected<uint64_t> v = varint();
      if (!v)
        return v.takeError();
      f.value = *v;
      return f;
    }
    case Fixed64:
    case Fixed32: {
      size_t n = f.type == Fixed64 ? 8 : 4;
      if (in.size() - pos < n)
        return error("field " + llvm::Twine(f.number) + " is cut short");
      for (size_t i = 0; i < n; ++i)
        f.value |= uint64_t(static_cast<uint8_t>(in[pos + i])) << (8 * i);
      pos += n;
      return f;
    }
    case LengthDelimited: {
      llvm::Expected<uint64_t> len = varint();
      if (!len)
        return len.takeError();
      if (*len > in.size() - pos)
        return error("field " + llvm::Twine(f.number) + " claims " + llvm::Twine(*len) +
                     " bytes but " + llvm::Twine(in.size() - pos) + " remain");
      f.bytes = in.substr(pos, *len);
      pos += *len;
      return f;
    }
    default:
      return error("field " + llvm::Twine(f.number) + " has wire type " +
                   llvm::Twine(unsigned(f.type)) + " (groups and types 6, 7 are not accepted)");
    }
  }

  llvm::Error error(const llvm::Twine &msg) const {
    return cacheError(what + ": " + msg + " (at byte " + llvm::Twine(pos) + ")");
  }

  /// Refuses a known field written with another wire type.
  llvm::Error expectType(const WireField &f, uint8_t type) const {
    if (f.type == type)
      return llvm::Error::success();
    return error("field " + llvm::Twine(f.number) + " has wire type " +
                 llvm::Twine(unsigned(f.type)) + ", expected " + llvm::Twine(unsigned(type)));
  }

private:
  llvm::Expected<uint64_t> varint() {
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; ++i) {
      if (pos == in.size())
        return error("a varint is cut short");
      uint8_t b = static_cast<uint8_t>(in[pos++]);
      if (i == 9 && b > 1)
        return error("a varint overflows 64 bits");
      v |= uint64_t(b & 0x7f) << (7 * i);
      if (!(b & 0x80))
        return v;
    }
    return error("a varint is longer than 10 bytes");
  }

  llvm::StringRef in;
  llvm::StringRef what;
  size_t pos = 0;
};

/// Merges the Digest message `bytes` into `out` (protobuf semantics: a
/// repeated scalar field keeps its last value).
llvm::Error decodeDigest(llvm::StringRef bytes, CacheDigest &out) {
  WireReader r(bytes, "Digest");
  while (true) {
    auto f = r.next();
    if (!f)
      return f.takeError();
    if (!*f)
      return llvm::Error::success();
    if ((*f)->number == kDigestHash) {
      if (llvm::Error err = r.expectType(**f, LengthDelimited))
        return err;
      out.hash = (*f)->bytes.str();
    } else if ((*f)->number == kDigestSizeBytes) {
      if (llvm::Error err = r.expectType(**f, Varint))
        return err;
      out.sizeBytes = static_cast<int64_t>((*f)->value);
    }
  }
}

/// An OutputFile: its path and digest.
struct OutputFileEntry {
  std::string path;
  std::optional<CacheDigest> digest;
};

llvm::Error decodeOutputFile(llvm::StringRef bytes, OutputFileEntry &out) {
  WireReader r(bytes, "OutputFile");
  while (true) {
    auto f = r.next();
    if (!f)
      return f.takeError();
    if (!*f)
      return llvm::Error::success();
    if ((*f)->number == kOutputFilePath) {
      if (llvm::Error err = r.expectType(**f, LengthDelimited))
        return err;
      out.path = (*f)->bytes.str();
    } else if ((*f)->number == kOutputFileDigest) {
      if (llvm::Error err = r.expectType(**f, LengthDelimited))
        return err;
      if (!out.digest)
        out.digest.emplace();
      if (llvm::Error err = decodeDigest((*f)->bytes, *out.digest))
        return err;
    }
  }
}

bool isSha256Hex(llvm::StringRef hash) {
  return hash.size() == 64 &&
         llvm::all_of(hash, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

} // namespace

std::string neuronc::encodeActionResult(const CacheDigest &executable) {
  std::string digest;
  putBytesField(digest, kDigestHash, executable.hash);
  if (executable.sizeBytes != 0) { // proto3: a default value is not written
    putVarint(digest, (uint64_t(kDigestSizeBytes) << 3) | Varint);
    putVarint(digest, static_cast<uint64_t>(executable.sizeBytes));
  }
  std::string file;
  putBytesField(file, kOutputFilePath, kRemoteCacheOutputPath);
  putBytesField(file, kOutputFileDigest, digest);
  std::string result;
  putBytesField(result, kActionResultOutputFiles, file);
  return result; // exit_code 0 is the default: not written
}

llvm::Expected<CacheDigest> neuronc::decodeActionResult(llvm::StringRef bytes) {
  WireReader r(bytes, "ActionResult");
  std::vector<OutputFileEntry> files;
  int32_t exitCode = 0;
  while (true) {
    auto f = r.next();
    if (!f)
      return f.takeError();
    if (!*f)
      break;
    if ((*f)->number == kActionResultOutputFiles) {
      if (llvm::Error err = r.expectType(**f, LengthDelimited))
        return std::move(err);
      files.emplace_back();
      if (llvm::Error err = decodeOutputFile((*f)->bytes, files.back()))
        return std::move(err);
    } else if ((*f)->number == kActionResultExitCode) {
      if (llvm::Error err = r.expectType(**f, Varint))
        return std::move(err);
      exitCode = static_cast<int32_t>((*f)->value);
    }
  }
  if (exitCode != 0)
    return cacheError("ActionResult: exit code " + llvm::Twine(exitCode) +
                      ", not that of a successful compile");
  if (files.size() != 1 || files[0].path != kRemoteCacheOutputPath) {
    std::string names;
    for (const OutputFileEntry &f : files)
      names += (names.empty() ? "'" : ", '") + f.path + "'";
    return cacheError("ActionResult: expected one output file '" + kRemoteCacheOutputPath +
                      "', found " + (files.empty() ? std::string("none") : names));
  }
  if (!files[0].digest)
    return cacheError("ActionResult: the output file has no digest");
  CacheDigest digest = *files[0].digest;
  if (!isSha256Hex(digest.hash))
    return cacheError("ActionResult: the digest's hash '" + llvm::StringRef(digest.hash).take_front(80) +
                      "' is not 64 lowercase hex digits");
  if (digest.sizeBytes < 0)
    return cacheError("ActionResult: the digest's size " + llvm::Twine(digest.sizeBytes) +
                      " is negative");
  return digest;
}

//===----------------------------------------------------------------------===//
// The cache
//===----------------------------------------------------------------------===//

/// The largest action-cache entry read (ours are about 100 bytes).
static constexpr uint64_t kMaxActionResultBytes = 64 * 1024;

static bool isStored(unsigned status) {
  return status == 200 || status == 201 || status == 204;
}

static std::string statusText(const HttpResponse &r) {
  return "HTTP " + std::to_string(r.status) + (r.reason.empty() ? "" : " " + r.reason);
}

std::string RemoteCache::actionKey(llvm::StringRef key) { return CacheDigest::sha256Hex(key); }

std::string RemoteCache::actionUrl(llvm::StringRef key) const {
  return url.str() + "/ac/" + actionKey(key);
}

std::string RemoteCache::blobUrl(llvm::StringRef hash) const {
  return url.str() + "/cas/" + hash.str();
}

RemoteCache::Lookup RemoteCache::lookup(llvm::StringRef key) {
  Lookup out;
  std::string ac = actionUrl(key);
  llvm::Expected<HttpResponse> entry =
      client.get(url, "/ac/" + actionKey(key), kMaxActionResultBytes);
  if (!entry) {
    out.unavailable = "GET " + ac + ": " + llvm::toString(entry.takeError());
    return out;
  }
  if (entry->status == 404)
    return out;
  if (entry->status != 200) {
    out.unavailable = "GET " + ac + ": " + statusText(*entry);
    return out;
  }
  llvm::Expected<CacheDigest> digest = decodeActionResult(entry->body);
  if (!digest) {
    out.corrupt = ac + ": " + llvm::toString(digest.takeError());
    return out;
  }

  std::string cas = blobUrl(digest->hash);
  llvm::Expected<HttpResponse> blob =
      client.get(url, "/cas/" + digest->hash, static_cast<uint64_t>(digest->sizeBytes));
  if (!blob) {
    // A blob longer than its entry says is a bad entry, not a bad server.
    llvm::handleAllErrors(
        blob.takeError(),
        [&](const HttpBodyTooLargeError &e) { out.corrupt = cas + ": " + e.message(); },
        [&](const llvm::ErrorInfoBase &e) { out.unavailable = "GET " + cas + ": " + e.message(); });
    return out;
  }
  if (blob->status == 404)
    return out; // evicted: a miss, repaired by the upload after compiling
  if (blob->status != 200) {
    out.unavailable = "GET " + cas + ": " + statusText(*blob);
    return out;
  }
  llvm::ArrayRef<uint8_t> bytes = llvm::arrayRefFromStringRef(blob->body);
  CacheDigest got = CacheDigest::of(bytes);
  if (got.sizeBytes != digest->sizeBytes) {
    out.corrupt = cas + ": " + std::to_string(got.sizeBytes) + " bytes, the entry says " +
                  std::to_string(digest->sizeBytes);
    return out;
  }
  if (got.hash != digest->hash) {
    out.corrupt = cas + ": the content's SHA-256 is " + got.hash;
    return out;
  }
  if (llvm::Error err = neff::verifyNeffChecksums(bytes)) {
    out.corrupt = cas + ": " + llvm::toString(std::move(err));
    return out;
  }
  out.bytes.emplace(bytes.begin(), bytes.end());
  return out;
}

llvm::Error RemoteCache::store(llvm::StringRef key, llvm::ArrayRef<uint8_t> executable) {
  CacheDigest digest = CacheDigest::of(executable);
  auto put = [&](llvm::StringRef path, llvm::StringRef body) -> llvm::Error {
    llvm::Expected<HttpResponse> r = client.put(url, path, body);
    if (!r)
      return cacheError("PUT " + url.str() + path + ": " + llvm::toString(r.takeError()));
    if (!isStored(r->status))
      return cacheError("PUT " + url.str() + path + ": " + statusText(*r));
    return llvm::Error::success();
  };
  if (llvm::Error err = put("/cas/" + digest.hash, llvm::toStringRef(executable)))
    return err;
  return put("/ac/" + actionKey(key), encodeActionResult(digest));
}
