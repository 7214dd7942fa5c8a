//===- Npy.cpp - numpy .npy files <-> host tensors -----------------------===//
//
// Format: "\x93NUMPY", major, minor, header length (u16 for 1.x, u32 for
// 2.x/3.x, little-endian), then a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and a newline so that the data starts 64-byte aligned.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Host/Npy.h"

#include <limits>

#include "neuronc/Support/Float.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

using llvm::StringRef;

namespace neuronc {
namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Finds `'key':` in the header dict and returns the text of its value.
llvm::Expected<StringRef> dictValue(StringRef header, StringRef key) {
  std::string needle = ("'" + key + "'").str();
  size_t at = header.find(needle);
  if (at == StringRef::npos)
    return fail("the .npy header has no '" + key + "' entry");
  StringRef rest = header.drop_front(at + needle.size()).ltrim();
  if (!rest.consume_front(":"))
    return fail("malformed .npy header near '" + key + "'");
  return rest.ltrim();
}

} // namespace

llvm::Expected<Tensor> decodeNpy(StringRef bytes, DType *fileDType) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return fail("not a .npy file (missing the \\x93NUMPY magic)");
  uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = llvm::support::endian::read16le(bytes.data() + 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLen = llvm::support::endian::read32le(bytes.data() + 8);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + llvm::Twine(int(major)));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLen);
  StringRef data = bytes.drop_front(headerStart + headerLen);

  // descr
  auto descrText = dictValue(header, "descr");
  if (!descrText)
    return descrText.takeError();
  StringRef descr = *descrText;
  if (descr.empty() || (descr[0] != '\'' && descr[0] != '"'))
    return fail("structured .npy dtypes are not supported");
  descr = descr.drop_front().take_until([](char c) { return c == '\'' || c == '"'; });
  if (descr.size() >= 2 && descr[0] == '>' && descr.drop_front() != "i1" &&
      descr.drop_front() != "u1")
    return fail("big-endian .npy data ('" + descr +
                "') is not supported; save it little-endian, e.g. "
                "arr.astype(arr.dtype.newbyteorder('<'))");
  StringRef kind = descr.size() >= 2 && (descr[0] == '<' || descr[0] == '|' ||
                                         descr[0] == '=' || descr[0] == '>')
                       ? descr.drop_front()
                       : descr;
  DType file;
  // Narrow integers (int8/int16/uint8/uint16) read into i32 tensors: the
  // device computes them in 32 bits (neuron-legalize-types).
  unsigned narrowBytes = 0;
  bool narrowSigned = true;
  if (kind == "i1" || kind == "i2" || kind == "u1" || kind == "u2") {
    file = DType::I32;
    narrowBytes = kind[1] - '0';
    narrowSigned = kind[0] == 'i';
  } else if (kind == "f4")
    file = DType::F32;
  else if (kind == "f2")
    file = DType::F16;
  else if (kind == "f8")
    file = DType::F64;
  else if (kind == "i4")
    file = DType::I32;
  else if (kind == "i8")
    file = DType::I64;
  else if (kind == "b1")
    file = DType::I1;
  else
    return fail("unsupported .npy dtype '" + descr +
                "'; use float32, float16, float64, int8, int16, int32, int64, uint8, uint16 or "
                "bool");

  // fortran_order
  auto order = dictValue(header, "fortran_order");
  if (!order)
    return order.takeError();
  if (order->starts_with("True"))
    return fail("fortran_order=True .npy arrays are not supported; save "
                "np.ascontiguousarray(arr) instead");
  if (!order->starts_with("False"))
    return fail("malformed fortran_order in the .npy header");

  // shape
  auto shapeText = dictValue(header, "shape");
  if (!shapeText)
    return shapeText.takeError();
  StringRef s = *shapeText;
  if (!s.consume_front("("))
    return fail("malformed shape in the .npy header");
  s = s.take_until([](char c) { return c == ')'; });
  Shape shape;
  llvm::SmallVector<StringRef> parts;
  s.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0)
      return fail("malformed dimension '" + p + "' in the .npy header");
    shape.push_back(d);
  }

  int64_t n = numElements(shape);
  int64_t itemBytes = narrowBytes ? narrowBytes : dtypeBytes(file);
  // Divide instead of multiplying: a forged shape must not overflow into a
  // size that passes, and nothing is allocated before this check.
  if (n > static_cast<int64_t>(data.size()) / itemBytes)
    return fail("the .npy file holds " + llvm::Twine(data.size()) + " data bytes but shape (" +
                formatShape(shape) + ") of " + descr + " needs " +
                (n > std::numeric_limits<int64_t>::max() / itemBytes
                     ? std::string("more than 2^63")
                     : std::to_string(n * itemBytes)));
  if (fileDType)
    *fileDType = file;

  const char *p = data.data();
  namespace endian = llvm::support::endian;
  switch (file) {
  case DType::F32: {
    Tensor t = Tensor::empty(DType::F32, shape);
    for (int64_t k = 0; k < n; ++k) {
      uint32_t u = endian::read32le(p + 4 * k);
      std::memcpy(t.f() + k, &u, 4);
    }
    return t;
  }
  case DType::F64: {
    Tensor t = Tensor::empty(DType::F32, shape);
    for (int64_t k = 0; k < n; ++k) {
      uint64_t u = endian::read64le(p + 8 * k);
      double d;
      std::memcpy(&d, &u, 8);
      t.f()[k] = static_cast<float>(d);
    }
    return t;
  }
  case DType::F16: {
    Tensor t = Tensor::empty(DType::F16, shape);
    for (int64_t k = 0; k < n; ++k)
      t.f()[k] = f16BitsToFloat(endian::read16le(p + 2 * k));
    return t;
  }
  case DType::I32: {
    Tensor t = Tensor::empty(DType::I32, shape);
    if (narrowBytes == 1)
      for (int64_t k = 0; k < n; ++k)
        t.i()[k] = narrowSigned ? int32_t(int8_t(p[k])) : int32_t(uint8_t(p[k]));
    else if (narrowBytes == 2)
      for (int64_t k = 0; k < n; ++k) {
        uint16_t u = endian::read16le(p + 2 * k);
        t.i()[k] = narrowSigned ? int32_t(int16_t(u)) : int32_t(u);
      }
    else
      for (int64_t k = 0; k < n; ++k)
      t.i()[k] = static_cast<int32_t>(endian::read32le(p + 4 * k));
    return t;
  }
  case DType::I64: {
    Tensor t = Tensor::empty(DType::I32, shape);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = static_cast<int64_t>(endian::read64le(p + 8 * k));
      if (v < INT32_MIN || v > INT32_MAX)
        return fail("int64 value " + llvm::Twine(v) + " at element " + llvm::Twine(k) +
                    " does not fit in int32");
      t.i()[k] = static_cast<int32_t>(v);
    }
    return t;
  }
  case DType::I1: {
    Tensor t = Tensor::empty(DType::I1, shape);
    for (int64_t k = 0; k < n; ++k)
      t.i()[k] = p[k] != 0;
    return t;
  }
  case DType::BF16:
    break;
  }
  return fail("unsupported .npy dtype");
}

std::string encodeNpy(const Tensor &t) {
  StringRef descr;
  switch (t.dtype()) {
  case DType::F32: case DType::BF16: case DType::F64: descr = "<f4"; break;
  case DType::F16: descr = "<f2"; break;
  case DType::I32: case DType::I64: descr = "<i4"; break;
  case DType::I1: descr = "|b1"; break;
  }
  std::string shape = "(";
  for (int64_t d : t.shape())
    shape += std::to_string(d) + ", ";
  if (t.rank() > 1)
    shape.resize(shape.size() - 2);
  else if (t.rank() == 1)
    shape.resize(shape.size() - 1); // numpy writes "(3,)"
  shape += ")";
  std::string header = ("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                        shape + ", }")
                           .str();
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  char len[2];
  llvm::support::endian::write16le(len, static_cast<uint16_t>(header.size()));
  out.append(len, 2);
  out += header;
  int64_t n = t.numel();
  namespace endian = llvm::support::endian;
  if (t.dtype() == DType::F16) {
    for (int64_t k = 0; k < n; ++k) {
      char b[2];
      endian::write16le(b, floatToF16Bits(t.f()[k]));
      out.append(b, 2);
    }
  } else if (t.dtype() == DType::I1) {
    for (int64_t k = 0; k < n; ++k)
      out += static_cast<char>(t.i()[k] != 0);
  } else {
    for (int64_t k = 0; k < n; ++k) {
      uint32_t u;
      std::memcpy(&u, t.isFloat() ? static_cast<const void *>(t.f() + k)
                                  : static_cast<const void *>(t.i() + k),
                  4);
      char b[4];
      endian::write32le(b, u);
      out.append(b, 4);
    }
  }
  return out;
}

} // namespace neuronc
