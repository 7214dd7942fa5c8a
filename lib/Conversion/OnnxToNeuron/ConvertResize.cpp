//===- ConvertResize.cpp - ONNX Resize ------------------------------------===//
//
// Importer::resize: ONNX's Resize (its reference formula per output
// position: every coordinate transformation, nearest mode, cubic
// coefficient, exclude_outside, tf_crop_and_resize's roi and extrapolation
// value). A float tensor resized only in its last two axes becomes two
// products with constant interpolation matrices (TensorE); anything else a
// gather per resized axis, and weighted sums of gathers for linear and cubic.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "neuronc/Dialect/Neuron/AutoCast.h"
#include "neuronc/Support/Shape.h"

#include <cmath>

using namespace neuronc::onnximport;

namespace {

/// What one output position of a resized axis reads: input positions and
/// their weights, or the extrapolation value (tf_crop_and_resize outside
/// the crop).
struct Taps {
  SmallVector<int64_t, 4> index;
  SmallVector<double, 4> weight;
  bool outside = false;
};

/// ONNX's Resize along one axis (its reference implementation, per output
/// position): the input coordinate by `transform`, then the `n`
/// neighbours around it (edge positions repeated) weighted by `mode`.
struct AxisResize {
  std::string mode, transform, nearest;
  double cubicA = -0.75;
  bool excludeOutside = false;
  double roiStart = 0, roiEnd = 1;

  std::optional<Taps> taps(int64_t x, int64_t in, double scale) const {
    double outWidth = scale * static_cast<double>(in), xo;
    auto xd = static_cast<double>(x);
    if (transform == "align_corners")
      xo = outWidth == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (outWidth - 1);
    else if (transform == "asymmetric")
      xo = xd / scale;
    else if (transform == "pytorch_half_pixel")
      xo = outWidth == 1 ? -0.5 : (xd + 0.5) / scale - 0.5;
    else if (transform == "half_pixel")
      xo = (xd + 0.5) / scale - 0.5;
    else if (transform == "tf_half_pixel_for_nn")
      xo = (xd + 0.5) / scale;
    else if (transform == "tf_crop_and_resize") {
      xo = outWidth == 1 ? (roiEnd - roiStart) * static_cast<double>(in - 1) / 2
                         : xd * (roiEnd - roiStart) * static_cast<double>(in - 1) / (outWidth - 1);
      xo += roiStart * static_cast<double>(in - 1);
      if (xo < 0 || xo > static_cast<double>(in - 1)) {
        Taps t;
        t.outside = true;
        return t;
      }
    } else
      return std::nullopt;
    // The left neighbour, strictly left of xo (ratio in (0, 1]).
    double base = std::floor(xo);
    double ratio = xo - base;
    if (ratio == 0) {
      base -= 1;
      ratio = 1;
    }
    SmallVector<double, 4> coeffs;
    if (mode == "nearest") {
      bool right;
      if (ratio == 1)
        right = true;
      else if (nearest == "round_prefer_floor")
        right = ratio > 0.5;
      else if (nearest == "round_prefer_ceil")
        right = ratio >= 0.5;
      else if (nearest == "floor")
        right = false;
      else if (nearest == "ceil")
        right = true;
      else
        return std::nullopt;
      coeffs = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    } else if (mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else if (mode == "cubic") {
      double a = cubicA, r = ratio, s = 1 - ratio;
      coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    } else {
      return std::nullopt;
    }
    auto n = static_cast<int64_t>(coeffs.size());
    Taps t;
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t idx = static_cast<int64_t>(base) - n / 2 + 1 + i;
      double w = coeffs[i];
      if (excludeOutside && (idx < 0 || idx >= in))
        w = 0;
      sum += w;
      t.index.push_back(std::clamp<int64_t>(idx, 0, in - 1));
      t.weight.push_back(w);
    }
    if (excludeOutside && sum != 0)
      for (double &w : t.weight)
        w /= sum;
    return t;
  }
};

} // namespace

/// The interpolation matrix of one axis, [in, o] (each output position's
/// taps and weights; a position outside the crop reads nothing).
static SmallVector<float> interpolationMatrix(int64_t in, ArrayRef<Taps> taps) {
  auto o = static_cast<int64_t>(taps.size());
  SmallVector<float> m(in * o, 0.0f);
  for (int64_t i = 0; i < o; ++i)
    for (size_t k = 0; k < taps[i].index.size(); ++k)
      m[taps[i].index[k] * o + i] += static_cast<float>(taps[i].weight[k]);
  return m;
}

/// Resize of the last two axes of a float tensor [..., H, W] as two products
/// with constant interpolation matrices, each reading its left operand
/// transposed: [..., H, W] (as [K=H, M=W]) x [H, OH] gives [..., W, OH], and
/// that (as [K=W, M=OH]) x [W, OW] gives [..., OH, OW] -- the layout TensorE
/// takes its stationary operand in, so neither step transposes anything,
/// where a gather along the last axis moves one element per descriptor. An
/// axis left alone gets the identity. Each matrix holds in x out values, so
/// only up to kMaxInterpolationMatrix of them; the products keep their
/// precision under --auto-cast (kKeepPrecisionAttr). A null Value when it does
/// not apply. Unlike gathers, an infinity or NaN spreads over its row and
/// column of the result (0 x inf).
static Value interpolationMatmuls(OpBuilder &b, Location loc, Value x,
                                  ArrayRef<std::optional<SmallVector<Taps>>> taps) {
  constexpr int64_t kMaxInterpolationMatrix = int64_t{1} << 18; // 1 MiB of f32
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  if (!isa<FloatType>(t.getElementType()) || rank < 2 || !(taps[rank - 2] || taps[rank - 1]))
    return {};
  for (int64_t d = 0; d < rank - 2; ++d)
    if (taps[d])
      return {};
  SmallVector<int64_t> shape(t.getShape());
  for (int64_t d : {rank - 2, rank - 1}) {
    int64_t in = t.getDimSize(d);
    int64_t o = taps[d] ? static_cast<int64_t>(taps[d]->size()) : in;
    if (in * o > kMaxInterpolationMatrix)
      return {};
  }
  Value r = x;
  for (int64_t d : {rank - 2, rank - 1}) {
    int64_t in = t.getDimSize(d);
    SmallVector<Taps> identity;
    if (!taps[d])
      for (int64_t i = 0; i < in; ++i) {
        identity.emplace_back();
        identity.back().index = {i};
        identity.back().weight = {1.0};
      }
    ArrayRef<Taps> axis = taps[d] ? ArrayRef<Taps>(*taps[d]) : ArrayRef<Taps>(identity);
    auto o = static_cast<int64_t>(axis.size());
    auto mt = RankedTensorType::get({in, o}, b.getF32Type());
    Value mv = ConstantOp::create(
        b, loc, DenseElementsAttr::get(mt, ArrayRef<float>(interpolationMatrix(in, axis))));
    if (!t.getElementType().isF32())
      mv = CastOp::create(b, loc, RankedTensorType::get({in, o}, t.getElementType()), mv);
    // [..., A, B] read transposed times [A, o]: [..., B, o].
    SmallVector<int64_t> rs(cast<RankedTensorType>(r.getType()).getShape());
    rs[rank - 2] = rs[rank - 1];
    rs[rank - 1] = o;
    auto mm = MatmulOp::create(b, loc, RankedTensorType::get(rs, t.getElementType()), r, mv,
                               b.getUnitAttr(), UnitAttr());
    mm->setAttr(kKeepPrecisionAttr, b.getUnitAttr());
    r = mm;
  }
  return r;
}

bool Importer::resize() {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  Type elem = t.getElementType();
  std::optional<RankedTensorType> out = outputType(0);
  if (t.hasStaticShape() && (!out || !out->hasStaticShape())) {
    // Shape inference does not see through sizes computed from an
    // intermediate's Shape (torchvision LRASPP's F.interpolate(size=...));
    // the sizes (or scales) known at import give the result.
    int scalesAt = opset < 11 ? 1 : 2;
    std::optional<SmallVector<double>> sizes = floatsOf(input(3)),
                                       scales = floatsOf(input(scalesAt));
    const auto *transform = attr("coordinate_transformation_mode");
    SmallVector<int64_t> shape;
    if (sizes && static_cast<int64_t>(sizes->size()) == rank) {
      for (double d : *sizes)
        shape.push_back(static_cast<int64_t>(d));
    } else if (scales && static_cast<int64_t>(scales->size()) == rank &&
               !(transform && transform->s() == "tf_crop_and_resize")) {
      for (int64_t d = 0; d < rank; ++d)
        shape.push_back(
            static_cast<int64_t>(std::floor(static_cast<double>(t.getDimSize(d)) * (*scales)[d])));
    }
    if (!shape.empty())
      out = RankedTensorType::get(shape, elem);
  }
  if (!t.hasStaticShape() || !out || !out->hasStaticShape()) {
    error() << "needs static input and output shapes (input " << t
            << "); give the model's inputs static shapes and constant scales or sizes";
    return false;
  }
  auto str = [&](llvm::StringRef name, llvm::StringRef dflt) {
    const auto *a = attr(name);
    return a ? a->s() : dflt.str();
  };
  AxisResize ax;
  ax.mode = str("mode", "nearest");
  ax.transform = str("coordinate_transformation_mode", opset < 11 ? "asymmetric" : "half_pixel");
  ax.nearest = str("nearest_mode", opset < 11 ? "floor" : "round_prefer_floor");
  ax.cubicA = floatAttr("cubic_coeff_a", -0.75f);
  ax.excludeOutside = intAttr("exclude_outside", 0) != 0;
  double extrapolation = floatAttr("extrapolation_value", 0.0f);
  if (intAttr("antialias", 0) != 0 || attr("axes") ||
      str("keep_aspect_ratio_policy", "stretch") != "stretch") {
    error() << "antialias, axes and keep_aspect_ratio_policy (opset 18) are not supported; "
               "export at opset <= 17";
    return false;
  }
  if (ax.mode != "nearest" && !isa<FloatType>(elem)) {
    error() << ax.mode << " interpolation needs a float input, got " << t;
    return false;
  }
  // The scale of each axis: the scales input, else sizes / input size.
  int scalesIdx = opset < 11 ? 1 : 2, sizesIdx = 3;
  SmallVector<double> scales;
  std::optional<SmallVector<double>> given = floatsOf(input(scalesIdx));
  if (given && !given->empty()) {
    scales = *given;
  } else if (std::optional<SmallVector<double>> sizes = floatsOf(input(sizesIdx))) {
    for (int64_t d = 0; d < rank && d < static_cast<int64_t>(sizes->size()); ++d)
      scales.push_back((*sizes)[d] / static_cast<double>(t.getDimSize(d)));
  } else {
    error() << "the scales or sizes must be constants (initializers or Constant nodes)";
    return false;
  }
  if (static_cast<int64_t>(scales.size()) != rank) {
    error() << "needs " << rank << " scales or sizes (one per dim), got " << scales.size();
    return false;
  }
  SmallVector<double> roi;
  if (ax.transform == "tf_crop_and_resize") {
    std::optional<SmallVector<double>> r = floatsOf(input(1));
    if (!r || static_cast<int64_t>(r->size()) != 2 * rank) {
      error() << "tf_crop_and_resize needs a constant roi of " << 2 * rank << " values";
      return false;
    }
    roi = *r;
  }
  // Each resized axis's taps; the mask of positions outside the crop, over
  // the output's shape, when tf_crop_and_resize has any.
  SmallVector<int64_t> maskShape(rank, 1);
  SmallVector<SmallVector<bool>> outsideByAxis(rank);
  SmallVector<std::optional<SmallVector<Taps>>> axisTaps(rank);
  bool anyOutside = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = t.getDimSize(d), o = out->getDimSize(d);
    if (in == o && scales[d] == 1.0)
      continue;
    if (!roi.empty()) {
      ax.roiStart = roi[d];
      ax.roiEnd = roi[rank + d];
    }
    SmallVector<Taps> taps;
    for (int64_t i = 0; i < o; ++i) {
      std::optional<Taps> tp = ax.taps(i, in, scales[d]);
      if (!tp) {
        error() << "mode '" << ax.mode << "' with coordinate_transformation_mode '"
                << ax.transform << "' and nearest_mode '" << ax.nearest
                << "' is not supported (modes: nearest, linear, cubic; transforms: half_pixel, "
                   "pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, "
                   "tf_crop_and_resize)";
        return false;
      }
      taps.push_back(*tp);
    }
    SmallVector<bool> outside;
    for (const Taps &tp : taps) {
      outside.push_back(tp.outside);
      anyOutside |= tp.outside;
    }
    outsideByAxis[d] = outside;
    axisTaps[d] = std::move(taps);
  }
  // The last two axes as products, else one axis at a time as gathers.
  Value r = interpolationMatmuls(b, loc, x, axisTaps);
  bool done = static_cast<bool>(r);
  if (!done)
    r = x;
  for (int64_t d = 0; d < rank && !done; ++d) {
    if (!axisTaps[d])
      continue;
    int64_t o = out->getDimSize(d);
    ArrayRef<Taps> taps = *axisTaps[d];
    if (ax.mode == "nearest") {
      SmallVector<int32_t> positions;
      for (const Taps &tp : taps) {
        int32_t p = 0;
        for (size_t i = 0; i < tp.index.size(); ++i)
          if (tp.weight[i] != 0)
            p = static_cast<int32_t>(tp.index[i]);
        positions.push_back(p);
      }
      r = gatherAxis(r, d, positions);
      continue;
    }
    // The sum over the taps of the gathered neighbours times their weights
    // (a constant along this axis).
    size_t n = 0;
    for (const Taps &tp : taps)
      n = std::max(n, tp.index.size());
    Value sum;
    SmallVector<int64_t> wshape(rank, 1);
    wshape[d] = o;
    auto wt = RankedTensorType::get(wshape, b.getF32Type());
    for (size_t i = 0; i < n; ++i) {
      SmallVector<int32_t> positions;
      SmallVector<float> weights;
      bool any = false;
      for (const Taps &tp : taps) {
        bool has = i < tp.index.size();
        positions.push_back(has ? static_cast<int32_t>(tp.index[i]) : 0);
        weights.push_back(has ? static_cast<float>(tp.weight[i]) : 0.0f);
        any |= has && tp.weight[i] != 0;
      }
      if (!any)
        continue;
      Value g = gatherAxis(r, d, positions);
      Value w = ConstantOp::create(b, loc, DenseElementsAttr::get(wt, ArrayRef<float>(weights)));
      if (!elem.isF32())
        w = CastOp::create(b, loc, RankedTensorType::get(wshape, elem), w);
      auto gt = cast<RankedTensorType>(g.getType());
      Value term = MulOp::create(b, loc, gt, g, w);
      sum = sum ? Value(AddOp::create(b, loc, gt, sum, term)) : term;
    }
    if (!sum) {
      // Every position outside the crop: only the extrapolation value.
      SmallVector<int64_t> shape(cast<RankedTensorType>(r.getType()).getShape());
      shape[d] = o;
      sum = fillBlock(RankedTensorType::get(shape, elem), Value(), 0.0);
    }
    r = sum;
  }
  if (anyOutside) {
    // tf_crop_and_resize: outside the crop along any axis reads the
    // extrapolation value.
    SmallVector<int64_t> shape(out->getShape());
    int64_t count = product(shape);
    auto strides = neuronc::rowMajorStrides(shape);
    SmallVector<bool> mask;
    for (int64_t p = 0; p < count; ++p) {
      bool m = false;
      for (int64_t d = 0; d < rank; ++d)
        if (!outsideByAxis[d].empty())
          m |= outsideByAxis[d][(p / strides[d]) % shape[d]];
      mask.push_back(m);
    }
    Value mv = ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get(shape, b.getI1Type()), mask));
    r = SelectOp::create(b, loc, *out, mv, splat(elem, extrapolation), r);
  }
  define(0, reshape(r, out->getShape()));
  return true;
}
