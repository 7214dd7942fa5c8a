//===- ShapeSymbols.cpp - Which dynamic dims are the same size ------------===//

#include "ShapeSymbols.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

int ShapeSymbols::find(int x) const {
  while (parent_[x] != x)
    x = parent_[x] = parent_[parent_[x]];
  return x;
}

int ShapeSymbols::keyOf(Value v, unsigned d) {
  auto [it, inserted] = keys_.try_emplace({v, d}, static_cast<int>(parent_.size()));
  if (inserted) {
    parent_.push_back(it->second);
    static_.push_back(-1);
  }
  return it->second;
}

int ShapeSymbols::lookupKey(Value v, unsigned d) const {
  auto it = keys_.find({v, d});
  return it == keys_.end() ? -1 : find(it->second);
}

void ShapeSymbols::tie(Value a, unsigned da, Value b, unsigned db) {
  int64_t sa = shapeOf(a)[da], sb = shapeOf(b)[db];
  bool dynA = ShapedType::isDynamic(sa), dynB = ShapedType::isDynamic(sb);
  if (!dynA && !dynB)
    return;
  if (dynA && dynB) {
    int ra = find(keyOf(a, da)), rb = find(keyOf(b, db));
    if (ra == rb)
      return;
    int64_t s = static_[ra] >= 0 ? static_[ra] : static_[rb];
    parent_[rb] = ra;
    static_[ra] = s;
    return;
  }
  int r = dynA ? find(keyOf(a, da)) : find(keyOf(b, db));
  if (static_[r] < 0)
    static_[r] = dynA ? sb : sa;
}

int ShapeSymbols::symbolOf(Value v, unsigned d) const {
  int r = lookupKey(v, d);
  if (r < 0 || static_[r] >= 0)
    return -1;
  auto it = symbolOfRoot_.find(r);
  return it == symbolOfRoot_.end() ? -1 : it->second;
}

int64_t ShapeSymbols::staticSizeOf(Value v, unsigned d) const {
  int r = lookupKey(v, d);
  return r < 0 ? -1 : static_[r];
}

std::vector<int64_t> ShapeSymbols::signatureDims(Value v) const {
  std::vector<int64_t> dims;
  for (auto [d, s] : llvm::enumerate(shapeOf(v))) {
    if (!ShapedType::isDynamic(s)) {
      dims.push_back(s);
    } else if (int sym = symbolOf(v, d); sym >= 0) {
      dims.push_back(-1 - sym);
    } else {
      dims.push_back(staticSizeOf(v, d));
    }
  }
  return dims;
}

unsigned ShapeSymbols::countIn(Value v, int symbol) const {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return 0;
  unsigned n = 0;
  for (unsigned d = 0; d < t.getRank(); ++d)
    n += ShapedType::isDynamic(t.getDimSize(d)) && symbolOf(v, d) == symbol;
  return n;
}

/// Ties the dims of `operand` to those of `result` numpy-style (trailing
/// dims aligned); a static 1 broadcasts and ties nothing.
static void tieBroadcast(ShapeSymbols &s, Value operand, Value result,
                         llvm::function_ref<void(Value, unsigned, Value, unsigned)> tie) {
  ArrayRef<int64_t> in = shapeOf(operand), out = shapeOf(result);
  size_t off = out.size() - std::min(out.size(), in.size());
  for (size_t i = 0; i < in.size() && i + off < out.size(); ++i)
    if (in[i] != 1)
      tie(operand, i, result, i + off);
}

LogicalResult ShapeSymbols::visit(Operation *op) {
  auto tieFn = [&](Value a, unsigned da, Value b, unsigned db) { tie(a, da, b, db); };
  auto same = [&](Value a, Value b) {
    for (unsigned d = 0; d < shapeOf(a).size(); ++d)
      tie(a, d, b, d);
  };
  auto hasDynamic = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && !t.hasStaticShape();
  };
  auto dynamicDim = [&](Value v, ArrayRef<int64_t> dims) -> int {
    for (int64_t d : dims)
      if (ShapedType::isDynamic(shapeOf(v)[d]))
        return static_cast<int>(d);
    return -1;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConstantOp>([](auto) { return success(); })
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp, CompareOp, SelectOp,
            BroadcastToOp>([&](Operation *o) {
        for (Value v : o->getOperands())
          tieBroadcast(*this, v, o->getResult(0), tieFn);
        return success();
      })
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp, TanhOp,
            SigmoidOp, ErfOp, SinOp, CosOp, SiluOp, ReluOp, RoundOp, FloorOp, CeilOp, GeluOp,
            CastOp, SoftmaxOp>(
          [&](Operation *o) {
            same(o->getOperand(0), o->getResult(0));
            return success();
          })
      .Case([&](RmsNormOp n) {
        same(n.getInput(), n.getResult());
        if (n.getWeight())
          tieBroadcast(*this, n.getWeight(), n.getResult(), tieFn);
        return success();
      })
      .Case([&](LayerNormOp n) {
        same(n.getInput(), n.getResult());
        for (Value v : {n.getWeight(), n.getBias()})
          if (v)
            tieBroadcast(*this, v, n.getResult(), tieFn);
        return success();
      })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          [&](Operation *o) {
            Value in = o->getOperand(0), out = o->getResult(0);
            auto axes = cast<DenseI64ArrayAttr>(o->getAttr("axes")).asArrayRef();
            bool keep = o->hasAttr("keepdims");
            unsigned j = 0;
            for (unsigned d = 0; d < shapeOf(in).size(); ++d) {
              bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
              if (!reduced)
                tie(in, d, out, j);
              if (!reduced || keep)
                ++j;
            }
            return success();
          })
      .Case([&](TransposeOp t) {
        for (auto [i, p] : llvm::enumerate(t.getPerm()))
          tie(t.getInput(), p, t.getResult(), i);
        return success();
      })
      .Case([&](MatmulOp m) {
        Value l = m.getLhs(), r = m.getRhs(), out = m.getResult();
        size_t lr = shapeOf(l).size(), rr = shapeOf(r).size(), orank = shapeOf(out).size();
        unsigned lm = m.getTransposeLhs() ? lr - 1 : lr - 2, lk = m.getTransposeLhs() ? lr - 2 : lr - 1;
        unsigned rk = m.getTransposeRhs() ? rr - 1 : rr - 2, rn = m.getTransposeRhs() ? rr - 2 : rr - 1;
        tie(l, lm, out, orank - 2);
        tie(r, rn, out, orank - 1);
        tie(l, lk, r, rk);
        // Batch dims broadcast numpy-style against the result's.
        for (auto [v, rank] : {std::pair(l, lr), std::pair(r, rr)})
          for (size_t i = 0; i + 2 < rank; ++i)
            if (shapeOf(v)[i] != 1)
              tie(v, i, out, orank - rank + i);
        return success();
      })
      .Case<ConvOp, PoolOp>([&](Operation *o) -> LogicalResult {
        // Batch to batch; a conv's output channels are the weight's (and
        // the bias's), a pool's its input's. A spatial dim keeps its size
        // only through a window of stride 1 whose pads add up to its span
        // ("same"); any other output size is not an argument's.
        Value in = o->getOperand(0), out = o->getResult(0);
        tie(in, 0, out, 0);
        ArrayRef<int64_t> kernel, strides, padding, dilations;
        SmallVector<int64_t> ones;
        if (auto c = dyn_cast<ConvOp>(o)) {
          tie(c.getWeight(), 0, out, 1);
          if (c.getBias())
            tie(c.getBias(), 0, out, 1);
          if (ShapedType::isDynamic(shapeOf(in)[1]) || ShapedType::isDynamic(shapeOf(c.getWeight())[1]))
            return o->emitError("convolves over input channels of type ")
                   << in.getType() << " and weight " << c.getWeight().getType()
                   << ", a dynamic channel dim; shape bucketing supports dynamic batch and "
                      "spatial dims of a convolution (give the channels a static size)";
          kernel = shapeOf(c.getWeight()).drop_front(2);
          strides = c.getStrides();
          padding = c.getPadding();
          dilations = c.getDilations();
        } else {
          auto p = cast<PoolOp>(o);
          tie(in, 1, out, 1);
          kernel = p.getKernel();
          strides = p.getStrides();
          padding = p.getPadding();
          ones.assign(kernel.size(), 1);
          dilations = ones;
        }
        size_t k = kernel.size();
        for (size_t d = 0; d < k; ++d) {
          if (!ShapedType::isDynamic(shapeOf(in)[2 + d]))
            continue;
          int64_t span = dilations[d] * (kernel[d] - 1);
          if (strides[d] != 1 || padding[d] + padding[k + d] != span)
            return o->emitError("slides a window over dim ")
                   << 2 + d << " of " << in.getType()
                   << ", a dynamic dim, with stride " << strides[d] << " and pads "
                   << padding[d] << "+" << padding[k + d] << " (window span " << span + 1
                   << "): its output size differs from the input's, so it is no argument's "
                      "dim; shape bucketing supports a dynamic spatial dim only through "
                      "stride-1 windows padded to keep the size (bucket the batch instead)";
          tie(in, 2 + d, out, 2 + d);
        }
        return success();
      })
      .Case([&](ReshapeOp r) -> LogicalResult {
        ArrayRef<int64_t> in = shapeOf(r.getInput()), out = shapeOf(r.getResult());
        // Each dynamic dim must stay a dim of its own: the static products
        // between consecutive dynamic dims must agree on both sides.
        auto segments = [](ArrayRef<int64_t> s, SmallVector<unsigned> &dyn) {
          SmallVector<int64_t> products{1};
          for (auto [i, d] : llvm::enumerate(s)) {
            if (ShapedType::isDynamic(d)) {
              dyn.push_back(i);
              products.push_back(1);
            } else {
              products.back() *= d;
            }
          }
          return products;
        };
        SmallVector<unsigned> din, dout;
        SmallVector<int64_t> pin = segments(in, din), pout = segments(out, dout);
        if (din.empty() && dout.empty())
          return success();
        if (din.size() != dout.size() || pin != pout)
          return r.emitError("reshape from ")
                 << r.getInput().getType() << " to " << r.getType()
                 << " merges or splits a dynamic dim with other dims; shape bucketing can "
                    "only follow a dynamic dim that stays a dim of its own (reshape the "
                    "static dims only, or give this dim a static size)";
        for (auto [a, b] : llvm::zip(din, dout))
          tie(r.getInput(), a, r.getResult(), b);
        return success();
      })
      .Case([&](SliceOp s) -> LogicalResult {
        SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(s.getInput()).size()));
        if (int d = dynamicDim(s.getInput(), all); d >= 0)
          return s.emitError("slices dim ")
                 << d << " of " << s.getInput().getType()
                 << ", a dynamic dim, with a static size; shape bucketing cannot tell whether "
                    "the slice stays inside the true size (slice static dims only)";
        return success();
      })
      .Case([&](ConcatOp c) -> LogicalResult {
        unsigned axis = c.getAxis();
        for (Value v : c.getInputs()) {
          if (ShapedType::isDynamic(shapeOf(v)[axis]))
            return c.emitError("concatenates along dim ")
                   << axis << ", which is dynamic in " << v.getType()
                   << "; the padding of each input would land in the middle of the result "
                      "(concatenate along a static dim)";
          for (unsigned d = 0; d < shapeOf(v).size(); ++d)
            if (d != axis)
              tie(v, d, c.getResult(), d);
        }
        return success();
      })
      .Case([&](GatherOp g) {
        Value t = g.getTable(), idx = g.getIndices(), out = g.getResult();
        unsigned axis = g.getAxis(), ir = shapeOf(idx).size();
        for (unsigned d = 0; d < axis; ++d)
          tie(t, d, out, d);
        for (unsigned d = 0; d < ir; ++d)
          tie(idx, d, out, axis + d);
        for (unsigned d = axis + 1; d < shapeOf(t).size(); ++d)
          tie(t, d, out, axis + ir + d - axis - 1);
        return success();
      })
      .Case([&](KernelOp k) -> LogicalResult {
        Block &body = k.getBody().front();
        for (auto [in, arg] : llvm::zip(k.getInputs(), body.getArguments()))
          same(in, arg);
        for (Operation &inner : body.without_terminator())
          if (failed(visit(&inner)))
            return failure();
        for (auto [y, res] : llvm::zip(body.getTerminator()->getOperands(), k.getResults()))
          same(y, res);
        return success();
      })
      .Case([&](DispatchOp d) {
        return d.emitError("is already bucketed: its buckets are fixed (compile it without "
                           "--buckets, or bucket the unbucketed program)");
      })
      .Default([&](Operation *o) -> LogicalResult {
        if (isa<func::ReturnOp>(o))
          return success();
        if (llvm::any_of(o->getOperands(), hasDynamic) ||
            llvm::any_of(o->getResults(), hasDynamic))
          return o->emitError("shape bucketing does not know how '")
                 << o->getName() << "' relates the dynamic dims of its operands and results";
        return success();
      });
}

LogicalResult ShapeSymbols::analyze(func::FuncOp fn) {
  for (BlockArgument arg : fn.getArguments())
    if (auto t = dyn_cast<RankedTensorType>(arg.getType()))
      for (unsigned d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d))
          keyOf(arg, d);
  for (Operation &op : fn.getBody().front())
    if (failed(visit(&op)))
      return failure();
  // Symbols: classes holding argument dims, in argument order.
  for (BlockArgument arg : fn.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t)
      continue;
    auto names = fn.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "neuron.dim_names");
    if (names && names.size() != static_cast<size_t>(t.getRank()))
      return fn.emitError("argument #")
             << arg.getArgNumber() << " has " << names.size() << " neuron.dim_names for rank "
             << t.getRank() << " (give one name per dim, \"\" for none)";
    for (unsigned d = 0; d < t.getRank(); ++d) {
      if (!t.isDynamicDim(d))
        continue;
      int root = find(keyOf(arg, d));
      if (static_[root] >= 0)
        continue;
      auto [it, inserted] = symbolOfRoot_.try_emplace(root, static_cast<int>(symbols_.size()));
      if (inserted)
        symbols_.emplace_back();
      ShapeSymbol &s = symbols_[it->second];
      std::string positional = "arg" + std::to_string(arg.getArgNumber()) + "." + std::to_string(d);
      std::string named;
      if (names)
        if (auto n = dyn_cast<StringAttr>(names[d]); n && !n.getValue().empty())
          named = n.str();
      if (!named.empty() && (!llvm::all_of(named, [](char c) { return llvm::isAlnum(c) || c == '_'; }) ||
                             llvm::isDigit(named[0])))
        return fn.emitError("argument #")
               << arg.getArgNumber() << " dim " << d << " is named '" << named
               << "'; a dim name is an identifier (letters, digits, '_')";
      if (!named.empty() && !llvm::is_contained(s.aliases, named))
        s.aliases.push_back(named);
      s.aliases.push_back(positional);
      s.argDims.push_back({arg.getArgNumber(), d});
      if (s.name.empty())
        s.name = named.empty() ? positional : named;
      else if (!named.empty() && s.name.find('.') != std::string::npos)
        s.name = named; // a user's name wins over `argI.D`
    }
  }
  // Every dynamic dim in the body must follow from an argument's.
  WalkResult walk = fn.walk([&](Operation *op) {
    for (Value v : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        continue;
      for (unsigned d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d) && symbolOf(v, d) < 0 && staticSizeOf(v, d) < 0) {
          op->emitError("result dim ")
              << d << " of type " << t
              << " is dynamic but follows from no argument's dim; shape bucketing needs "
                 "every dynamic dim to be an input's (give it a static size)";
          return WalkResult::interrupt();
        }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
