//===- Activations.h - The scalar functions of the activation ops -*- C++ -*-===//
//
// The definitions of sigmoid and both GELU forms in f32, shared by the
// reference kernels and the simulator's ScalarE so that both compute the
// same function (the kernels are checked against numpy's formulas), and the
// range reduction the device runs before ScalarE's sin and cos.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_ACTIVATIONS_H
#define NEURONC_SUPPORT_ACTIVATIONS_H

#include <cmath>

namespace neuronc {

inline float sigmoidf(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float geluErf(float x) {
  return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2)));
}
inline float geluTanh(float x) {
  const float k = 0.7978845608028654f; // sqrt(2/pi)
  return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

/// The constants of the range reduction of sin and cos: x − 2π·round(x/2π)
/// with 2π split in two f32 constants (Cody–Waite), kTwoPiHi with 8
/// significant bits so that k·kTwoPiHi is exact for |k| < 2^16 (|x| up to
/// about 4·10^5), kTwoPiLo the f32 nearest to 2π − kTwoPiHi.
constexpr float kInvTwoPi = 0.159154937f;
constexpr float kTwoPiHi = 6.28125f;
constexpr float kTwoPiLo = 1.93530717e-3f;

/// x reduced to about [−π, π] in f32, one rounding per step, exactly as the
/// lowering's instructions compute it: k = round(x · 1/2π) (ties to even),
/// then (k · −kTwoPiHi) + x, exact, then (k · −kTwoPiLo) + that. The result
/// may pass ±π by |x|·2^-23 where x/2π rounds across a half; sin and cos are
/// still right there.
inline float reduceAngle(float x) {
  float k = std::nearbyint(x * kInvTwoPi);
  float r = k * -kTwoPiHi + x;
  return k * -kTwoPiLo + r;
}

} // namespace neuronc

#endif // NEURONC_SUPPORT_ACTIVATIONS_H
