//===- Float.h - bf16 / f16 rounding on the host ----------------*- C++ -*-===//
//
// The interpreter computes in f32 and rounds every bf16/f16 result to the
// nearest representable value (ties to even), as the device does.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_FLOAT_H
#define NEURONC_SUPPORT_FLOAT_H

#include <cstdint>
#include <cstring>

namespace neuronc {

/// f32 -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t floatToBF16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return static_cast<uint16_t>(u >> 16);
}

inline float bf16BitsToFloat(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// f32 -> IEEE binary16 bits, round to nearest even (compiler's conversion).
inline uint16_t floatToF16Bits(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, sizeof(b));
  return b;
}

inline float f16BitsToFloat(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, sizeof(b));
  return static_cast<float>(h);
}

inline float roundToBF16(float f) { return bf16BitsToFloat(floatToBF16Bits(f)); }
inline float roundToF16(float f) { return static_cast<float>(static_cast<_Float16>(f)); }

} // namespace neuronc

#endif // NEURONC_SUPPORT_FLOAT_H
