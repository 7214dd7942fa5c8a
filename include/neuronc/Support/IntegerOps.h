//===- IntegerOps.h - i32 shifts as the device defines them -----*- C++ -*-===//
//
// The shift semantics shared by the reference kernels and the simulator, so
// the two cannot disagree: amounts outside [0, 31] give 0 (an arithmetic
// right shift: the sign), where C++ leaves them undefined.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_INTEGEROPS_H
#define NEURONC_SUPPORT_INTEGEROPS_H

#include <cstdint>

namespace neuronc {

inline int32_t shiftLeft(int32_t a, int32_t b) {
  return b < 0 || b > 31 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a) << b);
}

inline int32_t shiftRightArithmetic(int32_t a, int32_t b) {
  return b < 0 || b > 31 ? (a < 0 ? -1 : 0) : a >> b;
}

inline int32_t shiftRightLogical(int32_t a, int32_t b) {
  return b < 0 || b > 31 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a) >> b);
}

} // namespace neuronc

#endif // NEURONC_SUPPORT_INTEGEROPS_H
