//===- BucketShapes.cpp - neuron-bucket-shapes ----------------------------===//
//
// Dynamic dims → static buckets. For each function with dynamically shaped
// arguments: the tied dims become symbols (ShapeSymbols), the user's bucket
// spec gives each symbol its sizes, every bucket of the grid becomes a
// static clone of the function, reductions along padded dims get masked to
// their identity (a pad-value analysis skips masks the padding already
// satisfies), and the function itself becomes a neuron.dispatch over the
// clones.
//
//===----------------------------------------------------------------------===//

#include "ShapeSymbols.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Transforms/Passes.h"
#include "neuronc/Support/IntegerOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>
#include <map>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONBUCKETSHAPESPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

//===----------------------------------------------------------------------===//
// The bucket spec
//===----------------------------------------------------------------------===//

/// One `name:sizes` entry of the spec.
struct SpecEntry {
  std::string name;
  std::vector<int64_t> sizes;
  bool used = false;
};

/// Parses `seq:128,256;batch:auto:1:8`. Returns an error text, or "".
std::string parseSpec(StringRef text, std::vector<SpecEntry> &out) {
  SmallVector<StringRef> entries;
  text.split(entries, ';', -1, /*KeepEmpty=*/false);
  for (StringRef raw : entries) {
    StringRef e = raw.trim();
    auto [name, rest] = e.split(':');
    name = name.trim();
    if (name.empty() || rest.empty())
      return ("bucket spec '" + e + "' is not NAME:SIZES (e.g. seq:128,256 or seq:auto:128:4096)")
          .str();
    SpecEntry entry;
    entry.name = name.str();
    if (rest.trim().starts_with("auto")) {
      SmallVector<StringRef> parts;
      rest.trim().split(parts, ':');
      int64_t lo = 0, hi = 0;
      if (parts.size() != 3 || parts[1].trim().getAsInteger(10, lo) ||
          parts[2].trim().getAsInteger(10, hi) || lo < 1 || hi < lo)
        return ("bucket spec '" + e +
                "': automatic buckets are NAME:auto:MIN:MAX with 1 <= MIN <= MAX (powers of two "
                "from MIN, then MAX)")
            .str();
      for (int64_t s = lo; s < hi; s *= 2)
        entry.sizes.push_back(s);
      entry.sizes.push_back(hi);
    } else {
      SmallVector<StringRef> parts;
      rest.split(parts, ',');
      for (StringRef p : parts) {
        int64_t v = 0;
        if (p.trim().getAsInteger(10, v) || v < 1)
          return ("bucket spec '" + e + "': '" + p.trim() + "' is not a size (a positive integer)")
              .str();
        entry.sizes.push_back(v);
      }
    }
    llvm::sort(entry.sizes);
    entry.sizes.erase(std::unique(entry.sizes.begin(), entry.sizes.end()), entry.sizes.end());
    for (const SpecEntry &other : out)
      if (other.name == entry.name)
        return "bucket spec names '" + entry.name + "' twice";
    out.push_back(std::move(entry));
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Pad values
//===----------------------------------------------------------------------===//

/// What the elements of a value hold where the index along one dim is in
/// the padding: a known constant, some finite number, or anything (inf/NaN
/// possible). Real elements are assumed finite.
struct Fill {
  enum Kind { Const, Finite, Unknown } kind = Unknown;
  double value = 0;
  static Fill constant(double v) { return {Const, v}; }
  static Fill finite() { return {Finite, 0}; }
  static Fill unknown() { return {Unknown, 0}; }
  bool isConst(double v) const {
    return kind == Const && (value == v || (std::isnan(v) && std::isnan(value)));
  }
  bool isFinite() const { return kind == Finite || (kind == Const && std::isfinite(value)); }
};

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The pad value of an elementwise op given its operands' at one dim, for
/// constants by evaluation and otherwise by the rules of IEEE arithmetic
/// with finite real elements.
Fill evalElementwise(Operation *op, ArrayRef<Fill> in) {
  bool allConst = llvm::all_of(in, [](const Fill &f) { return f.kind == Fill::Const; });
  auto finiteIfAll = [&]() {
    return llvm::all_of(in, [](const Fill &f) { return f.isFinite(); }) ? Fill::finite()
                                                                       : Fill::unknown();
  };
  if (allConst) {
    double a = in[0].value, b = in.size() > 1 ? in[1].value : 0;
    std::optional<double> v =
        llvm::TypeSwitch<Operation *, std::optional<double>>(op)
            .Case([&](AddOp) { return a + b; })
            .Case([&](SubOp) { return a - b; })
            .Case([&](MulOp) { return a * b; })
            .Case([&](DivOp) { return a / b; })
            .Case([&](MaxOp) { return std::max(a, b); })
            .Case([&](MinOp) { return std::min(a, b); })
            .Case([&](PowOp) { return std::pow(a, b); })
            .Case([&](NegOp) { return -a; })
            .Case([&](AbsOp) { return std::fabs(a); })
            .Case([&](ExpOp) { return std::exp(a); })
            .Case([&](LogOp) { return std::log(a); })
            .Case([&](SqrtOp) { return std::sqrt(a); })
            .Case([&](RsqrtOp) { return 1 / std::sqrt(a); })
            .Case([&](ReciprocalOp) { return 1 / a; })
            .Case([&](SquareOp) { return a * a; })
            .Case([&](TanhOp) { return std::tanh(a); })
            .Case([&](SigmoidOp) { return 1 / (1 + std::exp(-a)); })
            .Case([&](ErfOp) { return std::erf(a); })
            .Case([&](SinOp) { return std::sin(a); })
            .Case([&](CosOp) { return std::cos(a); })
            .Case([&](SiluOp) { return a / (1 + std::exp(-a)); })
            .Case([&](ReluOp) { return std::max(a, 0.0); })
            .Case([&](RoundOp) { return std::nearbyint(a); })
            .Case([&](FloorOp) { return std::floor(a); })
            .Case([&](CeilOp) { return std::ceil(a); })
            .Case([&](BitwiseAndOp) { return double(int32_t(a) & int32_t(b)); })
            .Case([&](BitwiseOrOp) { return double(int32_t(a) | int32_t(b)); })
            .Case([&](BitwiseXorOp) { return double(int32_t(a) ^ int32_t(b)); })
            .Case([&](ShiftLeftOp) { return double(neuronc::shiftLeft(int32_t(a), int32_t(b))); })
            .Case([&](ShiftRightOp) {
              return double(neuronc::shiftRightArithmetic(int32_t(a), int32_t(b)));
            })
            .Case([&](ShiftRightLogicalOp) {
              return double(neuronc::shiftRightLogical(int32_t(a), int32_t(b)));
            })
            .Case([&](CastOp) { return a; })
            .Case([&](SelectOp) -> std::optional<double> {
              return a != 0 ? b : in[2].value;
            })
            .Case([&](CompareOp c) -> std::optional<double> {
              switch (c.getPredicate()) {
              case ComparePredicate::eq: return a == b;
              case ComparePredicate::lt: return a < b;
              case ComparePredicate::le: return a <= b;
              case ComparePredicate::gt: return a > b;
              case ComparePredicate::ge: return a >= b;
              }
              return std::nullopt;
            })
            .Default([](Operation *) { return std::nullopt; });
    if (v)
      return Fill::constant(*v);
    return Fill::unknown();
  }
  const Fill &x = in[0];
  const Fill y = in.size() > 1 ? in[1] : Fill::unknown();
  auto isInf = [](const Fill &f) { return f.kind == Fill::Const && std::isinf(f.value); };
  return llvm::TypeSwitch<Operation *, Fill>(op)
      .Case([&](AddOp) {
        if (isInf(x) && y.isFinite())
          return x;
        if (isInf(y) && x.isFinite())
          return y;
        return finiteIfAll();
      })
      .Case([&](SubOp) {
        if (isInf(x) && y.isFinite())
          return x;
        if (isInf(y) && x.isFinite())
          return Fill::constant(-y.value);
        return finiteIfAll();
      })
      .Case([&](MulOp) {
        if ((x.isConst(0) && y.isFinite()) || (y.isConst(0) && x.isFinite()))
          return Fill::constant(0);
        return finiteIfAll();
      })
      .Case([&](DivOp) {
        if (x.isFinite() && y.kind == Fill::Const && std::isfinite(y.value) && y.value != 0)
          return Fill::finite();
        if (x.isFinite() && isInf(y))
          return Fill::constant(0);
        return Fill::unknown();
      })
      .Case([&](MaxOp) {
        if (x.isConst(-kInf))
          return y;
        if (y.isConst(-kInf))
          return x;
        if (x.isConst(kInf) || y.isConst(kInf))
          return Fill::constant(kInf);
        return finiteIfAll();
      })
      .Case([&](MinOp) {
        if (x.isConst(kInf))
          return y;
        if (y.isConst(kInf))
          return x;
        if (x.isConst(-kInf) || y.isConst(-kInf))
          return Fill::constant(-kInf);
        return finiteIfAll();
      })
      .Case([&](SelectOp) {
        const Fill &f = in[2];
        if (x.kind == Fill::Const)
          return x.value != 0 ? y : f;
        if (y.kind == Fill::Const && f.kind == Fill::Const && y.value == f.value)
          return y;
        return y.isFinite() && f.isFinite() ? Fill::finite() : Fill::unknown();
      })
      .Case<CompareOp>([&](auto) { return Fill::finite(); })
      .Case<NegOp, AbsOp, SquareOp, ReluOp, TanhOp, SigmoidOp, ErfOp, SinOp, CosOp, SiluOp,
            GeluOp, RoundOp, FloorOp, CeilOp, CastOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp,
            ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp>([&](auto) { return finiteIfAll(); })
      .Default([](Operation *) { return Fill::unknown(); });
}

//===----------------------------------------------------------------------===//
// Specialization
//===----------------------------------------------------------------------===//

/// Per value of a specialized function: the symbol of each dim (-1 when the
/// dim is not padded) and what its padded elements hold.
struct PadInfo {
  SmallVector<int> symbol;
  SmallVector<Fill> fill;
};

/// Builds one bucket's function and masks its reductions along padded dims.
class Specializer {
public:
  Specializer(func::FuncOp fn, const ShapeSymbols &shapes, ArrayRef<int64_t> sizes)
      : fn(fn), shapes(shapes), sizes(sizes) {}

  /// Clones `fn` as `name` with the bucket's static shapes, inserted after
  /// `fn`. Fails (with an error at the op) when a reduction along a padded
  /// dim cannot be masked.
  FailureOr<func::FuncOp> run(StringRef name);

  /// The symbols whose masks the clone takes, in argument order.
  SmallVector<int> maskOrder;
  /// The cost of each op of the original function at this bucket.
  SmallVector<std::pair<Operation *, OpCost>> costs;

private:
  RankedTensorType staticType(Value v);
  void retype(Value original);
  PadInfo &info(Value v);
  Fill fillAt(Value operand, Value result, unsigned resultDim);
  Fill broadcastFill(Value v);
  Value mask(int symbol, Location loc);
  Value maskAlong(Value x, unsigned dim, double identity, Operation *current);
  LogicalResult visit(Operation *op);

  IRMapping mapping;
  func::FuncOp fn, clone;
  const ShapeSymbols &shapes;
  ArrayRef<int64_t> sizes;
  llvm::DenseMap<Value, PadInfo> pads;
  llvm::DenseMap<int, Value> masks;
};

RankedTensorType Specializer::staticType(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  for (auto [d, s] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(s))
      continue;
    int sym = shapes.symbolOf(v, d);
    s = sym >= 0 ? sizes[sym] : shapes.staticSizeOf(v, d);
  }
  return RankedTensorType::get(shape, t.getElementType());
}

void Specializer::retype(Value original) {
  auto t = dyn_cast<RankedTensorType>(original.getType());
  if (!t)
    return;
  Value v = mapping.lookup(original);
  v.setType(staticType(original));
  PadInfo p;
  for (unsigned d = 0; d < t.getRank(); ++d) {
    p.symbol.push_back(t.isDynamicDim(d) ? shapes.symbolOf(original, d) : -1);
    p.fill.push_back(Fill::unknown());
  }
  pads[v] = std::move(p);
}

PadInfo &Specializer::info(Value v) {
  auto it = pads.find(v);
  if (it != pads.end())
    return it->second;
  // A value created here: padded where the value it was derived from is.
  PadInfo &p = pads[v];
  auto t = cast<RankedTensorType>(v.getType());
  p.symbol.assign(t.getRank(), -1);
  p.fill.assign(t.getRank(), Fill::unknown());
  return p;
}

/// What a value is where some dim of a result it broadcasts into is padded:
/// any of its elements.
Fill Specializer::broadcastFill(Value v) {
  // A splat constant is that constant everywhere.
  if (auto c = v.getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()); dense && dense.isSplat()) {
      if (isa<FloatType>(dense.getElementType()))
        return Fill::constant(dense.getSplatValue<APFloat>().convertToDouble());
      if (dense.getElementType().isInteger(1))
        return Fill::constant(dense.getSplatValue<bool>() ? 1 : 0);
      return Fill::constant(static_cast<double>(dense.getSplatValue<APInt>().getSExtValue()));
    }
  const PadInfo &p = info(v);
  for (auto [s, f] : llvm::zip(p.symbol, p.fill))
    if (s >= 0 && !f.isFinite())
      return Fill::unknown();
  return Fill::finite();
}

/// The pad value `operand` contributes at dim `resultDim` of `result`,
/// with numpy alignment of trailing dims.
Fill Specializer::fillAt(Value operand, Value result, unsigned resultDim) {
  int64_t rr = cast<RankedTensorType>(result.getType()).getRank();
  int64_t orank = cast<RankedTensorType>(operand.getType()).getRank();
  int64_t d = static_cast<int64_t>(resultDim) - (rr - orank);
  if (d >= 0 && info(operand).symbol[d] >= 0)
    return info(operand).fill[d];
  return broadcastFill(operand);
}

Value Specializer::mask(int symbol, Location loc) {
  if (Value m = masks.lookup(symbol))
    return m;
  auto type = RankedTensorType::get({sizes[symbol]}, IntegerType::get(fn.getContext(), 1));
  unsigned index = clone.getNumArguments();
  (void)clone.insertArgument(index, type, {}, loc);
  Value m = clone.getArgument(index);
  masks[symbol] = m;
  maskOrder.push_back(symbol);
  return m;
}

/// `select(mask, x, identity)` along `dim` of `x`, used by `current` and
/// every later op instead of `x` (only padded elements change, so no real
/// element does; one mask then serves every reduction of `x` with the same
/// identity).
Value Specializer::maskAlong(Value x, unsigned dim, double identity, Operation *current) {
  Location loc = current->getLoc();
  auto type = cast<RankedTensorType>(x.getType());
  int symbol = info(x).symbol[dim];
  OpBuilder b(fn.getContext());
  b.setInsertionPointAfterValue(x);
  Value m = mask(symbol, loc);
  SmallVector<int64_t> maskShape(type.getRank(), 1);
  maskShape[dim] = type.getDimSize(dim);
  Value shaped = ReshapeOp::create(
      b, loc, RankedTensorType::get(maskShape, b.getI1Type()), m);
  SmallVector<int64_t> ones(type.getRank(), 1);
  auto cType = RankedTensorType::get(ones, type.getElementType());
  Attribute value;
  if (isa<FloatType>(type.getElementType()))
    value = DenseElementsAttr::get(cType, b.getFloatAttr(type.getElementType(), identity));
  else
    value = DenseElementsAttr::get(
        cType, b.getIntegerAttr(type.getElementType(),
                                std::isinf(identity)
                                    ? (identity > 0 ? std::numeric_limits<int32_t>::max()
                                                    : std::numeric_limits<int32_t>::min())
                                    : static_cast<int64_t>(identity)));
  Value c = ConstantOp::create(b, loc, cType, cast<ElementsAttr>(value));
  Value masked = SelectOp::create(b, loc, type, shaped, x, c);
  // The masked value is the identity along `dim`; elsewhere in the padding
  // it mixes the old pad values and the identity.
  PadInfo p = info(x);
  for (auto [d, f] : llvm::enumerate(p.fill)) {
    if (p.symbol[d] < 0)
      continue;
    if (d == dim)
      f = Fill::constant(identity);
    else if (!f.isConst(identity))
      f = f.isFinite() && std::isfinite(identity) ? Fill::finite() : Fill::unknown();
  }
  pads[masked] = std::move(p);
  x.replaceUsesWithIf(masked, [&](OpOperand &use) {
    Operation *user = use.getOwner();
    return user == current || (user->getBlock() == current->getBlock() &&
                               current->isBeforeInBlock(user));
  });
  return masked;
}

/// The identity of a reduction, for its mask.
std::optional<double> identityOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<double>>(op)
      .Case<ReduceSumOp, ReduceMeanOp>([](auto) { return 0.0; })
      .Case([](ReduceMaxOp) { return -kInf; })
      .Case([](ReduceMinOp) { return kInf; })
      .Case([](ReduceProdOp) { return 1.0; })
      .Default([](Operation *) { return std::nullopt; });
}

LogicalResult Specializer::visit(Operation *op) {
  auto padded = [&](Value v, int64_t d) { return info(v).symbol[d] >= 0; };
  auto symbolName = [&](Value v, int64_t d) {
    return shapes.symbols()[info(v).symbol[d]].name;
  };
  OpBuilder b(op);

  // Reductions along padded dims: mask the input to the identity.
  if (std::optional<double> identity = identityOf(op)) {
    Value in = op->getOperand(0);
    auto axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
    Value masked = in;
    SmallVector<int> paddedSymbols;
    for (int64_t a : axes) {
      if (!padded(in, a))
        continue;
      paddedSymbols.push_back(info(in).symbol[a]);
      if (!info(masked).fill[a].isConst(*identity))
        masked = maskAlong(masked, a, *identity, op);
    }
    if (auto mean = dyn_cast<ReduceMeanOp>(op); mean && !paddedSymbols.empty()) {
      // mean = sum / true count: the count of each padded axis is the sum of
      // its mask, times the static axes' sizes.
      auto inType = cast<RankedTensorType>(in.getType());
      Type elt = inType.getElementType();
      int64_t staticCount = 1;
      for (int64_t a : axes)
        if (!padded(in, a))
          staticCount *= inType.getDimSize(a);
      auto sum = ReduceSumOp::create(b, op->getLoc(), mean.getType(), mean.getInput(),
                                     mean.getAxesAttr(), mean.getKeepdimsAttr());
      auto scalar = RankedTensorType::get({1}, elt);
      Value count;
      for (int s : paddedSymbols) {
        Value m = mask(s, op->getLoc());
        auto asFloat = RankedTensorType::get({sizes[s]}, elt);
        Value f = CastOp::create(b, op->getLoc(), asFloat, m);
        Value n = ReduceSumOp::create(b, op->getLoc(), scalar, f, b.getDenseI64ArrayAttr({0}),
                                      b.getUnitAttr());
        count = count ? MulOp::create(b, op->getLoc(), scalar, count, n).getResult() : n;
      }
      if (staticCount != 1) {
        auto c = ConstantOp::create(
            b, op->getLoc(), scalar,
            DenseElementsAttr::get(scalar, b.getFloatAttr(elt, static_cast<double>(staticCount))));
        count = MulOp::create(b, op->getLoc(), scalar, count, c);
      }
      auto sumType = cast<RankedTensorType>(mean.getType());
      if (sumType.getRank() != 1)
        count = ReshapeOp::create(
            b, op->getLoc(),
            RankedTensorType::get(SmallVector<int64_t>(sumType.getRank(), 1), elt), count);
      auto div = DivOp::create(b, op->getLoc(), mean.getType(), sum, count);
      mean.replaceAllUsesWith(div.getResult());
      pads[div] = info(mean.getResult());
      pads[sum] = info(mean.getResult());
      mean.erase();
      return success();
    }
    // Result: kept dims carry the input's pad values.
    PadInfo &out = info(op->getResult(0));
    const PadInfo &src = info(op->getOperand(0));
    bool keep = op->hasAttr("keepdims");
    unsigned j = 0;
    for (unsigned d = 0; d < src.symbol.size(); ++d) {
      bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
      if (!reduced && out.symbol[j] >= 0) {
        const Fill &f = src.fill[d];
        bool keepsConst = isa<ReduceMaxOp, ReduceMinOp>(op) ||
                          (isa<ReduceSumOp, ReduceMeanOp>(op) && f.isConst(0)) ||
                          (isa<ReduceProdOp>(op) && f.isConst(1));
        out.fill[j] = f.kind == Fill::Const && keepsConst ? f
                      : f.isFinite()                      ? Fill::finite()
                                                          : Fill::unknown();
      }
      if (!reduced || keep)
        ++j;
    }
    return success();
  }

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConstantOp>([](auto) { return success(); })
      .Case([&](SoftmaxOp s) -> LogicalResult {
        unsigned axis = s.getAxis();
        Value in = s.getInput();
        if (padded(in, axis) && !info(in).fill[axis].isConst(-kInf))
          maskAlong(in, axis, -kInf, s);
        const PadInfo &src = info(s.getInput());
        PadInfo &out = info(s.getResult());
        for (unsigned d = 0; d < out.symbol.size(); ++d) {
          if (out.symbol[d] < 0)
            continue;
          if (d == axis)
            out.fill[d] = Fill::constant(s.getLog() ? -kInf : 0.0);
          else
            out.fill[d] = src.fill[d].isFinite() && broadcastFill(s.getInput()).isFinite()
                              ? Fill::finite()
                              : Fill::unknown();
        }
        return success();
      })
      .Case<RmsNormOp, LayerNormOp>([&](Operation *n) -> LogicalResult {
        Value in = n->getOperand(0);
        auto axes = cast<DenseI64ArrayAttr>(n->getAttr("axes")).asArrayRef();
        for (int64_t a : axes)
          if (padded(in, a))
            return n->emitError("normalizes over dim ")
                   << a << ", the bucketed dim '" << symbolName(in, a)
                   << "': the padding would change its mean; bucket another dim, or write the "
                      "norm as separate ops so that the mean can be masked";
        PadInfo &out = info(n->getResult(0));
        const PadInfo &src = info(in);
        bool weightsFinite = llvm::all_of(llvm::drop_begin(n->getOperands()),
                                          [&](Value w) { return broadcastFill(w).isFinite(); });
        for (unsigned d = 0; d < out.symbol.size(); ++d)
          if (out.symbol[d] >= 0)
            out.fill[d] = isa<RmsNormOp>(n) && src.fill[d].isConst(0) && weightsFinite
                              ? Fill::constant(0)
                          : src.fill[d].isFinite() && weightsFinite ? Fill::finite()
                                                                    : Fill::unknown();
        return success();
      })
      .Case([&](MatmulOp m) -> LogicalResult {
        Value l = m.getLhs(), r = m.getRhs();
        int64_t lr = m.getLhs().getType().getRank(), rr = m.getRhs().getType().getRank();
        unsigned lm = m.getTransposeLhs() ? lr - 1 : lr - 2, lk = m.getTransposeLhs() ? lr - 2 : lr - 1;
        unsigned rk = m.getTransposeRhs() ? rr - 1 : rr - 2, rn = m.getTransposeRhs() ? rr - 2 : rr - 1;
        if (padded(l, lk)) {
          // Contraction over a padded dim: every padded product must be 0.
          Fill fl = info(l).fill[lk], fr = info(r).fill[rk];
          bool ok = (fl.isConst(0) && fr.isFinite()) || (fr.isConst(0) && fl.isFinite());
          if (!ok) {
            if (!fl.isConst(0))
              l = maskAlong(l, lk, 0.0, m);
            if (!info(r).fill[rk].isFinite())
              r = maskAlong(r, rk, 0.0, m);
          }
        }
        PadInfo &out = info(m.getResult());
        int64_t orank = out.symbol.size();
        auto combine = [&](Fill a, Fill other) {
          if (a.isConst(0) && other.isFinite())
            return Fill::constant(0);
          return a.isFinite() && other.isFinite() ? Fill::finite() : Fill::unknown();
        };
        if (out.symbol[orank - 2] >= 0)
          out.fill[orank - 2] = combine(info(l).fill[lm], broadcastFill(r));
        if (out.symbol[orank - 1] >= 0)
          out.fill[orank - 1] = combine(info(r).fill[rn], broadcastFill(l));
        for (int64_t d = 0; d + 2 < orank; ++d) {
          if (out.symbol[d] < 0)
            continue;
          Fill a = fillAt(l, m.getResult(), d), c = fillAt(r, m.getResult(), d);
          out.fill[d] = a.isConst(0) && c.isFinite()   ? Fill::constant(0)
                        : c.isConst(0) && a.isFinite() ? Fill::constant(0)
                        : a.isFinite() && c.isFinite() ? Fill::finite()
                                                       : Fill::unknown();
        }
        return success();
      })
      .Case<ConvOp, PoolOp>([&](Operation *o) -> LogicalResult {
        // A window reads past a padded spatial dim's true end where the
        // unbucketed program reads its own padding: 0 for a conv and an
        // average that counts the padding, -inf for max. Masked to that
        // value, the real outputs are unchanged. An average that counts
        // only the positions inside the input would count the bucket's.
        Value in = o->getOperand(0);
        auto pool = dyn_cast<PoolOp>(o);
        bool isMax = pool && pool.getKind() == PoolKind::max;
        double readsPad = isMax ? -kInf : 0.0;
        int64_t rank = cast<RankedTensorType>(in.getType()).getRank();
        bool spatialPadded = false;
        for (int64_t d = 2; d < rank; ++d) {
          if (!padded(in, d))
            continue;
          spatialPadded = true;
          if (pool && pool.getKind() == PoolKind::avg && !pool.getCountIncludePad())
            return o->emitError("averages a window over dim ")
                   << d << ", the bucketed dim '" << symbolName(in, d)
                   << "', dividing by the positions inside the input: the bucket's padding "
                      "would count; bucket another dim, or use count_include_pad";
          if (!info(in).fill[d].isConst(readsPad))
            in = maskAlong(in, d, readsPad, o);
        }
        // What a conv adds to zeros: nothing (no bias, a zero bias) or a
        // finite bias; its weights must be finite for 0 · w = 0.
        bool weightsFinite = true, addsNothing = true;
        if (auto c = dyn_cast<ConvOp>(o)) {
          weightsFinite = broadcastFill(c.getWeight()).isFinite();
          if (Value bias = c.getBias()) {
            Fill b = broadcastFill(bias);
            addsNothing = b.isConst(0);
            weightsFinite = weightsFinite && b.isFinite();
          }
        }
        PadInfo &out = info(o->getResult(0));
        const PadInfo &src = info(in);
        for (int64_t d = 0; d < rank; ++d) {
          if (out.symbol[d] < 0)
            continue;
          Fill f = src.fill[d];
          bool finite = weightsFinite && llvm::all_of(llvm::zip(src.symbol, src.fill), [](auto p) {
                          return std::get<0>(p) < 0 || std::get<1>(p).isFinite();
                        });
          // A padded batch row (or pooled channel) of one constant keeps it
          // when nothing else is padded and the window adds nothing to it.
          bool keeps = d < 2 && !spatialPadded && f.kind == Fill::Const &&
                       ((pool && (isMax || f.isConst(0))) ||
                        (!pool && f.isConst(0) && weightsFinite && addsNothing));
          out.fill[d] = keeps ? f : finite ? Fill::finite() : Fill::unknown();
        }
        return success();
      })
      .Case([&](TransposeOp t) {
        PadInfo &out = info(t.getResult());
        for (auto [i, p] : llvm::enumerate(t.getPerm()))
          out.fill[i] = info(t.getInput()).fill[p];
        return success();
      })
      .Case([&](ReshapeOp r) {
        // Dynamic dims keep their order through a reshape (ShapeSymbols).
        PadInfo &out = info(r.getResult());
        const PadInfo &in = info(r.getInput());
        SmallVector<Fill> fills;
        for (auto [s, f] : llvm::zip(in.symbol, in.fill))
          if (s >= 0)
            fills.push_back(f);
        unsigned k = 0;
        for (unsigned d = 0; d < out.symbol.size(); ++d)
          if (out.symbol[d] >= 0 && k < fills.size())
            out.fill[d] = fills[k++];
        return success();
      })
      .Case([&](GatherOp g) {
        PadInfo &out = info(g.getResult());
        for (unsigned d = 0; d < out.symbol.size(); ++d)
          if (out.symbol[d] >= 0)
            out.fill[d] = broadcastFill(g.getTable());
        return success();
      })
      .Case([&](KernelOp k) -> LogicalResult {
        return k.emitError("is a fused kernel; shape bucketing runs before fusion (bucket the "
                           "unfused program)");
      })
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp, CompareOp, SelectOp, NegOp, AbsOp,
            ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp, TanhOp, SigmoidOp, ErfOp,
            SinOp, CosOp, SiluOp, ReluOp, RoundOp, FloorOp, CeilOp, GeluOp, CastOp,
            BroadcastToOp>([&](Operation *o) {
        Value res = o->getResult(0);
        PadInfo &out = info(res);
        for (unsigned d = 0; d < out.symbol.size(); ++d) {
          if (out.symbol[d] < 0)
            continue;
          if (isa<BroadcastToOp>(o)) {
            out.fill[d] = fillAt(o->getOperand(0), res, d);
            continue;
          }
          SmallVector<Fill> in;
          for (Value v : o->getOperands())
            in.push_back(fillAt(v, res, d));
          out.fill[d] = evalElementwise(o, in);
        }
        return success();
      })
      .Default([](Operation *) { return success(); });
}

FailureOr<func::FuncOp> Specializer::run(StringRef name) {
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  clone = cast<func::FuncOp>(b.clone(*fn, mapping));
  clone.setSymName(name);
  for (BlockArgument a : fn.getArguments())
    retype(a);
  fn.walk([&](Operation *op) {
    for (Value r : op->getResults())
      retype(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          retype(a);
  });
  // Each op's cost at this bucket, before masking changes anything.
  fn.walk([&](Operation *op) {
    if (auto cost = dyn_cast_or_null<CostOpInterface>(mapping.lookupOrNull(op)))
      if (!isa<KernelOp>(op))
        if (std::optional<OpCost> c = cost.getCost())
          costs.push_back({op, *c});
  });
  // Arguments are padded with zeros by the host.
  for (BlockArgument a : clone.getArguments())
    for (Fill &f : info(a).fill)
      f = Fill::constant(0);
  SmallVector<Operation *> ops;
  for (Operation &op : clone.getBody().front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(visit(op)))
      return failure();
  auto ret = cast<func::ReturnOp>(clone.getBody().front().getTerminator());
  clone.setFunctionType(FunctionType::get(
      fn.getContext(), clone.getBody().front().getArgumentTypes(), ret.getOperandTypes()));
  return clone;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The name of a bucket's function: `f.seq_128.batch_2`.
std::string bucketName(StringRef fn, const std::vector<ShapeSymbol> &symbols,
                       ArrayRef<int64_t> sizes) {
  std::string name = fn.str();
  for (auto [s, n] : llvm::zip(symbols, sizes)) {
    std::string sym = s.name;
    std::replace(sym.begin(), sym.end(), '.', '_');
    name += "." + sym + "_" + std::to_string(n);
  }
  return name;
}

struct BucketShapesPass : mlir::neuron::impl::NeuronBucketShapesPassBase<BucketShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::vector<SpecEntry> spec;
    if (std::string err = parseSpec(buckets, spec); !err.empty()) {
      module.emitError(err);
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> dynamicFns;
    for (auto fn : module.getOps<func::FuncOp>()) {
      // A dispatcher (this pass's output, e.g. `neuronc --emit=bucketed`)
      // is left as it is when no buckets are asked for: its buckets are
      // fixed and its bucket functions are static.
      if (spec.empty() && !fn.isExternal() && !fn.getOps<DispatchOp>().empty())
        continue;
      if (!fn.isExternal() && llvm::any_of(fn.getArgumentTypes(), [](Type t) {
            auto rt = dyn_cast<RankedTensorType>(t);
            return rt && !rt.hasStaticShape();
          }))
        dynamicFns.push_back(fn);
    }
    // A name that is no dim of any function is a typo: say so first.
    llvm::StringSet<> known;
    for (func::FuncOp fn : dynamicFns) {
      ShapeSymbols shapes;
      if (failed(shapes.analyze(fn)))
        return signalPassFailure();
      for (const ShapeSymbol &sym : shapes.symbols())
        for (const std::string &alias : sym.aliases)
          known.insert(alias);
      for (BlockArgument a : fn.getArguments())
        if (auto t = dyn_cast<RankedTensorType>(a.getType()))
          for (unsigned d = 0; d < t.getRank(); ++d)
            if (t.isDynamicDim(d))
              known.insert("arg" + std::to_string(a.getArgNumber()) + "." + std::to_string(d));
    }
    for (SpecEntry &e : spec)
      e.used = known.contains(e.name);
    for (const SpecEntry &e : spec)
      if (!e.used) {
        module.emitError("bucket spec names '")
            << e.name << "', which is no dynamic dim of "
            << (dynamicFns.empty() ? "any function (no function has dynamic dims)"
                                   : "the dynamically shaped functions");
        return signalPassFailure();
      }
    for (func::FuncOp fn : dynamicFns)
      if (failed(bucketFunction(fn, spec)))
        return signalPassFailure();
  }

  LogicalResult bucketFunction(func::FuncOp fn, std::vector<SpecEntry> &spec) {
    if (!fn.getBody().hasOneBlock())
      return fn.emitError("shape bucketing needs a function with a single block");
    ShapeSymbols shapes;
    if (failed(shapes.analyze(fn)))
      return failure();
    const std::vector<ShapeSymbol> &symbols = shapes.symbols();
    // The sizes of every symbol.
    std::vector<std::vector<int64_t>> sizes(symbols.size());
    for (SpecEntry &e : spec) {
      for (BlockArgument a : fn.getArguments())
        if (auto t = dyn_cast<RankedTensorType>(a.getType()))
          for (unsigned d = 0; d < t.getRank(); ++d)
            if (t.isDynamicDim(d) && shapes.symbolOf(a, d) < 0 &&
                ("arg" + std::to_string(a.getArgNumber()) + "." + std::to_string(d)) == e.name)
              return fn.emitError("bucket spec names '")
                     << e.name << "', but that dim is tied to the static size "
                     << shapes.staticSizeOf(a, d) << " by the ops; it needs no buckets";
      for (auto [i, s] : llvm::enumerate(symbols)) {
        if (!llvm::is_contained(s.aliases, e.name))
          continue;
        if (!sizes[i].empty())
          return fn.emitError("bucket spec gives '")
                 << s.name << "' twice (as '" << e.name << "'; its names are "
                 << llvm::join(s.aliases, ", ") << ")";
        sizes[i] = e.sizes;
        e.used = true;
      }
    }
    for (auto [i, s] : llvm::enumerate(symbols))
      if (sizes[i].empty()) {
        std::string where;
        for (auto [a, d] : s.argDims)
          where += (where.empty() ? "" : ", ") + ("argument #" + Twine(a) + " dim " + Twine(d)).str();
        return fn.emitError("dynamic dim '")
               << s.name << "' (" << where << ") has no buckets; give them with --buckets="
               << s.name << ":128,256,... or --buckets=" << s.name << ":auto:MIN:MAX";
      }
    // The grid, first symbol outermost.
    uint64_t count = 1;
    for (const auto &s : sizes)
      count *= s.size();
    if (count > maxBuckets) {
      std::string dims;
      for (auto [s, list] : llvm::zip(symbols, sizes))
        dims += (dims.empty() ? "" : " x ") + s.name + ": " + std::to_string(list.size());
      return fn.emitError("the bucket grid has ")
             << count << " buckets (" << dims << "), more than the limit of " << static_cast<unsigned>(maxBuckets)
             << "; give fewer sizes or raise max-buckets";
    }
    std::vector<std::vector<int64_t>> grid{{}};
    for (const auto &list : sizes) {
      std::vector<std::vector<int64_t>> next;
      for (const auto &prefix : grid)
        for (int64_t n : list) {
          next.push_back(prefix);
          next.back().push_back(n);
        }
      grid = std::move(next);
    }

    neuronc::BucketSignature sig;
    for (const ShapeSymbol &s : symbols)
      sig.symbols.push_back(s.name);
    for (BlockArgument a : fn.getArguments())
      sig.inputs.push_back(shapes.signatureDims(a));
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    for (Value v : ret.getOperands())
      sig.outputs.push_back(shapes.signatureDims(v));
    sig.buckets = grid;

    SmallVector<std::string> names;
    SmallVector<func::FuncOp> clones;
    std::optional<SmallVector<int>> maskOrder;
    Operation *insertAfter = fn;
    for (const auto &bucket : grid) {
      Specializer sp(fn, shapes, bucket);
      names.push_back(bucketName(fn.getSymName(), symbols, bucket));
      FailureOr<func::FuncOp> clone = sp.run(names.back());
      if (failed(clone)) {
        for (func::FuncOp c : clones)
          c.erase();
        return failure();
      }
      (*clone)->moveAfter(insertAfter);
      insertAfter = *clone;
      clones.push_back(*clone);
      if (!maskOrder)
        maskOrder = sp.maskOrder;
      else if (*maskOrder != sp.maskOrder)
        return clone->emitError("buckets need different masks (internal error)");
      // The work model, from the largest bucket: each op's cost scales with
      // the sizes of the symbols in its operands' and results' dims.
      if (&bucket == &grid.back())
        sig.work = workModel(shapes, sp.costs, bucket);
    }
    for (int s : *maskOrder)
      sig.masks.push_back(static_cast<uint32_t>(s));

    // The function becomes the dispatcher.
    Block &body = fn.getBody().front();
    SmallVector<Type> resultTypes(ret.getOperandTypes());
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
      op.dropAllUses();
      op.erase();
    }
    OpBuilder b = OpBuilder::atBlockEnd(&body);
    auto dispatch = DispatchOp::create(
        b, fn.getLoc(), resultTypes, body.getArguments(), b.getStrArrayAttr({}), b.getArrayAttr({}),
        b.getArrayAttr({}), b.getDenseI64ArrayAttr({}), b.getArrayAttr({}), b.getArrayAttr({}),
        b.getDenseF64ArrayAttr({}), b.getArrayAttr({}));
    SmallVector<StringRef> refs(names.begin(), names.end());
    dispatch.setSignature(sig, refs);
    func::ReturnOp::create(b, fn.getLoc(), dispatch.getResults());
    fn.setFunctionType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(), resultTypes));
    return success();
  }

  /// work(sizes) = Σ coefficient × Π size^exponent, one term per distinct
  /// exponent vector, fitted at `bucket`.
  std::vector<neuronc::WorkTerm>
  workModel(const ShapeSymbols &shapes, ArrayRef<std::pair<Operation *, OpCost>> costs,
            ArrayRef<int64_t> bucket) {
    std::map<std::vector<uint32_t>, double> terms;
    for (auto [op, c] : costs) {
      std::vector<uint32_t> exponents(bucket.size(), 0);
      for (int s = 0; s < static_cast<int>(bucket.size()); ++s)
        for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
          exponents[s] = std::max(exponents[s], shapes.countIn(v, s));
      double denominator = 1;
      for (auto [e, n] : llvm::zip(exponents, bucket))
        denominator *= std::pow(static_cast<double>(n), e);
      double work = static_cast<double>(c.flops + c.transcendentals + c.bytes());
      terms[exponents] += work / denominator;
    }
    std::vector<neuronc::WorkTerm> out;
    for (auto &[e, c] : terms)
      if (c > 0)
        out.push_back({c, e});
    return out;
  }
};

} // namespace
