//===- Kernels.cpp - Reference kernels on host tensors -------------------===//
//
// Plain loops. Everything that walks a tensor with strides goes through
// `forEachRun`, which coalesces dimensions so that the innermost loop is as
// long as possible and, for same-shape operands, a single flat loop.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Host/Kernels.h"

#include "neuronc/Support/Activations.h"
#include "neuronc/Support/IntegerOps.h"

#include "llvm/ADT/STLExtras.h"

#include <array>
#include <cmath>
#include <numeric>

using llvm::ArrayRef;
using llvm::Expected;

namespace neuronc::ref {
namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// Strided iteration
//===----------------------------------------------------------------------===//

/// Strides (in elements) of `in` read as if broadcast to `out`: dims that are
/// stretched get stride 0.
Shape broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  Shape rowMajor = rowMajorStrides(in);
  Shape strides(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[lead + i] = in[i] == 1 ? 0 : rowMajor[i];
  return strides;
}

/// Walks `shape` in row-major order over N strided operands. For each run of
/// the (coalesced) innermost dimension it calls
/// `body(offsets, length, innerStrides)`, where `offsets[k]` is operand k's
/// element offset at the start of the run.
template <size_t N, typename Body>
void forEachRun(Shape shape, std::array<Shape, N> strides, Body &&body) {
  // Drop size-1 dims, then merge a dim into the next when every operand
  // steps through both as one.
  Shape s;
  std::array<Shape, N> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    bool merge = !s.empty();
    for (size_t k = 0; k < N && merge; ++k)
      merge = st[k].back() == strides[k][d] * shape[d];
    if (merge) {
      s.back() *= shape[d];
      for (size_t k = 0; k < N; ++k)
        st[k].back() = strides[k][d];
    } else {
      s.push_back(shape[d]);
      for (size_t k = 0; k < N; ++k)
        st[k].push_back(strides[k][d]);
    }
  }
  std::array<int64_t, N> off{};
  std::array<int64_t, N> inner{};
  if (numElements(shape) == 0)
    return;
  if (s.empty()) {
    body(off, int64_t(1), inner);
    return;
  }
  int64_t r = static_cast<int64_t>(s.size());
  int64_t n = s.back();
  for (size_t k = 0; k < N; ++k)
    inner[k] = st[k].back();
  int64_t outer = numElements(s) / n;
  Shape idx(r, 0);
  for (int64_t o = 0; o < outer; ++o) {
    body(off, n, inner);
    for (int64_t d = r - 2; d >= 0; --d) {
      ++idx[d];
      for (size_t k = 0; k < N; ++k)
        off[k] += st[k][d];
      if (idx[d] < s[d])
        break;
      for (size_t k = 0; k < N; ++k)
        off[k] -= st[k][d] * s[d];
      idx[d] = 0;
    }
  }
}

/// Copies `x` read through `strides` over `shape` into a new contiguous tensor.
template <typename T>
void stridedCopy(const T *src, int64_t base, ArrayRef<int64_t> shape, const Shape &strides,
                 T *dst) {
  forEachRun<1>(Shape(shape.begin(), shape.end()), {strides},
                [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> in) {
                  const T *p = src + base + off[0];
                  if (in[0] == 1)
                    std::copy_n(p, n, dst);
                  else
                    for (int64_t j = 0; j < n; ++j)
                      dst[j] = p[j * in[0]];
                  dst += n;
                });
}

/// Materializes `x` laid out according to `shape`/`strides` (elements).
Tensor gatherStrided(const Tensor &x, int64_t base, ArrayRef<int64_t> shape,
                     const Shape &strides) {
  Tensor out = Tensor::empty(x.dtype(), shape);
  if (x.isFloat())
    stridedCopy(x.f(), base, shape, strides, out.f());
  else
    stridedCopy(x.i(), base, shape, strides, out.i());
  return out;
}

/// Elementwise `out = f(a, b)` with broadcasting; `a`, `b` of storage type T,
/// output of storage type R.
template <typename T, typename R, typename F>
void broadcastBinary(const T *a, const Shape &sa, const T *b, const Shape &sb,
                     const Shape &shape, R *o, F f) {
  forEachRun<2>(shape, {sa, sb},
                [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> in) {
                  const T *pa = a + off[0];
                  const T *pb = b + off[1];
                  if (in[0] == 1 && in[1] == 1) {
                    for (int64_t j = 0; j < n; ++j)
                      o[j] = f(pa[j], pb[j]);
                  } else if (in[0] == 1 && in[1] == 0) {
                    T y = *pb;
                    for (int64_t j = 0; j < n; ++j)
                      o[j] = f(pa[j], y);
                  } else if (in[0] == 0 && in[1] == 1) {
                    T x = *pa;
                    for (int64_t j = 0; j < n; ++j)
                      o[j] = f(x, pb[j]);
                  } else {
                    for (int64_t j = 0; j < n; ++j)
                      o[j] = f(pa[j * in[0]], pb[j * in[1]]);
                  }
                  o += n;
                });
}

Expected<Shape> runtimeBroadcast(const Tensor &a, const Tensor &b, llvm::StringRef what) {
  Shape out;
  if (!broadcastShapes(a.shape(), b.shape(), out))
    return fail(llvm::Twine(what) + ": shapes " + formatShape(a.shape()) + " and " +
                formatShape(b.shape()) + " do not broadcast");
  return out;
}

llvm::Error checkSameStorage(const Tensor &a, const Tensor &b, llvm::StringRef what) {
  if (a.dtype() != b.dtype())
    return fail(llvm::Twine(what) + ": element types differ (" + dtypeName(a.dtype()) +
                " and " + dtypeName(b.dtype()) + ")");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Axis helpers
//===----------------------------------------------------------------------===//

/// `x` viewed as [rows, rowLen] with the `axes` moved to the end (a copy only
/// when they are not already the trailing dims). `perm` is the permutation
/// applied, to be undone with `restoreAxes`.
struct RowView {
  Tensor rows;
  int64_t numRows = 1;
  int64_t rowLen = 1;
  Shape perm;       // empty when no transpose was needed
  Shape movedShape; // shape of `x` after the permutation
};

RowView moveAxesLast(const Tensor &x, ArrayRef<int64_t> axes) {
  RowView v;
  Shape sorted(axes.begin(), axes.end());
  llvm::sort(sorted);
  bool trailing = true;
  for (size_t k = 0; k < sorted.size(); ++k)
    trailing &= sorted[k] == x.rank() - static_cast<int64_t>(sorted.size() - k);
  for (int64_t a : sorted)
    v.rowLen *= x.shape()[a];
  v.numRows = v.rowLen == 0 ? 0 : x.numel() / v.rowLen;
  if (trailing) {
    v.rows = x;
    v.movedShape.assign(x.shape().begin(), x.shape().end());
    return v;
  }
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!llvm::is_contained(sorted, d))
      v.perm.push_back(d);
  v.perm.append(sorted.begin(), sorted.end());
  v.movedShape = transposedShape(x.shape(), v.perm);
  Shape rm = rowMajorStrides(x.shape());
  v.rows = gatherStrided(x, 0, v.movedShape, transposedShape(rm, v.perm));
  return v;
}

/// Undoes `moveAxesLast` on a result laid out as `v.movedShape`.
Tensor restoreAxes(const RowView &v, const Tensor &moved) {
  if (v.perm.empty())
    return moved;
  Shape inverse(v.perm.size());
  for (size_t i = 0; i < v.perm.size(); ++i)
    inverse[v.perm[i]] = static_cast<int64_t>(i);
  Shape rm = rowMajorStrides(v.movedShape);
  Shape outShape = transposedShape(v.movedShape, inverse);
  return gatherStrided(moved, 0, outShape, transposedShape(rm, inverse));
}

/// Broadcasts an optional per-element parameter (norm weight/bias) to the
/// shape of `x` and lays it out like `v`. Returns a null tensor when absent.
/// When the parameter already has exactly the trailing row shape, it is used
/// as is (`perRow` = false means it repeats every row).
struct ParamView {
  Tensor t;
  bool repeatsPerRow = false;
};

Expected<ParamView> layoutParam(const Tensor *p, const Tensor &x, const RowView &v,
                                llvm::StringRef what) {
  ParamView pv;
  if (!p)
    return pv;
  if (!isBroadcastableTo(p->shape(), x.shape()))
    return fail(llvm::Twine(what) + " of shape " + formatShape(p->shape()) +
                " does not broadcast to " + formatShape(x.shape()));
  if (v.perm.empty() && numElements(p->shape()) == v.rowLen) {
    // Trailing dims only, e.g. weight [D] for a norm over the last axis.
    bool trailingOnly = true;
    int64_t lead = x.rank() - p->rank();
    for (int64_t d = 0; d < p->rank(); ++d)
      trailingOnly &= p->shape()[d] == x.shape()[lead + d];
    if (trailingOnly) {
      pv.t = *p;
      pv.repeatsPerRow = true;
      return pv;
    }
  }
  // General case: materialize the parameter at the input's shape, permuted
  // like the input, so that element k of a row matches element k of `x`.
  Shape bs = broadcastStrides(p->shape(), x.shape());
  pv.t = v.perm.empty() ? gatherStrided(*p, 0, x.shape(), bs)
                        : gatherStrided(*p, 0, v.movedShape, transposedShape(bs, v.perm));
  return pv;
}

//===----------------------------------------------------------------------===//
// Scalar functions
//===----------------------------------------------------------------------===//

using neuronc::geluErf;
using neuronc::geluTanh;
using neuronc::sigmoidf;

template <typename F>
void mapFloat(const Tensor &x, Tensor &out, F f) {
  const float *p = x.f();
  float *o = out.f();
  int64_t n = x.numel();
  for (int64_t k = 0; k < n; ++k)
    o[k] = f(p[k]);
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Expected<Tensor> binary(BinaryKind kind, const Tensor &lhs, const Tensor &rhs) {
  if (auto err = checkSameStorage(lhs, rhs, "binary op"))
    return std::move(err);
  auto shape = runtimeBroadcast(lhs, rhs, "binary op");
  if (!shape)
    return shape.takeError();
  Tensor out = Tensor::empty(lhs.dtype(), *shape);
  Shape sa = broadcastStrides(lhs.shape(), *shape);
  Shape sb = broadcastStrides(rhs.shape(), *shape);
  if (lhs.isFloat()) {
    auto run = [&](auto f) { broadcastBinary(lhs.f(), sa, rhs.f(), sb, *shape, out.f(), f); };
    switch (kind) {
    case BinaryKind::Add: run([](float a, float b) { return a + b; }); break;
    case BinaryKind::Sub: run([](float a, float b) { return a - b; }); break;
    case BinaryKind::Mul: run([](float a, float b) { return a * b; }); break;
    case BinaryKind::Div: run([](float a, float b) { return a / b; }); break;
    case BinaryKind::Max: run([](float a, float b) { return std::isnan(a) || a > b ? a : b; }); break;
    case BinaryKind::Min: run([](float a, float b) { return std::isnan(a) || a < b ? a : b; }); break;
    case BinaryKind::Pow: run([](float a, float b) { return std::pow(a, b); }); break;
    default: return fail("bitwise and shift ops are defined on integer tensors only");
    }
    out.roundToType();
    return out;
  }
  auto run = [&](auto f) { broadcastBinary(lhs.i(), sa, rhs.i(), sb, *shape, out.i(), f); };
  switch (kind) {
  case BinaryKind::Add:
    run([](int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); });
    break;
  case BinaryKind::Sub:
    run([](int32_t a, int32_t b) { return int32_t(uint32_t(a) - uint32_t(b)); });
    break;
  case BinaryKind::Mul:
    run([](int32_t a, int32_t b) { return int32_t(uint32_t(a) * uint32_t(b)); });
    break;
  case BinaryKind::Div: {
    const int32_t *pb = rhs.i();
    for (int64_t k = 0; k < rhs.numel(); ++k)
      if (pb[k] == 0)
        return fail("integer division by zero");
    run([](int32_t a, int32_t b) {
      return b == -1 ? int32_t(0u - uint32_t(a)) : int32_t(a / b);
    });
    break;
  }
  case BinaryKind::Max: run([](int32_t a, int32_t b) { return std::max(a, b); }); break;
  case BinaryKind::Min: run([](int32_t a, int32_t b) { return std::min(a, b); }); break;
  case BinaryKind::Pow: return fail("pow is defined on floating-point tensors only");
  case BinaryKind::BitAnd: run([](int32_t a, int32_t b) { return a & b; }); break;
  case BinaryKind::BitOr: run([](int32_t a, int32_t b) { return a | b; }); break;
  case BinaryKind::BitXor: run([](int32_t a, int32_t b) { return a ^ b; }); break;
  case BinaryKind::Shl:
    run([](int32_t a, int32_t b) { return shiftLeft(a, b); });
    break;
  case BinaryKind::ShrS:
    run([](int32_t a, int32_t b) { return shiftRightArithmetic(a, b); });
    break;
  case BinaryKind::ShrU:
    run([](int32_t a, int32_t b) { return shiftRightLogical(a, b); });
    break;
  }
  out.roundToType();
  return out;
}

Expected<Tensor> compare(CompareKind kind, const Tensor &lhs, const Tensor &rhs) {
  if (auto err = checkSameStorage(lhs, rhs, "compare"))
    return std::move(err);
  auto shape = runtimeBroadcast(lhs, rhs, "compare");
  if (!shape)
    return shape.takeError();
  Tensor out = Tensor::empty(DType::I1, *shape);
  Shape sa = broadcastStrides(lhs.shape(), *shape);
  Shape sb = broadcastStrides(rhs.shape(), *shape);
  auto dispatch = [&](const auto *a, const auto *b) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(a)>>;
    auto run = [&](auto f) { broadcastBinary(a, sa, b, sb, *shape, out.i(), f); };
    switch (kind) {
    case CompareKind::EQ: run([](T x, T y) { return int32_t(x == y); }); break;
    case CompareKind::LT: run([](T x, T y) { return int32_t(x < y); }); break;
    case CompareKind::LE: run([](T x, T y) { return int32_t(x <= y); }); break;
    case CompareKind::GT: run([](T x, T y) { return int32_t(x > y); }); break;
    case CompareKind::GE: run([](T x, T y) { return int32_t(x >= y); }); break;
    }
  };
  if (lhs.isFloat())
    dispatch(lhs.f(), rhs.f());
  else
    dispatch(lhs.i(), rhs.i());
  return out;
}

Expected<Tensor> select(const Tensor &cond, const Tensor &onTrue, const Tensor &onFalse) {
  if (auto err = checkSameStorage(onTrue, onFalse, "select"))
    return std::move(err);
  auto valueShape = runtimeBroadcast(onTrue, onFalse, "select");
  if (!valueShape)
    return valueShape.takeError();
  Shape shape;
  if (!broadcastShapes(cond.shape(), *valueShape, shape))
    return fail("select: condition shape " + formatShape(cond.shape()) +
                " does not broadcast with " + formatShape(*valueShape));
  Tensor out = Tensor::empty(onTrue.dtype(), shape);
  std::array<Shape, 3> strides = {broadcastStrides(cond.shape(), shape),
                                  broadcastStrides(onTrue.shape(), shape),
                                  broadcastStrides(onFalse.shape(), shape)};
  auto run = [&](const auto *t, const auto *f, auto *o) {
    const int32_t *c = cond.i();
    forEachRun<3>(shape, strides,
                  [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> in) {
                    for (int64_t j = 0; j < n; ++j)
                      o[j] = c[off[0] + j * in[0]] ? t[off[1] + j * in[1]]
                                                   : f[off[2] + j * in[2]];
                    o += n;
                  });
  };
  if (out.isFloat())
    run(onTrue.f(), onFalse.f(), out.f());
  else
    run(onTrue.i(), onFalse.i(), out.i());
  return out;
}

Expected<Tensor> unary(UnaryKind kind, const Tensor &x) {
  Tensor out = Tensor::empty(x.dtype(), x.shape());
  if (!x.isFloat()) {
    const int32_t *p = x.i();
    int32_t *o = out.i();
    int64_t n = x.numel();
    switch (kind) {
    case UnaryKind::Neg:
      for (int64_t k = 0; k < n; ++k)
        o[k] = int32_t(0u - uint32_t(p[k]));
      break;
    case UnaryKind::Abs:
      for (int64_t k = 0; k < n; ++k)
        o[k] = p[k] < 0 ? int32_t(0u - uint32_t(p[k])) : p[k];
      break;
    case UnaryKind::Square:
      for (int64_t k = 0; k < n; ++k)
        o[k] = int32_t(uint32_t(p[k]) * uint32_t(p[k]));
      break;
    case UnaryKind::Relu:
      for (int64_t k = 0; k < n; ++k)
        o[k] = std::max(p[k], 0);
      break;
    default:
      return fail("this unary op is defined on floating-point tensors only");
    }
    out.roundToType();
    return out;
  }
  switch (kind) {
  case UnaryKind::Neg: mapFloat(x, out, [](float v) { return -v; }); break;
  case UnaryKind::Abs: mapFloat(x, out, [](float v) { return std::fabs(v); }); break;
  case UnaryKind::Exp: mapFloat(x, out, [](float v) { return std::exp(v); }); break;
  case UnaryKind::Log: mapFloat(x, out, [](float v) { return std::log(v); }); break;
  case UnaryKind::Sqrt: mapFloat(x, out, [](float v) { return std::sqrt(v); }); break;
  case UnaryKind::Rsqrt: mapFloat(x, out, [](float v) { return 1.0f / std::sqrt(v); }); break;
  case UnaryKind::Reciprocal: mapFloat(x, out, [](float v) { return 1.0f / v; }); break;
  case UnaryKind::Square: mapFloat(x, out, [](float v) { return v * v; }); break;
  case UnaryKind::Tanh: mapFloat(x, out, [](float v) { return std::tanh(v); }); break;
  case UnaryKind::Sigmoid: mapFloat(x, out, sigmoidf); break;
  case UnaryKind::Erf: mapFloat(x, out, [](float v) { return std::erf(v); }); break;
  case UnaryKind::Sin: mapFloat(x, out, [](float v) { return std::sin(v); }); break;
  case UnaryKind::Cos: mapFloat(x, out, [](float v) { return std::cos(v); }); break;
  case UnaryKind::GeluErf: mapFloat(x, out, geluErf); break;
  case UnaryKind::GeluTanh: mapFloat(x, out, geluTanh); break;
  case UnaryKind::Silu: mapFloat(x, out, [](float v) { return v * sigmoidf(v); }); break;
  case UnaryKind::Relu: mapFloat(x, out, [](float v) { return v > 0.0f ? v : 0.0f; }); break;
  case UnaryKind::Round: mapFloat(x, out, [](float v) { return std::nearbyint(v); }); break;
  case UnaryKind::Floor: mapFloat(x, out, [](float v) { return std::floor(v); }); break;
  case UnaryKind::Ceil: mapFloat(x, out, [](float v) { return std::ceil(v); }); break;
  }
  out.roundToType();
  return out;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Expected<Tensor> reduce(ReduceKind kind, const Tensor &x, ArrayRef<int64_t> axes,
                        bool keepdims) {
  std::string err = checkAxes(axes, x.rank());
  if (!err.empty())
    return fail("reduce: " + err);
  RowView v = moveAxesLast(x, axes);
  Tensor out = Tensor::empty(x.dtype(), reducedShape(x.shape(), axes, keepdims));
  int64_t len = v.rowLen;
  if ((kind == ReduceKind::Max || kind == ReduceKind::Min) && len == 0)
    return fail("reduce_max/reduce_min over an empty axis has no identity");
  if (x.isFloat()) {
    const float *p = v.rows.f();
    float *o = out.f();
    for (int64_t r = 0; r < v.numRows; ++r, p += len) {
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean: {
        double acc = 0.0;
        for (int64_t j = 0; j < len; ++j)
          acc += p[j];
        o[r] = static_cast<float>(kind == ReduceKind::Mean ? acc / len : acc);
        break;
      }
      case ReduceKind::Prod: {
        double acc = 1.0;
        for (int64_t j = 0; j < len; ++j)
          acc *= p[j];
        o[r] = static_cast<float>(acc);
        break;
      }
      case ReduceKind::Max: {
        float m = p[0];
        for (int64_t j = 1; j < len; ++j)
          m = (std::isnan(m) || m >= p[j]) ? m : p[j];
        o[r] = m;
        break;
      }
      case ReduceKind::Min: {
        float m = p[0];
        for (int64_t j = 1; j < len; ++j)
          m = (std::isnan(m) || m <= p[j]) ? m : p[j];
        o[r] = m;
        break;
      }
      }
    }
  } else {
    const int32_t *p = v.rows.i();
    int32_t *o = out.i();
    for (int64_t r = 0; r < v.numRows; ++r, p += len) {
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean: {
        int64_t acc = 0;
        for (int64_t j = 0; j < len; ++j)
          acc += p[j];
        if (kind == ReduceKind::Mean)
          acc = len ? acc / len : 0;
        o[r] = static_cast<int32_t>(static_cast<uint32_t>(acc));
        break;
      }
      case ReduceKind::Prod: {
        uint32_t acc = 1;
        for (int64_t j = 0; j < len; ++j)
          acc *= static_cast<uint32_t>(p[j]);
        o[r] = static_cast<int32_t>(acc);
        break;
      }
      case ReduceKind::Max:
        o[r] = *std::max_element(p, p + len);
        break;
      case ReduceKind::Min:
        o[r] = *std::min_element(p, p + len);
        break;
      }
    }
  }
  out.roundToType();
  return out;
}

//===----------------------------------------------------------------------===//
// Matmul and data movement
//===----------------------------------------------------------------------===//

Expected<Tensor> transpose(const Tensor &x, ArrayRef<int64_t> perm) {
  std::string err = checkPermutation(perm, x.rank());
  if (!err.empty())
    return fail("transpose: " + err);
  Shape rm = rowMajorStrides(x.shape());
  return gatherStrided(x, 0, transposedShape(x.shape(), perm), transposedShape(rm, perm));
}

Tensor swapLastTwoDims(const Tensor &x) {
  Shape perm(x.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[x.rank() - 1], perm[x.rank() - 2]);
  Shape rm = rowMajorStrides(x.shape());
  return gatherStrided(x, 0, transposedShape(x.shape(), perm), transposedShape(rm, perm));
}

namespace {

/// C[M,N] += A[M,K] B[K,N] for one batch, accumulating in Acc.
template <typename T, typename Acc>
void matmulBatch(const T *a, const T *b, T *c, int64_t m, int64_t k, int64_t n,
                 std::vector<Acc> &row) {
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), Acc(0));
    const T *ai = a + i * k;
    for (int64_t p = 0; p < k; ++p) {
      Acc s = static_cast<Acc>(ai[p]);
      const T *bp = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += s * static_cast<Acc>(bp[j]);
    }
    for (int64_t j = 0; j < n; ++j)
      c[i * n + j] = static_cast<T>(row[j]);
  }
}
} // namespace

Expected<Tensor> matmul(const Tensor &lhs, const Tensor &rhs, bool transposeLhs,
                        bool transposeRhs, std::optional<DType> resultType) {
  if (auto err = checkSameStorage(lhs, rhs, "matmul"))
    return std::move(err);
  DType outType = resultType.value_or(lhs.dtype());
  if (isFloat(outType) != lhs.isFloat())
    return fail("matmul: result and operands must both be float or both integer");
  Shape outShape;
  std::string err =
      matmulShape(lhs.shape(), rhs.shape(), transposeLhs, transposeRhs, outShape);
  if (!err.empty())
    return fail("matmul: " + err);
  Tensor a = transposeLhs ? swapLastTwoDims(lhs) : lhs;
  Tensor b = transposeRhs ? swapLastTwoDims(rhs) : rhs;
  int64_t m = a.shape()[a.rank() - 2], k = a.shape()[a.rank() - 1];
  int64_t n = b.shape()[b.rank() - 1];
  Tensor out = Tensor::empty(outType, outShape);
  Shape batch(outShape.begin(), outShape.end() - 2);
  // Offsets of each batch's matrix in a and b, via broadcast strides.
  Shape sa = broadcastStrides(a.shape().drop_back(2), batch);
  Shape sb = broadcastStrides(b.shape().drop_back(2), batch);
  int64_t numBatches = numElements(batch);
  Shape idx(batch.size(), 0);
  std::vector<double> rowF(n);
  std::vector<int64_t> rowI(n);
  for (int64_t bi = 0; bi < numBatches; ++bi) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      oa += idx[d] * sa[d];
      ob += idx[d] * sb[d];
    }
    if (out.isFloat())
      matmulBatch(a.f() + oa * m * k, b.f() + ob * k * n, out.f() + bi * m * n, m, k, n, rowF);
    else
      matmulBatch(a.i() + oa * m * k, b.i() + ob * k * n, out.i() + bi * m * n, m, k, n, rowI);
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      if (++idx[d] < batch[d])
        break;
      idx[d] = 0;
    }
  }
  out.roundToType();
  return out;
}

Expected<Tensor> reshape(const Tensor &x, ArrayRef<int64_t> shape) {
  if (numElements(shape) != x.numel())
    return fail("reshape: cannot view " + std::to_string(x.numel()) + " elements (" +
                formatShape(x.shape()) + ") as " + formatShape(shape));
  return x.reshaped(shape);
}

Expected<Tensor> broadcastTo(const Tensor &x, ArrayRef<int64_t> shape) {
  if (!isBroadcastableTo(x.shape(), shape))
    return fail("broadcast_to: shape " + formatShape(x.shape()) + " does not broadcast to " +
                formatShape(shape));
  return gatherStrided(x, 0, shape, broadcastStrides(x.shape(), shape));
}

Expected<Tensor> slice(const Tensor &x, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                       ArrayRef<int64_t> strides) {
  if (offsets.size() != size_t(x.rank()) || sizes.size() != size_t(x.rank()) ||
      strides.size() != size_t(x.rank()))
    return fail("slice: offsets, sizes and strides must each have one entry per dim");
  Shape rm = rowMajorStrides(x.shape());
  Shape st(x.rank());
  int64_t base = 0;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (offsets[d] < 0 || sizes[d] < 0 || strides[d] < 1 ||
        (sizes[d] > 0 && offsets[d] + (sizes[d] - 1) * strides[d] >= x.shape()[d]))
      return fail("slice: dim " + std::to_string(d) + " reads outside [0, " +
                  std::to_string(x.shape()[d]) + ")");
    base += offsets[d] * rm[d];
    st[d] = strides[d] * rm[d];
  }
  return gatherStrided(x, base, sizes, st);
}

Expected<Tensor> concat(ArrayRef<Tensor> inputs, int64_t axis) {
  if (inputs.empty())
    return fail("concat: needs at least one input");
  const Tensor &first = inputs.front();
  if (axis < 0 || axis >= first.rank())
    return fail("concat: axis out of range");
  Shape shape(first.shape().begin(), first.shape().end());
  shape[axis] = 0;
  for (const Tensor &t : inputs) {
    if (t.rank() != first.rank() || t.dtype() != first.dtype())
      return fail("concat: inputs differ in rank or element type");
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != axis && t.shape()[d] != first.shape()[d])
        return fail("concat: inputs differ in dim " + std::to_string(d));
    shape[axis] += t.shape()[axis];
  }
  Tensor out = Tensor::empty(first.dtype(), shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < first.rank(); ++d)
    inner *= shape[d];
  // Storage is 32 bits for every host type, so copy raw words.
  auto *o = reinterpret_cast<uint32_t *>(out.i());
  for (int64_t r = 0; r < outer; ++r)
    for (const Tensor &t : inputs) {
      int64_t chunk = t.shape()[axis] * inner;
      const auto *p = reinterpret_cast<const uint32_t *>(t.i()) + r * chunk;
      o = std::copy_n(p, chunk, o);
    }
  return out;
}

Expected<Tensor> gather(const Tensor &table, const Tensor &indices, int64_t axis) {
  if (axis < 0 || axis >= table.rank())
    return fail("gather: axis out of range");
  if (indices.isFloat())
    return fail("gather: indices must be integers");
  Shape shape(table.shape().begin(), table.shape().begin() + axis);
  shape.append(indices.shape().begin(), indices.shape().end());
  shape.append(table.shape().begin() + axis + 1, table.shape().end());
  Tensor out = Tensor::empty(table.dtype(), shape);
  int64_t outer = 1, inner = 1, dim = table.shape()[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= table.shape()[d];
  for (int64_t d = axis + 1; d < table.rank(); ++d)
    inner *= table.shape()[d];
  const int32_t *ids = indices.i();
  const auto *src = reinterpret_cast<const uint32_t *>(table.i());
  auto *o = reinterpret_cast<uint32_t *>(out.i());
  for (int64_t r = 0; r < outer; ++r)
    for (int64_t k = 0; k < indices.numel(); ++k) {
      int32_t id = ids[k];
      if (id < 0 || id >= dim)
        return fail("gather: index " + std::to_string(id) + " at position " +
                    std::to_string(k) + " is outside [0, " + std::to_string(dim) + ")");
      o = std::copy_n(src + (r * dim + id) * inner, inner, o);
    }
  return out;
}

Expected<Tensor> cast(const Tensor &x, DType to) {
  if (to == DType::F64 || to == DType::I64)
    return fail("cast: the interpreter has no " + dtypeName(to).str() +
                "; legalize types first");
  Tensor out = Tensor::empty(to, x.shape());
  int64_t n = x.numel();
  if (x.isFloat() && isFloat(to)) {
    std::copy_n(x.f(), n, out.f());
  } else if (x.isFloat() && to == DType::I1) {
    for (int64_t k = 0; k < n; ++k)
      out.i()[k] = x.f()[k] != 0.0f;
  } else if (x.isFloat()) {
    for (int64_t k = 0; k < n; ++k) {
      float v = x.f()[k];
      int32_t r;
      if (std::isnan(v))
        r = 0;
      else if (v >= 2147483647.0f)
        r = INT32_MAX;
      else if (v <= -2147483648.0f)
        r = INT32_MIN;
      else
        r = static_cast<int32_t>(v); // truncates toward zero
      out.i()[k] = r;
    }
  } else if (isFloat(to)) {
    for (int64_t k = 0; k < n; ++k)
      out.f()[k] = static_cast<float>(x.i()[k]);
  } else if (to == DType::I1) {
    for (int64_t k = 0; k < n; ++k)
      out.i()[k] = x.i()[k] != 0;
  } else {
    std::copy_n(x.i(), n, out.i());
  }
  out.roundToType();
  return out;
}

//===----------------------------------------------------------------------===//
// Named kernels
//===----------------------------------------------------------------------===//

Expected<Tensor> rmsnorm(const Tensor &x, const Tensor *weight, ArrayRef<int64_t> axes,
                         float epsilon) {
  std::string err = checkAxes(axes, x.rank());
  if (!err.empty())
    return fail("rmsnorm: " + err);
  if (!x.isFloat())
    return fail("rmsnorm: input must be floating point");
  RowView v = moveAxesLast(x, axes);
  auto w = layoutParam(weight, x, v, "rmsnorm weight");
  if (!w)
    return w.takeError();
  Tensor moved = Tensor::empty(x.dtype(), v.movedShape);
  int64_t len = v.rowLen;
  const float *p = v.rows.f();
  float *o = moved.f();
  for (int64_t r = 0; r < v.numRows; ++r, p += len, o += len) {
    double ss = 0.0;
    for (int64_t j = 0; j < len; ++j)
      ss += static_cast<double>(p[j]) * p[j];
    float scale = 1.0f / std::sqrt(static_cast<float>(ss / len) + epsilon);
    if (!w->t.valid()) {
      for (int64_t j = 0; j < len; ++j)
        o[j] = p[j] * scale;
    } else {
      const float *wp = w->t.f() + (w->repeatsPerRow ? 0 : r * len);
      for (int64_t j = 0; j < len; ++j)
        o[j] = p[j] * scale * wp[j];
    }
  }
  moved.roundToType();
  return restoreAxes(v, moved);
}

Expected<Tensor> layernorm(const Tensor &x, const Tensor *weight, const Tensor *bias,
                           ArrayRef<int64_t> axes, float epsilon) {
  std::string err = checkAxes(axes, x.rank());
  if (!err.empty())
    return fail("layernorm: " + err);
  if (!x.isFloat())
    return fail("layernorm: input must be floating point");
  RowView v = moveAxesLast(x, axes);
  auto w = layoutParam(weight, x, v, "layernorm weight");
  if (!w)
    return w.takeError();
  auto b = layoutParam(bias, x, v, "layernorm bias");
  if (!b)
    return b.takeError();
  Tensor moved = Tensor::empty(x.dtype(), v.movedShape);
  int64_t len = v.rowLen;
  const float *p = v.rows.f();
  float *o = moved.f();
  for (int64_t r = 0; r < v.numRows; ++r, p += len, o += len) {
    double sum = 0.0;
    for (int64_t j = 0; j < len; ++j)
      sum += p[j];
    double mean = sum / len;
    double var = 0.0;
    for (int64_t j = 0; j < len; ++j)
      var += (p[j] - mean) * (p[j] - mean);
    var /= len;
    float scale = 1.0f / std::sqrt(static_cast<float>(var) + epsilon);
    float m = static_cast<float>(mean);
    const float *wp = w->t.valid() ? w->t.f() + (w->repeatsPerRow ? 0 : r * len) : nullptr;
    const float *bp = b->t.valid() ? b->t.f() + (b->repeatsPerRow ? 0 : r * len) : nullptr;
    for (int64_t j = 0; j < len; ++j) {
      float y = (p[j] - m) * scale;
      if (wp)
        y *= wp[j];
      if (bp)
        y += bp[j];
      o[j] = y;
    }
  }
  moved.roundToType();
  return restoreAxes(v, moved);
}

Expected<Tensor> softmax(const Tensor &x, int64_t axis, bool log) {
  if (axis < 0 || axis >= x.rank())
    return fail("softmax: axis " + std::to_string(axis) + " is out of range");
  if (!x.isFloat())
    return fail("softmax: input must be floating point");
  int64_t axes[] = {axis};
  RowView v = moveAxesLast(x, axes);
  Tensor moved = Tensor::empty(x.dtype(), v.movedShape);
  int64_t len = v.rowLen;
  const float *p = v.rows.f();
  float *o = moved.f();
  for (int64_t r = 0; r < v.numRows; ++r, p += len, o += len) {
    float m = -INFINITY;
    for (int64_t j = 0; j < len; ++j)
      m = std::max(m, p[j]);
    double sum = 0.0;
    for (int64_t j = 0; j < len; ++j)
      sum += std::exp(p[j] - m);
    if (log) {
      float lse = std::log(static_cast<float>(sum));
      for (int64_t j = 0; j < len; ++j)
        o[j] = p[j] - m - lse;
    } else {
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < len; ++j)
        o[j] = std::exp(p[j] - m) * inv;
    }
  }
  moved.roundToType();
  return restoreAxes(v, moved);
}

Expected<Tensor> attention(const Tensor &q, const Tensor &k, const Tensor &v, const Tensor *mask,
                           float scale, std::optional<int64_t> causalOffset, DType resultType) {
  if (!q.isFloat() || !k.isFloat() || !v.isFloat() || (mask && !mask->isFloat()))
    return fail("attention: operands must be floating point");
  int64_t rank = q.rank();
  if (rank < 3 || k.rank() != rank || v.rank() != rank)
    return fail("attention: query, key and value must have one rank >= 3");
  int64_t h = q.shape()[rank - 3], m = q.shape()[rank - 2], d = q.shape()[rank - 1];
  int64_t g = k.shape()[rank - 3], n = k.shape()[rank - 2], dv = v.shape()[rank - 1];
  if (g <= 0 || h % g != 0 || k.shape()[rank - 1] != d || v.shape()[rank - 2] != n ||
      v.shape()[rank - 3] != g || q.shape().drop_back(3) != k.shape().drop_back(3) ||
      q.shape().drop_back(3) != v.shape().drop_back(3))
    return fail("attention: incompatible shapes " + formatShape(q.shape()) + ", " +
                formatShape(k.shape()) + ", " + formatShape(v.shape()));
  Shape scores(q.shape());
  scores.back() = n;
  Shape maskStrides;
  if (mask) {
    if (!isBroadcastableTo(mask->shape(), scores))
      return fail("attention: mask " + formatShape(mask->shape()) + " does not broadcast to " +
                  formatShape(scores));
    maskStrides = broadcastStrides(mask->shape(), scores);
  }
  Shape outShape(q.shape());
  outShape.back() = dv;
  Tensor out = Tensor::empty(resultType, outShape);
  int64_t batches = numElements(q.shape().drop_back(3)), r = h / g;
  std::vector<double> s(n), acc(dv);
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t hi = 0; hi < h; ++hi) {
      int64_t gi = hi / r;
      const float *qh = q.f() + (b * h + hi) * m * d;
      const float *kh = k.f() + (b * g + gi) * n * d;
      const float *vh = v.f() + (b * g + gi) * n * dv;
      float *oh = out.f() + (b * h + hi) * m * dv;
      for (int64_t i = 0; i < m; ++i) {
        // The mask element of score (b, hi, i, j): batch dims flattened.
        int64_t maskBase = 0;
        if (mask) {
          Shape idx(rank, 0);
          int64_t rest = b;
          for (int64_t dd = rank - 4; dd >= 0; --dd) {
            idx[dd] = rest % scores[dd];
            rest /= scores[dd];
          }
          idx[rank - 3] = hi;
          idx[rank - 2] = i;
          for (int64_t dd = 0; dd < rank; ++dd)
            maskBase += idx[dd] * maskStrides[dd];
        }
        double mx = -INFINITY;
        for (int64_t j = 0; j < n; ++j) {
          if (causalOffset && j > i + *causalOffset) {
            s[j] = -INFINITY;
            continue;
          }
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += static_cast<double>(qh[i * d + c]) * kh[j * d + c];
          s[j] = dot * scale + (mask ? mask->f()[maskBase + j * maskStrides[rank - 1]] : 0.0);
          mx = std::max(mx, s[j]);
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          if (s[j] == -INFINITY)
            continue;
          double p = std::exp(s[j] - mx);
          sum += p;
          for (int64_t c = 0; c < dv; ++c)
            acc[c] += p * vh[j * dv + c];
        }
        for (int64_t c = 0; c < dv; ++c)
          oh[i * dv + c] = static_cast<float>(sum > 0 ? acc[c] / sum : NAN);
      }
    }
  out.roundToType();
  return out;
}

} // namespace neuronc::ref
