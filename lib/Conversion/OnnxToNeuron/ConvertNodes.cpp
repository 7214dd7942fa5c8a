//===- ConvertNodes.cpp - ONNX nodes as neuron ops --------------------------===//
//
// Importer::lowerNode and its helpers: each supported ONNX op type (at
// opsets 13-17) as the neuron ops that compute it.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace neuronc::onnximport;

bool Importer::binary(llvm::StringRef op) {
  Value x = input(0), y = input(1);
  auto tx = cast<RankedTensorType>(x.getType()), ty = cast<RankedTensorType>(y.getType());
  if (op == "Pow" && !isa<FloatType>(tx.getElementType())) {
    // neuron.pow is on floats: an integer power in f32, truncated back.
    auto f32 = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType().isF32())
        return v;
      return CastOp::create(b, loc, RankedTensorType::get(t.getShape(), b.getF32Type()), v);
    };
    Value xf = f32(x), yf = f32(y);
    RankedTensorType type = broadcastType(xf, yf, b.getF32Type());
    Value p = PowOp::create(b, loc, type, xf, yf);
    define(0,
           CastOp::create(b, loc, RankedTensorType::get(type.getShape(), tx.getElementType()), p));
    return true;
  }
  if (op == "Pow" && tx.getElementType() != ty.getElementType())
    y = CastOp::create(b, loc, RankedTensorType::get(ty.getShape(), tx.getElementType()), y);
  std::optional<RankedTensorType> out = outputType(0);
  RankedTensorType type =
      out && out->hasStaticShape() ? *out : broadcastType(x, y, tx.getElementType());
  Value r;
  if (op == "Add")
    r = AddOp::create(b, loc, type, x, y);
  else if (op == "Sub")
    r = SubOp::create(b, loc, type, x, y);
  else if (op == "Mul")
    r = MulOp::create(b, loc, type, x, y);
  else if (op == "Div")
    r = DivOp::create(b, loc, type, x, y);
  else if (op == "Pow")
    r = PowOp::create(b, loc, type, x, y);
  else if (op == "Max")
    r = MaxOp::create(b, loc, type, x, y);
  else if (op == "Min")
    r = MinOp::create(b, loc, type, x, y);
  else {
    ComparePredicate p = op == "Equal"         ? ComparePredicate::eq
                         : op == "Less"        ? ComparePredicate::lt
                         : op == "LessOrEqual" ? ComparePredicate::le
                         : op == "Greater"     ? ComparePredicate::gt
                                               : ComparePredicate::ge;
    auto i1 = RankedTensorType::get(type.getShape(), b.getI1Type());
    r = CompareOp::create(b, loc, i1, p, x, y);
  }
  define(0, r);
  return true;
}

bool Importer::reduce(llvm::StringRef op) {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  std::optional<SmallVector<int64_t>> axes;
  // ReduceSum takes its axes as an input since opset 13, the others since 18.
  if ((op == "ReduceSum" && opset >= 13) || opset >= 18) {
    if (node->input_size() > 1 && !node->input(1).empty()) {
      axes = ints(1);
      if (!axes) {
        error() << "the axes must be a constant";
        return false;
      }
    }
  } else {
    axes = intsAttr("axes");
  }
  SmallVector<int64_t> list;
  if (!axes || axes->empty()) {
    if (intAttr("noop_with_empty_axes", 0)) {
      define(0, x);
      return true;
    }
    for (int64_t i = 0; i < rank; ++i)
      list.push_back(i);
  } else {
    for (int64_t a : *axes)
      list.push_back(normAxis(a, rank));
    llvm::sort(list);
  }
  bool keep = intAttr("keepdims", 1) != 0;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(list, i))
      shape.push_back(t.getDimSize(i));
    else if (keep)
      shape.push_back(1);
  auto type = RankedTensorType::get(shape, t.getElementType());
  auto axesAttr = b.getDenseI64ArrayAttr(list);
  UnitAttr keepAttr = keep ? b.getUnitAttr() : UnitAttr();
  Value r;
  if (op == "ReduceSum")
    r = ReduceSumOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceMean")
    r = ReduceMeanOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceMax")
    r = ReduceMaxOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceMin")
    r = ReduceMinOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceProd")
    r = ReduceProdOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceSumSquare")
    r = ReduceSumOp::create(b, loc, type, MulOp::create(b, loc, t, x, x), axesAttr, keepAttr);
  else if (op == "ReduceL2")
    r = SqrtOp::create(
        b, loc, type,
        ReduceSumOp::create(b, loc, type, MulOp::create(b, loc, t, x, x), axesAttr, keepAttr));
  define(0, r);
  return true;
}

/// A 2-D convolution whose stride equals its kernel, without padding,
/// dilation or groups (a vision transformer's patch embedding): every
/// output pixel is one patch times the kernel, so it is x cut into patches
/// (reshapes and transposes of rank <= 4) times the kernel as a matrix.
/// False, with nothing built, for any other convolution (conv() builds a
/// neuron.conv then), a 1x1 one included: a pointwise convolution (ResNet's
/// bottlenecks, MobileNet's expansions and projections) has no patch to cut,
/// and as a matmul it would cost four transposes of its NCHW input and
/// output, which neuron.conv's implicit GEMM (channels on partitions) does
/// not.
bool Importer::patchEmbedding() {
  Value x = input(0), w = input(1);
  auto tx = cast<RankedTensorType>(x.getType()), tw = cast<RankedTensorType>(w.getType());
  std::optional<RankedTensorType> out = outputType(0);
  auto ones = [](std::optional<SmallVector<int64_t>> v) {
    return !v || llvm::all_of(*v, [](int64_t d) { return d == 1; });
  };
  std::optional<SmallVector<int64_t>> pads = intsAttr("pads"), strides = intsAttr("strides");
  const auto *autoPad = attr("auto_pad");
  bool noPad = (!pads || llvm::all_of(*pads, [](int64_t p) { return p == 0; })) &&
               (!autoPad || autoPad->s() == "NOTSET" || autoPad->s() == "VALID");
  if (tx.getRank() != 4 || tw.getRank() != 4 || !tx.hasStaticShape() || !tw.hasStaticShape() ||
      !out || !out->hasStaticShape() || !noPad || !ones(intsAttr("dilations")) ||
      intAttr("group", 1) != 1 || !strides || strides->size() != 2 ||
      tw.getDimSize(2) * tw.getDimSize(3) == 1 ||
      (*strides)[0] != tw.getDimSize(2) || (*strides)[1] != tw.getDimSize(3) ||
      tx.getDimSize(2) % tw.getDimSize(2) ||
      tx.getDimSize(3) % tw.getDimSize(3))
    return false;
  int64_t n = tx.getDimSize(0), c = tx.getDimSize(1), kh = tw.getDimSize(2), kw = tw.getDimSize(3),
          hp = tx.getDimSize(2) / kh, wp = tx.getDimSize(3) / kw, o = tw.getDimSize(0);
  Type elem = tx.getElementType();
  auto transpose = [&](Value v, ArrayRef<int64_t> perm) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return TransposeOp::create(b, loc, RankedTensorType::get(shape, elem), v,
                               b.getDenseI64ArrayAttr(perm));
  };
  Value v = reshape(x, {n * c * hp, kh, wp, kw});
  v = transpose(v, {0, 2, 1, 3}); // [n c hp, wp, kh, kw]
  v = reshape(v, {n, c, hp * wp, kh * kw});
  v = transpose(v, {0, 2, 1, 3}); // [n, hp wp, c, kh kw]
  v = reshape(v, {n, hp * wp, c * kh * kw});
  Value wm = reshape(w, {o, c * kh * kw});
  Value y = MatmulOp::create(b, loc, RankedTensorType::get({n, hp * wp, o}, elem), v, wm,
                             UnitAttr(), b.getUnitAttr());
  if (Value bias = input(2))
    y = AddOp::create(b, loc, y.getType(), y, bias);
  y = transpose(y, {0, 2, 1}); // [n, o, hp wp]
  define(0, reshape(y, out->getShape()));
  return true;
}

bool Importer::lowerNode() {
  llvm::StringRef op = node->op_type();
  auto needOut = [&]() -> std::optional<RankedTensorType> {
    std::optional<RankedTensorType> t = outputType(0);
    // Shape inference stops at shapes it cannot see through (an Expand by a
    // computed shape); the operands' own static shapes decide then.
    if (!t || !t->hasStaticShape())
      if (std::optional<RankedTensorType> c = computedType())
        t = c;
    if (!t)
      error() << "shape inference gave no type for output '" << node->output(0)
              << "'; give the model's inputs static shapes (or dim_params)";
    return t;
  };
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout" && node->input_size() > 2 && !node->input(2).empty()) {
      // Training mode with a ratio of 0 drops nothing (torchvision's Swin
      // calls F.dropout(p=0.0), whose training flag defaults to true).
      const Known *training = knownInput(2), *ratio = knownInput(1);
      bool dropsNothing = ratio && ratio->size() == 1 && ratio->at(0) == 0;
      if (!dropsNothing && (!training || training->values.empty() || training->values[0])) {
        error() << "training mode (random masks) is not supported; export in eval mode";
        return false;
      }
    }
    // A known value stays known (its constant is built where it is read).
    if (const Known *k = knownInput(0)) {
      Known copy = *k;
      known[node->output(0)] = std::move(copy);
      if (Value v = values.lookup(node->input(0)))
        define(0, v);
    } else {
      define(0, input(0));
    }
    // Inference keeps every element: the mask is all true.
    if (op == "Dropout" && node->output_size() > 1 && !node->output(1).empty()) {
      auto t = cast<RankedTensorType>(input(0).getType());
      define(1, ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(
                                       RankedTensorType::get(t.getShape(), b.getI1Type()), true)));
    }
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Equal" ||
      op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual")
    return binary(op);
  if (op == "Max" || op == "Min" || op == "Sum") {
    Value acc = input(0);
    for (int i = 1; i < node->input_size(); ++i) {
      Value y = input(i);
      RankedTensorType type =
          broadcastType(acc, y, cast<RankedTensorType>(acc.getType()).getElementType());
      acc = op == "Max"   ? Value(MaxOp::create(b, loc, type, acc, y))
            : op == "Min" ? Value(MinOp::create(b, loc, type, acc, y))
                          : Value(AddOp::create(b, loc, type, acc, y));
    }
    define(0, acc);
    return true;
  }
  if (op == "Where") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    define(0, SelectOp::create(b, loc, *out, input(0), input(1), input(2)));
    return true;
  }
  if (op == "And" || op == "Or" || op == "Xor") {
    Value x = input(0), y = input(1);
    RankedTensorType type = broadcastType(x, y, b.getI1Type());
    define(0, op == "And"  ? Value(BitwiseAndOp::create(b, loc, type, x, y))
              : op == "Or" ? Value(BitwiseOrOp::create(b, loc, type, x, y))
                           : Value(BitwiseXorOp::create(b, loc, type, x, y)));
    return true;
  }
  if (op == "Not") {
    Value x = input(0);
    define(0, BitwiseXorOp::create(b, loc, x.getType(), x, splat(b.getI1Type(), 1)));
    return true;
  }
  static const llvm::StringSet<> unary = {"Abs",  "Neg",     "Exp", "Log",  "Sqrt",      "Tanh",
                                          "Sigmoid", "Erf", "Relu", "Reciprocal", "Floor", "Ceil",
                                          "Sin",  "Cos"};
  if (unary.contains(op)) {
    Value x = input(0);
    Type t = x.getType();
    Value r;
    if (op == "Abs")
      r = AbsOp::create(b, loc, t, x);
    else if (op == "Neg")
      r = NegOp::create(b, loc, t, x);
    else if (op == "Exp")
      r = ExpOp::create(b, loc, t, x);
    else if (op == "Log")
      r = LogOp::create(b, loc, t, x);
    else if (op == "Sqrt")
      r = SqrtOp::create(b, loc, t, x);
    else if (op == "Tanh")
      r = TanhOp::create(b, loc, t, x);
    else if (op == "Sigmoid")
      r = SigmoidOp::create(b, loc, t, x);
    else if (op == "Erf")
      r = ErfOp::create(b, loc, t, x);
    else if (op == "Sin")
      r = SinOp::create(b, loc, t, x);
    else if (op == "Cos")
      r = CosOp::create(b, loc, t, x);
    else if (op == "Relu")
      r = ReluOp::create(b, loc, t, x);
    else if (op == "Floor")
      r = FloorOp::create(b, loc, t, x);
    else if (op == "Ceil")
      r = CeilOp::create(b, loc, t, x);
    else
      r = ReciprocalOp::create(b, loc, t, x);
    define(0, r);
    return true;
  }
  if (op == "LeakyRelu") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    Value scaled =
        MulOp::create(b, loc, t, x, splat(t.getElementType(), floatAttr("alpha", 0.01f)));
    Value neg = CompareOp::create(b, loc, RankedTensorType::get(t.getShape(), b.getI1Type()),
                                  ComparePredicate::lt, x, splat(t.getElementType(), 0));
    define(0, SelectOp::create(b, loc, t, neg, scaled, x));
    return true;
  }
  if (op == "HardSigmoid" || op == "HardSwish") {
    // HardSigmoid: max(0, min(1, alpha x + beta)); HardSwish: x times it
    // with alpha 1/6, beta 1/2 (torch's hardswish, MobileNetV3's activation).
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    Type elem = t.getElementType();
    bool swish = op == "HardSwish";
    float alpha = swish ? 1.0f / 6 : floatAttr("alpha", 0.2f);
    float beta = swish ? 0.5f : floatAttr("beta", 0.5f);
    Value y = AddOp::create(b, loc, t, MulOp::create(b, loc, t, x, splat(elem, alpha)),
                            splat(elem, beta));
    y = MinOp::create(b, loc, t, MaxOp::create(b, loc, t, y, splat(elem, 0)), splat(elem, 1));
    define(0, swish ? Value(MulOp::create(b, loc, t, x, y)) : y);
    return true;
  }
  if (op == "Softplus") {
    Value x = input(0);
    Type t = x.getType();
    auto elem = cast<RankedTensorType>(t).getElementType();
    define(0, LogOp::create(b, loc, t,
                            AddOp::create(b, loc, t, ExpOp::create(b, loc, t, x), splat(elem, 1))));
    return true;
  }
  if (op == "Clip") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    Value r = x;
    if (Value lo = input(1))
      r = MaxOp::create(b, loc, t, r, lo);
    if (Value hi = input(2))
      r = MinOp::create(b, loc, t, r, hi);
    define(0, r);
    return true;
  }
  if (op == "Cast") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    Value x = input(0);
    define(0, x.getType() == *out ? x : Value(CastOp::create(b, loc, *out, x)));
    return true;
  }
  if (op == "MatMul") {
    Value x = input(0), y = input(1);
    auto tx = cast<RankedTensorType>(x.getType()), ty = cast<RankedTensorType>(y.getType());
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    // 1-D operands are a row (lhs) or a column (rhs), dropped from the result.
    if (tx.getRank() == 1)
      x = reshape(x, {1, tx.getDimSize(0)});
    if (ty.getRank() == 1)
      y = reshape(y, {ty.getDimSize(0), 1});
    auto lx = cast<RankedTensorType>(x.getType()), ly = cast<RankedTensorType>(y.getType());
    SmallVector<int64_t> shape =
        *broadcastShapes(lx.getShape().drop_back(2), ly.getShape().drop_back(2));
    shape.push_back(lx.getDimSize(lx.getRank() - 2));
    shape.push_back(ly.getDimSize(ly.getRank() - 1));
    Value r = MatmulOp::create(b, loc, RankedTensorType::get(shape, out->getElementType()), x, y,
                               UnitAttr(), UnitAttr());
    define(0, reshape(r, out->getShape()));
    return true;
  }
  if (op == "Gemm") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    Value r = MatmulOp::create(b, loc, *out, input(0), input(1),
                               intAttr("transA", 0) ? b.getUnitAttr() : UnitAttr(),
                               intAttr("transB", 0) ? b.getUnitAttr() : UnitAttr());
    Type elem = out->getElementType();
    if (float alpha = floatAttr("alpha", 1.0f); alpha != 1.0f)
      r = MulOp::create(b, loc, *out, r, splat(elem, alpha));
    if (Value c = input(2)) {
      if (float beta = floatAttr("beta", 1.0f); beta != 1.0f)
        c = MulOp::create(b, loc, c.getType(), c, splat(elem, beta));
      r = AddOp::create(b, loc, *out, r, c);
    }
    define(0, r);
    return true;
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    Value x = input(0);
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    int64_t axis = normAxis(intAttr("axis", opset >= 13 ? -1 : 1), rank);
    if (opset < 13 && axis != rank - 1) {
      error() << "before opset 13, " << op << " normalizes the dims from axis " << axis
              << " on as one; export at opset >= 13";
      return false;
    }
    define(0, SoftmaxOp::create(b, loc, x.getType(), x, b.getI64IntegerAttr(axis),
                                op == "LogSoftmax" ? b.getUnitAttr() : UnitAttr()));
    return true;
  }
  if (op == "LayerNormalization") {
    Value x = input(0);
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    int64_t axis = normAxis(intAttr("axis", -1), rank);
    SmallVector<int64_t> axes;
    for (int64_t i = axis; i < rank; ++i)
      axes.push_back(i);
    float eps = floatAttr("epsilon", 1e-5f);
    define(0, LayerNormOp::create(b, loc, x.getType(), x, input(1), input(2),
                                  b.getDenseI64ArrayAttr(axes), b.getF32FloatAttr(eps)));
    // The optional Mean and InvStdDev outputs (kept dims), computed apart.
    bool mean = node->output_size() > 1 && !node->output(1).empty();
    bool inv = node->output_size() > 2 && !node->output(2).empty();
    if (mean || inv) {
      auto t = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(t.getShape());
      for (int64_t a : axes)
        shape[a] = 1;
      auto st = RankedTensorType::get(shape, t.getElementType());
      auto axesAttr = b.getDenseI64ArrayAttr(axes);
      Value m = ReduceMeanOp::create(b, loc, st, x, axesAttr, b.getUnitAttr());
      if (mean)
        define(1, m);
      if (inv) {
        Value d = SubOp::create(b, loc, t, x, m);
        Value var = ReduceMeanOp::create(b, loc, st, MulOp::create(b, loc, t, d, d), axesAttr,
                                         b.getUnitAttr());
        define(2, RsqrtOp::create(b, loc, st,
                                  AddOp::create(b, loc, st, var, splat(t.getElementType(), eps))));
      }
    }
    return true;
  }
  if (op.starts_with("Reduce"))
    return reduce(op);
  if (op == "Transpose") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> perm;
    if (std::optional<SmallVector<int64_t>> p = intsAttr("perm"))
      perm = *p;
    else
      for (int64_t i = t.getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    define(0, TransposeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), x,
                                  b.getDenseI64ArrayAttr(perm)));
    return true;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    std::optional<RankedTensorType> out = outputType(0);
    if (!out || !out->hasStaticShape())
      out = reshapedType();
    if (!out) {
      needOut();
      return false;
    }
    define(0, reshape(input(0), out->getShape()));
    return true;
  }
  if (op == "Expand") {
    Value x = input(0);
    std::optional<RankedTensorType> out = outputType(0);
    // Shape inference may not see through the shape's computation; the
    // folded shape gives the result.
    if (!out || !out->hasStaticShape()) {
      auto t = cast<RankedTensorType>(x.getType());
      std::optional<SmallVector<int64_t>> shape = ints(1);
      std::optional<SmallVector<int64_t>> result;
      if (shape && t.hasStaticShape())
        result = broadcastShapes(t.getShape(), *shape);
      if (result)
        out = RankedTensorType::get(*result, t.getElementType());
    }
    if (!out) {
      needOut();
      return false;
    }
    define(0, x.getType() == *out ? x : Value(BroadcastToOp::create(b, loc, *out, x)));
    return true;
  }
  if (op == "Concat") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    SmallVector<Value> ins;
    for (int i = 0; i < node->input_size(); ++i)
      ins.push_back(input(i));
    define(0, ConcatOp::create(b, loc, *out, ins, normAxis(intAttr("axis", 0), out->getRank())));
    return true;
  }
  if (op == "Slice" || op == "Split") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    int64_t rank = t.getRank();
    auto slice = [&](int out, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                     ArrayRef<int64_t> strides) {
      define(out, SliceOp::create(b, loc, RankedTensorType::get(sizes, t.getElementType()), x,
                                  b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                                  b.getDenseI64ArrayAttr(strides)));
    };
    SmallVector<int64_t> offsets(rank, 0), sizes(t.getShape()), strides(rank, 1);
    if (op == "Split") {
      int64_t axis = normAxis(intAttr("axis", 0), rank);
      SmallVector<int64_t> split;
      if (opset >= 13 && givenUnknown(1)) {
        error() << "the split sizes must be a constant";
        return false;
      }
      if (std::optional<SmallVector<int64_t>> s = opset >= 13 ? ints(1) : intsAttr("split"))
        split = *s;
      else {
        int64_t n = node->output_size(), d = t.getDimSize(axis);
        for (int64_t i = 0; i < n; ++i)
          split.push_back(d / n + (i < d % n ? 1 : 0));
      }
      int64_t at = 0;
      for (size_t i = 0; i < split.size() && static_cast<int>(i) < node->output_size(); ++i) {
        offsets[axis] = at;
        sizes[axis] = split[i];
        slice(static_cast<int>(i), offsets, sizes, strides);
        at += split[i];
      }
      return true;
    }
    std::optional<SmallVector<int64_t>> starts = ints(1), ends = ints(2);
    if (!starts || !ends || givenUnknown(3) || givenUnknown(4)) {
      error() << "starts, ends, axes and steps must be constants";
      return false;
    }
    SmallVector<int64_t> axes, steps;
    sliceAxesAndSteps(starts->size(), ints(3), ints(4), axes, steps);
    // Negative steps walk the axis backwards: a gather of the positions
    // (s, s + step, ... > e) after the slice of the positive-step axes.
    SmallVector<std::pair<int64_t, SmallVector<int32_t>>> backwards;
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t axis = normAxis(axes[i], rank), d = t.getDimSize(axis);
      int64_t step = steps[i];
      if (step == 0) {
        error() << "a zero step is not allowed (axis " << axis << ")";
        return false;
      }
      SmallVector<int64_t> pos = slicePositions((*starts)[i], (*ends)[i], step, d);
      if (step < 0) {
        backwards.push_back({axis, SmallVector<int32_t>(pos.begin(), pos.end())});
        continue;
      }
      offsets[axis] = pos.empty() ? 0 : pos.front();
      sizes[axis] = static_cast<int64_t>(pos.size());
      strides[axis] = step;
    }
    if (backwards.empty()) {
      slice(0, offsets, sizes, strides);
      return true;
    }
    Value r = x;
    if (llvm::any_of(offsets, [](int64_t o) { return o != 0; }) ||
        ArrayRef<int64_t>(sizes) != t.getShape() ||
        llvm::any_of(strides, [](int64_t st) { return st != 1; }))
      r = SliceOp::create(b, loc, RankedTensorType::get(sizes, t.getElementType()), x,
                          b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                          b.getDenseI64ArrayAttr(strides));
    for (auto &[axis, positions] : backwards) {
      auto idxType =
          RankedTensorType::get({static_cast<int64_t>(positions.size())}, b.getI32Type());
      Value idx = ConstantOp::create(b, loc, idxType,
                                     DenseElementsAttr::get(idxType, ArrayRef(positions)));
      SmallVector<int64_t> shape(cast<RankedTensorType>(r.getType()).getShape());
      shape[axis] = static_cast<int64_t>(positions.size());
      r = GatherOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), r, idx,
                           b.getI64IntegerAttr(axis));
    }
    define(0, r);
    return true;
  }
  if (op == "Gather") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    Value x = input(0), idx = input(1);
    auto tx = cast<RankedTensorType>(x.getType());
    int64_t axis = normAxis(intAttr("axis", 0), tx.getRank());
    // Negative indices count from the end: idx < 0 ? idx + dim : idx, unless
    // the indices are known not to be negative.
    const Known *k = knownInput(1);
    if (!tx.isDynamicDim(axis) &&
        (!k || llvm::any_of(k->values, [](int64_t v) { return v < 0; }))) {
      auto ti = cast<RankedTensorType>(idx.getType());
      Type ie = ti.getElementType();
      Value neg = CompareOp::create(b, loc, RankedTensorType::get(ti.getShape(), b.getI1Type()),
                                    ComparePredicate::lt, idx, splat(ie, 0));
      Value wrapped =
          AddOp::create(b, loc, ti, idx, splat(ie, static_cast<double>(tx.getDimSize(axis))));
      idx = SelectOp::create(b, loc, ti, neg, wrapped, idx);
    }
    define(0, GatherOp::create(b, loc, *out, x, idx, axis));
    return true;
  }
  if (op == "Conv")
    return conv();
  if (op == "ConvTranspose")
    return convTranspose();
  if (op == "MaxPool" || op == "AveragePool")
    return pool(op);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return globalPool(op);
  if (op == "BatchNormalization")
    return batchNorm();
  if (op == "Pad")
    return pad();
  if (op == "Resize")
    return resize();
  if (op == "Trilu") {
    // x where the (static) triangle holds, else 0: the mask is a constant.
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    int64_t k = 0;
    if (node->input_size() > 1 && !node->input(1).empty()) {
      const Known *kk = knownInput(1);
      if (!kk) {
        error() << "the diagonal offset k must be a constant";
        return false;
      }
      k = kk->values[0];
    }
    if (t.getRank() < 2 || !t.hasStaticShape()) {
      error() << "needs a static input of rank 2 or more";
      return false;
    }
    int64_t rows = t.getDimSize(t.getRank() - 2), cols = t.getDimSize(t.getRank() - 1);
    bool upper = intAttr("upper", 1) != 0;
    SmallVector<bool> keep;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        keep.push_back(upper ? j - i >= k : j - i <= k);
    Value mask = ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({rows, cols}, b.getI1Type()), keep));
    define(0, SelectOp::create(b, loc, t, mask, x, splat(t.getElementType(), 0)));
    return true;
  }
  if (op == "ConstantOfShape") {
    std::optional<SmallVector<int64_t>> shape = ints(0);
    if (!shape) {
      error() << "the shape must be a constant";
      return false;
    }
    auto type = RankedTensorType::get(*shape, b.getF32Type());
    DenseElementsAttr value = DenseElementsAttr::get(type, 0.0f);
    if (const auto *a = attr("value")) {
      std::optional<DenseElementsAttr> v = tensorAttr(a->t());
      if (!v)
        return false;
      type = RankedTensorType::get(*shape, v->getElementType());
      value = DenseElementsAttr::get(type, *v->value_begin<Attribute>());
    }
    define(0, ConstantOp::create(b, loc, value));
    if (std::optional<Known> k = knownOf(value))
      known[node->output(0)] = *k;
    return true;
  }
  if (op == "Range") {
    // Constant bounds are evaluated at import (EvaluateConstants.cpp).
    error() << "start, limit and delta must be constants (initializers, or computed from "
               "constants and static shapes), delta not 0, with at most "
            << kEvalLimit
            << " results: a Range of run-time values has a data-dependent length, which static "
               "shapes cannot hold";
    return false;
  }
  if (op == "Mod")
    return mod();
  if (op == "ScatterND")
    return scatterND();
  if (op == "Tile")
    return tile();
  if (op == "InstanceNormalization")
    return instanceNorm();
  if (op == "LSTM" || op == "GRU" || op == "RNN")
    return recurrent(op);
  if (op == "Einsum")
    return einsum();
  return false;
}

//===----------------------------------------------------------------------===//
// Ops whose constant forms fold at import, on run-time values
//===----------------------------------------------------------------------===//

bool Importer::mod() {
  Value a = input(0), c = input(1);
  auto ta = cast<RankedTensorType>(a.getType());
  Type elem = ta.getElementType();
  std::optional<RankedTensorType> out = outputType(0);
  RankedTensorType type = out && out->hasStaticShape() ? *out : broadcastType(a, c, elem);
  auto i1 = RankedTensorType::get(type.getShape(), b.getI1Type());
  bool fmod = intAttr("fmod", 0) != 0;
  // r = a - trunc(a / b) * b: C's fmod, the sign of the dividend (integer
  // neuron.div truncates toward zero; a float quotient is truncated as
  // floor or ceil by its sign).
  Value q = DivOp::create(b, loc, type, a, c);
  if (isa<FloatType>(elem)) {
    Value neg = CompareOp::create(b, loc, i1, ComparePredicate::lt, q, splat(elem, 0));
    q = SelectOp::create(b, loc, type, neg, CeilOp::create(b, loc, type, q),
                         FloorOp::create(b, loc, type, q));
  }
  Value r = SubOp::create(b, loc, type, a, MulOp::create(b, loc, type, q, c));
  if (!fmod) {
    // Python's %: a non-zero remainder whose sign differs from the
    // divisor's moves by one divisor.
    Value zero = splat(elem, 0);
    Value nonzero = BitwiseXorOp::create(
        b, loc, i1, CompareOp::create(b, loc, i1, ComparePredicate::eq, r, zero),
        splat(b.getI1Type(), 1));
    Value signs = BitwiseXorOp::create(
        b, loc, i1, CompareOp::create(b, loc, i1, ComparePredicate::lt, r, zero),
        CompareOp::create(
            b, loc,
            RankedTensorType::get(cast<RankedTensorType>(c.getType()).getShape(), b.getI1Type()),
            ComparePredicate::lt, c, zero));
    Value fix = BitwiseAndOp::create(b, loc, i1, nonzero, signs);
    r = SelectOp::create(b, loc, type, fix, AddOp::create(b, loc, type, r, c), r);
  }
  define(0, r);
  return true;
}

bool Importer::scatterND() {
  Value data = input(0), updates = input(2);
  auto td = cast<RankedTensorType>(data.getType()), tu = cast<RankedTensorType>(updates.getType());
  std::string reduction = "none";
  if (const auto *a = attr("reduction"))
    reduction = a->s();
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min") {
    error() << "unknown reduction '" << reduction << "' (none, add, mul, max or min)";
    return false;
  }
  const Known *idx = constInput(1);
  if (!idx) {
    error() << "the indices must be constants (initializers, or computed from constants and "
               "static shapes); a scatter to positions computed at run time is not supported "
               "(export indices built from shapes, not from data)";
    return false;
  }
  if (!td.hasStaticShape() || !tu.hasStaticShape()) {
    error() << "needs static data and updates shapes";
    return false;
  }
  int64_t k = idx->shape.empty() ? 0 : idx->shape.back();
  int64_t rank = td.getRank();
  if (k < 1 || k > rank) {
    error() << "the indices' last dim (" << k << ") must be between 1 and the data's rank (" << rank
            << ")";
    return false;
  }
  int64_t rows = product(td.getShape().take_front(k)), inner = product(td.getShape().drop_front(k));
  int64_t count = product(ArrayRef<int64_t>(idx->shape).drop_back());
  if (tu.getNumElements() != count * inner) {
    error() << "updates of type " << tu << " do not match " << count << " index tuples of " << inner
            << " elements";
    return false;
  }
  // The data row each index tuple writes.
  SmallVector<int64_t> target;
  for (int64_t t = 0; t < count; ++t) {
    int64_t row = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t p = idx->values[t * k + j], n = td.getDimSize(j);
      p = p < 0 ? p + n : p;
      if (p < 0 || p >= n) {
        error() << "index " << idx->values[t * k + j] << " is out of range for dim " << j
                << " of size " << n;
        return false;
      }
      row = row * n + p;
    }
    target.push_back(row);
  }
  if (count == 0) {
    define(0, data);
    return true;
  }
  Type elem = td.getElementType();
  auto rowsType = RankedTensorType::get({rows, inner}, elem);
  Value dataRows = reshape(data, {rows, inner}), updRows = reshape(updates, {count, inner});
  // Row i of `table` at position ids[i], for every data row i.
  auto gatherRows = [&](Value table, ArrayRef<int32_t> ids) -> Value {
    auto idxType = RankedTensorType::get({rows}, b.getI32Type());
    Value v = ConstantOp::create(b, loc, idxType, DenseElementsAttr::get(idxType, ids));
    return GatherOp::create(b, loc, rowsType, table, v, b.getI64IntegerAttr(0));
  };
  Value result;
  if (reduction == "none") {
    // Row i: the last update written to it (row rows + t of the
    // concatenation), else the data's own row.
    SmallVector<int32_t> source;
    for (int64_t i = 0; i < rows; ++i)
      source.push_back(static_cast<int32_t>(i));
    for (int64_t t = 0; t < count; ++t)
      source[target[t]] = static_cast<int32_t>(rows + t);
    Value both = ConcatOp::create(b, loc, RankedTensorType::get({rows + count, inner}, elem),
                                  ValueRange{dataRows, updRows}, 0);
    result = gatherRows(both, source);
  } else {
    // One round per write a row receives: round r combines every row with
    // its r-th update, or with the reduction's identity (row `count` of
    // the updates and one identity row).
    bool isFloat = isa<FloatType>(elem);
    double identity = reduction == "add"   ? 0.0
                      : reduction == "mul" ? 1.0
                      : reduction == "max"
                          ? (isFloat ? -std::numeric_limits<double>::infinity()
                                     : static_cast<double>(std::numeric_limits<int32_t>::min()))
                          : (isFloat ? std::numeric_limits<double>::infinity()
                                     : static_cast<double>(std::numeric_limits<int32_t>::max()));
    Value table = ConcatOp::create(
        b, loc, RankedTensorType::get({count + 1, inner}, elem),
        ValueRange{updRows, BroadcastToOp::create(b, loc, RankedTensorType::get({1, inner}, elem),
                                                  splat(elem, identity))},
        0);
    SmallVector<SmallVector<int32_t>> rounds;
    SmallVector<int64_t> writes(rows, 0);
    for (int64_t t = 0; t < count; ++t) {
      int64_t r = writes[target[t]]++;
      if (static_cast<int64_t>(rounds.size()) <= r)
        rounds.push_back(SmallVector<int32_t>(rows, static_cast<int32_t>(count)));
      rounds[r][target[t]] = static_cast<int32_t>(t);
    }
    result = dataRows;
    for (ArrayRef<int32_t> round : rounds) {
      Value part = gatherRows(table, round);
      result = reduction == "add"   ? Value(AddOp::create(b, loc, rowsType, result, part))
               : reduction == "mul" ? Value(MulOp::create(b, loc, rowsType, result, part))
               : reduction == "max" ? Value(MaxOp::create(b, loc, rowsType, result, part))
                                    : Value(MinOp::create(b, loc, rowsType, result, part));
    }
  }
  define(0, reshape(result, td.getShape()));
  return true;
}

bool Importer::tile() {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  std::optional<SmallVector<int64_t>> reps = ints(1);
  if (!reps || static_cast<int64_t>(reps->size()) != t.getRank() || !t.hasStaticShape() ||
      llvm::any_of(*reps, [](int64_t r) { return r < 1; })) {
    error() << "the repeats must be a constant (an initializer, or computed from constants and "
               "static shapes) with one positive count per dim of a static input";
    return false;
  }
  // [d0, d1] tiled by [r0, r1]: [1, d0, 1, d1] broadcast to [r0, d0, r1,
  // d1], reshaped to [r0 d0, r1 d1] (a new axis only where r > 1).
  SmallVector<int64_t> spread, wide, shape;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    int64_t r = (*reps)[d], n = t.getDimSize(d);
    if (r > 1) {
      spread.push_back(1);
      wide.push_back(r);
    }
    spread.push_back(n);
    wide.push_back(n);
    shape.push_back(r * n);
  }
  if (ArrayRef<int64_t>(shape) == t.getShape()) {
    define(0, x);
    return true;
  }
  Value v = reshape(x, spread);
  v = BroadcastToOp::create(b, loc, RankedTensorType::get(wide, t.getElementType()), v);
  define(0, reshape(v, shape));
  return true;
}

bool Importer::instanceNorm() {
  Value x = input(0), scale = input(1), bias = input(2);
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() < 3 || !t.hasStaticShape()) {
    error() << "needs a static input [N, C, D...] of rank 3 or more";
    return false;
  }
  int64_t n = t.getDimSize(0), c = t.getDimSize(1), spatial = product(t.getShape().drop_front(2));
  Type elem = t.getElementType();
  float eps = floatAttr("epsilon", 1e-5f);
  // Per instance and channel over the spatial dims, flattened into one.
  auto flat = RankedTensorType::get({n, c, spatial}, elem);
  Value y = LayerNormOp::create(b, loc, flat, reshape(x, flat.getShape()), Value(), Value(),
                                b.getDenseI64ArrayAttr({2}), b.getF32FloatAttr(eps));
  // scale[c] and B[c] along the channels; ones and zeros (what the exporter
  // writes for GroupNorm, whose affine follows as Mul and Add) vanish.
  auto is = [&](Value v, double want) {
    std::optional<SmallVector<double>> f = floatsOf(v);
    return f && llvm::all_of(*f, [&](double d) { return d == want; });
  };
  if (!is(scale, 1.0))
    y = MulOp::create(b, loc, flat, y, reshape(scale, {c, 1}));
  if (!is(bias, 0.0))
    y = AddOp::create(b, loc, flat, y, reshape(bias, {c, 1}));
  define(0, reshape(y, t.getShape()));
  return true;
}
