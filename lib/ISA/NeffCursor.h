//===- NeffCursor.h - Bounds-checked section reads -----------*- C++ -*-===//
//
// Private to lib/ISA: the reader's cursor over one section (every read
// bounds-checked, the first failure kept with where it happened) and its
// string table, shared by the reader and the instruction rules.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_ISA_NEFFCURSOR_H
#define NEURONC_LIB_ISA_NEFFCURSOR_H

#include "NeffFormat.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"

#include <cstring>
#include <string>

namespace neuronc::neff::detail {

inline llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Bounds-checked little-endian reads within one section.
class Cursor {
public:
  Cursor(llvm::ArrayRef<uint8_t> bytes, std::string where)
      : bytes(bytes), where(std::move(where)) {}

  bool need(uint64_t n, const char *what) {
    if (error.empty() && bytes.size() - pos < n) {
      error = where + ": " + what + " at byte " + std::to_string(pos) + " needs " +
              std::to_string(n) + " bytes but only " + std::to_string(bytes.size() - pos) +
              " remain";
    }
    return error.empty();
  }
  template <typename T> T get(const char *what) {
    if (!need(sizeof(T), what))
      return T();
    T v = llvm::support::endian::read<T, llvm::endianness::little>(bytes.data() + pos);
    pos += sizeof(T);
    return v;
  }
  uint8_t u8(const char *w) { return get<uint8_t>(w); }
  uint16_t u16(const char *w) { return get<uint16_t>(w); }
  uint32_t u32(const char *w) { return get<uint32_t>(w); }
  int64_t i64(const char *w) { return static_cast<int64_t>(get<uint64_t>(w)); }
  float f32(const char *w) {
    uint32_t u = u32(w);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  void skip(uint64_t n) {
    if (need(n, "padding"))
      pos += n;
  }
  /// A count of records of at least `recordBytes` each.
  uint32_t count(const char *what, uint64_t recordBytes) {
    uint32_t n = u32(what);
    if (error.empty() && recordBytes && n > (bytes.size() - pos) / recordBytes)
      error = where + ": " + what + " is " + std::to_string(n) + ", more than the " +
              std::to_string(bytes.size() - pos) + " bytes left can hold";
    return error.empty() ? n : 0;
  }
  void fail(const llvm::Twine &msg) {
    if (error.empty())
      error = where + ": " + msg.str();
  }
  bool ok() const { return error.empty(); }
  uint64_t offset() const { return pos; }
  size_t size() const { return bytes.size(); }
  const std::string &context() const { return where; }
  void setContext(std::string w) { where = std::move(w); }

  std::string error;

private:
  llvm::ArrayRef<uint8_t> bytes;
  std::string where;
  uint64_t pos = 0;
};

/// The string table.
class StringTable {
public:
  explicit StringTable(llvm::ArrayRef<uint8_t> bytes) : bytes(bytes) {}
  /// The string at `offset`, or an error text in `err`.
  std::string get(uint32_t offset, Cursor &c, const char *what) {
    if (offset >= bytes.size()) {
      c.fail(llvm::Twine(what) + " names string offset " + llvm::Twine(offset) +
             " outside the string table (" + llvm::Twine(bytes.size()) + " bytes)");
      return {};
    }
    const uint8_t *end = static_cast<const uint8_t *>(
        std::memchr(bytes.data() + offset, 0, bytes.size() - offset));
    if (!end) {
      c.fail(llvm::Twine(what) + " string at offset " + llvm::Twine(offset) +
             " is not terminated");
      return {};
    }
    return std::string(reinterpret_cast<const char *>(bytes.data() + offset),
                       end - (bytes.data() + offset));
  }

private:
  llvm::ArrayRef<uint8_t> bytes;
};

} // namespace neuronc::neff::detail

#endif // NEURONC_LIB_ISA_NEFFCURSOR_H
