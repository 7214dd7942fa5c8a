//===- LoweringDifferentialTest.cpp - Compiled programs compute the same --===//
//
// Every program is run twice: by the reference interpreter, and compiled
// (unfused as -O0 and fused) through the whole backend, written to bytes,
// read back and executed by the simulator. Outputs must agree within 1e-4
// of the result's magnitude (the device accumulates in f32, the interpreter
// in f64; bf16 programs within 1e-2).
//
// Two generators: the fusion test's graphs at sizes past one 128-row tile,
// and programs that stress the backend's layouts (matmuls of every shape,
// transpose flags, batch broadcasting and epilogues; reductions over any
// axes; broadcasting elementwise graphs; compares, selects and casts; data
// movement). NEURONC_LOWERING_GRAPHS sets how many random graphs (default
// 60; the layout test runs twice as many); a failure prints the seed and the
// program.
//
//===----------------------------------------------------------------------===//

#include "BackendHarness.h"
#include "GraphGenerator.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace neuronc;
using namespace neuronc::testing;

namespace {

std::string tensorType(llvm::ArrayRef<int64_t> shape, const std::string &et = "f32") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + et + ">";
}

/// Programs that exercise the backend's layouts.
class BackendGraphGenerator {
public:
  explicit BackendGraphGenerator(uint64_t seed) : rng(seed) {}

  std::string kind;
  bool lowPrecision = false;

  std::string generate() {
    switch (pick(6)) {
    case 0: return matmul();
    case 1: return reduction();
    case 2: return dataMovement();
    case 3: return broadcasting();
    case 4: return compareSelect();
    default: return matmul();
    }
  }

private:
  std::mt19937_64 rng;
  std::string body;
  int next = 0;

  int pick(int n) { return static_cast<int>(rng() % n); }
  template <typename T> T choose(std::initializer_list<T> v) {
    return *(v.begin() + pick(static_cast<int>(v.size())));
  }
  std::string emit(const std::string &rhs) {
    std::string v = "%v" + std::to_string(next++);
    body += "  " + v + " = " + rhs + "\n";
    return v;
  }
  std::string func(llvm::ArrayRef<std::string> args, const std::string &ret,
                   const std::string &retType) {
    std::string sig;
    for (const std::string &a : args)
      sig += (sig.empty() ? "" : ", ") + a;
    return "func.func @main(" + sig + ") -> " + retType + " {\n" + body + "  return " + ret +
           " : " + retType + "\n}\n";
  }

  std::string matmul() {
    kind = "matmul";
    int64_t m = choose<int64_t>({1, 5, 40, 130, 257});
    int64_t k = choose<int64_t>({3, 64, 128, 200});
    int64_t n = choose<int64_t>({1, 7, 100, 600});
    while (m * k * n > 6000000)
      n = std::max<int64_t>(1, n / 2);
    bool ta = pick(2), tb = pick(2);
    std::string et = pick(3) == 0 ? "bf16" : "f32";
    lowPrecision = et == "bf16";
    llvm::SmallVector<int64_t> batch;
    for (int i = 0, nb = pick(3); i < nb; ++i)
      batch.push_back(1 + pick(3));
    auto operand = [&](int64_t r, int64_t c, bool shared) {
      llvm::SmallVector<int64_t> s;
      if (!shared)
        for (int64_t b : batch)
          s.push_back(pick(4) == 0 ? 1 : b);
      s.push_back(r);
      s.push_back(c);
      return s;
    };
    auto a = operand(ta ? k : m, ta ? m : k, !batch.empty() && pick(4) == 0);
    auto b = operand(tb ? n : k, tb ? k : n, !batch.empty() && pick(4) == 0);
    // The result's batch dims broadcast the operands'.
    llvm::SmallVector<int64_t> out;
    if (a.size() == 2 && b.size() == 2)
      batch.clear();
    for (size_t i = 0; i < batch.size(); ++i) {
      int64_t d = 1;
      for (auto *o : {&a, &b})
        if (o->size() == batch.size() + 2)
          d = std::max(d, (*o)[i]);
      out.push_back(d);
    }
    out.push_back(m);
    out.push_back(n);
    std::string flags = std::string(ta ? " transpose_lhs" : "") + (tb ? " transpose_rhs" : "");
    std::string c = emit("neuron.matmul %a, %b" + flags + " : " + tensorType(a, et) + ", " +
                         tensorType(b, et) + " -> " + tensorType(out));
    std::vector<std::string> args = {"%a: " + tensorType(a, et), "%b: " + tensorType(b, et)};
    std::string t = tensorType(out);
    switch (pick(4)) {
    case 0: { // bias over the columns, then relu
      args.push_back("%bias: " + tensorType({n}));
      c = emit("neuron.add " + c + ", %bias : " + t + ", " + tensorType({n}) + " -> " + t);
      c = emit("neuron.relu " + c + " : " + t);
      break;
    }
    case 1: { // a residual and a scale
      args.push_back("%res: " + t);
      c = emit("neuron.add %res, " + c + " : " + t + ", " + t + " -> " + t);
      std::string k2 = emit("neuron.constant dense<0.5> : tensor<f32>");
      c = emit("neuron.mul " + c + ", " + k2 + " : " + t + ", tensor<f32> -> " + t);
      break;
    }
    case 2: // silu
      c = emit("neuron.silu " + c + " : " + t);
      break;
    default:
      break;
    }
    return func(args, c, t);
  }

  llvm::SmallVector<int64_t> randomShape(int rankMin, int rankMax) {
    llvm::SmallVector<int64_t> s;
    for (int i = 0, r = rankMin + pick(rankMax - rankMin + 1); i < r; ++i)
      s.push_back(choose<int64_t>({1, 3, 17, 64, 130, 200}));
    int64_t n = 1;
    for (int64_t d : s)
      n *= d;
    while (n > 400000) {
      for (int64_t &d : s)
        if (d > 3) {
          n /= d;
          d = (d + 1) / 2;
          n *= d;
          break;
        }
    }
    return s;
  }

  std::string reduction() {
    kind = "reduction";
    llvm::SmallVector<int64_t> s = randomShape(1, 3);
    llvm::SmallVector<int64_t> axes, kept;
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
      if (pick(2))
        axes.push_back(d);
    if (axes.empty())
      axes.push_back(pick(s.size()));
    bool keep = pick(2);
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
      bool red = llvm::is_contained(axes, d);
      if (!red)
        kept.push_back(s[d]);
      else if (keep)
        kept.push_back(1);
    }
    std::string op = choose<const char *>({"reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                           "reduce_sum"});
    std::string ax;
    for (int64_t a : axes)
      ax += (ax.empty() ? "" : ", ") + std::to_string(a);
    std::string r = emit("neuron." + op + " %x axes = [" + ax + "]" + (keep ? " keepdims" : "") +
                         " : " + tensorType(s) + " -> " + tensorType(kept));
    return func({"%x: " + tensorType(s)}, r, tensorType(kept));
  }

  std::string dataMovement() {
    kind = "data-movement";
    switch (pick(5)) {
    case 0: { // transpose
      llvm::SmallVector<int64_t> s = randomShape(2, 4), perm, out;
      for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i)
        perm.push_back(i);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::string p;
      for (int64_t i : perm) {
        p += (p.empty() ? "" : ", ") + std::to_string(i);
        out.push_back(s[i]);
      }
      std::string r = emit("neuron.transpose %x perm = [" + p + "] : " + tensorType(s) + " -> " +
                           tensorType(out));
      return func({"%x: " + tensorType(s)}, r, tensorType(out));
    }
    case 1: { // slice
      llvm::SmallVector<int64_t> s = randomShape(1, 3), off, size, str;
      for (int64_t d : s) {
        int64_t o = pick(static_cast<int>(d)), st = 1 + pick(2);
        int64_t n = std::max<int64_t>(1, (d - o + st - 1) / st - pick(2));
        off.push_back(o);
        size.push_back(n);
        str.push_back(st);
      }
      auto list = [](llvm::ArrayRef<int64_t> v) {
        std::string s;
        for (int64_t x : v)
          s += (s.empty() ? "" : ", ") + std::to_string(x);
        return "[" + s + "]";
      };
      std::string r = emit("neuron.slice %x offsets = " + list(off) + " sizes = " + list(size) +
                           " strides = " + list(str) + " : " + tensorType(s) + " -> " +
                           tensorType(size));
      return func({"%x: " + tensorType(s)}, r, tensorType(size));
    }
    case 2: { // concat
      llvm::SmallVector<int64_t> s = randomShape(1, 3);
      int64_t axis = pick(static_cast<int>(s.size()));
      llvm::SmallVector<int64_t> t = s, out = s;
      t[axis] = 1 + pick(20);
      out[axis] = s[axis] + t[axis];
      std::string r = emit("neuron.concat %x, %y axis = " + std::to_string(axis) + " : " +
                           tensorType(s) + ", " + tensorType(t) + " -> " + tensorType(out));
      return func({"%x: " + tensorType(s), "%y: " + tensorType(t)}, r, tensorType(out));
    }
    case 3: { // gather rows of a table
      int64_t v = 8 + pick(100), d = choose<int64_t>({1, 16, 300});
      int64_t n = choose<int64_t>({1, 7, 200});
      std::string r = emit("neuron.gather %t[%i] axis = 0 : " + tensorType({v, d}) + ", " +
                           tensorType({n}, "i32") + " -> " + tensorType({n, d}));
      return func({"%t: " + tensorType({v, d}), "%i: " + tensorType({n}, "i32")}, r,
                  tensorType({n, d}));
    }
    default: { // broadcast_to
      llvm::SmallVector<int64_t> s = randomShape(1, 2), out;
      out.push_back(1 + pick(5));
      for (int64_t d : s)
        out.push_back(d);
      llvm::SmallVector<int64_t> in = s;
      in[pick(static_cast<int>(in.size()))] = 1;
      for (size_t i = 0; i < in.size(); ++i)
        out[i + 1] = in[i] == 1 ? 1 + pick(40) : in[i];
      std::string r = emit("neuron.broadcast_to %x : " + tensorType(in) + " -> " +
                           tensorType(out));
      return func({"%x: " + tensorType(in)}, r, tensorType(out));
    }
    }
  }

  std::string broadcasting() {
    kind = "broadcasting";
    llvm::SmallVector<int64_t> s = randomShape(2, 3);
    auto variant = [&]() {
      llvm::SmallVector<int64_t> v;
      int64_t drop = pick(static_cast<int>(s.size()));
      for (size_t i = drop; i < s.size(); ++i)
        v.push_back(pick(3) == 0 ? 1 : s[i]);
      if (v.empty())
        v.push_back(1);
      return v;
    };
    auto a = variant(), b = variant();
    std::string t = tensorType(s);
    std::string x = emit("neuron.add %x, %a : " + t + ", " + tensorType(a) + " -> " + t);
    x = emit(std::string("neuron.") + choose<const char *>({"mul", "sub", "max", "div"}) + " %b, " +
             x + " : " + tensorType(b) + ", " + t + " -> " + t);
    x = emit(std::string("neuron.") + choose<const char *>({"tanh", "exp", "abs", "sigmoid"}) +
             " " + x + " : " + t);
    return func({"%x: " + t, "%a: " + tensorType(a), "%b: " + tensorType(b)}, x, t);
  }

  std::string compareSelect() {
    kind = "compare-select";
    llvm::SmallVector<int64_t> s = randomShape(1, 3);
    std::string t = tensorType(s), ti = tensorType(s, "i32"), tb = tensorType(s, "i1");
    std::string c = emit(std::string("neuron.compare ") + choose<const char *>({"lt", "ge", "eq"}) +
                         ", %x, %y : " + t + ", " + t + " -> " + tb);
    std::string sel = emit("neuron.select " + c + ", %x, %y : " + tb + ", " + t + ", " + t +
                           " -> " + t);
    std::string scaled = emit("neuron.mul " + sel + ", %k : " + t + ", tensor<f32> -> " + t);
    std::string i = emit("neuron.cast " + scaled + " : " + t + " -> " + ti);
    std::string j = emit("neuron.add " + i + ", %n : " + ti + ", " + ti + " -> " + ti);
    std::string back = emit("neuron.cast " + j + " : " + ti + " -> " + t);
    body = "  %k = neuron.constant dense<10.0> : tensor<f32>\n" + body;
    return func({"%x: " + t, "%y: " + t, "%n: " + ti}, back, t);
  }
};

/// Seeded inputs for `fn`.
llvm::SmallVector<Tensor> inputsFor(mlir::func::FuncOp fn, uint64_t seed) {
  llvm::SmallVector<Tensor> args;
  for (auto [i, t] : llvm::enumerate(fn.getFunctionType().getInputs())) {
    auto type = llvm::cast<mlir::RankedTensorType>(t);
    auto dtype = hostTypeOf(type);
    args.push_back(randomTensor(*dtype, type.getShape(), seed * 31 + i));
  }
  return args;
}

class LoweringDifferential : public ::testing::Test {
protected:
  BackendHarness harness;

  int count() {
    if (const char *env = std::getenv("NEURONC_LOWERING_GRAPHS"))
      return std::atoi(env);
    return 60;
  }

  /// Interpreter vs compiled (unfused and fused) on `text`.
  void check(const std::string &text, uint64_t seed, double tolerance, const std::string &kind) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &harness.context);
    ASSERT_TRUE(module) << "seed " << seed << " generated invalid IR:\n" << text;
    llvm::SmallVector<Tensor> args =
        inputsFor(*module->getOps<mlir::func::FuncOp>().begin(), seed);
    std::string why;
    auto ref = harness.interpret(text, args, why);
    ASSERT_TRUE(mlir::succeeded(ref)) << "seed " << seed << ": the interpreter failed: " << why
                                      << "\n" << text;
    for (bool fuse : {false, true}) {
      std::string err;
      auto exe = harness.compile(text, fuse, "trn1", err);
      ASSERT_TRUE(mlir::succeeded(exe)) << "seed " << seed << " (" << kind
                                        << (fuse ? ", fused" : ", -O0")
                                        << ") does not compile: " << err << "\n" << text;
      auto out = sim::run(*exe, exe->programs.front(), args);
      ASSERT_TRUE(static_cast<bool>(out)) << "seed " << seed << ": " << llvm::toString(out.takeError())
                                          << "\n" << text;
      ASSERT_EQ(out->outputs.size(), ref->size()) << "seed " << seed;
      for (size_t r = 0; r < ref->size(); ++r) {
        ASSERT_EQ((*ref)[r].shape(), out->outputs[r].shape()) << "seed " << seed;
        double e = relativeError((*ref)[r], out->outputs[r]);
        ASSERT_LE(e, tolerance) << "seed " << seed << " (" << kind
                                << (fuse ? ", fused" : ", -O0") << ") result " << r
                                << " differs by " << e << ":\n" << text;
      }
    }
  }
};

} // namespace

TEST_F(LoweringDifferential, FusionGraphsAcrossRowTiles) {
  for (int seed = 1; seed <= count(); ++seed) {
    GraphGenerator gen(seed, /*scale=*/seed % 2 ? 37 : 1);
    std::string text = gen.generate();
    check(text, seed, 1e-4, gen.kind);
    if (HasFatalFailure())
      return;
  }
}

TEST_F(LoweringDifferential, BackendLayouts) {
  std::map<std::string, int> seen;
  for (int seed = 1; seed <= count() * 2; ++seed) {
    BackendGraphGenerator gen(seed);
    std::string text = gen.generate();
    ++seen[gen.kind];
    check(text, seed, gen.lowPrecision ? 1e-2 : 1e-4, gen.kind);
    if (HasFatalFailure())
      return;
  }
  for (const char *k : {"matmul", "reduction", "data-movement", "broadcasting", "compare-select"})
    EXPECT_GT(seen[k], 0) << k;
}

TEST_F(LoweringDifferential, SinAndCosWhereverTheyLand) {
  // Reduced on the device before ScalarE's sin/cos: on a matmul's PSUM tile
  // (an epilogue), on arguments in the thousands of radians (random inputs
  // in [-1, 1) times 3000, the same f32 numbers in both), feeding a row sum
  // the activation accumulates, on a column-invariant row value, and on
  // bf16 tiles. (Arguments that the two compute in another order, a matmul
  // or a sum, stay small: sin of a large one would amplify the rounding.)
  check(R"mlir(
func.func @main(%a: tensor<130x64xf32>, %b: tensor<64x96xf32>, %x: tensor<130x96xf32>) -> (tensor<130x96xf32>, tensor<130x1xf32>) {
  %k = neuron.constant dense<3000.0> : tensor<f32>
  %m = neuron.matmul %a, %b : tensor<130x64xf32>, tensor<64x96xf32> -> tensor<130x96xf32>
  %s = neuron.sin %m : tensor<130x96xf32>
  %xs = neuron.mul %x, %k : tensor<130x96xf32>, tensor<f32> -> tensor<130x96xf32>
  %c = neuron.cos %xs : tensor<130x96xf32>
  %y = neuron.add %s, %c : tensor<130x96xf32>, tensor<130x96xf32> -> tensor<130x96xf32>
  %r = neuron.reduce_sum %c axes = [1] keepdims : tensor<130x96xf32> -> tensor<130x1xf32>
  %rc = neuron.sin %r : tensor<130x1xf32>
  return %y, %rc : tensor<130x96xf32>, tensor<130x1xf32>
}
)mlir",
        /*seed=*/1, 1e-4, "sin-cos");
  if (HasFatalFailure())
    return;
  check(R"mlir(
func.func @main(%x: tensor<200x70xbf16>) -> tensor<200x70xbf16> {
  %k = neuron.constant dense<3000.0> : tensor<bf16>
  %xs = neuron.mul %x, %k : tensor<200x70xbf16>, tensor<bf16> -> tensor<200x70xbf16>
  %c = neuron.cos %xs : tensor<200x70xbf16>
  %s = neuron.sin %xs : tensor<200x70xbf16>
  %y = neuron.sub %c, %s : tensor<200x70xbf16>, tensor<200x70xbf16> -> tensor<200x70xbf16>
  return %y : tensor<200x70xbf16>
}
)mlir",
        /*seed=*/2, 1e-2, "sin-cos-bf16");
}
