//===- EvaluateConstants.cpp - ONNX nodes computed at import ---------------===//
//
// Importer::evaluate: a small numpy-like evaluator over known tensors, for
// the subgraphs exporters compute from constants and static shapes (shape
// arithmetic, F.pad's pads, Swin's shifted-window mask built with Mod,
// ScatterND, Range, Expand, Where, ...). Integers and booleans are computed
// in int64 and wrapped to their type's width; floats in double and rounded
// to their type (f32, f16, bf16) after every op, which for + - * / and sqrt
// gives exactly the float result. A node the evaluator does not compute (an
// op it does not know, a form it does not take, an integer division by zero,
// an index out of range, a result over kEvalLimit elements) returns nullopt
// and is converted to neuron ops like any other node, which report it.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>

using namespace neuronc::onnximport;

namespace {

/// For every element of a tensor of shape `out` (row-major), the flat index
/// of the element numpy broadcasting reads from a tensor of shape `in`.
SmallVector<int64_t> broadcastIndices(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  auto rank = static_cast<int64_t>(out.size());
  int64_t off = rank - static_cast<int64_t>(in.size());
  SmallVector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(in.size()) - 1; d >= 0; --d) {
    strides[d + off] = in[d] == 1 ? 0 : s;
    s *= in[d];
  }
  int64_t n = product(out);
  SmallVector<int64_t> result;
  result.reserve(n);
  SmallVector<int64_t> idx(rank, 0);
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    result.push_back(at);
    for (int64_t d = rank - 1; d >= 0; --d) {
      at += strides[d];
      if (++idx[d] < out[d])
        break;
      at -= strides[d] * out[d];
      idx[d] = 0;
    }
  }
  return result;
}

/// An empty result of `shape` and element type `elem`, its storage sized.
Known makeResult(ArrayRef<int64_t> shape, Type elem) {
  Known r;
  r.shape.assign(shape.begin(), shape.end());
  r.elem = elem;
  r.isFloat = isa<FloatType>(elem);
  int64_t n = product(shape);
  r.values.assign(n, 0);
  if (r.isFloat)
    r.reals.assign(n, 0.0);
  return r;
}

/// Element `src` of `x` copied into element `dst` of `r` (same element type).
void copyElem(Known &r, int64_t dst, const Known &x, int64_t src) {
  r.values[dst] = x.values[src];
  if (r.isFloat)
    r.reals[dst] = x.reals[src];
}

/// The elements of `x` at `positions` along each dim, the dims in `perm`
/// order (a Slice, a Transpose, one output of a Split).
Known pick(const Known &x, ArrayRef<SmallVector<int64_t>> positions, ArrayRef<int64_t> perm) {
  auto rank = static_cast<int64_t>(x.shape.size());
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * x.shape[d + 1];
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(static_cast<int64_t>(positions[perm[d]].size()));
  Known r = makeResult(shape, x.elem);
  int64_t count = product(shape);
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      at += positions[perm[d]][idx[d]] * inStrides[perm[d]];
    copyElem(r, i, x, at);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return r;
}

/// `x` truncated toward zero to an int64 (saturating; NaN is 0).
int64_t toInt(double x) {
  if (std::isnan(x))
    return 0;
  if (x >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (x <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}

/// Python's remainder: the sign of the divisor (ONNX Mod with fmod = 0).
int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

} // namespace

void neuronc::onnximport::roundToElem(Known &k) {
  Type elem = k.elem;
  if (k.isFloat) {
    k.values.resize(k.reals.size());
    for (size_t i = 0; i < k.reals.size(); ++i) {
      double &d = k.reals[i];
      if (elem && elem.isF32()) {
        d = static_cast<float>(d);
      } else if (auto ft = dyn_cast_or_null<FloatType>(elem); ft && !elem.isF64()) {
        APFloat f(d);
        bool lost;
        f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        d = f.convertToDouble();
      }
      k.values[i] = toInt(d);
    }
    return;
  }
  k.reals.clear();
  if (!elem || elem.isInteger(64) || !elem.isIntOrIndex())
    return;
  unsigned width = elem.getIntOrFloatBitWidth();
  for (int64_t &v : k.values) {
    if (width == 1)
      v = v != 0;
    else
      v = static_cast<int64_t>(static_cast<uint64_t>(v) << (64 - width)) >> (64 - width);
  }
}

std::optional<SmallVector<Known>> Importer::evaluate(ArrayRef<const Known *> in) {
  llvm::StringRef op = node->op_type();
  for (const Known *k : in)
    if (k && k->size() > kEvalLimit)
      return std::nullopt;
  auto given = [&](size_t i) { return i < in.size() && in[i]; };
  if (in.empty() || !in[0])
    return std::nullopt;
  const Known &x = *in[0];
  Type xElem = x.elem ? x.elem : b.getI64Type();
  SmallVector<Known> out;
  // Every result ends rounded to its element type.
  auto done = [&](Known r) -> std::optional<SmallVector<Known>> {
    if (r.size() > kEvalLimit)
      return std::nullopt;
    roundToElem(r);
    out.push_back(std::move(r));
    return std::move(out);
  };

  //===--- Elementwise ---------------------------------------------------===//

  using Fn = double (*)(double);
  static const llvm::StringMap<Fn> unaryFloat = {
      {"Neg", [](double v) { return -v; }},
      {"Abs", [](double v) { return std::fabs(v); }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"Exp", [](double v) { return std::exp(v); }},
      {"Log", [](double v) { return std::log(v); }},
      {"Reciprocal", [](double v) { return 1.0 / v; }},
      {"Floor", [](double v) { return std::floor(v); }},
      {"Ceil", [](double v) { return std::ceil(v); }},
      {"Relu", [](double v) { return std::max(v, 0.0); }},
      {"Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Erf", [](double v) { return std::erf(v); }},
      {"Sin", [](double v) { return std::sin(v); }},
      {"Cos", [](double v) { return std::cos(v); }},
      {"Softplus", [](double v) { return std::log1p(std::exp(v)); }},
  };
  if (auto it = unaryFloat.find(op); it != unaryFloat.end() && x.isFloat) {
    Known r = makeResult(x.shape, xElem);
    for (int64_t i = 0; i < x.size(); ++i)
      r.reals[i] = it->second(x.reals[i]);
    return done(std::move(r));
  }
  if (!x.isFloat && (op == "Neg" || op == "Abs" || op == "Relu" || op == "Not")) {
    Known r = makeResult(x.shape, xElem);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t v = x.values[i];
      r.values[i] = op == "Neg"    ? -v
                    : op == "Abs"  ? (v < 0 ? -v : v)
                    : op == "Relu" ? std::max<int64_t>(v, 0)
                                   : !v;
    }
    return done(std::move(r));
  }

  static const llvm::StringSet<> binaryOps = {
      "Add", "Sub", "Mul", "Div",   "Pow",  "Max",     "Min",         "Sum",           "Mod",
      "And", "Or",  "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"};
  if (binaryOps.contains(op)) {
    bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                   op == "GreaterOrEqual";
    bool logic = op == "And" || op == "Or" || op == "Xor";
    bool fmod = intAttr("fmod", 0) != 0;
    if (in.size() < 2 && op != "Max" && op != "Min" && op != "Sum")
      return std::nullopt;
    // Max, Min and Sum take any number of inputs: folded left to right.
    Known acc = x;
    acc.elem = xElem;
    for (size_t j = 1; j < in.size(); ++j) {
      if (!in[j])
        return std::nullopt;
      const Known &y = *in[j];
      std::optional<SmallVector<int64_t>> shape = broadcastShapes(acc.shape, y.shape);
      if (!shape)
        return std::nullopt;
      Type elem = compare || logic ? b.getI1Type() : acc.elem;
      Known r = makeResult(*shape, elem);
      SmallVector<int64_t> ia = broadcastIndices(acc.shape, *shape),
                           iy = broadcastIndices(y.shape, *shape);
      bool floats = acc.isFloat || y.isFloat;
      for (int64_t i = 0; i < r.size(); ++i) {
        if (compare) {
          bool c;
          if (floats) {
            double a = acc.at(ia[i]), v = y.at(iy[i]);
            c = op == "Equal"         ? a == v
                : op == "Less"        ? a < v
                : op == "Greater"     ? a > v
                : op == "LessOrEqual" ? a <= v
                                      : a >= v;
          } else {
            int64_t a = acc.values[ia[i]], v = y.values[iy[i]];
            c = op == "Equal"         ? a == v
                : op == "Less"        ? a < v
                : op == "Greater"     ? a > v
                : op == "LessOrEqual" ? a <= v
                                      : a >= v;
          }
          r.values[i] = c;
          continue;
        }
        if (logic) {
          bool a = acc.values[ia[i]] != 0, v = y.values[iy[i]] != 0;
          r.values[i] = op == "And" ? (a && v) : op == "Or" ? (a || v) : (a != v);
          continue;
        }
        if (r.isFloat) {
          double a = acc.at(ia[i]), v = y.at(iy[i]);
          double res;
          if (op == "Add" || op == "Sum")
            res = a + v;
          else if (op == "Sub")
            res = a - v;
          else if (op == "Mul")
            res = a * v;
          else if (op == "Div")
            res = a / v;
          else if (op == "Pow")
            res = std::pow(a, v);
          else if (op == "Max")
            res = std::isnan(a) || std::isnan(v) ? NAN : std::max(a, v);
          else if (op == "Min")
            res = std::isnan(a) || std::isnan(v) ? NAN : std::min(a, v);
          else { // Mod: C's fmod, or the divisor's sign (fmod = 0)
            res = std::fmod(a, v);
            if (!fmod && res != 0 && ((res < 0) != (v < 0)))
              res += v;
          }
          r.reals[i] = res;
          continue;
        }
        int64_t a = acc.values[ia[i]];
        int64_t v = y.isFloat ? toInt(y.reals[iy[i]]) : y.values[iy[i]];
        if ((op == "Div" || op == "Mod") && v == 0)
          return std::nullopt; // left for run time, which reports it
        if (op == "Add" || op == "Sum")
          r.values[i] = a + v;
        else if (op == "Sub")
          r.values[i] = a - v;
        else if (op == "Mul")
          r.values[i] = a * v;
        else if (op == "Div")
          r.values[i] = a / v;
        else if (op == "Max")
          r.values[i] = std::max(a, v);
        else if (op == "Min")
          r.values[i] = std::min(a, v);
        else if (op == "Mod")
          r.values[i] = fmod ? a % v : floorMod(a, v);
        else // Pow
          r.values[i] = toInt(std::pow(static_cast<double>(a), y.at(iy[i])));
      }
      roundToElem(r);
      acc = std::move(r);
    }
    return done(std::move(acc));
  }

  if (op == "Where") {
    if (!given(1) || !given(2))
      return std::nullopt;
    const Known &t = *in[1], &f = *in[2];
    std::optional<SmallVector<int64_t>> shape = broadcastShapes(x.shape, t.shape);
    if (shape)
      shape = broadcastShapes(*shape, f.shape);
    if (!shape || t.isFloat != f.isFloat)
      return std::nullopt;
    Known r = makeResult(*shape, t.elem ? t.elem : b.getI64Type());
    SmallVector<int64_t> ic = broadcastIndices(x.shape, *shape),
                         it = broadcastIndices(t.shape, *shape),
                         iff = broadcastIndices(f.shape, *shape);
    for (int64_t i = 0; i < r.size(); ++i) {
      if (x.values[ic[i]])
        copyElem(r, i, t, it[i]);
      else
        copyElem(r, i, f, iff[i]);
    }
    return done(std::move(r));
  }

  if (op == "Clip") {
    std::optional<double> lo, hi;
    if (opset >= 11) {
      if (given(1) && in[1]->size() == 1)
        lo = in[1]->at(0);
      if (given(2) && in[2]->size() == 1)
        hi = in[2]->at(0);
    } else {
      if (attr("min"))
        lo = floatAttr("min", 0);
      if (attr("max"))
        hi = floatAttr("max", 0);
    }
    Known r = x;
    r.elem = xElem;
    for (int64_t i = 0; i < r.size(); ++i) {
      if (r.isFloat) {
        if (lo)
          r.reals[i] = std::max(r.reals[i], *lo);
        if (hi)
          r.reals[i] = std::min(r.reals[i], *hi);
      } else {
        if (lo)
          r.values[i] = std::max(r.values[i], toInt(*lo));
        if (hi)
          r.values[i] = std::min(r.values[i], toInt(*hi));
      }
    }
    return done(std::move(r));
  }

  if (op == "Cast") {
    std::optional<Type> to = elementType(static_cast<int32_t>(intAttr("to", 0)));
    if (!to)
      return std::nullopt;
    Known r = makeResult(x.shape, *to);
    for (int64_t i = 0; i < x.size(); ++i) {
      if (r.isFloat)
        r.reals[i] = x.at(i);
      else if (to->isInteger(1))
        r.values[i] = x.isFloat ? x.reals[i] != 0 : x.values[i] != 0;
      else
        r.values[i] = x.isFloat ? toInt(x.reals[i]) : x.values[i];
    }
    return done(std::move(r));
  }

  //===--- Shapes and data movement --------------------------------------===//

  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    std::optional<SmallVector<int64_t>> shape = reshapedShape(x.shape);
    if (!shape)
      return std::nullopt;
    Known r = x;
    r.elem = xElem;
    r.shape = *shape;
    return done(std::move(r));
  }

  if (op == "Slice" || op == "Transpose") {
    auto rank = static_cast<int64_t>(x.shape.size());
    SmallVector<int64_t> perm;
    SmallVector<SmallVector<int64_t>> positions(rank);
    for (int64_t d = 0; d < rank; ++d) {
      perm.push_back(d);
      for (int64_t i = 0; i < x.shape[d]; ++i)
        positions[d].push_back(i);
    }
    if (op == "Transpose") {
      if (std::optional<SmallVector<int64_t>> p = intsAttr("perm"))
        perm = *p;
      else
        std::reverse(perm.begin(), perm.end());
      if (static_cast<int64_t>(perm.size()) != rank)
        return std::nullopt;
    } else {
      std::optional<SmallVector<int64_t>> starts, ends, axesIn, stepsIn;
      if (opset >= 10) {
        if (!given(1) || !given(2))
          return std::nullopt;
        starts = in[1]->values;
        ends = in[2]->values;
        if (given(3))
          axesIn = in[3]->values;
        if (given(4))
          stepsIn = in[4]->values;
      } else {
        starts = intsAttr("starts");
        ends = intsAttr("ends");
        axesIn = intsAttr("axes");
      }
      if (!starts || !ends || starts->size() != ends->size())
        return std::nullopt;
      SmallVector<int64_t> axes, steps;
      sliceAxesAndSteps(starts->size(), axesIn, stepsIn, axes, steps);
      if (axes.size() != starts->size() || steps.size() != starts->size())
        return std::nullopt;
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t axis = normAxis(axes[i], rank);
        if (axis < 0 || axis >= rank || steps[i] == 0)
          return std::nullopt;
        positions[axis] = slicePositions((*starts)[i], (*ends)[i], steps[i], x.shape[axis]);
      }
    }
    Known r = pick(x, positions, perm);
    r.elem = xElem;
    return done(std::move(r));
  }

  if (op == "Split") {
    auto rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = normAxis(intAttr("axis", 0), rank);
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    SmallVector<int64_t> sizes;
    if (opset >= 13 && given(1))
      sizes = in[1]->values;
    else if (std::optional<SmallVector<int64_t>> s = opset < 13 ? intsAttr("split") : std::nullopt)
      sizes = *s;
    else {
      int64_t n =
          opset >= 18 && attr("num_outputs") ? intAttr("num_outputs", 1) : node->output_size();
      int64_t d = x.shape[axis], chunk = n > 0 ? (d + n - 1) / n : d;
      for (int64_t at = 0; at < d; at += chunk)
        sizes.push_back(std::min(chunk, d - at));
    }
    if (static_cast<int>(sizes.size()) != node->output_size())
      return std::nullopt;
    int64_t at = 0;
    for (int64_t s : sizes) {
      SmallVector<SmallVector<int64_t>> positions(rank);
      SmallVector<int64_t> perm;
      for (int64_t d = 0; d < rank; ++d) {
        perm.push_back(d);
        int64_t from = d == axis ? at : 0, count = d == axis ? s : x.shape[d];
        for (int64_t i = 0; i < count; ++i)
          positions[d].push_back(from + i);
      }
      at += s;
      if (at > x.shape[axis])
        return std::nullopt;
      Known r = pick(x, positions, perm);
      r.elem = xElem;
      roundToElem(r);
      out.push_back(std::move(r));
    }
    return std::move(out);
  }

  if (op == "Concat") {
    auto rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = normAxis(intAttr("axis", 0), rank);
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    SmallVector<int64_t> shape(x.shape);
    shape[axis] = 0;
    for (const Known *k : in) {
      if (!k || static_cast<int64_t>(k->shape.size()) != rank || k->isFloat != x.isFloat)
        return std::nullopt;
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && k->shape[d] != x.shape[d])
          return std::nullopt;
      shape[axis] += k->shape[axis];
    }
    Known r = makeResult(shape, xElem);
    int64_t outer = product(ArrayRef<int64_t>(shape).take_front(axis));
    int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(axis + 1));
    int64_t at = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (const Known *k : in) {
        int64_t chunk = k->shape[axis] * inner;
        for (int64_t i = 0; i < chunk; ++i)
          copyElem(r, at++, *k, o * chunk + i);
      }
    return done(std::move(r));
  }

  if (op == "Gather") {
    if (!given(1) || in[1]->isFloat)
      return std::nullopt;
    const Known &idx = *in[1];
    auto rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = normAxis(intAttr("axis", 0), rank);
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    SmallVector<int64_t> shape(x.shape.begin(), x.shape.begin() + axis);
    shape.append(idx.shape.begin(), idx.shape.end());
    shape.append(x.shape.begin() + axis + 1, x.shape.end());
    if (product(shape) > kEvalLimit)
      return std::nullopt;
    Known r = makeResult(shape, xElem);
    int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
    int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
    int64_t n = x.shape[axis], at = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j : idx.values) {
        int64_t p = j < 0 ? j + n : j;
        if (p < 0 || p >= n)
          return std::nullopt;
        for (int64_t i = 0; i < inner; ++i)
          copyElem(r, at++, x, (o * n + p) * inner + i);
      }
    return done(std::move(r));
  }

  if (op == "Expand") {
    if (!given(1))
      return std::nullopt;
    std::optional<SmallVector<int64_t>> shape = broadcastShapes(x.shape, in[1]->values);
    if (!shape || product(*shape) > kEvalLimit)
      return std::nullopt;
    Known r = makeResult(*shape, xElem);
    SmallVector<int64_t> ix = broadcastIndices(x.shape, *shape);
    for (int64_t i = 0; i < r.size(); ++i)
      copyElem(r, i, x, ix[i]);
    return done(std::move(r));
  }

  if (op == "Tile") {
    if (!given(1) || in[1]->values.size() != x.shape.size())
      return std::nullopt;
    ArrayRef<int64_t> reps = in[1]->values;
    auto rank = static_cast<int64_t>(x.shape.size());
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d) {
      if (reps[d] < 0)
        return std::nullopt;
      shape.push_back(x.shape[d] * reps[d]);
    }
    if (product(shape) > kEvalLimit)
      return std::nullopt;
    Known r = makeResult(shape, xElem);
    SmallVector<int64_t> strides(rank, 1), idx(rank, 0);
    for (int64_t d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * x.shape[d + 1];
    for (int64_t i = 0; i < r.size(); ++i) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at += (idx[d] % x.shape[d]) * strides[d];
      copyElem(r, i, x, at);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < shape[d])
          break;
        idx[d] = 0;
      }
    }
    return done(std::move(r));
  }

  if (op == "ConstantOfShape") {
    if (x.isFloat || llvm::any_of(x.values, [](int64_t d) { return d < 0; }) ||
        product(x.values) > kEvalLimit)
      return std::nullopt;
    Known fill;
    fill.shape = {};
    fill.elem = b.getF32Type();
    fill.isFloat = true;
    fill.reals = {0.0};
    fill.values = {0};
    if (const auto *a = attr("value")) {
      std::optional<DenseElementsAttr> v = tensorAttr(a->t());
      if (!v || v->getNumElements() != 1)
        return std::nullopt;
      std::optional<Known> k = knownOf(*v);
      if (!k)
        return std::nullopt;
      fill = *k;
    }
    Known r = makeResult(x.values, fill.elem);
    for (int64_t i = 0; i < r.size(); ++i)
      copyElem(r, i, fill, 0);
    return done(std::move(r));
  }

  if (op == "Range") {
    if (!given(1) || !given(2) || x.size() != 1 || in[1]->size() != 1 || in[2]->size() != 1)
      return std::nullopt;
    Known r;
    if (x.isFloat) {
      double start = x.reals[0], limit = in[1]->at(0), delta = in[2]->at(0);
      if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit))
        return std::nullopt;
      double count = std::max(0.0, std::ceil((limit - start) / delta));
      if (count > static_cast<double>(kEvalLimit))
        return std::nullopt;
      auto n = static_cast<int64_t>(count);
      r = makeResult({n}, xElem);
      for (int64_t i = 0; i < n; ++i)
        r.reals[i] = start + static_cast<double>(i) * delta;
    } else {
      int64_t start = x.values[0], limit = in[1]->values[0], delta = in[2]->values[0];
      if (delta == 0)
        return std::nullopt;
      // ceil((limit - start) / delta), at least 0, in integers.
      int64_t span = limit - start;
      int64_t n = span / delta + ((span % delta != 0) && ((span < 0) == (delta < 0)) ? 1 : 0);
      n = std::max<int64_t>(n, 0);
      if (n > kEvalLimit)
        return std::nullopt;
      r = makeResult({n}, xElem);
      for (int64_t i = 0; i < n; ++i)
        r.values[i] = start + i * delta;
    }
    return done(std::move(r));
  }

  if (op == "ScatterND") {
    if (!given(1) || !given(2) || in[1]->isFloat || in[2]->isFloat != x.isFloat)
      return std::nullopt;
    const Known &idx = *in[1], &upd = *in[2];
    std::string reduction = "none";
    if (const auto *a = attr("reduction"))
      reduction = a->s();
    if (idx.shape.empty())
      return std::nullopt;
    int64_t k = idx.shape.back();
    auto rank = static_cast<int64_t>(x.shape.size());
    if (k < 1 || k > rank)
      return std::nullopt;
    // updates: indices.shape[:-1] + data.shape[k:]
    SmallVector<int64_t> want(idx.shape.begin(), idx.shape.end() - 1);
    want.append(x.shape.begin() + k, x.shape.end());
    if (ArrayRef<int64_t>(upd.shape) != ArrayRef<int64_t>(want))
      return std::nullopt;
    int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(k));
    int64_t tuples = product(ArrayRef<int64_t>(idx.shape).drop_back());
    Known r = x;
    r.elem = xElem;
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t row = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t p = idx.values[t * k + j], n = x.shape[j];
        p = p < 0 ? p + n : p;
        if (p < 0 || p >= n)
          return std::nullopt;
        row = row * n + p;
      }
      for (int64_t i = 0; i < inner; ++i) {
        int64_t dst = row * inner + i, src = t * inner + i;
        if (reduction == "none") {
          copyElem(r, dst, upd, src);
        } else if (r.isFloat) {
          double a = r.reals[dst], v = upd.reals[src];
          r.reals[dst] = reduction == "add"   ? a + v
                         : reduction == "mul" ? a * v
                         : reduction == "max" ? std::max(a, v)
                                              : std::min(a, v);
        } else {
          int64_t a = r.values[dst], v = upd.values[src];
          r.values[dst] = reduction == "add"   ? a + v
                          : reduction == "mul" ? a * v
                          : reduction == "max" ? std::max(a, v)
                                               : std::min(a, v);
        }
      }
    }
    return done(std::move(r));
  }

  //===--- Reductions -----------------------------------------------------===//

  if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax" || op == "ReduceMin" ||
      op == "ReduceProd") {
    auto rank = static_cast<int64_t>(x.shape.size());
    std::optional<SmallVector<int64_t>> axes;
    if ((op == "ReduceSum" && opset >= 13) || opset >= 18)
      axes = given(1) ? std::optional<SmallVector<int64_t>>(in[1]->values) : std::nullopt;
    else
      axes = intsAttr("axes");
    SmallVector<bool> reduced(rank, false);
    if (!axes || axes->empty()) {
      if (intAttr("noop_with_empty_axes", 0)) {
        Known r = x;
        r.elem = xElem;
        return done(std::move(r));
      }
      reduced.assign(rank, true);
    } else {
      for (int64_t a : *axes) {
        int64_t d = normAxis(a, rank);
        if (d < 0 || d >= rank)
          return std::nullopt;
        reduced[d] = true;
      }
    }
    if (x.size() == 0 || (op == "ReduceMean" && !x.isFloat))
      return std::nullopt;
    bool keep = intAttr("keepdims", 1) != 0;
    SmallVector<int64_t> shape, kept;
    for (int64_t d = 0; d < rank; ++d) {
      kept.push_back(reduced[d] ? 1 : x.shape[d]);
      if (!reduced[d] || keep)
        shape.push_back(kept.back());
    }
    Known r = makeResult(shape, xElem);
    SmallVector<int64_t> count(r.size(), 0);
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t o = 0;
      for (int64_t d = 0; d < rank; ++d)
        o = o * kept[d] + (reduced[d] ? 0 : idx[d]);
      bool first = count[o]++ == 0;
      auto combine = [&](auto &a, auto v) {
        a = first                ? v
            : op == "ReduceMax"  ? std::max(a, v)
            : op == "ReduceMin"  ? std::min(a, v)
            : op == "ReduceProd" ? a * v
                                 : a + v;
      };
      if (r.isFloat)
        combine(r.reals[o], x.reals[i]);
      else
        combine(r.values[o], x.values[i]);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < x.shape[d])
          break;
        idx[d] = 0;
      }
    }
    if (op == "ReduceMean")
      for (int64_t o = 0; o < r.size(); ++o)
        r.reals[o] /= static_cast<double>(count[o]);
    return done(std::move(r));
  }
  return std::nullopt;
}
