//===- ConvertRecurrent.cpp - ONNX LSTM, GRU and RNN as neuron ops ---------===//
//
// Importer::recurrent: a recurrent layer unrolled over its static sequence.
// Per direction, the input projection of every step is one matmul,
// [T*B, I] x [I, gates*H] with the biases added (the work that does not
// depend on the state); then per step one recurrent matmul [B, H] x
// [H, gates*H] and the gates as elementwise ops, the states carried as
// values. Y stacks the steps' hidden states, Y_h and Y_c are the last.
// sequence_lens masks the steps past each batch entry's length (zero
// outputs, state kept); a reverse direction with lengths reads each entry's
// valid steps backwards (a gather of the projection, and of the outputs back).
// Constant weights are sliced per direction and transposed at import.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/IR/Matchers.h"

using namespace neuronc::onnximport;

namespace {

/// One activation function of a recurrent layer, with its alpha and beta.
struct Activation {
  std::string name; ///< lower case: relu, tanh, sigmoid, affine, leakyrelu, ...
  float alpha = 0, beta = 0;
};

/// The activations ONNX's recurrent ops take, whether each reads an alpha
/// and a beta from activation_alpha/activation_beta (consumed in order by
/// the functions that take them, as onnxruntime does), and their defaults.
struct ActivationInfo {
  const char *name;
  bool alpha, beta;
  float defaultAlpha, defaultBeta;
};
constexpr ActivationInfo kActivations[] = {
    {"relu", false, false, 0, 0},           {"tanh", false, false, 0, 0},
    {"sigmoid", false, false, 0, 0},        {"affine", true, true, 1.0f, 0.0f},
    {"leakyrelu", true, false, 0.01f, 0},   {"thresholdedrelu", true, false, 1.0f, 0},
    {"scaledtanh", true, true, 1.0f, 1.0f}, {"hardsigmoid", true, true, 0.2f, 0.5f},
    {"elu", true, false, 1.0f, 0},          {"softsign", false, false, 0, 0},
    {"softplus", false, false, 0, 0},
};

/// The elements of `v` if it is a constant.
std::optional<SmallVector<double>> constantFloats(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<double> out;
  out.reserve(attr.getNumElements());
  if (attr.getElementType().isF32() && !attr.isSplat()) {
    for (float f : attr.getValues<float>())
      out.push_back(f);
  } else if (isa<FloatType>(attr.getElementType())) {
    for (APFloat f : attr.getValues<APFloat>())
      out.push_back(f.convertToDouble());
  } else {
    for (APInt i : attr.getValues<APInt>())
      out.push_back(static_cast<double>(i.getSExtValue()));
  }
  return out;
}

/// Builds the unrolled layer's ops: slices of the weights per direction,
/// the activations, the gates of one step.
class RecurrentBuilder {
public:
  RecurrentBuilder(OpBuilder &b, Location loc, Type elem) : b(b), loc(loc), elem(elem) {}

  RankedTensorType type(ArrayRef<int64_t> shape, Type e = {}) {
    return RankedTensorType::get(shape, e ? e : elem);
  }
  ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }
  Value scalar(double v) {
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type({}), FloatAttr::get(elem, v)));
  }
  Value constant(ArrayRef<int64_t> shape, ArrayRef<double> data) {
    auto t = type(shape);
    if (elem.isF32()) {
      SmallVector<float> f(data.begin(), data.end());
      return ConstantOp::create(b, loc, DenseElementsAttr::get(t, ArrayRef<float>(f)));
    }
    SmallVector<APFloat> f;
    for (double d : data) {
      APFloat a(d);
      bool lost;
      a.convert(cast<FloatType>(elem).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      f.push_back(a);
    }
    return ConstantOp::create(b, loc, DenseElementsAttr::get(t, f));
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (shapeOf(v) == shape)
      return v;
    auto t = cast<RankedTensorType>(v.getType());
    return ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v);
  }
  Value slice(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    if (shapeOf(v) == sizes)
      return v;
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> strides(sizes.size(), 1);
    return SliceOp::create(b, loc, RankedTensorType::get(sizes, t.getElementType()), v,
                           b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                           b.getDenseI64ArrayAttr(strides));
  }
  /// Columns [from, from + count) of a [rows, cols] value.
  Value columns(Value v, int64_t from, int64_t count) {
    return slice(v, {0, from}, {shapeOf(v)[0], count});
  }
  Value add(Value x, Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return AddOp::create(b, loc, broadcast(x, y), x, y);
  }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, broadcast(x, y), x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, broadcast(x, y), x, y); }
  RankedTensorType broadcast(Value x, Value y) {
    return type(*broadcastShapes(shapeOf(x), shapeOf(y)));
  }
  Value matmul(Value x, Value y) {
    SmallVector<int64_t> shape(shapeOf(x).drop_back());
    shape.push_back(shapeOf(y).back());
    return MatmulOp::create(b, loc, type(shape), x, y, UnitAttr(), UnitAttr());
  }

  /// Rows [from, from + count) of direction `d` of `w` ([dirs, rows, cols]),
  /// transposed to [cols, count]: a constant for a constant `w`, else
  /// slice, reshape and transpose ops.
  Value weightT(Value w, int64_t d, int64_t from, int64_t count) {
    ArrayRef<int64_t> s = shapeOf(w);
    int64_t rows = s[1], cols = s[2];
    if (std::optional<SmallVector<double>> data = constantFloats(w)) {
      SmallVector<double> t(cols * count);
      for (int64_t r = 0; r < count; ++r)
        for (int64_t c = 0; c < cols; ++c)
          t[c * count + r] = (*data)[(d * rows + from + r) * cols + c];
      return constant({cols, count}, t);
    }
    Value v = reshape(slice(w, {d, from, 0}, {1, count, cols}), {count, cols});
    return TransposeOp::create(b, loc, type({cols, count}), v, b.getDenseI64ArrayAttr({1, 0}));
  }
  /// Elements [from, from + count) of direction `d` of `v` ([dirs, n]): a
  /// constant for a constant `v`, else slice and reshape ops.
  Value vectorPart(Value v, int64_t d, int64_t from, int64_t count) {
    if (std::optional<SmallVector<double>> data = constantFloats(v)) {
      int64_t n = shapeOf(v)[1];
      return constant({count}, ArrayRef<double>(*data).slice(d * n + from, count));
    }
    return reshape(slice(v, {d, from}, {1, count}), {count});
  }
  /// Whether `v` is a constant whose elements are all zero.
  static bool isZero(Value v) {
    std::optional<SmallVector<double>> f = constantFloats(v);
    return f && llvm::all_of(*f, [](double x) { return x == 0; });
  }

  Value activate(const Activation &a, Value x) {
    auto t = cast<RankedTensorType>(x.getType());
    auto i1 = RankedTensorType::get(t.getShape(), b.getI1Type());
    const std::string &n = a.name;
    if (n == "relu")
      return ReluOp::create(b, loc, t, x);
    if (n == "tanh")
      return TanhOp::create(b, loc, t, x);
    if (n == "sigmoid")
      return SigmoidOp::create(b, loc, t, x);
    if (n == "affine")
      return add(mul(x, scalar(a.alpha)), scalar(a.beta));
    if (n == "leakyrelu") {
      Value neg = CompareOp::create(b, loc, i1, ComparePredicate::lt, x, scalar(0));
      return SelectOp::create(b, loc, t, neg, mul(x, scalar(a.alpha)), x);
    }
    if (n == "thresholdedrelu") {
      Value keep = CompareOp::create(b, loc, i1, ComparePredicate::gt, x, scalar(a.alpha));
      return SelectOp::create(b, loc, t, keep, x, scalar(0));
    }
    if (n == "scaledtanh")
      return mul(TanhOp::create(b, loc, t, mul(x, scalar(a.beta))), scalar(a.alpha));
    if (n == "hardsigmoid") {
      Value y = add(mul(x, scalar(a.alpha)), scalar(a.beta));
      return MinOp::create(b, loc, t, MaxOp::create(b, loc, t, y, scalar(0)), scalar(1));
    }
    if (n == "elu") {
      Value neg = CompareOp::create(b, loc, i1, ComparePredicate::lt, x, scalar(0));
      Value e = mul(sub(ExpOp::create(b, loc, t, x), scalar(1)), scalar(a.alpha));
      return SelectOp::create(b, loc, t, neg, e, x);
    }
    if (n == "softsign")
      return DivOp::create(b, loc, t, x, add(AbsOp::create(b, loc, t, x), scalar(1)));
    // softplus
    return LogOp::create(b, loc, t, add(ExpOp::create(b, loc, t, x), scalar(1)));
  }
  /// `x` clipped to [-clip, clip] when a clip is given.
  Value clipped(Value x, std::optional<float> clip) {
    if (!clip)
      return x;
    auto t = cast<RankedTensorType>(x.getType());
    return MinOp::create(b, loc, t, MaxOp::create(b, loc, t, x, scalar(-*clip)), scalar(*clip));
  }

  OpBuilder &b;
  Location loc;
  Type elem;
};

} // namespace

bool Importer::recurrent(llvm::StringRef op) {
  enum Kind { LSTM, GRU, RNN };
  Kind kind = op == "LSTM" ? LSTM : op == "GRU" ? GRU : RNN;
  int64_t gates = kind == LSTM ? 4 : kind == GRU ? 3 : 1;
  int64_t actsPerDir = kind == LSTM ? 3 : kind == GRU ? 2 : 1;
  Value x = input(0), w = input(1), r = input(2), bias = input(3);
  Value initH = input(5), initC = kind == LSTM ? input(6) : Value(),
        peep = kind == LSTM ? input(7) : Value();
  for (Value v : {x, w, r})
    if (!v || !cast<RankedTensorType>(v.getType()).hasStaticShape()) {
      error() << "needs X, W and R of static shapes: the layer is unrolled over its sequence; "
                 "export with a fixed sequence length and batch";
      return false;
    }
  auto tx = cast<RankedTensorType>(x.getType());
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem)) {
    error() << "needs a float input, not " << tx;
    return false;
  }
  int64_t layout = intAttr("layout", 0);
  if (tx.getRank() != 3 || (layout != 0 && layout != 1)) {
    error() << "needs X of rank 3 and layout 0 or 1";
    return false;
  }
  std::string direction = "forward";
  if (const auto *a = attr("direction"))
    direction = a->s();
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    error() << "unknown direction '" << direction << "' (forward, reverse or bidirectional)";
    return false;
  }
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  auto tw = cast<RankedTensorType>(w.getType()), tr = cast<RankedTensorType>(r.getType());
  int64_t hidden = tr.getRank() == 3 ? tr.getDimSize(2) : 0;
  int64_t seq = tx.getDimSize(layout ? 1 : 0), batch = tx.getDimSize(layout ? 0 : 1),
          inputSize = tx.getDimSize(2);
  if (tw.getRank() != 3 || tw.getDimSize(0) != dirs || tw.getDimSize(1) != gates * hidden ||
      tw.getDimSize(2) != inputSize || tr.getDimSize(0) != dirs ||
      tr.getDimSize(1) != gates * hidden ||
      (attr("hidden_size") && intAttr("hidden_size", 0) != hidden)) {
    error() << "W " << tw << " and R " << tr << " do not match " << dirs << " direction(s) of "
            << gates << " gate(s) of hidden size " << intAttr("hidden_size", hidden)
            << " over inputs of size " << inputSize;
    return false;
  }
  if (seq == 0 || batch == 0) {
    error() << "has an empty sequence or batch; the device has no empty tensors";
    return false;
  }
  std::optional<float> clip;
  if (attr("clip"))
    clip = floatAttr("clip", 0);
  bool linearBeforeReset = kind == GRU && intAttr("linear_before_reset", 0) != 0;
  bool inputForget = kind == LSTM && intAttr("input_forget", 0) != 0;

  // Activations: per direction f, g, h (LSTM), f, g (GRU), f (RNN).
  SmallVector<std::string> names;
  if (const auto *a = attr("activations")) {
    for (const auto &s : a->strings())
      names.push_back(llvm::StringRef(s).lower());
  } else {
    SmallVector<std::string> dflt = kind == LSTM
                                        ? SmallVector<std::string>{"sigmoid", "tanh", "tanh"}
                                    : kind == GRU ? SmallVector<std::string>{"sigmoid", "tanh"}
                                                  : SmallVector<std::string>{"tanh"};
    for (int64_t d = 0; d < dirs; ++d)
      names.append(dflt.begin(), dflt.end());
  }
  if (static_cast<int64_t>(names.size()) != actsPerDir * dirs) {
    error() << "lists " << names.size() << " activations; " << op << " with " << dirs
            << " direction(s) takes " << actsPerDir * dirs;
    return false;
  }
  SmallVector<float> alphas, betas;
  if (const auto *a = attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const auto *a = attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  SmallVector<Activation> acts;
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &n : names) {
    const ActivationInfo *info =
        llvm::find_if(kActivations, [&](const ActivationInfo &i) { return n == i.name; });
    if (info == std::end(kActivations)) {
      error() << "activation '" << n
              << "' is not supported; use one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                 "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus";
      return false;
    }
    Activation act{n, info->defaultAlpha, info->defaultBeta};
    if (info->alpha && nextAlpha < alphas.size())
      act.alpha = alphas[nextAlpha++];
    if (info->beta && nextBeta < betas.size())
      act.beta = betas[nextBeta++];
    acts.push_back(act);
  }

  // sequence_lens: known (decided per step at import) or run-time.
  std::optional<SmallVector<int64_t>> lens;
  Value lensValue;
  if (node->input_size() > 4 && !node->input(4).empty()) {
    if (const Known *k = knownInput(4)) {
      lens = k->values;
      if (static_cast<int64_t>(lens->size()) != batch) {
        error() << "sequence_lens has " << lens->size() << " entries for a batch of " << batch;
        return false;
      }
      for (int64_t l : *lens)
        if (l < 0 || l > seq) {
          error() << "sequence_lens holds " << l << ", outside [0, " << seq << "]";
          return false;
        }
      if (llvm::all_of(*lens, [&](int64_t l) { return l == seq; }))
        lens.reset();
    } else {
      lensValue = input(4);
    }
  }
  bool masked = lens || lensValue;

  RecurrentBuilder rb(b, loc, elem);
  // X as [T, B, I]; initial states as [dirs, B, H].
  if (layout)
    x = TransposeOp::create(b, loc, rb.type({seq, batch, inputSize}), x,
                            b.getDenseI64ArrayAttr({1, 0, 2}));
  auto stateInput = [&](Value v) -> Value {
    if (!v || RecurrentBuilder::isZero(v))
      return {};
    if (layout)
      v = TransposeOp::create(b, loc, rb.type({dirs, batch, hidden}), v,
                              b.getDenseI64ArrayAttr({1, 0, 2}));
    return v;
  };
  initH = stateInput(initH);
  initC = stateInput(initC);
  if (peep && RecurrentBuilder::isZero(peep))
    peep = {};
  if (bias && RecurrentBuilder::isZero(bias))
    bias = {};
  Value xFlat = rb.reshape(x, {seq * batch, inputSize});

  // Per step t, which batch entries are still in their sequence: nullopt
  // when all are, else a [B, 1] mask.
  auto maskAt = [&](int64_t t) -> std::optional<Value> {
    if (lens) {
      if (llvm::all_of(*lens, [&](int64_t l) { return l > t; }))
        return std::nullopt;
      SmallVector<bool> m;
      for (int64_t l : *lens)
        m.push_back(l > t);
      auto mt = RankedTensorType::get({batch, 1}, b.getI1Type());
      return Value(ConstantOp::create(b, loc, DenseElementsAttr::get(mt, m)));
    }
    if (!lensValue)
      return std::nullopt;
    auto lt = cast<RankedTensorType>(lensValue.getType());
    Value tc =
        ConstantOp::create(b, loc,
                           DenseElementsAttr::get(RankedTensorType::get({}, lt.getElementType()),
                                                  IntegerAttr::get(lt.getElementType(), t)));
    Value m = CompareOp::create(b, loc, RankedTensorType::get({batch}, b.getI1Type()),
                                ComparePredicate::lt, tc, lensValue);
    return rb.reshape(m, {batch, 1});
  };
  // For a reverse direction with lengths: flat row s * B + b of the
  // sequence as the reverse direction reads it ([T * B] i32), each entry's
  // valid steps backwards, the rest in place.
  auto reversedRows = [&]() -> Value {
    auto it = RankedTensorType::get({seq * batch}, b.getI32Type());
    if (lens) {
      SmallVector<int32_t> rows;
      for (int64_t s = 0; s < seq; ++s)
        for (int64_t e = 0; e < batch; ++e) {
          int64_t l = (*lens)[e];
          rows.push_back(static_cast<int32_t>((s < l ? l - 1 - s : s) * batch + e));
        }
      return ConstantOp::create(b, loc, DenseElementsAttr::get(it, ArrayRef(rows)));
    }
    auto i32 = [&](ArrayRef<int64_t> shape) {
      return RankedTensorType::get(shape, b.getI32Type());
    };
    Value l = lensValue;
    if (!cast<RankedTensorType>(l.getType()).getElementType().isInteger(32))
      l = CastOp::create(b, loc, i32({batch}), l);
    l = rb.reshape(l, {1, batch});
    SmallVector<int32_t> steps, entries;
    for (int64_t s = 0; s < seq; ++s)
      steps.push_back(static_cast<int32_t>(s));
    for (int64_t e = 0; e < batch; ++e)
      entries.push_back(static_cast<int32_t>(e));
    Value sv = ConstantOp::create(b, loc, DenseElementsAttr::get(i32({seq, 1}), ArrayRef(steps)));
    Value ev =
        ConstantOp::create(b, loc, DenseElementsAttr::get(i32({1, batch}), ArrayRef(entries)));
    auto grid = i32({seq, batch});
    auto one = DenseElementsAttr::get(i32({}), IntegerAttr::get(b.getI32Type(), 1));
    auto bsz = DenseElementsAttr::get(i32({}), IntegerAttr::get(b.getI32Type(), batch));
    Value valid = CompareOp::create(b, loc, RankedTensorType::get({seq, batch}, b.getI1Type()),
                                    ComparePredicate::lt, sv, l);
    Value back = SubOp::create(b, loc, grid, SubOp::create(b, loc, grid, l, sv),
                               ConstantOp::create(b, loc, one));
    Value step = SelectOp::create(b, loc, grid, valid, back, sv);
    Value rows = AddOp::create(
        b, loc, grid, MulOp::create(b, loc, grid, step, ConstantOp::create(b, loc, bsz)), ev);
    return rb.reshape(rows, {seq * batch});
  };

  SmallVector<Value> ys, yhs, ycs; // per direction: [T, B, H], [B, H], [B, H]
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const Activation &f = acts[d * actsPerDir];
    const Activation &g = acts[d * actsPerDir + (actsPerDir > 1 ? 1 : 0)];
    const Activation &hAct = acts[d * actsPerDir + (actsPerDir > 2 ? 2 : 0)];
    int64_t width = gates * hidden;

    // The input projection of every step, with the biases that do not
    // depend on the state: [T, B, gates*H].
    Value inBias;
    Value hBias; // GRU with linear_before_reset: Rbh, inside r * (...)
    if (bias) {
      inBias = rb.vectorPart(bias, d, 0, width);
      if (kind == GRU && linearBeforeReset) {
        inBias = rb.add(
            inBias,
            ConcatOp::create(b, loc, rb.type({width}),
                             ValueRange{rb.vectorPart(bias, d, width, 2 * hidden),
                                        rb.constant({hidden}, SmallVector<double>(hidden, 0))},
                             0));
        hBias = rb.vectorPart(bias, d, width + 2 * hidden, hidden);
        if (RecurrentBuilder::isZero(hBias))
          hBias = {};
      } else {
        inBias = rb.add(inBias, rb.vectorPart(bias, d, width, width));
      }
    }
    Value proj = rb.matmul(xFlat, rb.weightT(w, d, 0, width));
    if (inBias)
      proj = rb.add(proj, inBias);
    if (reverse && masked)
      proj = GatherOp::create(b, loc, rb.type({seq * batch, width}), proj, reversedRows(),
                              b.getI64IntegerAttr(0));
    proj = rb.reshape(proj, {seq, batch, width});

    // Recurrent weights, transposed: all gates at once, except GRU's
    // candidate without linear_before_reset, which reads r * H.
    bool splitCandidate = kind == GRU && !linearBeforeReset;
    Value rT = rb.weightT(r, d, 0, splitCandidate ? 2 * hidden : width);
    Value rhT = splitCandidate ? rb.weightT(r, d, 2 * hidden, hidden) : Value();
    Value pi, po, pf;
    if (peep) {
      pi = rb.vectorPart(peep, d, 0, hidden);
      po = rb.vectorPart(peep, d, hidden, hidden);
      pf = rb.vectorPart(peep, d, 2 * hidden, hidden);
    }
    Value h = initH ? rb.reshape(rb.slice(initH, {d, 0, 0}, {1, batch, hidden}), {batch, hidden})
                    : Value();
    Value c = initC ? rb.reshape(rb.slice(initC, {d, 0, 0}, {1, batch, hidden}), {batch, hidden})
                    : Value();
    SmallVector<Value> outs(seq); // the hidden state per step, in step order
    for (int64_t s = 0; s < seq; ++s) {
      // Reverse without lengths reads the steps backwards; with lengths the
      // projection is already reversed per entry, so it is read in order.
      int64_t t = reverse && !masked ? seq - 1 - s : s;
      Value xt = rb.reshape(rb.slice(proj, {t, 0, 0}, {1, batch, width}), {batch, width});
      auto gate = [&](Value v, int64_t k) { return rb.columns(v, k * hidden, hidden); };
      Value hNew, cNew;
      if (kind == LSTM) {
        Value pre = h ? rb.add(xt, rb.matmul(h, rT)) : xt;
        Value ip = gate(pre, 0), op_ = gate(pre, 1), fp = gate(pre, 2), cp = gate(pre, 3);
        if (peep && c) {
          ip = rb.add(ip, rb.mul(pi, c));
          fp = rb.add(fp, rb.mul(pf, c));
        }
        Value i = rb.activate(f, rb.clipped(ip, clip));
        Value fg = inputForget ? rb.sub(rb.scalar(1), i) : rb.activate(f, rb.clipped(fp, clip));
        Value cand = rb.activate(g, rb.clipped(cp, clip));
        cNew = rb.mul(i, cand);
        if (c)
          cNew = rb.add(rb.mul(fg, c), cNew);
        if (peep)
          op_ = rb.add(op_, rb.mul(po, cNew));
        Value o = rb.activate(f, rb.clipped(op_, clip));
        hNew = rb.mul(o, rb.activate(hAct, cNew));
      } else if (kind == GRU) {
        Value rec = h ? rb.matmul(h, rT) : Value(); // [B, 2H] or [B, 3H]
        Value zp = gate(xt, 0), rp = gate(xt, 1), hp = gate(xt, 2);
        if (rec) {
          zp = rb.add(zp, gate(rec, 0));
          rp = rb.add(rp, gate(rec, 1));
        }
        Value z = rb.activate(f, rb.clipped(zp, clip));
        Value rg = rb.activate(f, rb.clipped(rp, clip));
        if (linearBeforeReset) {
          Value inner = rb.add(rec ? gate(rec, 2) : Value(), hBias);
          if (inner)
            hp = rb.add(hp, rb.mul(rg, inner));
        } else if (h) {
          hp = rb.add(hp, rb.matmul(rb.mul(rg, h), rhT));
        }
        Value cand = rb.activate(g, rb.clipped(hp, clip));
        // (1 - z) * cand + z * h
        hNew = h ? rb.add(cand, rb.mul(z, rb.sub(h, cand))) : rb.mul(rb.sub(rb.scalar(1), z), cand);
      } else {
        Value pre = h ? rb.add(xt, rb.matmul(h, rT)) : xt;
        hNew = rb.activate(f, rb.clipped(pre, clip));
      }
      std::optional<Value> m = maskAt(s);
      if (!m) {
        outs[t] = hNew;
        h = hNew;
        c = cNew;
        continue;
      }
      // Past its length an entry keeps its state and outputs zeros.
      auto st = rb.type({batch, hidden});
      Value zero = rb.scalar(0);
      outs[t] = SelectOp::create(b, loc, st, *m, hNew, zero);
      h = SelectOp::create(b, loc, st, *m, hNew, h ? h : zero);
      if (kind == LSTM)
        c = SelectOp::create(b, loc, st, *m, cNew, c ? c : zero);
    }
    // Y for this direction: [T, B, H] (with lengths, reverse's rows back in place).
    bool wantY = node->output_size() > 0 && !node->output(0).empty();
    if (wantY) {
      // The steps' [B, H] states stacked as [T*B, H] rows: each step's
      // state is read as it is, by the next step and by the concat.
      Value y = outs.size() == 1
                    ? outs[0]
                    : Value(ConcatOp::create(b, loc, rb.type({seq * batch, hidden}), outs, 0));
      if (reverse && masked)
        y = GatherOp::create(b, loc, rb.type({seq * batch, hidden}), y, reversedRows(),
                             b.getI64IntegerAttr(0));
      ys.push_back(rb.reshape(y, {seq, batch, hidden}));
    }
    yhs.push_back(h ? h : rb.constant({batch, hidden}, SmallVector<double>(batch * hidden, 0)));
    if (kind == LSTM)
      ycs.push_back(c ? c : rb.constant({batch, hidden}, SmallVector<double>(batch * hidden, 0)));
  }

  // Y [T, dirs, B, H] (layout 1: [B, T, dirs, H]); Y_h, Y_c [dirs, B, H]
  // (layout 1: [B, dirs, H]).
  if (!ys.empty()) {
    SmallVector<Value> parts;
    for (Value y : ys)
      parts.push_back(rb.reshape(y, {seq, 1, batch, hidden}));
    Value y = parts.size() == 1
                  ? parts[0]
                  : Value(ConcatOp::create(b, loc, rb.type({seq, dirs, batch, hidden}), parts, 1));
    if (layout)
      y = TransposeOp::create(b, loc, rb.type({batch, seq, dirs, hidden}), y,
                              b.getDenseI64ArrayAttr({2, 0, 1, 3}));
    define(0, y);
  }
  auto stack = [&](ArrayRef<Value> states, int out) {
    if (node->output_size() <= out || node->output(out).empty())
      return;
    Value s = states.size() == 1
                  ? states[0]
                  : Value(ConcatOp::create(b, loc, rb.type({dirs * batch, hidden}), states, 0));
    s = rb.reshape(s, {dirs, batch, hidden});
    if (layout)
      s = TransposeOp::create(b, loc, rb.type({batch, dirs, hidden}), s,
                              b.getDenseI64ArrayAttr({1, 0, 2}));
    define(out, s);
  };
  stack(yhs, 1);
  if (kind == LSTM)
    stack(ycs, 2);
  return true;
}
