//===- Activations.h - The scalar functions of the activation ops -*- C++ -*-===//
//
// The definitions of sigmoid and both GELU forms in f32, shared by the
// reference kernels and the simulator's ScalarE so that both compute the
// same function (the kernels are checked against numpy's formulas).
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

} // namespace neuronc

#endif // NEURONC_SUPPORT_ACTIVATIONS_H
