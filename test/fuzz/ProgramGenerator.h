//===- ProgramGenerator.h - Random valid TOSA programs from fuzzer bytes -*- C++ -*-===//
//
// Turns the bytes libFuzzer mutates into a structurally valid TOSA 1.0
// function (the importer's main input), so that the fuzzer explores graphs
// rather than syntax errors. Shapes are odd but legal on purpose: rank 0 to
// 6, size-1 dims, sizes just above and below the 128 partitions, and
// broadcasts whose fan-out multiplies a tensor's size. Every op is one the
// importer supports, in the spelling real exporters use.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TEST_FUZZ_PROGRAMGENERATOR_H
#define NEURONC_TEST_FUZZ_PROGRAMGENERATOR_H

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace neuronc::fuzzing {

/// Builds one TOSA function from the fuzzer's bytes; the same bytes give the
/// same program.
class ProgramGenerator {
public:
  /// Tensors are kept at most this many elements (the compiler's time per
  /// input stays in milliseconds).
  static constexpr int64_t kMaxElements = 1 << 15;
  static constexpr int kMaxOps = 12;

  explicit ProgramGenerator(FuzzedDataProvider &fdp) : fdp(fdp) {}

  std::string generate() {
    pool.push_back(argument(randomShape()));
    int ops = fdp.ConsumeIntegralInRange<int>(1, kMaxOps);
    for (int i = 0; i < ops && fdp.remaining_bytes(); ++i)
      step();
    // Return the last value and up to three other values nothing consumed,
    // so that little of the graph is dead code the compiler just deletes.
    std::vector<const Value *> results = {&pool.back()};
    for (size_t i = pool.size() - 1; i-- > 0 && results.size() < 4;)
      if (!used.count(pool[i].name) && pool[i].name[1] == 'v')
        results.push_back(&pool[i]);
    std::string sig, types, names;
    for (size_t i = 0; i < args.size(); ++i)
      sig += (i ? ", " : "") + args[i].name + ": " + type(args[i].shape);
    for (size_t i = 0; i < results.size(); ++i) {
      types += (i ? ", " : "") + type(results[i]->shape);
      names += (i ? ", " : "") + results[i]->name;
    }
    return "func.func @f(" + sig + ") -> (" + types + ") {\n" + body + "  return " + names +
           " : " + types + "\n}\n";
  }

private:
  struct Value {
    std::string name;
    std::vector<int64_t> shape;
  };
  FuzzedDataProvider &fdp;
  std::vector<Value> pool, args;
  std::set<std::string> used; ///< values some op reads
  std::string body;
  int next = 0;

  static int64_t elements(const std::vector<int64_t> &s) {
    return std::accumulate(s.begin(), s.end(), int64_t(1), std::multiplies<>());
  }
  static std::string dims(const std::vector<int64_t> &s) {
    std::string out;
    for (int64_t d : s)
      out += std::to_string(d) + "x";
    return out;
  }
  static std::string type(const std::vector<int64_t> &s, const char *elt = "f32") {
    return "tensor<" + dims(s) + elt + ">";
  }
  static std::string list(const std::vector<int64_t> &s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i)
      out += (i ? ", " : "") + std::to_string(s[i]);
    return out;
  }
  std::string fresh() { return "%v" + std::to_string(next++); }
  std::string emit(const std::string &rhs) {
    std::string v = fresh();
    body += "  " + v + " = " + rhs + "\n";
    return v;
  }
  int64_t randomDim() {
    static constexpr int64_t sizes[] = {1, 1, 1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 127, 128, 129, 256};
    return sizes[fdp.ConsumeIntegralInRange<size_t>(0, std::size(sizes) - 1)];
  }
  /// Rank 0 to 6; shrinks dims to 1 until the tensor fits kMaxElements.
  std::vector<int64_t> randomShape() {
    std::vector<int64_t> s(fdp.ConsumeIntegralInRange<int>(0, 6));
    for (int64_t &d : s)
      d = randomDim();
    for (size_t i = 0; elements(s) > kMaxElements; ++i)
      s[i % s.size()] = 1;
    return s;
  }
  Value argument(std::vector<int64_t> shape) {
    Value v{"%a" + std::to_string(args.size()), std::move(shape)};
    args.push_back(v);
    return v;
  }
  std::string constant(const std::vector<int64_t> &shape, const char *elt, const char *value) {
    return emit("\"tosa.const\"() <{values = dense<" + std::string(value) + "> : " +
                type(shape, elt) + "}> : () -> " + type(shape, elt));
  }
  std::string constShape(const std::vector<int64_t> &s) {
    return emit("tosa.const_shape {values = dense<[" + list(s) + "]> : tensor<" +
                std::to_string(s.size()) + "xindex>} : () -> !tosa.shape<" +
                std::to_string(s.size()) + ">");
  }
  /// A value of exactly `shape`: one from the pool, a new argument or a
  /// splat constant.
  Value operandOf(const std::vector<int64_t> &shape) {
    for (const Value &v : pool)
      if (v.shape == shape && fdp.ConsumeBool()) {
        used.insert(v.name);
        return v;
      }
    if (fdp.ConsumeBool())
      return argument(shape);
    return {constant(shape, "f32", fdp.ConsumeBool() ? "0.5" : "-2.0"), shape};
  }
  const Value &pick() { return pool[fdp.ConsumeIntegralInRange<size_t>(0, pool.size() - 1)]; }
  void push(std::string name, std::vector<int64_t> shape) {
    pool.push_back({std::move(name), std::move(shape)});
  }

  void step() {
    Value a = pick();
    used.insert(a.name);
    int rank = static_cast<int>(a.shape.size());
    switch (fdp.ConsumeIntegralInRange<int>(0, 11)) {
    case 0:
    case 1: { // binary, with broadcasting both ways (fan-out when a's dim is 1)
      std::vector<int64_t> sb = a.shape, out = a.shape;
      for (int d = 0; d < rank; ++d) {
        int how = fdp.ConsumeIntegralInRange<int>(0, 3);
        if (how == 1)
          sb[d] = 1;
        else if (how == 2 && a.shape[d] == 1)
          sb[d] = out[d] = randomDim();
      }
      if (elements(out) > kMaxElements)
        sb = out = a.shape;
      Value b = operandOf(sb);
      static constexpr const char *ops[] = {"add", "sub", "mul", "maximum", "minimum", "pow"};
      std::string op = ops[fdp.ConsumeIntegralInRange<int>(0, 5)];
      bool swap = fdp.ConsumeBool();
      const Value &l = swap ? b : a, &r = swap ? a : b;
      std::string operands = l.name + ", " + r.name, types = type(l.shape) + ", " + type(r.shape);
      if (op == "mul") {
        operands += ", " + constant({1}, "i8", "0");
        types += ", tensor<1xi8>";
      }
      push(emit("tosa." + op + " " + operands + " : (" + types + ") -> " + type(out)), out);
      break;
    }
    case 2: { // unary
      static constexpr const char *ops[] = {"exp",  "tanh", "sigmoid", "abs",     "reciprocal",
                                            "rsqrt", "log", "erf",     "identity"};
      std::string op = ops[fdp.ConsumeIntegralInRange<int>(0, 8)];
      push(emit("tosa." + op + " " + a.name + " : (" + type(a.shape) + ") -> " + type(a.shape)),
           a.shape);
      break;
    }
    case 3: { // negate (zero points) or clamp (ReLU6-like)
      if (fdp.ConsumeBool()) {
        std::string zp = constant({1}, "f32", "0.0");
        push(emit("tosa.negate " + a.name + ", " + zp + ", " + zp + " : (" + type(a.shape) +
                  ", tensor<1xf32>, tensor<1xf32>) -> " + type(a.shape)),
             a.shape);
      } else {
        push(emit("tosa.clamp " + a.name + " {min_val = 0.0 : f32, max_val = 6.0 : f32} : (" +
                  type(a.shape) + ") -> " + type(a.shape)),
             a.shape);
      }
      break;
    }
    case 4: { // reduction over one axis (kept as size 1), often broadcast back
      if (!rank)
        break;
      int axis = fdp.ConsumeIntegralInRange<int>(0, rank - 1);
      static constexpr const char *ops[] = {"reduce_sum", "reduce_max", "reduce_min",
                                            "reduce_product"};
      std::vector<int64_t> out = a.shape;
      out[axis] = 1;
      std::string r = emit("tosa." + std::string(ops[fdp.ConsumeIntegralInRange<int>(0, 3)]) +
                           " " + a.name + " {axis = " + std::to_string(axis) + " : i32} : (" +
                           type(a.shape) + ") -> " + type(out));
      if (fdp.ConsumeBool())
        push(emit("tosa.sub " + a.name + ", " + r + " : (" + type(a.shape) + ", " + type(out) +
                  ") -> " + type(a.shape)),
             a.shape);
      else
        push(r, out);
      break;
    }
    case 5: { // reshape: flatten, add a leading 1, or merge two adjacent dims
      std::vector<int64_t> out;
      int how = fdp.ConsumeIntegralInRange<int>(0, 2);
      if (how == 0 || rank < 2) {
        out = {elements(a.shape)};
      } else if (how == 1 && rank < 6) {
        out = a.shape;
        out.insert(out.begin(), 1);
      } else {
        int d = fdp.ConsumeIntegralInRange<int>(0, rank - 2);
        out = a.shape;
        out[d] *= out[d + 1];
        out.erase(out.begin() + d + 1);
      }
      std::string s = constShape(out);
      push(emit("tosa.reshape " + a.name + ", " + s + " : (" + type(a.shape) + ", !tosa.shape<" +
                std::to_string(out.size()) + ">) -> " + type(out)),
           out);
      break;
    }
    case 6: { // transpose by a random permutation
      if (!rank)
        break;
      std::vector<int64_t> perm(rank), out(rank);
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = rank - 1; i > 0; --i)
        std::swap(perm[i], perm[fdp.ConsumeIntegralInRange<int>(0, i)]);
      for (int i = 0; i < rank; ++i)
        out[i] = a.shape[perm[i]];
      push(emit("tosa.transpose " + a.name + " {perms = array<i32: " + list(perm) + ">} : (" +
                type(a.shape) + ") -> " + type(out)),
           out);
      break;
    }
    case 7: { // batched matmul against a new [B, K, N] operand
      if (rank != 3)
        break;
      int64_t n = randomDim();
      std::vector<int64_t> sb = {a.shape[0], a.shape[2], n}, out = {a.shape[0], a.shape[1], n};
      if (elements(sb) > kMaxElements || elements(out) > kMaxElements)
        break;
      Value b = operandOf(sb);
      std::string zp = constant({1}, "f32", "0.0");
      push(emit("tosa.matmul " + a.name + ", " + b.name + ", " + zp + ", " + zp + " : (" +
                type(a.shape) + ", " + type(sb) + ", tensor<1xf32>, tensor<1xf32>) -> " +
                type(out)),
           out);
      break;
    }
    case 8: { // concat with itself
      if (!rank || 2 * elements(a.shape) > kMaxElements)
        break;
      int axis = fdp.ConsumeIntegralInRange<int>(0, rank - 1);
      std::vector<int64_t> out = a.shape;
      out[axis] *= 2;
      push(emit("tosa.concat " + a.name + ", " + a.name + " {axis = " + std::to_string(axis) +
                " : i32} : (" + type(a.shape) + ", " + type(a.shape) + ") -> " + type(out)),
           out);
      break;
    }
    case 9: { // slice a window
      if (!rank)
        break;
      std::vector<int64_t> start(rank), size(rank);
      for (int d = 0; d < rank; ++d) {
        size[d] = fdp.ConsumeIntegralInRange<int64_t>(1, a.shape[d]);
        start[d] = fdp.ConsumeIntegralInRange<int64_t>(0, a.shape[d] - size[d]);
      }
      std::string st = constShape(start), sz = constShape(size);
      std::string r = std::to_string(rank);
      push(emit("tosa.slice " + a.name + ", " + st + ", " + sz + " : (" + type(a.shape) +
                ", !tosa.shape<" + r + ">, !tosa.shape<" + r + ">) -> " + type(size)),
           size);
      break;
    }
    case 10: { // select on a comparison (i1 tensors)
      Value b = operandOf(a.shape);
      std::string cond = emit("tosa.greater " + a.name + ", " + b.name + " : (" + type(a.shape) +
                              ", " + type(b.shape) + ") -> " + type(a.shape, "i1"));
      push(emit("tosa.select " + cond + ", " + a.name + ", " + b.name + " : (" +
                type(a.shape, "i1") + ", " + type(a.shape) + ", " + type(a.shape) + ") -> " +
                type(a.shape)),
           a.shape);
      break;
    }
    default: { // a round trip through bf16
      std::string h = emit("tosa.cast " + a.name + " : (" + type(a.shape) + ") -> " +
                           type(a.shape, "bf16"));
      push(emit("tosa.cast " + h + " : (" + type(a.shape, "bf16") + ") -> " + type(a.shape)),
           a.shape);
      break;
    }
    }
  }
};

} // namespace neuronc::fuzzing

#endif // NEURONC_TEST_FUZZ_PROGRAMGENERATOR_H
