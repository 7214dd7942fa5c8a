//===- ShardTensorParallel.cpp - neuron-shard-tp ---------------------------===//
//
// Megatron-style tensor parallelism at the graph level: each entry function
// becomes the program that one of N cores runs on its slice of the inputs.
// A sharding state is propagated forward from the arguments, in program
// order; weights are split where the dataflow reaches them (column-parallel
// from a replicated activation, row-parallel from one split along the
// contraction), partial sums are combined by `neuron.all_reduce`, and the
// function is rewritten to its per-core shapes only once every op is
// covered. See docs/tensor-parallel.md.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Support/AtomicWrite.h"
#include "neuronc/Transforms/FusionReport.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONSHARDTENSORPARALLELPASS
#include "neuronc/Dialect/Neuron/NeuronPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

//===----------------------------------------------------------------------===//
// Sharding states
//===----------------------------------------------------------------------===//

/// How one value is distributed over the N cores. A split value is cut into
/// `parts` equal pieces along `dim`; core r holds piece r / (N / parts), so
/// with parts < N consecutive cores hold the same piece (a GQA KV head kept
/// whole). `repDim` is set only on grouped-query attention's repeated K/V
/// (`[.., KV, R, T, D]` before the heads are merged): the copies along it are
/// identical, and each core keeps R * parts / N of them, so that merging
/// `dim` and `repDim` gives the query heads split N ways.
struct Sharding {
  enum Kind { Replicated, Split, Partial };
  Kind kind = Replicated;
  int64_t dim = -1;
  int64_t parts = 1;
  int64_t repDim = -1;

  static Sharding split(int64_t dim, int64_t parts, int64_t repDim = -1) {
    return {Split, dim, parts, repDim};
  }
  bool isSplit() const { return kind == Split; }
  bool operator==(const Sharding &o) const {
    return kind == o.kind && dim == o.dim && parts == o.parts && repDim == o.repDim;
  }
};

/// What a weight argument became, for the report.
struct WeightDecision {
  std::string role; ///< column-parallel, row-parallel, ...
  Operation *matmul = nullptr;
};

/// A matmul operand that reads a rank-2 argument through views only
/// (transposes of its two dims, reshapes adding unit dims, casts): nn.Linear's
/// `matmul(x, reshape(transpose(W)))`. `kDim`/`nDim` are the argument dims
/// that are the matmul's contraction and output columns.
struct WeightChain {
  BlockArgument arg;
  SmallVector<Operation *> views; ///< from the argument to the matmul
  int64_t kDim = -1, nDim = -1;
};

std::string shapeText(ShapedType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  return s;
}

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// Groups of dims a reshape maps onto each other: the products of the input
/// dims of a group and of its output dims are equal (row-major order).
SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
reshapeGroups(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> groups;
  size_t i = 0, j = 0;
  while (i < in.size() && j < out.size()) {
    SmallVector<int64_t> gi{static_cast<int64_t>(i)}, go{static_cast<int64_t>(j)};
    int64_t pi = in[i++], po = out[j++];
    while (pi != po) {
      if (pi < po && i < in.size()) {
        gi.push_back(i);
        pi *= in[i++];
      } else if (po < pi && j < out.size()) {
        go.push_back(j);
        po *= out[j++];
      } else {
        return {};
      }
    }
    groups.push_back({gi, go});
  }
  // Trailing unit dims join the last group.
  if (groups.empty())
    return {};
  for (; i < in.size(); ++i)
    groups.back().first.push_back(i);
  for (; j < out.size(); ++j)
    groups.back().second.push_back(j);
  return groups;
}

//===----------------------------------------------------------------------===//
// The analysis: states for every value, or the first op not covered
//===----------------------------------------------------------------------===//

/// Propagates sharding states through one function and records what the
/// rewrite must change. Nothing is modified until `rewrite`, so a program
/// that is refused is left as it was.
class Sharder {
public:
  Sharder(func::FuncOp fn, int64_t n) : fn(fn), n(n) {}

  LogicalResult analyze();
  void rewrite();
  std::string report();

private:
  /// "cannot shard 'neuron.xxx' for --tp=N: <why>" at `op`.
  LogicalResult refuse(Operation *op, const Twine &why) {
    return op->emitError() << "cannot shard '" << op->getName() << "' for --tp=" << n << ": "
                           << why;
  }
  Sharding state(Value v) const { return states.lookup(v); }
  /// The per-core type of `v` under `s`.
  RankedTensorType localType(Value v, const Sharding &s) const;

  LogicalResult visit(Operation *op);
  LogicalResult visitMatmul(MatmulOp op);
  LogicalResult visitElementwise(Operation *op);
  LogicalResult visitReshape(ReshapeOp op);
  LogicalResult visitReduction(Operation *op, ArrayRef<int64_t> axes, bool keepdims);

  /// Makes a replicated operand of `user` agree with a result split as
  /// `s` (result-aligned dims): nothing when it broadcasts along the split
  /// dims, a local splat when it is a splat constant, the argument split
  /// too when it is an argument not yet read whole; else failure.
  LogicalResult conform(Operation *user, OpOperand &operand, const Sharding &s,
                        int64_t resultRank);
  /// Records that argument `arg` is read whole by `user` (it can no longer
  /// be split), with the reason for the report.
  void pinReplicated(Value v, Operation *user, StringRef why);
  /// The column split of a column-parallel matmul's result: N, or the heads
  /// when a reshape ahead splits the features into fewer heads than cores.
  FailureOr<int64_t> columnParts(MatmulOp op, int64_t columns);
  std::optional<WeightChain> weightChain(Value rhs);

  func::FuncOp fn;
  int64_t n;
  DenseMap<Value, Sharding> states;
  DenseSet<Operation *> chainOps;       ///< views of weight chains, visited with their matmul
  DenseSet<Value> readWhole;            ///< arguments read replicated
  llvm::MapVector<Value, std::string> argWhy;           ///< why an argument stayed replicated
  llvm::MapVector<Value, WeightDecision> argRole;       ///< what split arguments became
  SmallVector<std::pair<OpOperand *, RankedTensorType>> localSplats;
  SmallVector<MatmulOp> reduceAfter; ///< matmuls whose partial sums are all-reduced
  /// Returned values split over all N cores, gathered along their split dim
  /// before the return (result number, dim, the whole type).
  struct Gather {
    unsigned result;
    int64_t dim;
    RankedTensorType whole;
  };
  SmallVector<Gather> gatherAtReturn;
  int64_t splitOps = 0;
};

RankedTensorType Sharder::localType(Value v, const Sharding &s) const {
  auto t = cast<RankedTensorType>(v.getType());
  if (!s.isSplit())
    return t;
  SmallVector<int64_t> shape(t.getShape());
  shape[s.dim] /= s.parts;
  if (s.repDim >= 0)
    shape[s.repDim] = shape[s.repDim] * s.parts / n;
  return RankedTensorType::get(shape, t.getElementType(), t.getEncoding());
}

void Sharder::pinReplicated(Value v, Operation *user, StringRef why) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || readWhole.contains(v))
    return;
  readWhole.insert(v);
  argWhy[v] = llvm::formatv("{0} by '{1}' at {2}", why, user->getName(),
                            neuronc::formatLocation(user->getLoc()))
                  .str();
}

std::optional<WeightChain> Sharder::weightChain(Value rhs) {
  WeightChain c;
  Value v = rhs;
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<TransposeOp, ReshapeOp, CastOp>(def) || !v.hasOneUse())
      return std::nullopt;
    c.views.push_back(def);
    v = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(v);
  auto argType = dyn_cast<RankedTensorType>(v.getType());
  if (!arg || arg.getOwner()->getParentOp() != fn || !v.hasOneUse() || !argType ||
      argType.getRank() != 2)
    return std::nullopt;
  std::reverse(c.views.begin(), c.views.end());
  // Follow the argument's two dims to the matmul operand's last two.
  int64_t second = 0, last = 1;
  for (Operation *view : c.views) {
    auto in = cast<RankedTensorType>(view->getOperand(0).getType());
    auto out = cast<RankedTensorType>(view->getResult(0).getType());
    auto leadingUnits = [](RankedTensorType t) {
      return llvm::all_of(t.getShape().drop_back(2), [](int64_t d) { return d == 1; });
    };
    if (!in.hasStaticShape() || !out.hasStaticShape() || in.getRank() < 2 ||
        out.getRank() < 2 || !leadingUnits(in) || !leadingUnits(out))
      return std::nullopt;
    if (auto t = dyn_cast<TransposeOp>(view)) {
      ArrayRef<int64_t> perm = t.getPerm();
      int64_t r = perm.size();
      if (perm[r - 2] == r - 1 && perm[r - 1] == r - 2)
        std::swap(second, last);
      else if (perm[r - 2] != r - 2 || perm[r - 1] != r - 1)
        return std::nullopt;
    } else if (isa<ReshapeOp>(view) &&
               in.getShape().take_back(2) != out.getShape().take_back(2)) {
      return std::nullopt;
    }
  }
  c.arg = arg;
  auto mm = cast<MatmulOp>(*rhs.getUsers().begin());
  c.kDim = mm.getTransposeRhs() ? last : second;
  c.nDim = mm.getTransposeRhs() ? second : last;
  return c;
}

FailureOr<int64_t> Sharder::columnParts(MatmulOp op, int64_t columns) {
  // Look ahead (through elementwise ops and casts) for the reshape that
  // splits the features into [heads, head_dim].
  SmallVector<Value> work{op.getResult()};
  DenseSet<Value> seen;
  for (size_t i = 0; i < work.size() && i < 32; ++i) {
    for (Operation *user : work[i].getUsers()) {
      if (auto r = dyn_cast<ReshapeOp>(user)) {
        auto in = cast<RankedTensorType>(r.getInput().getType());
        auto out = cast<RankedTensorType>(r.getType());
        if (!in.hasStaticShape() || !out.hasStaticShape())
          continue;
        for (auto &[gi, go] : reshapeGroups(in.getShape(), out.getShape())) {
          if (gi.back() != in.getRank() - 1 || go.size() < 2)
            continue;
          int64_t heads = 1;
          for (int64_t d : go)
            if (out.getDimSize(d) != 1) {
              heads = out.getDimSize(d);
              break;
            }
          if (heads % n == 0)
            return n;
          if (n % heads == 0)
            return heads; // GQA: fewer KV heads than cores, each kept whole
          return refuse(r, llvm::formatv("the {0} heads (dim {1} of {2}) are neither a "
                                         "multiple nor a divisor of {3}",
                                         heads, go.front(), typeText(out), n)
                               .str());
        }
        continue;
      }
      if ((isa<CastOp>(user) || user->hasTrait<OpTrait::SameOperandsAndResultType>() ||
           isa<AddOp, SubOp, MulOp, DivOp>(user)) &&
          user->getNumResults() == 1 && seen.insert(user->getResult(0)).second)
        work.push_back(user->getResult(0));
    }
  }
  if (columns % n != 0)
    return refuse(op, llvm::formatv("--tp={0} does not divide its {1} output columns", n,
                                    columns)
                          .str());
  return n;
}

LogicalResult Sharder::conform(Operation *user, OpOperand &operand, const Sharding &s,
                               int64_t resultRank) {
  Value v = operand.get();
  auto t = cast<RankedTensorType>(v.getType());
  int64_t offset = resultRank - t.getRank();
  auto sizeAt = [&](int64_t resultDim) -> int64_t {
    int64_t d = resultDim - offset;
    return d < 0 ? 1 : t.getDimSize(d);
  };
  bool broadcastAlong = sizeAt(s.dim) == 1 && (s.repDim < 0 || sizeAt(s.repDim) == 1);
  if (broadcastAlong) {
    pinReplicated(v, user, "broadcast along the split dim");
    return success();
  }
  if (getSplatValue(v)) {
    Sharding local = s;
    local.dim -= offset;
    local.repDim = s.repDim < 0 ? -1 : s.repDim - offset;
    if (local.dim < 0 || (s.repDim >= 0 && local.repDim < 0) || sizeAt(s.dim) == 1 ||
        (s.repDim >= 0 && sizeAt(s.repDim) == 1))
      return refuse(user, "a splat operand broadcasts along one of the split dims only");
    localSplats.push_back({&operand, localType(v, local)});
    return success();
  }
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg && arg.getOwner()->getParentOp() == fn && !readWhole.contains(v) &&
      !state(v).isSplit() && s.repDim < 0 && s.dim - offset >= 0 &&
      t.getDimSize(s.dim - offset) % s.parts == 0) {
    Sharding as = Sharding::split(s.dim - offset, s.parts);
    states[v] = as;
    std::string role = llvm::formatv("split dim {0} into {1} parts like the value it is "
                                     "combined with",
                                     as.dim, as.parts)
                           .str();
    if (as.parts < n)
      role += llvm::formatv(", each held by {0} cores", n / as.parts).str();
    argRole[v] = {role, user};
    return success();
  }
  return refuse(user, llvm::formatv("operand #{0} is replicated at full size along the "
                                    "split dim {1}; it would need a local slice",
                                    operand.getOperandNumber(), s.dim)
                          .str());
}

LogicalResult Sharder::visitElementwise(Operation *op) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = resultType.getRank();
  // The split of the result: every split operand must agree.
  std::optional<Sharding> result;
  for (OpOperand &operand : op->getOpOperands()) {
    Sharding s = state(operand.get());
    if (!s.isSplit())
      continue;
    int64_t offset = rank - cast<RankedTensorType>(operand.get().getType()).getRank();
    Sharding aligned = Sharding::split(s.dim + offset, s.parts,
                                       s.repDim < 0 ? -1 : s.repDim + offset);
    if (result && !(*result == aligned))
      return refuse(op, "its operands are split differently");
    result = aligned;
  }
  if (!result) {
    states[op->getResult(0)] = Sharding{};
    for (Value v : op->getOperands())
      pinReplicated(v, op, "read whole (no split operand)");
    return success();
  }
  // Grouped-query attention's repeat_kv: a K/V split into fewer parts than
  // cores, broadcast along the dim after its heads by a splat zero.
  if (result->parts < n && result->repDim < 0 && result->dim + 1 < rank) {
    int64_t e = result->dim + 1;
    bool repeats = false;
    for (Value v : op->getOperands()) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t d = e - (rank - t.getRank());
      if (state(v).isSplit() && d >= 0 && t.getDimSize(d) == 1 &&
          resultType.getDimSize(e) > 1)
        repeats = true;
    }
    if (repeats) {
      int64_t r = resultType.getDimSize(e);
      if ((r * result->parts) % n != 0)
        return refuse(op, llvm::formatv("it repeats {0}-way split heads {1} times, which "
                                        "cannot be spread over {2} cores",
                                        result->parts, r, n)
                              .str());
      result->repDim = e;
    }
  }
  for (OpOperand &operand : op->getOpOperands())
    if (!state(operand.get()).isSplit() &&
        failed(conform(op, operand, *result, rank)))
      return failure();
  states[op->getResult(0)] = *result;
  return success();
}

LogicalResult Sharder::visitReshape(ReshapeOp op) {
  Sharding s = state(op.getInput());
  if (!s.isSplit()) {
    states[op.getResult()] = s;
    return success();
  }
  auto in = cast<RankedTensorType>(op.getInput().getType());
  auto out = cast<RankedTensorType>(op.getType());
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return refuse(op, "its shapes are dynamic");
  for (auto &[gi, go] : reshapeGroups(in.getShape(), out.getShape())) {
    if (!llvm::is_contained(gi, s.dim))
      continue;
    // The split dim must lead its group (dims before it are units); a
    // repeated dim must follow it.
    for (int64_t d : gi) {
      if (d == s.dim)
        break;
      if (in.getDimSize(d) != 1)
        return refuse(op, llvm::formatv("it merges the split dim {0} with the dims before it",
                                        s.dim)
                              .str());
    }
    int64_t parts = s.parts;
    if (s.repDim >= 0) {
      if (!llvm::is_contained(gi, s.repDim) || s.repDim != s.dim + 1)
        return refuse(op, "it does not merge the repeated K/V heads back into heads");
      parts = n;
    }
    for (int64_t d : go) {
      if (out.getDimSize(d) == 1)
        continue;
      if (out.getDimSize(d) % parts != 0)
        return refuse(op, llvm::formatv("dim {0} of the result ({1}) is not a multiple of "
                                        "the {2} parts of the split",
                                        d, out.getDimSize(d), parts)
                              .str());
      states[op.getResult()] = Sharding::split(d, parts);
      return success();
    }
  }
  return refuse(op, "it regroups the split dim in a way the rules do not cover");
}

LogicalResult Sharder::visitReduction(Operation *op, ArrayRef<int64_t> axes, bool keepdims) {
  Sharding s = state(op->getOperand(0));
  if (!s.isSplit()) {
    states[op->getResult(0)] = s;
    return success();
  }
  if (s.repDim >= 0)
    return refuse(op, "it reads the repeated K/V before its heads are merged");
  if (llvm::is_contained(axes, s.dim))
    return refuse(op, llvm::formatv("it reduces over the split dim {0}; a reduction across "
                                    "cores is not covered",
                                    s.dim)
                          .str());
  int64_t dim = s.dim;
  if (!keepdims)
    dim -= llvm::count_if(axes, [&](int64_t a) { return a < s.dim; });
  states[op->getResult(0)] = Sharding::split(dim, s.parts);
  return success();
}

LogicalResult Sharder::visitMatmul(MatmulOp op) {
  auto lt = cast<RankedTensorType>(op.getLhs().getType());
  auto rt = cast<RankedTensorType>(op.getRhs().getType());
  auto ot = cast<RankedTensorType>(op.getType());
  int64_t rl = lt.getRank(), rr = rt.getRank(), ro = ot.getRank();
  int64_t lhsK = op.getTransposeLhs() ? rl - 2 : rl - 1;
  int64_t lhsM = op.getTransposeLhs() ? rl - 1 : rl - 2;
  int64_t rhsK = op.getTransposeRhs() ? rr - 1 : rr - 2;
  int64_t rhsN = op.getTransposeRhs() ? rr - 2 : rr - 1;
  Sharding ls = state(op.getLhs());

  // A weight argument: its split follows from the activation's.
  if (std::optional<WeightChain> w = weightChain(op.getRhs()); w && !state(w->arg).isSplit()) {
    auto wt = cast<RankedTensorType>(w->arg.getType());
    Sharding ws;
    std::string role;
    if (!ls.isSplit()) {
      FailureOr<int64_t> parts = columnParts(op, wt.getDimSize(w->nDim));
      if (failed(parts))
        return failure();
      if (wt.getDimSize(w->nDim) % *parts != 0)
        return refuse(op, llvm::formatv("--tp={0} does not divide its {1} output columns", n,
                                        wt.getDimSize(w->nDim))
                              .str());
      ws = Sharding::split(w->nDim, *parts);
      role = llvm::formatv("column-parallel: split dim {0} (out) into {1} parts", w->nDim,
                           *parts)
                 .str();
      if (*parts < n)
        role += llvm::formatv(", each held by {0} cores (its {1} heads kept whole)",
                              n / *parts, *parts)
                    .str();
    } else if (ls.dim == lhsK && ls.repDim < 0) {
      if (ls.parts != n)
        return refuse(op, llvm::formatv("its contraction is split into {0} parts, not {1}; "
                                        "the all-reduce would count parts more than once",
                                        ls.parts, n)
                              .str());
      ws = Sharding::split(w->kDim, n);
      role = llvm::formatv("row-parallel: split dim {0} (in) into {1} parts", w->kDim, n).str();
    }
    if (ws.isSplit()) {
      states[w->arg] = ws;
      argRole[w->arg] = {role, op};
      for (Operation *view : w->views)
        if (failed(visit(view)))
          return failure();
    } else {
      pinReplicated(w->arg, op, "read whole: its activation is split along a batch or row dim");
      for (Operation *view : w->views)
        states[view->getResult(0)] = Sharding{};
    }
  }

  Sharding rs = state(op.getRhs());
  if (ls.repDim >= 0 || rs.repDim >= 0)
    return refuse(op, "it reads the repeated K/V before its heads are merged");
  if (!ls.isSplit() && !rs.isSplit()) {
    states[op.getResult()] = Sharding{};
    pinReplicated(op.getLhs(), op, "read whole (no split operand)");
    pinReplicated(op.getRhs(), op, "read whole (no split operand)");
    return success();
  }
  // Both split along the contraction: partial sums.
  if (ls.isSplit() && rs.isSplit() && ls.dim == lhsK && rs.dim == rhsK) {
    if (ls.parts != n || rs.parts != n)
      return refuse(op, "its contraction is split into fewer parts than cores");
    states[op.getResult()] = Sharding{Sharding::Partial};
    reduceAfter.push_back(op);
    ++splitOps;
    return success();
  }
  // Batch dims (aligned from the right) split alike, or broadcast.
  auto batchOf = [&](int64_t dim, int64_t rank) { return dim + (ro - rank); };
  std::optional<Sharding> result;
  auto take = [&](Sharding s, int64_t rank, int64_t mDim, int64_t nDim, int64_t kDim,
                  bool isLhs) -> LogicalResult {
    if (!s.isSplit())
      return success();
    Sharding r;
    if (s.dim == kDim)
      return refuse(op, llvm::formatv("the {0} is split along the contraction but the {1} "
                                      "is not",
                                      isLhs ? "lhs" : "rhs", isLhs ? "rhs" : "lhs")
                            .str());
    if (s.dim == mDim)
      r = Sharding::split(ro - 2, s.parts);
    else if (s.dim == nDim)
      r = Sharding::split(ro - 1, s.parts);
    else
      r = Sharding::split(batchOf(s.dim, rank), s.parts);
    if (result && !(*result == r))
      return refuse(op, "its operands are split differently (their parts or dims differ)");
    result = r;
    return success();
  };
  if (failed(take(ls, rl, lhsM, /*nDim=*/-2, lhsK, true)) ||
      failed(take(rs, rr, /*mDim=*/-2, rhsN, rhsK, false)))
    return failure();
  // A replicated operand must broadcast along a split batch dim; along the
  // rows or columns it is read whole.
  for (auto [v, rank, isLhs] : {std::tuple{op.getLhs(), rl, true},
                                std::tuple{op.getRhs(), rr, false}}) {
    if (state(v).isSplit())
      continue;
    if (result->dim < ro - 2) {
      int64_t d = result->dim - (ro - rank);
      if (d >= 0 && cast<RankedTensorType>(v.getType()).getDimSize(d) != 1)
        return refuse(op, llvm::formatv("the {0} is replicated but the batch dim {1} of the "
                                        "other operand is split",
                                        isLhs ? "lhs" : "rhs", result->dim)
                              .str());
    }
    pinReplicated(v, op, "read whole by a matmul over a split operand");
  }
  states[op.getResult()] = *result;
  ++splitOps;
  return success();
}

LogicalResult Sharder::visit(Operation *op) {
  auto anySplit = [&] {
    return llvm::any_of(op->getOperands(), [&](Value v) { return state(v).isSplit(); });
  };
  auto firstSplit = [&]() -> std::string {
    for (OpOperand &o : op->getOpOperands())
      if (Sharding s = state(o.get()); s.isSplit())
        return llvm::formatv("operand #{0} is split along dim {1}", o.getOperandNumber(),
                             s.dim);
    return "";
  };
  LogicalResult r = success();
  if (auto m = dyn_cast<MatmulOp>(op))
    return visitMatmul(m);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, BitwiseAndOp, BitwiseOrOp,
          BitwiseXorOp, ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp, CompareOp, SelectOp,
          NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp, TanhOp,
          SigmoidOp, ErfOp, SinOp, CosOp, GeluOp, SiluOp, ReluOp, RoundOp, FloorOp, CeilOp,
          CastOp>(op)) {
    r = visitElementwise(op);
  } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    r = visitReshape(reshape);
  } else if (auto t = dyn_cast<TransposeOp>(op)) {
    Sharding s = state(t.getInput());
    if (s.isSplit()) {
      ArrayRef<int64_t> perm = t.getPerm();
      auto where = [&](int64_t d) {
        return d < 0 ? -1 : std::find(perm.begin(), perm.end(), d) - perm.begin();
      };
      s = Sharding::split(where(s.dim), s.parts, where(s.repDim));
    }
    states[t.getResult()] = s;
  } else if (auto b = dyn_cast<BroadcastToOp>(op)) {
    r = visitElementwise(op);
    (void)b;
  } else if (auto s = dyn_cast<SliceOp>(op)) {
    Sharding in = state(s.getInput());
    if (in.isSplit()) {
      int64_t full = cast<RankedTensorType>(s.getInput().getType()).getDimSize(in.dim);
      if (s.getOffsets()[in.dim] != 0 || s.getStrides()[in.dim] != 1 ||
          s.getSizes()[in.dim] != full || in.repDim >= 0)
        return refuse(op, llvm::formatv("it slices along the split dim {0}", in.dim).str());
    }
    states[s.getResult()] = in;
  } else if (auto c = dyn_cast<ConcatOp>(op)) {
    std::optional<Sharding> result;
    for (Value v : c.getInputs())
      if (Sharding s = state(v); s.isSplit()) {
        if (result && !(*result == s))
          return refuse(op, "its operands are split differently");
        result = s;
      }
    if (result) {
      if (result->dim == static_cast<int64_t>(c.getAxis()) || result->repDim >= 0)
        return refuse(op, llvm::formatv("it concatenates along the split dim {0}",
                                        result->dim)
                              .str());
      int64_t rank = cast<RankedTensorType>(c.getType()).getRank();
      for (OpOperand &operand : op->getOpOperands())
        if (!state(operand.get()).isSplit() && failed(conform(op, operand, *result, rank)))
          return failure();
      states[c.getResult()] = *result;
    } else {
      states[c.getResult()] = Sharding{};
    }
  } else if (auto red = dyn_cast<ReduceSumOp>(op)) {
    r = visitReduction(op, red.getAxes(), red.getKeepdims());
  } else if (auto red = dyn_cast<ReduceMeanOp>(op)) {
    r = visitReduction(op, red.getAxes(), red.getKeepdims());
  } else if (auto red = dyn_cast<ReduceMaxOp>(op)) {
    r = visitReduction(op, red.getAxes(), red.getKeepdims());
  } else if (auto red = dyn_cast<ReduceMinOp>(op)) {
    r = visitReduction(op, red.getAxes(), red.getKeepdims());
  } else if (auto red = dyn_cast<ReduceProdOp>(op)) {
    r = visitReduction(op, red.getAxes(), red.getKeepdims());
  } else if (auto sm = dyn_cast<SoftmaxOp>(op)) {
    r = visitReduction(op, {static_cast<int64_t>(sm.getAxis())}, true);
  } else if (auto norm = dyn_cast<RmsNormOp>(op)) {
    r = visitReduction(op, norm.getAxes(), true);
    if (succeeded(r) && state(norm.getResult()).isSplit() && norm.getWeight())
      r = conform(op, op->getOpOperand(1), state(norm.getResult()),
                  cast<RankedTensorType>(norm.getType()).getRank());
  } else if (isa<ConstantOp>(op)) {
    states[op->getResult(0)] = Sharding{};
  } else if (isa<AllReduceOp>(op)) {
    return refuse(op, "the program is already sharded");
  } else if (isa<func::ReturnOp>(op)) {
    // A result split over every core (a column-parallel projection returned
    // as it is) is gathered; one held by several cores per part is not.
    for (OpOperand &o : op->getOpOperands())
      if (Sharding s = state(o.get()); s.isSplit()) {
        if (s.parts != n || s.repDim >= 0)
          return refuse(op, llvm::formatv("result #{0} is split along dim {1} into {2} parts "
                                          "for {3} cores; only a result split over every "
                                          "core is gathered (end the split with a "
                                          "row-parallel matmul)",
                                          o.getOperandNumber(), s.dim, s.parts, n)
                                .str());
        gatherAtReturn.push_back(
            {o.getOperandNumber(), s.dim, cast<RankedTensorType>(o.get().getType())});
      }
  } else if (anySplit()) {
    return refuse(op, "the rules do not cover it (" + firstSplit() + ")");
  } else {
    for (Value v : op->getResults())
      states[v] = Sharding{};
    for (Value v : op->getOperands())
      pinReplicated(v, op, "read whole");
  }
  if (succeeded(r))
    for (Value v : op->getResults())
      if (state(v).isSplit())
        ++splitOps;
  return r;
}

LogicalResult Sharder::analyze() {
  if (fn.getBody().getBlocks().size() != 1)
    return refuse(fn, "it has more than one block");
  Block &body = fn.getBody().front();
  // Views of weight chains are visited with their matmul, once the
  // weight's split is known.
  body.walk([&](MatmulOp mm) {
    if (std::optional<WeightChain> w = weightChain(mm.getRhs()))
      chainOps.insert(w->views.begin(), w->views.end());
  });
  for (Operation &op : body) {
    if (chainOps.contains(&op))
      continue;
    if (op.getNumRegions() != 0)
      return refuse(&op, "ops with regions are not covered");
    if (failed(visit(&op)))
      return failure();
  }
  // Chains whose matmul never decided (an unreachable weight) stay whole.
  for (Operation *view : chainOps)
    if (!states.count(view->getResult(0)))
      states[view->getResult(0)] = Sharding{};
  if (llvm::none_of(argRole, [](auto &kv) {
        return StringRef(kv.second.role).contains("parallel");
      }))
    return fn.emitError() << "cannot shard '@" << fn.getSymName() << "' for --tp=" << n
                          << ": no matmul reads a weight argument ([out, in], transposed as "
                             "nn.Linear does) from a replicated activation, so nothing is "
                             "split";
  for (BlockArgument arg : fn.getArguments())
    if (!state(arg).isSplit() && !argWhy.count(arg))
      argWhy[arg] = "not read by a split op";
  return success();
}

//===----------------------------------------------------------------------===//
// The rewrite to per-core shapes
//===----------------------------------------------------------------------===//

void Sharder::rewrite() {
  Builder b(fn.getContext());
  Block &body = fn.getBody().front();
  for (BlockArgument arg : fn.getArguments()) {
    Sharding s = state(arg);
    if (!s.isSplit())
      continue;
    arg.setType(localType(arg, s));
    fn.setArgAttr(arg.getArgNumber(), kShardAttrName,
                  b.getDenseI64ArrayAttr({s.dim, s.parts}));
  }
  for (Operation &op : body) {
    for (Value v : op.getResults())
      if (Sharding s = state(v); s.isSplit())
        v.setType(localType(v, s));
    if (auto slice = dyn_cast<SliceOp>(op); slice && state(slice.getInput()).isSplit()) {
      slice.setSizes(cast<RankedTensorType>(slice.getType()).getShape());
    }
  }
  for (auto [operand, type] : localSplats) {
    OpBuilder ob(operand->getOwner());
    auto splat = cast<DenseElementsAttr>(
        cast<ConstantOp>(operand->get().getDefiningOp()).getValue());
    auto value = DenseElementsAttr::get(type, splat.getSplatValue<Attribute>());
    Operation *old = operand->get().getDefiningOp();
    operand->set(ConstantOp::create(ob, old->getLoc(), value));
    if (old->use_empty())
      old->erase();
  }
  for (MatmulOp mm : reduceAfter) {
    OpBuilder ob(mm->getContext());
    ob.setInsertionPointAfter(mm);
    auto reduced = AllReduceOp::create(ob, mm.getLoc(), mm.getType(), mm.getResult(), n);
    mm.getResult().replaceAllUsesExcept(reduced.getResult(), reduced);
  }
  Operation *ret = body.getTerminator();
  for (const Gather &g : gatherAtReturn) {
    OpBuilder ob(ret);
    Value local = ret->getOperand(g.result);
    auto gathered = AllGatherOp::create(ob, ret->getLoc(), g.whole, local, g.dim, n);
    ret->setOperand(g.result, gathered.getResult());
  }
  auto results = ret->getOperandTypes();
  fn.setType(FunctionType::get(fn.getContext(), body.getArgumentTypes(),
                               SmallVector<Type>(results.begin(), results.end())));
  fn->setAttr(kTensorParallelAttrName, b.getI64IntegerAttr(n));
}

std::string Sharder::report() {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tensor parallel @" << fn.getSymName() << " over " << n << " cores\n";
  int64_t bytes = 0;
  for (BlockArgument arg : fn.getArguments()) {
    auto global = cast<RankedTensorType>(arg.getType());
    os << "  arg " << arg.getArgNumber() << " ";
    if (auto it = argRole.find(arg); it != argRole.end()) {
      Sharding s = state(arg);
      SmallVector<int64_t> shape(global.getShape());
      shape[s.dim] *= s.parts; // the rewrite already made it local
      os << llvm::join(llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }),
                       "x")
         << " -> " << shapeText(global) << ": " << it->second.role << " (at "
         << neuronc::formatLocation(it->second.matmul->getLoc()) << ")\n";
    } else {
      os << shapeText(global) << ": replicated: " << argWhy.lookup(arg) << "\n";
    }
  }
  for (MatmulOp mm : reduceAfter) {
    auto t = cast<RankedTensorType>(mm.getType());
    int64_t b = t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8);
    bytes += b;
    os << "  all_reduce of the partial sums of neuron.matmul at "
       << neuronc::formatLocation(mm.getLoc()) << ": " << typeText(t) << ", " << b
       << " bytes per core\n";
  }
  for (const Gather &g : gatherAtReturn)
    os << "  all_gather of result #" << g.result << " (split along dim " << g.dim
       << "): " << typeText(g.whole) << ", "
       << g.whole.getNumElements() * ((g.whole.getElementTypeBitWidth() + 7) / 8) / n
       << " bytes from each core\n";
  os << "tensor parallel: " << argRole.size() << " argument(s) split, " << splitOps
     << " op(s) on split values, " << reduceAfter.size() << " all_reduce(s), " << bytes
     << " bytes all-reduced per core";
  if (!gatherAtReturn.empty())
    os << ", " << gatherAtReturn.size() << " all_gather(s) of results";
  os << "\n";
  // The work every core repeats: what does not shrink with more cores.
  SmallVector<Operation *> replicated;
  for (Operation &op : fn.getBody().front())
    if (!isa<ConstantOp, ReshapeOp, AllReduceOp, AllGatherOp, func::ReturnOp>(op) &&
        !chainOps.contains(&op) &&
        op.getNumResults() > 0 &&
        llvm::all_of(op.getResults(),
                     [&](Value v) { return state(v).kind == Sharding::Replicated; }))
      replicated.push_back(&op);
  os << "replicated (every core computes all of it): " << replicated.size() << " op(s)\n";
  for (Operation *op : replicated)
    os << "  " << op->getName() << " at " << neuronc::formatLocation(op->getLoc()) << ": "
       << typeText(op->getResult(0).getType()) << "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Shards every public function of the module for `parts` cores.
struct ShardTensorParallelPass
    : mlir::neuron::impl::NeuronShardTensorParallelPassBase<ShardTensorParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    if (parts <= 1)
      return;
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        entries.push_back(fn);
    if (entries.empty()) {
      module.emitError() << "cannot shard for --tp=" << parts << ": no public function";
      return signalPassFailure();
    }
    std::string text;
    for (func::FuncOp fn : entries) {
      Sharder sharder(fn, parts);
      if (failed(sharder.analyze()))
        return signalPassFailure();
      sharder.rewrite();
      text += sharder.report();
    }
    if (report.empty())
      return;
    if (report == "-") {
      llvm::errs() << text;
      return;
    }
    if (llvm::Error err = neuronc::writeFileAtomically(report, text)) {
      module.emitError() << llvm::toString(std::move(err));
      signalPassFailure();
    }
  }
};

} // namespace
