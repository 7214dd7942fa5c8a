//===- ConvertWindows.cpp - ONNX ops of convolutional models ---------------===//
//
// Importer methods for the ops of convolutional networks: Conv and
// ConvTranspose (neuron.conv; the transpose as a convolution of the
// zero-upsampled input with the flipped kernel), MaxPool and AveragePool
// (neuron.pool), GlobalAveragePool/GlobalMaxPool (keepdims reductions),
// BatchNormalization (elementwise; x * a + b with a, b folded at import on
// constant statistics) and Pad (concats of fill blocks, slices, gathers).
// Resize is in ConvertResize.cpp.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "neuronc/Support/Shape.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace neuronc::onnximport;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<DenseElementsAttr> Importer::constantOf(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return attr;
}

std::optional<SmallVector<double>> Importer::floatsOf(Value v) {
  std::optional<DenseElementsAttr> attr = constantOf(v);
  if (!attr)
    return std::nullopt;
  SmallVector<double> out;
  if (isa<FloatType>(attr->getElementType())) {
    for (APFloat f : attr->getValues<APFloat>())
      out.push_back(f.convertToDouble());
  } else {
    for (APInt i : attr->getValues<APInt>())
      out.push_back(static_cast<double>(i.getSExtValue()));
  }
  return out;
}

std::optional<Importer::WindowAttrs> Importer::windowAttrs(RankedTensorType input,
                                                            ArrayRef<int64_t> kernel) {
  auto k = static_cast<int64_t>(kernel.size());
  WindowAttrs w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = intsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  w.dilations = intsAttr("dilations").value_or(SmallVector<int64_t>(k, 1));
  if (static_cast<int64_t>(w.strides.size()) != k ||
      static_cast<int64_t>(w.dilations.size()) != k) {
    error() << "strides and dilations need " << k << " values each (one per spatial dim), got "
            << w.strides.size() << " and " << w.dilations.size();
    return std::nullopt;
  }
  const auto *autoPad = attr("auto_pad");
  std::string mode = autoPad ? autoPad->s() : "NOTSET";
  if (mode == "NOTSET") {
    w.pads = intsAttr("pads").value_or(SmallVector<int64_t>(2 * k, 0));
    if (static_cast<int64_t>(w.pads.size()) != 2 * k) {
      error() << "pads needs " << 2 * k << " values (the leading pads, then the trailing ones), got "
              << w.pads.size();
      return std::nullopt;
    }
    return w;
  }
  w.pads.assign(2 * k, 0);
  if (mode == "VALID")
    return w;
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER") {
    error() << "auto_pad '" << mode << "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER";
    return std::nullopt;
  }
  // SAME: the output is ceil(in / stride); the padding that takes is split
  // evenly, the odd one at the end (SAME_UPPER) or the start (SAME_LOWER).
  for (int64_t d = 0; d < k; ++d) {
    int64_t in = input.getDimSize(2 + d);
    if (ShapedType::isDynamic(in)) {
      error() << "auto_pad " << mode << " needs static spatial dims; spatial dim " << d
              << " is dynamic (give the model's inputs static shapes)";
      return std::nullopt;
    }
    int64_t out = (in + w.strides[d] - 1) / w.strides[d];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1 - in);
    int64_t small = total / 2, big = total - small;
    w.pads[d] = mode == "SAME_UPPER" ? small : big;
    w.pads[k + d] = mode == "SAME_UPPER" ? big : small;
  }
  return w;
}

Value Importer::fillBlock(RankedTensorType type, Value fill, double value) {
  if (!fill)
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, floatOrInt(type.getElementType(), value)));
  // A scalar known only at run time: broadcast to the block.
  SmallVector<int64_t> ones(type.getRank(), 1);
  return BroadcastToOp::create(b, loc, type, reshape(fill, ones));
}

Value Importer::padConstant(Value x, ArrayRef<int64_t> lo, ArrayRef<int64_t> hi, Value fill,
                            double value) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  // Negative pads crop first.
  SmallVector<int64_t> offsets(rank, 0), sizes(t.getShape()), strides(rank, 1);
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    if (lo[d] < 0) {
      offsets[d] = -lo[d];
      sizes[d] += lo[d];
      crop = true;
    }
    if (hi[d] < 0) {
      sizes[d] += hi[d];
      crop = true;
    }
  }
  if (crop)
    x = SliceOp::create(b, loc, RankedTensorType::get(sizes, t.getElementType()), x,
                        b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                        b.getDenseI64ArrayAttr(strides));
  for (int64_t d = 0; d < rank; ++d) {
    if (lo[d] <= 0 && hi[d] <= 0)
      continue;
    SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
    SmallVector<Value> parts;
    auto block = [&](int64_t n) {
      SmallVector<int64_t> s = shape;
      s[d] = n;
      parts.push_back(fillBlock(RankedTensorType::get(s, t.getElementType()), fill, value));
    };
    if (lo[d] > 0)
      block(lo[d]);
    parts.push_back(x);
    if (hi[d] > 0)
      block(hi[d]);
    shape[d] += std::max<int64_t>(lo[d], 0) + std::max<int64_t>(hi[d], 0);
    x = ConcatOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), parts, d);
  }
  return x;
}

Value Importer::gatherAxis(Value x, int64_t axis, ArrayRef<int32_t> positions) {
  auto t = cast<RankedTensorType>(x.getType());
  auto n = static_cast<int64_t>(positions.size());
  bool identity = n == t.getDimSize(axis);
  for (int64_t i = 0; identity && i < n; ++i)
    identity = positions[i] == i;
  if (identity)
    return x;
  auto idxType = RankedTensorType::get({n}, b.getI32Type());
  Value idx = ConstantOp::create(b, loc, idxType, DenseElementsAttr::get(idxType, positions));
  SmallVector<int64_t> shape(t.getShape());
  shape[axis] = n;
  return GatherOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), x, idx,
                          b.getI64IntegerAttr(axis));
}

/// The shape [1, C, 1, ...] of a per-channel operand of a rank-`rank` input.
static SmallVector<int64_t> channelShape(int64_t c, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[1] = c;
  return shape;
}

//===----------------------------------------------------------------------===//
// Conv, ConvTranspose
//===----------------------------------------------------------------------===//

bool Importer::conv() {
  // The patch-embedding form stays a matmul (it lowers as one).
  if (patchEmbedding())
    return true;
  Value x = input(0), w = input(1), bias = input(2);
  auto tx = cast<RankedTensorType>(x.getType()), tw = cast<RankedTensorType>(w.getType());
  if (tx.getRank() < 3 || tw.getRank() != tx.getRank()) {
    error() << "the input must be [N, C, spatial...] and the weight [F, C/group, kernel...] of "
               "the same rank, got "
            << tx << " and " << tw;
    return false;
  }
  ArrayRef<int64_t> kernel = tw.getShape().drop_front(2);
  if (llvm::any_of(kernel, ShapedType::isDynamic)) {
    error() << "the weight's kernel dims must be static, got " << tw;
    return false;
  }
  std::optional<WindowAttrs> win = windowAttrs(tx, kernel);
  if (!win)
    return false;
  int64_t groups = intAttr("group", 1);
  neuronc::Shape shape;
  if (std::string why = neuronc::convShape(tx.getShape(), tw.getShape(), groups, win->strides,
                                           win->pads, win->dilations, shape);
      !why.empty()) {
    error() << why;
    return false;
  }
  auto type = RankedTensorType::get(shape, tx.getElementType());
  define(0, ConvOp::create(b, loc, type, x, w, bias, win->strides, win->pads, win->dilations,
                           static_cast<uint64_t>(groups)));
  return true;
}

bool Importer::convTranspose() {
  Value x = input(0), w = input(1), bias = input(2);
  auto tx = cast<RankedTensorType>(x.getType()), tw = cast<RankedTensorType>(w.getType());
  int64_t rank = tx.getRank(), k = rank - 2;
  if (rank < 3 || tw.getRank() != rank || !tx.hasStaticShape() || !tw.hasStaticShape()) {
    error() << "the input [N, C, spatial...] and the weight [C, F/group, kernel...] must be "
               "static and of the same rank, got "
            << tx << " and " << tw;
    return false;
  }
  int64_t groups = intAttr("group", 1);
  int64_t c = tx.getDimSize(1), cg = c / std::max<int64_t>(groups, 1), fg = tw.getDimSize(1),
          f = fg * groups;
  if (groups < 1 || c % groups || tw.getDimSize(0) != c) {
    error() << "the weight's dim 0 (" << tw.getDimSize(0) << ") must be the input channels (" << c
            << "), a multiple of group (" << groups << ")";
    return false;
  }
  ArrayRef<int64_t> kernel = tw.getShape().drop_front(2);
  SmallVector<int64_t> strides = intsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> dilations = intsAttr("dilations").value_or(SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> outPad = intsAttr("output_padding").value_or(SmallVector<int64_t>(k, 0));
  if (static_cast<int64_t>(strides.size()) != k || static_cast<int64_t>(dilations.size()) != k ||
      static_cast<int64_t>(outPad.size()) != k) {
    error() << "strides, dilations and output_padding need " << k << " values each";
    return false;
  }
  // The pads: given, or derived from output_shape or auto_pad (SAME: the
  // output is in * stride) as ONNX's spec says: of the total padding,
  // floor(total / 2) goes to the start for SAME_UPPER, to the end
  // otherwise. A negative total (an output_shape larger than the full
  // result) adds zeros at the end.
  const auto *autoPad = attr("auto_pad");
  std::string mode = autoPad ? autoPad->s() : "NOTSET";
  SmallVector<int64_t> pads(2 * k, 0);
  std::optional<SmallVector<int64_t>> outputShape = intsAttr("output_shape");
  if (outputShape && static_cast<int64_t>(outputShape->size()) == rank)
    outputShape = SmallVector<int64_t>(outputShape->begin() + 2, outputShape->end());
  if (outputShape && static_cast<int64_t>(outputShape->size()) != k) {
    error() << "output_shape needs " << k << " values (the spatial dims), got "
            << outputShape->size();
    return false;
  }
  if (outputShape || mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    for (int64_t d = 0; d < k; ++d) {
      int64_t in = tx.getDimSize(2 + d);
      int64_t out = outputShape ? (*outputShape)[d] : in * strides[d];
      int64_t total = strides[d] * (in - 1) + outPad[d] + (kernel[d] - 1) * dilations[d] + 1 - out;
      int64_t half = llvm::divideFloorSigned(total, 2);
      bool upper = mode == "SAME_UPPER";
      pads[d] = upper ? half : total - half;
      pads[k + d] = upper ? total - half : half;
    }
  } else if (mode == "NOTSET") {
    if (std::optional<SmallVector<int64_t>> p = intsAttr("pads"))
      pads = *p;
    if (static_cast<int64_t>(pads.size()) != 2 * k) {
      error() << "pads needs " << 2 * k << " values, got " << pads.size();
      return false;
    }
  } else if (mode != "VALID") {
    error() << "auto_pad '" << mode << "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER";
    return false;
  }
  Type elem = tx.getElementType();

  // The weight of the equivalent convolution: [F, C/group, kernel...] with
  // each group's in/out channel axes swapped and the kernel flipped.
  SmallVector<int64_t> convWShape = {f, cg};
  convWShape.append(kernel.begin(), kernel.end());
  auto convWType = RankedTensorType::get(convWShape, elem);
  Value convW;
  if (std::optional<DenseElementsAttr> cw = constantOf(w); cw && isa<FloatType>(elem)) {
    // Folded at import.
    SmallVector<APFloat> src(cw->getValues<APFloat>());
    SmallVector<APFloat> dst;
    dst.reserve(src.size());
    int64_t taps = product(kernel);
    auto tapStrides = neuronc::rowMajorStrides(kernel);
    for (int64_t of = 0; of < f; ++of) {
      int64_t g = of / fg, fi = of % fg;
      for (int64_t ic = 0; ic < cg; ++ic)
        for (int64_t t = 0; t < taps; ++t) {
          // The flipped tap: every spatial index mirrored.
          int64_t rest = t, flipped = 0;
          for (int64_t d = 0; d < k; ++d) {
            int64_t i = rest / tapStrides[d];
            rest %= tapStrides[d];
            flipped += (kernel[d] - 1 - i) * tapStrides[d];
          }
          dst.push_back(src[((g * cg + ic) * fg + fi) * taps + flipped]);
        }
    }
    convW = ConstantOp::create(b, loc, DenseElementsAttr::get(convWType, dst));
  } else {
    // Computed at run time: reshape/transpose, then a reversing gather per
    // spatial axis.
    SmallVector<int64_t> split = {groups, cg, fg};
    split.append(kernel.begin(), kernel.end());
    Value v = reshape(w, split);
    SmallVector<int64_t> perm = {0, 2, 1}, swapped = {groups, fg, cg};
    for (int64_t d = 0; d < k; ++d) {
      perm.push_back(3 + d);
      swapped.push_back(kernel[d]);
    }
    v = TransposeOp::create(b, loc, RankedTensorType::get(swapped, elem), v,
                            b.getDenseI64ArrayAttr(perm));
    v = reshape(v, convWShape);
    for (int64_t d = 0; d < k; ++d) {
      SmallVector<int32_t> reversed;
      for (int64_t i = kernel[d] - 1; i >= 0; --i)
        reversed.push_back(static_cast<int32_t>(i));
      v = gatherAxis(v, 2 + d, reversed);
    }
    convW = v;
  }

  // Zero insertion: each spatial dim D becomes D * stride, the input at
  // every stride-th position (the stride - 1 zeros after the last one are
  // cut by the padding below).
  Value up = x;
  for (int64_t d = 0; d < k; ++d) {
    int64_t s = strides[d];
    if (s == 1)
      continue;
    SmallVector<int64_t> shape(cast<RankedTensorType>(up.getType()).getShape());
    int64_t axis = 2 + d;
    SmallVector<int64_t> one(shape), zeros(shape), both(shape), merged(shape);
    one.insert(one.begin() + axis + 1, 1);
    zeros.insert(zeros.begin() + axis + 1, s - 1);
    both.insert(both.begin() + axis + 1, s);
    merged[axis] *= s;
    Value z = fillBlock(RankedTensorType::get(zeros, elem), Value(), 0.0);
    Value joined = ConcatOp::create(b, loc, RankedTensorType::get(both, elem),
                                    ValueRange{reshape(up, one), z}, axis + 1);
    up = reshape(joined, merged);
  }
  // The padding of the equivalent convolution: dilation * (k - 1) - pad,
  // plus output_padding at the end, less the trailing zeros of the
  // upsampling; negative amounts crop.
  SmallVector<int64_t> lo(rank, 0), hi(rank, 0), convPads(2 * k, 0);
  bool crop = false;
  for (int64_t d = 0; d < k; ++d) {
    int64_t span = dilations[d] * (kernel[d] - 1);
    int64_t l = span - pads[d], h = span - pads[k + d] + outPad[d] - (strides[d] - 1);
    lo[2 + d] = std::min<int64_t>(l, 0);
    hi[2 + d] = std::min<int64_t>(h, 0);
    crop |= l < 0 || h < 0;
    convPads[d] = std::max<int64_t>(l, 0);
    convPads[k + d] = std::max<int64_t>(h, 0);
  }
  if (crop)
    up = padConstant(up, lo, hi, Value(), 0.0);
  SmallVector<int64_t> ones(k, 1);
  neuronc::Shape shape;
  if (std::string why = neuronc::convShape(cast<RankedTensorType>(up.getType()).getShape(),
                                           convWShape, groups, ones, convPads, dilations, shape);
      !why.empty()) {
    error() << "the pads, strides and output_shape give no output: " << why;
    return false;
  }
  if (std::optional<RankedTensorType> out = outputType(0);
      out && out->hasStaticShape() && out->getShape() != ArrayRef<int64_t>(shape)) {
    error() << "the computed output shape " << RankedTensorType::get(shape, elem)
            << " is not the inferred " << *out;
    return false;
  }
  define(0, ConvOp::create(b, loc, RankedTensorType::get(shape, elem), up, convW, bias, ones,
                           convPads, dilations, static_cast<uint64_t>(groups)));
  return true;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

bool Importer::pool(llvm::StringRef op) {
  bool isMax = op == "MaxPool";
  Value x = input(0);
  auto tx = cast<RankedTensorType>(x.getType());
  int64_t rank = tx.getRank(), k = rank - 2;
  if (isMax && node->output_size() > 1 && !node->output(1).empty()) {
    error() << "the second output (Indices) is not supported; use only the pooled values "
               "(torch: MaxPool without return_indices)";
    return false;
  }
  if (!isa<FloatType>(tx.getElementType())) {
    error() << "the input must be a float tensor, got " << tx;
    return false;
  }
  std::optional<SmallVector<int64_t>> kernel = intsAttr("kernel_shape");
  if (rank < 3 || !kernel || static_cast<int64_t>(kernel->size()) != k) {
    error() << "needs an input [N, C, spatial...] and kernel_shape with one size per spatial dim";
    return false;
  }
  std::optional<WindowAttrs> win = windowAttrs(tx, *kernel);
  if (!win)
    return false;
  bool dilated = llvm::any_of(win->dilations, [](int64_t d) { return d != 1; });
  if (dilated && !isMax) {
    error() << "dilations other than 1 are not supported for AveragePool";
    return false;
  }
  bool countPad = !isMax && intAttr("count_include_pad", 0) != 0;
  // The output size: ONNX's, from shape inference (ceil_mode rounds up);
  // the padding it takes beyond `pads` is added at the end. Max pooling
  // ignores padded positions; average pooling does not count them, unless
  // count_include_pad, corrected below.
  std::optional<RankedTensorType> out = outputType(0);
  auto staticSpatial = [](RankedTensorType type) {
    return llvm::none_of(type.getShape().drop_front(2), ShapedType::isDynamic);
  };
  if (!out || out->getRank() != rank || !staticSpatial(tx) || !staticSpatial(*out) ||
      (dilated && (!tx.hasStaticShape() || !out->hasStaticShape()))) {
    error() << "needs static spatial dims (input " << tx
            << "); give the model's inputs static shapes";
    return false;
  }
  SmallVector<int64_t> pads = win->pads, extra(k, 0);
  for (int64_t d = 0; d < k; ++d) {
    int64_t in = tx.getDimSize(2 + d), o = out->getDimSize(2 + d), s = win->strides[d];
    int64_t span = win->dilations[d] * ((*kernel)[d] - 1) + 1;
    int64_t need = (o - 1) * s + span - (in + pads[d] + pads[k + d]);
    if (need > 0) {
      extra[d] = need;
      pads[k + d] += need;
    }
    if (pads[d] >= span || win->pads[k + d] >= span) {
      error() << "spatial dim " << d << ": the pads (" << pads[d] << " before, "
              << win->pads[k + d] << " after) must be smaller than the window (" << span
              << "): a window would see no input";
      return false;
    }
    if (pads[k + d] >= span) {
      error() << "spatial dim " << d << ": with ceil_mode the last of the " << o
              << " windows (ONNX's output size) starts past the input and its pads, where "
                 "PyTorch drops it; export with ceil_mode=0, or pad the input so the windows fit";
      return false;
    }
  }
  Type elem = tx.getElementType();
  Value r;
  if (dilated) {
    // The max of one strided slice per window tap, of the input padded with
    // the lowest value.
    double lowest = -std::numeric_limits<double>::infinity();
    SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
    for (int64_t d = 0; d < k; ++d) {
      lo[2 + d] = pads[d];
      hi[2 + d] = pads[k + d];
    }
    Value padded = padConstant(x, lo, hi, Value(), lowest);
    int64_t taps = product(*kernel);
    auto tapStrides = neuronc::rowMajorStrides(*kernel);
    for (int64_t t = 0; t < taps; ++t) {
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      for (int64_t d = 0; d < k; ++d) {
        offsets[2 + d] = (t / tapStrides[d]) % (*kernel)[d] * win->dilations[d];
        strides[2 + d] = win->strides[d];
      }
      Value s = SliceOp::create(b, loc, *out, padded, b.getDenseI64ArrayAttr(offsets),
                                b.getDenseI64ArrayAttr(out->getShape()),
                                b.getDenseI64ArrayAttr(strides));
      r = r ? Value(MaxOp::create(b, loc, *out, r, s)) : s;
    }
    define(0, r);
    return true;
  }
  r = PoolOp::create(b, loc, *out, x, isMax ? PoolKind::max : PoolKind::avg, *kernel,
                     win->strides, pads, countPad);
  if (countPad && llvm::any_of(extra, [](int64_t e) { return e > 0; })) {
    // count_include_pad counts the given pads, not ceil_mode's: the windows
    // reaching into the extra padding divide by fewer positions.
    SmallVector<int64_t> spatial(out->getShape().drop_front(2));
    SmallVector<float> factor;
    int64_t taps = product(*kernel), n = product(spatial);
    auto posStrides = neuronc::rowMajorStrides(spatial);
    for (int64_t p = 0; p < n; ++p) {
      int64_t counted = 1;
      for (int64_t d = 0; d < k; ++d) {
        int64_t o = (p / posStrides[d]) % spatial[d];
        int64_t start = o * win->strides[d] - win->pads[d];
        int64_t end = std::min(start + (*kernel)[d], tx.getDimSize(2 + d) + win->pads[k + d]);
        counted *= end - start;
      }
      factor.push_back(static_cast<float>(taps) / static_cast<float>(counted));
    }
    SmallVector<int64_t> fshape = {1, 1};
    fshape.append(spatial.begin(), spatial.end());
    auto ft = RankedTensorType::get(fshape, b.getF32Type());
    Value fc = ConstantOp::create(b, loc, DenseElementsAttr::get(ft, ArrayRef<float>(factor)));
    if (!elem.isF32())
      fc = CastOp::create(b, loc, RankedTensorType::get(fshape, elem), fc);
    r = MulOp::create(b, loc, *out, r, fc);
  }
  define(0, r);
  return true;
}

bool Importer::globalPool(llvm::StringRef op) {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() < 3) {
    error() << "needs an input [N, C, spatial...], got " << t;
    return false;
  }
  SmallVector<int64_t> axes, shape(t.getShape());
  for (int64_t d = 2; d < t.getRank(); ++d) {
    axes.push_back(d);
    shape[d] = 1;
  }
  auto type = RankedTensorType::get(shape, t.getElementType());
  auto axesAttr = b.getDenseI64ArrayAttr(axes);
  if (op == "GlobalMaxPool")
    define(0, ReduceMaxOp::create(b, loc, type, x, axesAttr, b.getUnitAttr()));
  else
    define(0, ReduceMeanOp::create(b, loc, type, x, axesAttr, b.getUnitAttr()));
  return true;
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

bool Importer::batchNorm() {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  Type elem = t.getElementType();
  if (rank < 2 || ShapedType::isDynamic(t.getDimSize(1))) {
    error() << "needs an input [N, C, ...] with a static channel dim, got " << t;
    return false;
  }
  int64_t c = t.getDimSize(1);
  double eps = floatAttr("epsilon", 1e-5f);
  bool training = opset >= 14 && intAttr("training_mode", 0) != 0;
  bool extraOutputs = false;
  for (int i = 1; i < node->output_size(); ++i)
    extraOutputs |= !node->output(i).empty();
  if (!training && extraOutputs) {
    error() << "the statistics outputs of training-mode BatchNormalization (opset " << opset
            << ") are not supported; export in eval mode (only Y)";
    return false;
  }
  SmallVector<int64_t> cshape = channelShape(c, rank);
  auto ct = RankedTensorType::get(cshape, elem);
  auto perChannel = [&](int i) { return reshape(input(i), cshape); };
  if (training) {
    // Batch statistics over every dim but 1 (population variance); the
    // running statistics are momentum blends of the given ones with them.
    double momentum = floatAttr("momentum", 0.9f);
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (d != 1)
        axes.push_back(d);
    auto axesAttr = b.getDenseI64ArrayAttr(axes);
    Value mean = ReduceMeanOp::create(b, loc, ct, x, axesAttr, b.getUnitAttr());
    Value centered = SubOp::create(b, loc, t, x, mean);
    Value var = ReduceMeanOp::create(b, loc, ct, MulOp::create(b, loc, t, centered, centered),
                                     axesAttr, b.getUnitAttr());
    Value inv = RsqrtOp::create(b, loc, ct, AddOp::create(b, loc, ct, var, splat(elem, eps)));
    Value y = MulOp::create(b, loc, t, centered, MulOp::create(b, loc, ct, inv, perChannel(1)));
    define(0, AddOp::create(b, loc, t, y, perChannel(2)));
    auto blend = [&](int i, Value batch) {
      Value given = MulOp::create(b, loc, ct, perChannel(i), splat(elem, momentum));
      Value now = MulOp::create(b, loc, ct, batch, splat(elem, 1.0 - momentum));
      auto flat = cast<RankedTensorType>(input(i).getType());
      return reshape(AddOp::create(b, loc, ct, given, now), flat.getShape());
    };
    if (node->output_size() > 1 && !node->output(1).empty())
      define(1, blend(3, mean));
    if (node->output_size() > 2 && !node->output(2).empty())
      define(2, blend(4, var));
    return true;
  }
  std::optional<SmallVector<double>> scale = floatsOf(input(1)), shift = floatsOf(input(2)),
                                     mean = floatsOf(input(3)), var = floatsOf(input(4));
  if (scale && shift && mean && var && isa<FloatType>(elem)) {
    // Constant statistics: y = x * a + b with a = scale / sqrt(var + eps)
    // and b = B - mean * a, computed here.
    SmallVector<APFloat> a, bb;
    auto &sem = cast<FloatType>(elem).getFloatSemantics();
    auto toElem = [&](double v) {
      APFloat f(v);
      bool lost;
      f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      return f;
    };
    for (int64_t i = 0; i < c; ++i) {
      double ai = (*scale)[i] / std::sqrt((*var)[i] + eps);
      a.push_back(toElem(ai));
      bb.push_back(toElem((*shift)[i] - (*mean)[i] * ai));
    }
    Value av = ConstantOp::create(b, loc, DenseElementsAttr::get(ct, a));
    Value bv = ConstantOp::create(b, loc, DenseElementsAttr::get(ct, bb));
    define(0, AddOp::create(b, loc, t, MulOp::create(b, loc, t, x, av), bv));
    return true;
  }
  // Statistics computed at run time: the same formula as ops.
  Value inv = RsqrtOp::create(b, loc, ct, AddOp::create(b, loc, ct, perChannel(4), splat(elem, eps)));
  Value a = MulOp::create(b, loc, ct, perChannel(1), inv);
  Value y = MulOp::create(b, loc, t, SubOp::create(b, loc, t, x, perChannel(3)), a);
  define(0, AddOp::create(b, loc, t, y, perChannel(2)));
  return true;
}

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

bool Importer::pad() {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  const auto *modeAttr = attr("mode");
  std::string mode = modeAttr ? modeAttr->s() : "constant";
  SmallVector<int64_t> pads;
  Value fill;
  double value = 0.0;
  if (opset < 11) {
    pads = intsAttr("pads").value_or(SmallVector<int64_t>());
    value = floatAttr("value", 0.0f);
  } else {
    std::optional<SmallVector<int64_t>> p = ints(1);
    if (!p) {
      error() << "the pads must be a constant (an initializer or computed from shapes)";
      return false;
    }
    pads = *p;
    if (Value v = input(2)) {
      if (std::optional<SmallVector<double>> c = floatsOf(v); c && c->size() == 1)
        value = (*c)[0];
      else
        fill = v; // a scalar known at run time
    }
    if (std::optional<SmallVector<int64_t>> axes = ints(3)) {
      // Opset 18: pads for the listed axes only.
      SmallVector<int64_t> full(2 * rank, 0);
      auto n = static_cast<int64_t>(axes->size());
      if (static_cast<int64_t>(pads.size()) != 2 * n) {
        error() << "pads needs " << 2 * n << " values for " << n << " axes, got " << pads.size();
        return false;
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t a = normAxis((*axes)[i], rank);
        full[a] = pads[i];
        full[rank + a] = pads[n + i];
      }
      pads = full;
    } else if (givenUnknown(3)) {
      error() << "the axes must be a constant";
      return false;
    }
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank) {
    error() << "pads needs " << 2 * rank << " values (the leading pads of every dim, then the "
            << "trailing ones), got " << pads.size();
    return false;
  }
  if (!t.hasStaticShape()) {
    error() << "needs a static input shape, got " << t;
    return false;
  }
  SmallVector<int64_t> lo(pads.begin(), pads.begin() + rank), hi(pads.begin() + rank, pads.end());
  if (mode == "constant") {
    define(0, padConstant(x, lo, hi, fill, value));
    return true;
  }
  if (mode != "reflect" && mode != "edge" && mode != "wrap") {
    error() << "mode '" << mode << "' is not one of constant, reflect, edge, wrap";
    return false;
  }
  // reflect, edge, wrap: a gather per padded axis of the positions read.
  Value r = x;
  for (int64_t d = 0; d < rank; ++d) {
    if (lo[d] == 0 && hi[d] == 0)
      continue;
    int64_t n = t.getDimSize(d), size = n + lo[d] + hi[d];
    if (mode == "reflect" && n == 1 && (lo[d] > 0 || hi[d] > 0)) {
      error() << "reflect padding of dim " << d << " of size 1 has nothing to reflect";
      return false;
    }
    SmallVector<int32_t> positions;
    for (int64_t i = 0; i < size; ++i) {
      int64_t j = i - lo[d];
      if (mode == "edge") {
        j = std::clamp<int64_t>(j, 0, n - 1);
      } else if (mode == "wrap") {
        j = ((j % n) + n) % n;
      } else {
        int64_t period = 2 * (n - 1);
        j = ((j % period) + period) % period;
        if (j >= n)
          j = period - j;
      }
      positions.push_back(static_cast<int32_t>(j));
    }
    r = gatherAxis(r, d, positions);
  }
  define(0, r);
  return true;
}
