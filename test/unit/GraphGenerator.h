//===- GraphGenerator.h - Random neuron programs for differential tests -*- C++ -*-===//
//
// Seeded random graphs in the shapes the fusion passes look for (RMSNorm,
// softmax, log-softmax, SiLU, GELU, layernorm, in their many spellings, some
// with a detail that must block fusion) plus random elementwise chains.
// Shared by the fusion and the lowering differential tests.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TEST_UNIT_GRAPHGENERATOR_H
#define NEURONC_TEST_UNIT_GRAPHGENERATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <random>
#include <string>

namespace neuronc::testing {

/// Builds the text of one random graph. `rng` decides every spelling.
class GraphGenerator {
public:
  explicit GraphGenerator(uint64_t seed, int64_t scale = 1) : rng(seed), scale(scale) {}

  std::string generate() {
    switch (pick(7)) {
    case 0: return rmsnorm();
    case 1: return softmax();
    case 2: return silu();
    case 3: return gelu();
    case 4: return geluTanh();
    case 5: return layernorm();
    default: return elementwise();
    }
  }

  /// How many graphs of each kind fused (the kernel names).
  std::string kind;

protected:
  std::mt19937_64 rng;
  /// Multiplies the row counts (the lowering test uses more than 128 rows).
  int64_t scale;
  int next = 0;
  std::string body;

  int pick(int n) { return static_cast<int>(rng() % n); }
  std::string fresh() { return "%v" + std::to_string(next++); }
  static std::string type(llvm::ArrayRef<int64_t> shape) {
    std::string s = "tensor<";
    for (int64_t d : shape)
      s += std::to_string(d) + "x";
    return s + "f32>";
  }
  std::string emit(const std::string &rhs) {
    std::string v = fresh();
    body += "  " + v + " = " + rhs + "\n";
    return v;
  }
  std::string binary(const char *op, const std::string &a, llvm::ArrayRef<int64_t> sa,
                     const std::string &b, llvm::ArrayRef<int64_t> sb,
                     llvm::ArrayRef<int64_t> so) {
    return emit(llvm::formatv("neuron.{0} {1}, {2} : {3}, {4} -> {5}", op, a, b, type(sa),
                              type(sb), type(so))
                    .str());
  }
  std::string unary(const char *op, const std::string &a, llvm::ArrayRef<int64_t> s) {
    return emit(llvm::formatv("neuron.{0} {1} : {2}", op, a, type(s)).str());
  }
  std::string scalar(double v) {
    return emit(llvm::formatv("neuron.constant dense<{0:e}> : tensor<f32>", v).str());
  }
  std::string wrap(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> w, const std::string &ret,
                   llvm::ArrayRef<int64_t> outShape, const std::string &extraRet = "",
                   llvm::ArrayRef<int64_t> extraShape = {}) {
    std::string sig = "%x: " + type(in);
    if (!w.empty())
      sig += ", %w: " + type(w);
    std::string results = type(outShape), values = ret;
    if (!extraRet.empty()) {
      results += ", " + type(extraShape);
      values += ", " + extraRet;
    }
    return "func.func @main(" + sig + ") -> (" + results + ") {\n" + body + "  return " +
           values + " : " + results + "\n}\n";
  }

  std::string rmsnorm() {
    kind = "rmsnorm";
    int64_t rows = (1 + pick(6)) * scale, cols = 4 << pick(4);
    llvm::SmallVector<int64_t> s = {rows, cols}, k = {rows, 1};
    std::string x = "%x";
    std::string sq;
    switch (pick(3)) {
    case 0: sq = binary("mul", x, s, x, s, s); break;
    case 1: sq = binary("pow", x, s, scalar(2.0), {}, s); break;
    default: sq = unary("square", x, s); break;
    }
    bool wrongCount = pick(8) == 0;
    double n = static_cast<double>(cols + (wrongCount ? 1 : 0));
    std::string mean;
    switch (pick(4)) {
    case 0:
      mean = emit(llvm::formatv("neuron.reduce_mean {0} axes = [1] keepdims : {1} -> {2}", sq,
                                type(s), type(k)).str());
      break;
    case 1: {
      std::string sum = emit(llvm::formatv("neuron.reduce_sum {0} axes = [1] keepdims : {1} -> {2}",
                                           sq, type(s), type(k)).str());
      mean = binary("mul", sum, k, scalar(1.0 / n), {}, k);
      break;
    }
    case 2: {
      std::string sum = emit(llvm::formatv("neuron.reduce_sum {0} axes = [1] keepdims : {1} -> {2}",
                                           sq, type(s), type(k)).str());
      mean = binary("div", sum, k, scalar(n), {}, k);
      break;
    }
    default: {
      llvm::SmallVector<int64_t> flat = {rows};
      std::string sum = emit(llvm::formatv("neuron.reduce_sum {0} axes = [1] : {1} -> {2}", sq,
                                           type(s), type(flat)).str());
      std::string r = emit(llvm::formatv("neuron.reshape {0} : {1} -> {2}", sum, type(flat),
                                         type(k)).str());
      mean = binary("div", r, k, scalar(n), {}, k);
      break;
    }
    }
    std::string v = mean;
    if (pick(4) != 0)
      v = pick(2) ? binary("add", mean, k, scalar(1e-5), {}, k)
                  : binary("add", scalar(1e-6), {}, mean, k, k);
    std::string y;
    bool weighted = pick(3) != 0;
    llvm::SmallVector<int64_t> w = {cols};
    switch (pick(3)) {
    case 0: y = binary("mul", x, s, unary("rsqrt", v, k), k, s); break;
    case 1: y = binary("mul", unary("reciprocal", unary("sqrt", v, k), k), k, x, s, s); break;
    default: y = binary("div", x, s, unary("sqrt", v, k), k, s); break;
    }
    if (weighted)
      y = pick(2) ? binary("mul", y, s, "%w", w, s) : binary("mul", "%w", w, y, s, s);
    if (pick(10) == 0) // the mean is needed elsewhere: must not fuse
      return wrap(s, weighted ? w : llvm::ArrayRef<int64_t>{}, y, s, mean, k);
    return wrap(s, weighted ? w : llvm::ArrayRef<int64_t>{}, y, s);
  }

  std::string softmax() {
    kind = "softmax";
    int64_t a = (1 + pick(4)) * scale, b = 2 + pick(8), c = 1 + pick(5);
    llvm::SmallVector<int64_t> s = {a, b, c};
    int64_t axis = pick(3);
    llvm::SmallVector<int64_t> k = s;
    k[axis] = 1;
    auto reduce = [&](const char *op, const std::string &in) {
      return emit(llvm::formatv("neuron.{0} {1} axes = [{2}] keepdims : {3} -> {4}", op, in, axis,
                                type(s), type(k)).str());
    };
    std::string m = reduce("reduce_max", "%x");
    std::string d = binary("sub", "%x", s, m, k, s);
    std::string e = unary("exp", d, s);
    std::string sum = reduce("reduce_sum", e);
    std::string y;
    switch (pick(4)) {
    case 0: y = binary("div", e, s, sum, k, s); break;
    case 1: y = binary("mul", e, s, unary("reciprocal", sum, k), k, s); break;
    case 2: y = binary("sub", d, s, unary("log", sum, k), k, s); break;
    default:
      y = binary("sub", "%x", s, binary("add", m, k, unary("log", sum, k), k, k), k, s);
      if (pick(2))
        y = unary("exp", y, s);
      break;
    }
    return wrap(s, {}, y, s);
  }

  std::string silu() {
    kind = "silu";
    llvm::SmallVector<int64_t> s = {(1 + pick(4)) * scale, 1 + pick(16)};
    std::string y;
    switch (pick(3)) {
    case 0: y = binary("mul", "%x", s, unary("sigmoid", "%x", s), s, s); break;
    case 1: y = binary("mul", unary("sigmoid", "%x", s), s, "%x", s, s); break;
    default: {
      std::string e = unary("exp", unary("neg", "%x", s), s);
      y = binary("div", "%x", s, binary("add", e, s, scalar(1.0), {}, s), s, s);
    }
    }
    return wrap(s, {}, y, s);
  }

  std::string gelu() {
    kind = "gelu";
    llvm::SmallVector<int64_t> s = {(1 + pick(4)) * scale, 1 + pick(16)};
    std::string t = binary("mul", "%x", s, scalar(M_SQRT1_2), {}, s);
    std::string p = binary("add", unary("erf", t, s), s, scalar(1.0), {}, s);
    std::string y = pick(2) ? binary("mul", binary("mul", p, s, "%x", s, s), s, scalar(0.5), {}, s)
                            : binary("mul", binary("mul", scalar(0.5), {}, "%x", s, s), s, p, s, s);
    return wrap(s, {}, y, s);
  }

  std::string geluTanh() {
    kind = "gelu-tanh";
    llvm::SmallVector<int64_t> s = {(1 + pick(4)) * scale, 1 + pick(16)};
    std::string x3 = pick(2) ? binary("mul", binary("mul", "%x", s, "%x", s, s), s, "%x", s, s)
                             : binary("pow", "%x", s, scalar(3.0), {}, s);
    std::string u = binary("add", "%x", s, binary("mul", scalar(0.044715), {}, x3, s, s), s, s);
    std::string t = unary("tanh", binary("mul", u, s, scalar(0.7978845608028654), {}, s), s);
    std::string p = binary("add", scalar(1.0), {}, t, s, s);
    std::string y = binary("mul", binary("mul", "%x", s, scalar(0.5), {}, s), s, p, s, s);
    return wrap(s, {}, y, s);
  }

  std::string layernorm() {
    kind = "layernorm";
    int64_t rows = (1 + pick(6)) * scale, cols = 4 << pick(4);
    llvm::SmallVector<int64_t> s = {rows, cols}, k = {rows, 1}, w = {cols};
    std::string m = emit(llvm::formatv("neuron.reduce_mean %x axes = [1] keepdims : {0} -> {1}",
                                       type(s), type(k)).str());
    std::string d = binary("sub", "%x", s, m, k, s);
    std::string var = emit(llvm::formatv("neuron.reduce_mean {0} axes = [1] keepdims : {1} -> {2}",
                                         unary("square", d, s), type(s), type(k)).str());
    std::string r = unary("rsqrt", binary("add", var, k, scalar(1e-5), {}, k), k);
    std::string y = binary("mul", d, s, r, k, s);
    bool affine = pick(2);
    if (affine)
      y = binary("add", binary("mul", y, s, "%w", w, s), s, scalar(0.25), {}, s);
    return wrap(s, affine ? w : llvm::ArrayRef<int64_t>{}, y, s);
  }

  std::string elementwise() {
    kind = "elementwise";
    llvm::SmallVector<int64_t> s = {(1 + pick(4)) * scale, 1 + pick(8)};
    std::string v = "%x";
    for (int i = 0, n = 2 + pick(5); i < n; ++i) {
      switch (pick(5)) {
      case 0: v = binary("add", v, s, scalar(0.25 * pick(8)), {}, s); break;
      case 1: v = binary("mul", v, s, "%x", s, s); break;
      case 2: v = unary("tanh", v, s); break;
      case 3: v = unary("sigmoid", v, s); break;
      default: v = binary("sub", "%x", s, v, s, s); break;
      }
    }
    return wrap(s, {}, v, s);
  }
};

} // namespace neuronc::testing

#endif // NEURONC_TEST_UNIT_GRAPHGENERATOR_H
