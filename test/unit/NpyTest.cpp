//===- NpyTest.cpp - .npy encoding and decoding ---------------------------===//

#include "neuronc/Host/Npy.h"

#include <gtest/gtest.h>

using namespace neuronc;

namespace {

/// A .npy v1.0 file with the given header dict and raw data, as numpy
/// writes it (header padded so the data starts 64-byte aligned).
std::string npyBytes(const std::string &dict, const std::string &data) {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string errorOf(llvm::Expected<Tensor> t) {
  if (t)
    return "(no error)";
  return llvm::toString(t.takeError());
}

} // namespace

TEST(Npy, DecodesWhatNumpyWrites) {
  // np.save(f, np.array([[1.5, -2], [0, 4]], dtype=np.float32))
  float values[] = {1.5f, -2.0f, 0.0f, 4.0f};
  std::string data(reinterpret_cast<const char *>(values), sizeof(values));
  auto t = decodeNpy(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", data));
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->dtype(), DType::F32);
  EXPECT_EQ(t->shape(), llvm::ArrayRef<int64_t>({2, 2}));
  EXPECT_EQ(t->f()[1], -2.0f);
  EXPECT_EQ(t->f()[3], 4.0f);
}

TEST(Npy, ConvertsFloat64AndInt64) {
  double d[] = {0.1, -3.0};
  DType file;
  auto t = decodeNpy(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                              std::string(reinterpret_cast<const char *>(d), sizeof(d))),
                     &file);
  ASSERT_TRUE(static_cast<bool>(t));
  EXPECT_EQ(file, DType::F64);
  EXPECT_EQ(t->dtype(), DType::F32);
  EXPECT_EQ(t->f()[0], 0.1f);
  int64_t big[] = {1, int64_t(1) << 40};
  EXPECT_EQ(errorOf(decodeNpy(npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                                       std::string(reinterpret_cast<const char *>(big), 16)))),
            "int64 value 1099511627776 at element 1 does not fit in int32");
}

TEST(Npy, RejectsWhatItCannotRead) {
  std::string four(16, '\0');
  EXPECT_EQ(errorOf(decodeNpy(npyBytes(
                "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four))),
            "fortran_order=True .npy arrays are not supported; save "
            "np.ascontiguousarray(arr) instead");
  EXPECT_EQ(errorOf(decodeNpy(npyBytes(
                "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four))),
            "big-endian .npy data ('>f4') is not supported; save it little-endian, e.g. "
            "arr.astype(arr.dtype.newbyteorder('<'))");
  EXPECT_EQ(errorOf(decodeNpy(npyBytes(
                "{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }", four))),
            "unsupported .npy dtype '<u4'; use float32, float16, float64, int8, int16, int32, "
            "int64, uint8, uint16 or bool");
  EXPECT_EQ(errorOf(decodeNpy(npyBytes(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }", four))),
            "the .npy file holds 16 data bytes but shape (8) of <f4 needs 32");
  EXPECT_EQ(errorOf(decodeNpy("hello")), "not a .npy file (missing the \\x93NUMPY magic)");
}

/// int8/int16/uint8/uint16 widen to i32 with their sign (or without).
TEST(Npy, WidensNarrowIntegers) {
  const char i8[] = {'\x80', '\xff', '\x7f', '\x01'};
  const char u16[] = {'\xff', '\xff', '\x00', '\x80'};
  auto check = [](llvm::Expected<Tensor> t, std::vector<int32_t> want) {
    ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
    ASSERT_EQ(t->dtype(), DType::I32);
    EXPECT_EQ(std::vector<int32_t>(t->i(), t->i() + t->numel()), want);
  };
  check(decodeNpy(npyBytes("{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }",
                           std::string(i8, 4))),
        {-128, -1, 127, 1});
  check(decodeNpy(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }",
                           std::string(i8, 4))),
        {128, 255, 127, 1});
  check(decodeNpy(npyBytes("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                           std::string(u16, 4))),
        {65535, 32768});
  check(decodeNpy(npyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }",
                           std::string(u16, 4))),
        {-1, -32768});
}

TEST(Npy, RoundTripsEveryDeviceType) {
  for (DType dtype : {DType::F32, DType::F16, DType::I32, DType::I1}) {
    Tensor t = randomTensor(dtype, {3, 5}, 42);
    std::string bytes = encodeNpy(t);
    // numpy requires the data to start at a multiple of 64 bytes.
    size_t headerLen = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    EXPECT_EQ((10 + headerLen) % 64, 0u);
    auto back = decodeNpy(bytes);
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(back->dtype(), dtype);
    EXPECT_EQ(back->shape(), t.shape());
    for (int64_t k = 0; k < t.numel(); ++k)
      EXPECT_EQ(back->get(k), t.get(k)) << dtypeName(dtype).str() << " element " << k;
  }
}

TEST(Npy, HeaderSpellsShapesLikeNumpy) {
  std::string scalar = encodeNpy(Tensor::filled(DType::F32, {}, 1));
  EXPECT_NE(scalar.find("'shape': (), }"), std::string::npos);
  std::string vec = encodeNpy(Tensor::filled(DType::F32, {3}, 1));
  EXPECT_NE(vec.find("'shape': (3,), }"), std::string::npos);
  std::string bf16 = encodeNpy(Tensor::filled(DType::BF16, {2, 2}, 1));
  EXPECT_NE(bf16.find("'descr': '<f4'"), std::string::npos);
}
