//===- ResolveBodyAsserts.cpp - cf.assert in linalg.generic bodies --------===//
//
// torch-mlir checks every index it reads in a body (an embedding lookup's
// `%ok = arith.cmpi slt, %id, %c32000 : i64` ... `cf.assert %ok, "index out of
// bounds"` before the `tensor.extract`). The device evaluates no assertions,
// so before the linalg import each one is resolved where it stands:
//   - a condition that folds at compile time (from constants, splat constant
//     inputs, or each value of one constant input) is checked: false is an
//     error naming the assertion's message, true drops it silently;
//   - any other condition depends on run-time values: the assertion is
//     dropped, and one warning per function counts them and names the first.
// The condition's scalar code, then unused, goes with it; the rest of the
// body imports as usual.
//
//===----------------------------------------------------------------------===//

#include "LinalgImport.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The most values of one constant input an assertion is checked for
/// (heuristic: the dialect's constant-folding limit).
constexpr int64_t kMaxCheckedValues = 4096;

/// Evaluates a body's scalar code at compile time with MLIR's folders, the
/// block arguments of constant inputs bound to one of their values at a
/// time. Never changes the IR.
class BodyEvaluator {
public:
  explicit BodyEvaluator(linalg::LinalgOp op) : op(op), body(*op.getBlock()) {}

  /// The body arguments `v` depends on, in `args`; false when `v` also
  /// depends on something no folder knows at compile time (a position along
  /// a loop dim, an op with effects, a non-constant value from outside).
  bool collectArguments(Value v, llvm::SetVector<BlockArgument> &args) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &body)
        return false;
      args.insert(arg);
      return true;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != &body)
      return matchPattern(v, m_Constant());
    if (auto index = dyn_cast<linalg::IndexOp>(def))
      return op.getStaticLoopRanges()[index.getDim()] == 1;
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def) || def->getNumResults() != 1)
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value operand) { return collectArguments(operand, args); });
  }

  /// The constant value of body argument `arg` when its input is a constant
  /// tensor: one value if it is a splat, each distinct one otherwise (at
  /// most kMaxCheckedValues of them); empty when it is not constant.
  SmallVector<Attribute> valuesOf(BlockArgument arg) {
    if (arg.getArgNumber() >= static_cast<unsigned>(op.getNumDpsInputs()))
      return {};
    DenseElementsAttr dense;
    if (!matchPattern(op.getDpsInputs()[arg.getArgNumber()], m_Constant(&dense)))
      return {};
    if (dense.isSplat())
      return {dense.getSplatValue<Attribute>()};
    if (dense.getNumElements() > kMaxCheckedValues)
      return {};
    llvm::SetVector<Attribute> distinct;
    for (Attribute a : dense.getValues<Attribute>())
      distinct.insert(a);
    return distinct.takeVector();
  }

  /// Binds body argument `arg` to `value` for the next evaluations.
  void bind(BlockArgument arg, Attribute value) {
    known.clear();
    bound[arg] = value;
  }

  /// The constant `v` folds to under the current bindings, or null.
  Attribute evaluate(Value v) {
    if (Attribute a = known.lookup(v))
      return a;
    Attribute result;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      result = bound.lookup(arg);
    } else if (Operation *def = v.getDefiningOp(); def->getBlock() != &body) {
      (void)matchPattern(v, m_Constant(&result));
    } else if (isa<linalg::IndexOp>(def)) {
      result = IntegerAttr::get(v.getType(), 0); // a unit loop dim
    } else {
      SmallVector<Attribute> operands;
      for (Value operand : def->getOperands()) {
        operands.push_back(evaluate(operand));
        if (!operands.back())
          return {};
      }
      SmallVector<OpFoldResult> folded;
      if (succeeded(def->fold(operands, folded)) && folded.size() == 1) {
        result = dyn_cast_if_present<Attribute>(folded.front());
        // A fold to one of its operands (a select of a constant condition).
        if (auto same = dyn_cast_if_present<Value>(folded.front()); same && same != v)
          result = evaluate(same);
      }
    }
    if (result)
      known[v] = result;
    return result;
  }

private:
  linalg::LinalgOp op;
  Block &body;
  DenseMap<BlockArgument, Attribute> bound;
  DenseMap<Value, Attribute> known;
};

/// What checking an assertion at compile time found.
enum class Verdict { Holds, Fails, RunTime };

/// Checks `assertOp` of `op`'s body at compile time; on a failure `where`
/// says for which value of a constant input (empty: the condition is
/// constant).
Verdict check(linalg::LinalgOp op, cf::AssertOp assertOp, std::string &where) {
  BodyEvaluator eval(op);
  llvm::SetVector<BlockArgument> args;
  if (!eval.collectArguments(assertOp.getArg(), args))
    return Verdict::RunTime;
  // Splat inputs are bound once; one input of several values is checked
  // value by value.
  std::optional<BlockArgument> varying;
  SmallVector<Attribute> values = {Attribute()};
  for (BlockArgument arg : args) {
    SmallVector<Attribute> of = eval.valuesOf(arg);
    if (of.empty() || (of.size() > 1 && varying))
      return Verdict::RunTime;
    if (of.size() == 1) {
      eval.bind(arg, of.front());
      continue;
    }
    varying = arg;
    values = std::move(of);
  }
  for (Attribute value : values) {
    if (varying)
      eval.bind(*varying, value);
    auto holds = dyn_cast_if_present<IntegerAttr>(eval.evaluate(assertOp.getArg()));
    if (!holds)
      return Verdict::RunTime;
    if (holds.getValue().isZero()) {
      if (varying) {
        llvm::raw_string_ostream os(where);
        os << "false for the value ";
        if (auto i = dyn_cast<IntegerAttr>(value))
          os << i.getValue().getSExtValue();
        else
          os << value;
        os << " of constant input #" << varying->getArgNumber();
      }
      return Verdict::Fails;
    }
  }
  return Verdict::Holds;
}

/// Erases the ops of `body` that computed `condition` (a dropped
/// assertion's) and nothing else uses any more, last user first.
void eraseDeadCondition(Value condition, Block &body) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist = {condition};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &body || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def) || !slice.insert(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body.getOperations())))
    if (slice.contains(&op) && op.use_empty())
      op.erase();
}

} // namespace

LogicalResult mlir::neuron::linalg_import::resolveBodyAsserts(func::FuncOp fn) {
  bool ok = true;
  int64_t dropped = 0;
  std::string firstMessage;
  Location firstLoc = fn.getLoc();
  fn.walk([&](linalg::LinalgOp op) {
    if (!op.getBlock())
      return;
    Block &body = *op.getBlock();
    for (cf::AssertOp assertOp : llvm::make_early_inc_range(body.getOps<cf::AssertOp>())) {
      std::string where;
      Verdict verdict = check(op, assertOp, where);
      if (verdict == Verdict::Fails) {
        assertOp.emitError("neuronc cannot import '")
            << op->getName() << "': its cf.assert \"" << assertOp.getMsg()
            << "\" fails at compile time: its condition is "
            << (where.empty() ? std::string("always false") : where);
        ok = false;
        continue;
      }
      if (verdict == Verdict::RunTime && dropped++ == 0) {
        firstMessage = assertOp.getMsg().str();
        firstLoc = assertOp.getLoc();
      }
      Value condition = assertOp.getArg();
      assertOp.erase();
      eraseDeadCondition(condition, body);
    }
  });
  if (dropped)
    emitWarning(firstLoc) << "@" << fn.getSymName() << ": dropped " << dropped << " cf.assert "
                          << (dropped == 1 ? "check" : "checks") << " of linalg.generic bodies "
                          << (dropped == 1 ? "that depends" : "that depend")
                          << " on run-time values (the first here: \"" << firstMessage
                          << "\"); the device does not evaluate assertions";
  return success(ok);
}
