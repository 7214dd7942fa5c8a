//===- FusionUtils.cpp - Helpers shared by the fusion passes --------------===//

#include "FusionUtils.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::neuron;

bool fusion::wholeBytes(ElementsAttr value) {
  Type elem = getElementTypeOrSelf(value.getType());
  return elem.isIntOrFloat() && elem.getIntOrFloatBitWidth() % 8 == 0;
}

std::optional<ArrayRef<char>> fusion::constantBytes(ElementsAttr value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.getRawData();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

bool fusion::isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp, CompareOp, SelectOp, NegOp, AbsOp,
             ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp, TanhOp, SigmoidOp, ErfOp,
             SinOp, CosOp, GeluOp, SiluOp, ReluOp, RoundOp, FloorOp, CeilOp, CastOp, BroadcastToOp,
             ReshapeOp>(op);
}
bool fusion::isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op);
}
bool fusion::isHero(Operation *op) {
  return isa<MatmulOp, ConvOp, RmsNormOp, SoftmaxOp, LayerNormOp>(op);
}

Value fusion::zeroAddOperand(Value v, bool sameShape) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return {};
  for (auto [x, z] :
       {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<double> zero = getSplatValue(z);
    bool shapes = sameShape ? x.getType() == add.getType()
                            : z.getType() == add.getType() && x.getType() != add.getType();
    if (zero && *zero == 0.0 && shapes)
      return x;
  }
  return {};
}

Value fusion::broadcastSource(Value v) {
  if (auto b = v.getDefiningOp<BroadcastToOp>())
    return b.getInput();
  return zeroAddOperand(v, /*sameShape=*/false);
}

bool fusion::onlyUsedBy(Value v, const llvm::SmallPtrSetImpl<Operation *> &chain) {
  return llvm::all_of(v.getUsers(), [&](Operation *u) { return chain.contains(u); });
}

std::string fusion::describe(Operation *op, llvm::StringRef role) {
  return (role + " (" + op->getName().getStringRef() + " at " +
          neuronc::formatLocation(op->getLoc()) + ")")
      .str();
}

int64_t fusion::bytesSaved(ArrayRef<Operation *> chain, Operation *fused) {
  int64_t before = 0;
  for (Operation *op : chain)
    if (auto cost = dyn_cast<CostOpInterface>(op))
      if (std::optional<OpCost> c = cost.getCost())
        before += c->bytes();
  int64_t after = 0;
  if (auto cost = dyn_cast<CostOpInterface>(fused))
    if (std::optional<OpCost> c = cost.getCost())
      after = c->bytes();
  return before - after;
}

Location fusion::fusedLocation(ArrayRef<Operation *> chain) {
  SmallVector<Location> locs;
  for (Operation *op : chain) {
    // An op fused before already names the ops it stands for.
    if (isa<FusedLoc>(op->getLoc())) {
      locs.push_back(op->getLoc());
      continue;
    }
    // Named after the op (an exporter's name stays inside), so that two ops
    // at one location stay two and the executable can list what was absorbed.
    locs.push_back(NameLoc::get(op->getName().getIdentifier(), op->getLoc()));
  }
  return FusedLoc::get(chain.front()->getContext(), locs);
}

void fusion::eraseDeadChain(ArrayRef<Operation *> chain) {
  // Constants only the chain used (1/N, epsilon, 2.0) go with it.
  llvm::SetVector<Operation *> constants;
  for (Operation *op : chain)
    for (Value v : op->getOperands())
      if (auto c = v.getDefiningOp<ConstantOp>())
        constants.insert(c);
  // Users come after producers in a block: erase in reverse program order.
  SmallVector<Operation *> ops(chain.begin(), chain.end());
  llvm::sort(ops, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : ops)
    if (op->use_empty())
      op->erase();
  for (Operation *c : constants)
    if (c->use_empty())
      c->erase();
}

void fusion::recordFused(Operation *fused, StringRef kernel, ArrayRef<Operation *> chain,
                         int64_t saved) {
  neuronc::FusionDecision d{kernel.str(), true, "", fused->getLoc(), {}, saved};
  // Program order, so the report reads like the source; an absorbed op that
  // was itself fused contributes the source ops it stands for.
  SmallVector<Operation *> ops(chain.begin(), chain.end());
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ops) {
    if (auto f = dyn_cast<FusedLoc>(op->getLoc()))
      llvm::append_range(d.absorbed, f.getLocations());
    else
      d.absorbed.push_back(op->getLoc());
  }
  if (!d.absorbed.empty())
    d.loc = d.absorbed.back();
  neuronc::recordFusionDecision(fused->getParentOfType<func::FuncOp>(), d);
}

void fusion::recordRejected(Operation *anchor, StringRef kernel, const std::string &reason) {
  neuronc::recordFusionDecision(anchor->getParentOfType<func::FuncOp>(),
                                {kernel.str(), false, reason, anchor->getLoc(), {}, 0});
}

bool fusion::swapsMatrixDims(TransposeOp t) {
  ArrayRef<int64_t> perm = t.getPerm();
  int64_t n = static_cast<int64_t>(perm.size());
  if (n < 2 || perm[n - 1] != n - 2 || perm[n - 2] != n - 1)
    return false;
  for (int64_t i = 0; i + 2 < n; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

bool fusion::regroupsDims(ReshapeOp r) {
  auto nonUnit = [](Type t) {
    SmallVector<int64_t> dims;
    for (int64_t d : cast<RankedTensorType>(t).getShape())
      if (d != 1)
        dims.push_back(d);
    return dims;
  };
  return nonUnit(r.getInput().getType()) != nonUnit(r.getType());
}

bool fusion::keepsMatrixDims(ReshapeOp r) {
  auto in = cast<RankedTensorType>(r.getInput().getType());
  auto out = cast<RankedTensorType>(r.getType());
  return in.getRank() >= 2 && out.getRank() >= 2 && in.hasStaticShape() &&
         out.hasStaticShape() && in.getShape().take_back(2) == out.getShape().take_back(2);
}

RankedTensorType fusion::swapMatrixDims(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return type.clone(shape);
}
