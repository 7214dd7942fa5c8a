//===- RealisticGenerator.h - Programs in the regimes real models live in -*- C++ -*-===//
//
// Seeded neuron programs whose sizes come from the lowering's own thresholds
// (partition multiples and ±1 around them, the PSUM bank width, the SBUF
// budgets where a row kernel goes from resident to streamed and from two
// buffers to one, for each target) and from the dims of real models (768 ...
// 14336, vocabulary slices, head dims 64/128, 2-32 heads, GQA groups 1-8),
// in the patterns exports produce: reshapes and transposes inside fusable
// chains, broadcasts through reshapes (repeat_kv), transposed matmul
// operands, keepdims reductions, matmul epilogues, residual + norm, softmax
// with a mask, SwiGLU, bf16 casts around f32 compute.
//
// Shrinking for minimization: `Limits::shrink` halves every drawn dim that
// many times (at least 1) and `Limits::maxOps` stops a chain early, so a
// failing program can be regenerated smaller with the same structure.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TEST_SOAK_REALISTICGENERATOR_H
#define NEURONC_TEST_SOAK_REALISTICGENERATOR_H

#include "neuronc/ISA/HardwareModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace neuronc::soak {

/// Bounds of one generated program.
struct Limits {
  int64_t maxElements = 1 << 22;   ///< per tensor
  int64_t maxMatmulMacs = 1 << 27; ///< M·K·N per matmul (the interpreter's time)
  int shrink = 0;                  ///< halve every drawn dim this many times
  int maxOps = 1 << 20;            ///< stop chains after this many ops
};

/// One value of the program being built.
struct Val {
  std::string name;
  std::vector<int64_t> shape;
  std::string et = "f32";
};

/// Builds the text of one program from a seed.
class RealisticGenerator {
public:
  RealisticGenerator(uint64_t seed, Limits limits) : rng(seed), limits(limits) {}

  /// The program's kind ("swiglu", "masked-softmax", ...), set by generate().
  std::string kind;
  /// The largest contraction (K) of its matmuls, 0 without one: f32
  /// accumulation error grows with it.
  int64_t maxK = 0;

  std::string generate() {
    switch (pick(10)) {
    case 0: return elementwise();
    case 1: return residualNorm();
    case 2: return maskedSoftmax();
    case 3: return matmulEpilogue();
    case 4: return repeatKv();
    case 5: return headSplit();
    case 6: return keepdimsNorm();
    case 7: return castSandwich();
    case 8: return swiglu();
    default: return rowsPastTiles();
    }
  }

private:
  std::mt19937_64 rng;
  Limits limits;
  std::string body;
  std::vector<Val> args;
  int next = 0;
  int ops = 0;

  int pick(int n) { return static_cast<int>(rng() % n); }
  template <typename T> T choose(std::initializer_list<T> v) {
    return *(v.begin() + pick(static_cast<int>(v.size())));
  }
  int64_t shrunk(int64_t d) {
    for (int i = 0; i < limits.shrink; ++i)
      d = std::max<int64_t>(1, d / 2);
    return d;
  }
  bool more() { return ops < limits.maxOps; }

  /// Dims at the lowering's thresholds: partition multiples ±1, the PSUM
  /// bank's f32 columns ±1, and the column counts where an element-wise or
  /// norm row kernel changes plan on either target (SBUF budget / bytes
  /// per column, with two buffers and with one).
  int64_t thresholdDim() {
    switch (pick(4)) {
    case 0:
      return choose<int64_t>({127, 128, 129, 255, 256, 257, 383, 384, 385, 511, 512, 513});
    case 1: {
      const HardwareModel &hw = pick(2) ? *lookupHardwareModel("trn1") : *lookupHardwareModel("trn2");
      int64_t bankCols = hw.psumBankBytes() / 4;
      return bankCols + choose<int64_t>({-1, 0, 1});
    }
    default: {
      const HardwareModel &hw = pick(2) ? *lookupHardwareModel("trn1") : *lookupHardwareModel("trn2");
      int64_t budget = hw.sbufPartitionBytes * 3 / 4;
      // Bytes per column of f32 kernels (12..28) and of bf16 ones (6..14).
      int64_t perCol = choose<int64_t>({6, 8, 10, 14, 12, 16, 20, 24, 28});
      int64_t edge = pick(2) ? budget / (perCol * 2) : hw.sbufPartitionBytes / perCol;
      return edge + choose<int64_t>({-1, 0, 1});
    }
    }
  }
  /// Hidden sizes and FFN widths of real models, and slices of a
  /// 151936-token vocabulary.
  int64_t modelDim() {
    return choose<int64_t>(
        {768, 1024, 1536, 2048, 3072, 4096, 5120, 8960, 11008, 14336, 4748, 18992});
  }
  /// Any of the above, or a small odd one.
  int64_t colDim() {
    switch (pick(3)) {
    case 0: return shrunk(thresholdDim());
    case 1: return shrunk(modelDim());
    default: return shrunk(choose<int64_t>({1, 3, 64, 100, 130}));
    }
  }
  int64_t rowDim() {
    return shrunk(choose<int64_t>({1, 7, 40, 127, 128, 129, 256, 257, 300, 512, 1024}));
  }
  /// Scales `rows` down until rows × cols fits the element limit.
  void fit(int64_t &rows, int64_t cols) {
    while (rows > 1 && rows * cols > limits.maxElements)
      rows = (rows + 1) / 2;
  }

  static std::string type(const std::vector<int64_t> &shape, const std::string &et) {
    std::string s = "tensor<";
    for (int64_t d : shape)
      s += std::to_string(d) + "x";
    return s + et + ">";
  }
  static std::string type(const Val &v) { return type(v.shape, v.et); }
  static std::string list(const std::vector<int64_t> &v) {
    std::string s;
    for (int64_t x : v)
      s += (s.empty() ? "" : ", ") + std::to_string(x);
    return "[" + s + "]";
  }

  Val arg(std::vector<int64_t> shape, std::string et = "f32") {
    Val v{"%a" + std::to_string(args.size()), std::move(shape), std::move(et)};
    args.push_back(v);
    return v;
  }
  Val emit(const std::string &rhs, std::vector<int64_t> shape, std::string et = "f32") {
    Val v{"%v" + std::to_string(next++), std::move(shape), std::move(et)};
    body += "  " + v.name + " = " + rhs + "\n";
    ++ops;
    return v;
  }
  Val constant(double value, std::vector<int64_t> shape = {}) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6e", value);
    std::vector<int64_t> s = shape;
    Val v{"%v" + std::to_string(next++), s, "f32"};
    body += "  " + v.name + " = neuron.constant dense<" + buf + "> : " + type(s, "f32") + "\n";
    return v;
  }
  static std::vector<int64_t> broadcast(const std::vector<int64_t> &a,
                                        const std::vector<int64_t> &b) {
    std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
      int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
      out[i] = std::max(x, y);
    }
    return out;
  }
  Val bin(const std::string &op, const Val &a, const Val &b) {
    std::vector<int64_t> s = broadcast(a.shape, b.shape);
    return emit("neuron." + op + " " + a.name + ", " + b.name + " : " + type(a) + ", " + type(b) +
                    " -> " + type(s, a.et),
                s, a.et);
  }
  Val un(const std::string &op, const Val &a) {
    return emit("neuron." + op + " " + a.name + " : " + type(a), a.shape, a.et);
  }
  Val reshape(const Val &a, std::vector<int64_t> shape) {
    return emit("neuron.reshape " + a.name + " : " + type(a) + " -> " + type(shape, a.et), shape,
                a.et);
  }
  Val transpose(const Val &a, const std::vector<int64_t> &perm) {
    std::vector<int64_t> s;
    for (int64_t p : perm)
      s.push_back(a.shape[p]);
    return emit("neuron.transpose " + a.name + " perm = " + list(perm) + " : " + type(a) +
                    " -> " + type(s, a.et),
                s, a.et);
  }
  Val reduce(const std::string &op, const Val &a, int64_t axis, bool keep) {
    std::vector<int64_t> s;
    for (int64_t d = 0; d < static_cast<int64_t>(a.shape.size()); ++d)
      if (d != axis)
        s.push_back(a.shape[d]);
      else if (keep)
        s.push_back(1);
    return emit("neuron." + op + " " + a.name + " axes = [" + std::to_string(axis) + "]" +
                    (keep ? " keepdims" : "") + " : " + type(a) + " -> " + type(s, a.et),
                s, a.et);
  }
  Val cast(const Val &a, const std::string &et) {
    return emit("neuron.cast " + a.name + " : " + type(a) + " -> " + type(a.shape, et), a.shape,
                et);
  }
  Val matmul(const Val &a, const Val &b, bool ta, bool tb) {
    std::vector<int64_t> s = a.shape;
    size_t r = s.size();
    s[r - 2] = ta ? a.shape[r - 1] : a.shape[r - 2];
    s[r - 1] = tb ? b.shape[b.shape.size() - 2] : b.shape[b.shape.size() - 1];
    maxK = std::max(maxK, ta ? a.shape[r - 2] : a.shape[r - 1]);
    std::string flags = std::string(ta ? " transpose_lhs" : "") + (tb ? " transpose_rhs" : "");
    return emit("neuron.matmul " + a.name + ", " + b.name + flags + " : " + type(a) + ", " +
                    type(b) + " -> " + type(s, "f32"),
                s, "f32");
  }
  std::string finish(const Val &result) {
    std::string sig;
    for (const Val &a : args)
      sig += (sig.empty() ? "" : ", ") + a.name + ": " + type(a);
    return "func.func @main(" + sig + ") -> " + type(result) + " {\n" + body + "  return " +
           result.name + " : " + type(result) + "\n}\n";
  }

  /// A chain of binary and unary ops over [rows, cols] with broadcast
  /// operands (a row vector, a column vector, a scalar).
  std::string elementwise() {
    kind = "elementwise";
    int64_t cols = colDim(), rows = rowDim();
    fit(rows, cols);
    std::string et = pick(4) == 0 ? "bf16" : "f32";
    Val x = arg({rows, cols}, et);
    int n = 1 + pick(4);
    for (int i = 0; i < n && more(); ++i) {
      if (pick(3) == 0) {
        // sin and cos in f32 chains only: a fused bf16 chain keeps f32
        // between ops where the interpreter rounds each, and sin passes an
        // argument's rounding on undamped.
        x = un(et == "f32" ? choose<const char *>({"exp", "tanh", "sigmoid", "silu", "abs", "neg",
                                                   "relu", "sin", "cos"})
                           : choose<const char *>({"exp", "tanh", "sigmoid", "silu", "abs", "neg",
                                                   "relu"}),
               x);
        continue;
      }
      Val y;
      switch (et == "bf16" ? pick(3) : pick(4)) {
      case 0: y = arg({rows, cols}, et); break;
      case 1: y = arg({cols}, et); break;
      case 2: y = arg({rows, 1}, et); break;
      default: y = constant(choose<double>({0.5, 2.0, -1.0})); break;
      }
      std::string op = choose<const char *>({"add", "mul", "sub", "max", "min"});
      x = pick(2) ? bin(op, x, y) : bin(op, y, x);
    }
    return finish(x);
  }

  /// Residual add, then RMSNorm as exporters spell it (pow or mul, mean,
  /// add eps, rsqrt, mul, mul weight), on [1, seq, hidden].
  std::string residualNorm() {
    kind = "residual-norm";
    int64_t h = pick(2) ? shrunk(modelDim()) : colDim(), s = rowDim();
    fit(s, h);
    Val x = arg({1, s, h}), r = arg({1, s, h}), w = arg({h});
    Val sum = bin("add", x, r);
    if (!more())
      return finish(sum);
    Val sq = pick(2) ? bin("mul", sum, sum) : bin("pow", sum, constant(2.0));
    Val mean = reduce("reduce_mean", sq, 2, true);
    Val eps = bin("add", mean, constant(1e-6));
    Val inv = un("rsqrt", eps);
    Val y = bin("mul", sum, inv);
    if (more())
      y = bin("mul", y, w);
    return finish(y);
  }

  /// Attention scores + causal-style mask, softmax spelled out with
  /// keepdims reductions, on [1, heads, q, k].
  std::string maskedSoftmax() {
    kind = "masked-softmax";
    int64_t heads = shrunk(choose<int64_t>({2, 8, 12, 32})), q = rowDim(),
            k = pick(2) ? colDim() : q;
    while (heads > 1 && heads * q * k > limits.maxElements)
      heads /= 2;
    fit(q, heads * k);
    Val s = arg({1, heads, q, k}), mask = arg({1, 1, q, k});
    Val x = bin("add", s, mask);
    if (!more())
      return finish(x);
    Val m = reduce("reduce_max", x, 3, true);
    Val e = un("exp", bin("sub", x, m));
    Val z = reduce("reduce_sum", e, 3, true);
    return finish(bin("div", e, z));
  }

  /// [M, K] x [K, N] with transposed operands at random, then an epilogue
  /// (bias and activation, or a residual).
  std::string matmulEpilogue() {
    kind = "matmul-epilogue";
    int64_t m = rowDim(), k = colDim(), n = colDim();
    while (m * k * n > limits.maxMatmulMacs) {
      if (n >= k && n > 1)
        n = (n + 1) / 2;
      else if (k > 1)
        k = (k + 1) / 2;
      else
        m = (m + 1) / 2;
    }
    fit(m, std::max(k, n));
    bool ta = pick(3) == 0, tb = pick(2);
    std::string et = pick(4) == 0 ? "bf16" : "f32";
    Val a = arg(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, et);
    Val b = arg(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, et);
    Val c = matmul(a, b, ta, tb);
    if (!more())
      return finish(c);
    switch (pick(3)) {
    case 0:
      c = bin("add", c, arg({n}));
      c = un(choose<const char *>({"silu", "relu", "tanh"}), c);
      break;
    case 1:
      c = bin("add", arg({m, n}), c);
      break;
    default:
      break;
    }
    return finish(c);
  }

  /// Grouped-query attention's repeat_kv: [1, kv, s, d] -> [1, kv, 1, s, d]
  /// + zeros [1, kv, g, s, d] -> [1, kv·g, s, d], then scores with q.
  std::string repeatKv() {
    kind = "repeat-kv";
    int64_t kv = shrunk(choose<int64_t>({1, 2, 4, 8})), g = choose<int64_t>({1, 2, 4, 6, 8});
    int64_t d = choose<int64_t>({64, 128}), s = rowDim();
    while (s > 1 && kv * g * s * d > limits.maxElements)
      s = (s + 1) / 2;
    Val x = arg({1, kv, s, d});
    Val r = reshape(x, {1, kv, 1, s, d});
    Val z = constant(0.0, {1, kv, g, s, d});
    Val b = bin("add", r, z);
    Val y = reshape(b, {1, kv * g, s, d});
    if (!more() || pick(2))
      return finish(y);
    int64_t q = shrunk(choose<int64_t>({1, 7, 40, 128}));
    while (q > 1 && kv * g * q * s > limits.maxElements)
      q = (q + 1) / 2;
    Val qv = arg({1, kv * g, q, d});
    return finish(matmul(qv, y, false, true));
  }

  /// Head split and merge around an op: [1, s, h·d] -> [1, s, h, d] ->
  /// [1, h, s, d], a scale, and back.
  std::string headSplit() {
    kind = "head-split";
    int64_t h = shrunk(choose<int64_t>({2, 4, 12, 16, 32})), d = choose<int64_t>({64, 128}),
            s = rowDim();
    fit(s, h * d);
    Val x = arg({1, s, h * d});
    Val y = transpose(reshape(x, {1, s, h, d}), {0, 2, 1, 3});
    y = bin("mul", y, constant(0.125));
    if (more() && pick(2))
      y = un("exp", y);
    return finish(reshape(transpose(y, {0, 2, 1, 3}), {1, s, h * d}));
  }

  /// LayerNorm spelled with keepdims reductions broadcast back.
  std::string keepdimsNorm() {
    kind = "keepdims-norm";
    int64_t c = colDim(), r = rowDim();
    fit(r, c);
    Val x = arg({r, c});
    Val mean = reduce("reduce_mean", x, 1, true);
    Val xc = bin("sub", x, mean);
    if (!more())
      return finish(xc);
    Val var = reduce("reduce_mean", bin("mul", xc, xc), 1, true);
    Val inv = un("rsqrt", bin("add", var, constant(1e-5)));
    return finish(bin("add", bin("mul", bin("mul", xc, inv), arg({c})), arg({c})));
  }

  /// f32 -> bf16 -> f32 around f32 compute.
  std::string castSandwich() {
    kind = "bf16-casts";
    int64_t c = colDim(), r = rowDim();
    fit(r, c);
    Val x = arg({r, c});
    Val b = cast(x, "bf16");
    Val f = cast(b, "f32");
    Val y = bin("mul", f, arg({r, c}));
    if (more() && pick(2))
      y = cast(cast(un("silu", y), "bf16"), "f32");
    return finish(y);
  }

  /// SwiGLU: silu(x·Wg) · (x·Wu), then ·Wd.
  std::string swiglu() {
    kind = "swiglu";
    int64_t hdim = shrunk(choose<int64_t>({64, 128, 256, 768, 1536})),
            f = shrunk(choose<int64_t>({128, 513, 1024, 4096, 8960})), m = rowDim();
    while (m * hdim * f > limits.maxMatmulMacs / 2) {
      if (f > hdim && f > 1)
        f = (f + 1) / 2;
      else if (m > 1)
        m = (m + 1) / 2;
      else
        hdim = (hdim + 1) / 2;
    }
    fit(m, f);
    Val x = arg({m, hdim}), wg = arg({hdim, f}), wu = arg({hdim, f});
    Val g = matmul(x, wg, false, false);
    Val u = matmul(x, wu, false, false);
    Val y = bin("mul", un("silu", g), u);
    if (!more())
      return finish(y);
    return finish(matmul(y, arg({f, hdim}), false, false));
  }

  /// Rows past one and several 128-row tiles with wide columns: the
  /// regime of the one-buffer prefetch bug.
  std::string rowsPastTiles() {
    kind = "rows-past-tiles";
    int64_t r = shrunk(choose<int64_t>({129, 255, 257, 384, 512, 1024})), c = colDim();
    fit(r, c);
    Val x = arg({r, c}), y = arg({r, c});
    Val z = bin(choose<const char *>({"add", "mul", "sub"}), x, y);
    if (more() && pick(2)) {
      Val m = un("exp", reduce("reduce_max", z, 1, true));
      z = bin("mul", m, x);
    }
    return finish(z);
  }
};

} // namespace neuronc::soak

#endif // NEURONC_TEST_SOAK_REALISTICGENERATOR_H
