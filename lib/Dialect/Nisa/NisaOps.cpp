//===- NisaOps.cpp - Ops of the nisa dialect -------------------------------===//
//
// Custom syntax, builders and the hardware rules the verifiers enforce:
// partition ranges and start rules, tile limits of TensorE, which engine
// may touch which memory (PSUM is written only by TensorE, GpSimdE never
// touches it, only DMA touches HBM), element counts that must agree, and
// capacities of the target's SBUF and PSUM.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "neuronc/Dialect/BucketSignatureAttrs.h"

#include "neuronc/ISA/HardwareModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nisa;

namespace mlir::nisa::detail {
void printAccessBody(OpAsmPrinter &p, AccessPatternAttr ap);
ParseResult parseAccessBody(OpAsmParser &p, AccessPatternAttr &ap);
} // namespace mlir::nisa::detail

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `@t0[0:128, 0, [1,4096]]`.
static ParseResult parseAccess(OpAsmParser &p, FlatSymbolRefAttr &memory,
                               AccessPatternAttr &ap) {
  StringAttr name;
  if (p.parseSymbolName(name))
    return failure();
  memory = FlatSymbolRefAttr::get(name);
  if (p.parseLSquare() || mlir::nisa::detail::parseAccessBody(p, ap) ||
      p.parseRSquare())
    return failure();
  return success();
}

static void printAccess(OpAsmPrinter &p, Operation *, FlatSymbolRefAttr memory,
                        AccessPatternAttr ap) {
  p.printAttributeWithoutType(memory);
  p << "[";
  mlir::nisa::detail::printAccessBody(p, ap);
  p << "]";
}

/// `q3`.
static ParseResult parseQueue(OpAsmParser &p, IntegerAttr &queue) {
  StringRef word;
  llvm::SMLoc loc = p.getCurrentLocation();
  if (p.parseKeyword(&word))
    return failure();
  std::optional<int64_t> stream = parseStreamName(word);
  if (!stream || *stream < kFirstQueueStream)
    return p.emitError(loc, "expected a DMA queue q0..q") << kMaxQueues - 1 << ", got '"
                                                         << word << "'";
  queue = p.getBuilder().getI64IntegerAttr(*stream - kFirstQueueStream);
  return success();
}

static void printQueue(OpAsmPrinter &p, Operation *, IntegerAttr queue) {
  p << "q" << queue.getInt();
}

/// The inside of `wait(q3 >= 2, scalar >= 7)`.
static ParseResult parseWaits(OpAsmParser &p, DenseI64ArrayAttr &wait) {
  SmallVector<int64_t> pairs;
  auto parseOne = [&]() -> ParseResult {
    StringRef name;
    llvm::SMLoc loc = p.getCurrentLocation();
    int64_t count;
    if (p.parseKeyword(&name))
      return failure();
    std::optional<int64_t> stream = parseStreamName(name);
    if (!stream)
      return p.emitError(loc, "unknown stream '") << name << "'";
    if (p.parseGreater() || p.parseEqual() || p.parseInteger(count))
      return failure();
    pairs.push_back(*stream);
    pairs.push_back(count);
    return success();
  };
  if (p.parseCommaSeparatedList(parseOne))
    return failure();
  wait = p.getBuilder().getDenseI64ArrayAttr(pairs);
  return success();
}

static void printWaits(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr wait) {
  ArrayRef<int64_t> w = wait.asArrayRef();
  for (size_t i = 0; i + 1 < w.size(); i += 2)
    p << (i ? ", " : "") << streamName(w[i]) << " >= " << w[i + 1];
}

/// A scalar operand: a per-partition access or an immediate.
static ParseResult parseOperand(OpAsmParser &p, FloatAttr &imm, FlatSymbolRefAttr &memory,
                                AccessPatternAttr &ap) {
  StringAttr name;
  if (succeeded(p.parseOptionalSymbolName(name))) {
    memory = FlatSymbolRefAttr::get(name);
    if (p.parseLSquare() || mlir::nisa::detail::parseAccessBody(p, ap) || p.parseRSquare())
      return failure();
    return success();
  }
  double v;
  if (p.parseFloat(v))
    return failure();
  imm = p.getBuilder().getF32FloatAttr(static_cast<float>(v));
  return success();
}

static void printOperand(OpAsmPrinter &p, Operation *op, FloatAttr imm, FlatSymbolRefAttr memory,
                         AccessPatternAttr ap) {
  if (memory)
    printAccess(p, op, memory, ap);
  else if (imm)
    p.printFloat(imm.getValue());
}

/// `128x4096xf32`.
static ParseResult parseTileShape(OpAsmParser &p, IntegerAttr &partitions, IntegerAttr &elements,
                                  TypeAttr &elementType) {
  SmallVector<int64_t, 2> dims;
  Type type;
  llvm::SMLoc loc = p.getCurrentLocation();
  if (p.parseDimensionList(dims, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      p.parseType(type))
    return failure();
  if (dims.size() != 2)
    return p.emitError(loc, "a tile shape is partitions x elements x type, e.g. 128x512xf32");
  partitions = p.getBuilder().getI64IntegerAttr(dims[0]);
  elements = p.getBuilder().getI64IntegerAttr(dims[1]);
  elementType = TypeAttr::get(type);
  return success();
}

static void printTileShape(OpAsmPrinter &p, Operation *, IntegerAttr partitions,
                           IntegerAttr elements, TypeAttr elementType) {
  p << partitions.getInt() << "x" << elements.getInt() << "x" << elementType.getValue();
}

#define GET_OP_CLASSES
#include "neuronc/Dialect/Nisa/NisaOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Structure ops
//===----------------------------------------------------------------------===//

void ProgramOp::build(OpBuilder &b, OperationState &state, StringRef name, StringRef target) {
  state.addAttribute(getSymNameAttrName(state.name), b.getStringAttr(name));
  state.addAttribute(getTargetAttrName(state.name), b.getStringAttr(target));
  state.addRegion()->emplaceBlock();
}

void KernelOp::build(OpBuilder &b, OperationState &state, StringRef name, StringRef kind,
                     StringRef source) {
  state.addAttribute(getSymNameAttrName(state.name), b.getStringAttr(name));
  state.addAttribute(getKindAttrName(state.name), b.getStringAttr(kind));
  state.addAttribute(getSourceAttrName(state.name), b.getStringAttr(source));
  state.addRegion()->emplaceBlock();
}

//===----------------------------------------------------------------------===//
// EntryOp
//===----------------------------------------------------------------------===//

neuronc::BucketSignature EntryOp::getSignature() { return neuronc::readBucketSignature(*this); }

LogicalResult EntryOp::verify() {
  if (getCallees().size() != getBucketSizes().size())
    return emitOpError("has ") << getCallees().size() << " bucket programs but "
                               << getBucketSizes().size() << " bucket sizes";
  if (getCallees().empty())
    return emitOpError("has no bucket programs");
  for (Attribute a : getBucketSizes())
    if (cast<DenseI64ArrayAttr>(a).size() != static_cast<int64_t>(getSymbols().size()))
      return emitOpError("gives a bucket ") << cast<DenseI64ArrayAttr>(a).size()
                                            << " size(s) for " << getSymbols().size()
                                            << " symbol(s)";
  return success();
}

/// The hardware table entry of the program `op` is in, or null.
static const neuronc::HardwareModel *targetOf(Operation *op) {
  auto program = op->getParentOfType<ProgramOp>();
  if (!program && isa<ProgramOp>(op))
    program = cast<ProgramOp>(op);
  return program ? neuronc::lookupHardwareModel(program.getTarget()) : nullptr;
}

/// The hardware table entry of `op`'s program, or the default target's when
/// the op is not in a program yet.
static const neuronc::HardwareModel &hardwareOf(Operation *op) {
  const neuronc::HardwareModel *hw = targetOf(op);
  return hw ? *hw : neuronc::hardwareModels().front();
}

static bool isDeviceElementType(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || t.isInteger(32) || t.isInteger(1);
}

LogicalResult ProgramOp::verify() {
  if (!neuronc::lookupHardwareModel(getTarget()))
    return emitOpError("unknown target '")
           << getTarget() << "'; known targets: " << neuronc::hardwareModelNames();
  llvm::SmallDenseMap<int64_t, HbmOp> inputs, outputs;
  for (HbmOp t : getBodyBlock().getOps<HbmOp>()) {
    if (t.getKind() != HbmKind::input && t.getKind() != HbmKind::output)
      continue;
    if (!t.getIndex())
      continue; // the tensor's own verifier says it needs one
    auto &seen = t.getKind() == HbmKind::input ? inputs : outputs;
    int64_t index = *t.getIndex();
    if (!seen.try_emplace(index, t).second)
      return t.emitOpError("is ") << stringifyHbmKind(t.getKind()) << " " << index
                                  << " like " << seen[index].getSymName();
  }
  for (auto *seen : {&inputs, &outputs})
    for (int64_t i = 0, e = seen->size(); i < e; ++i)
      if (!seen->count(i))
        return emitOpError("has ") << e << (seen == &inputs ? " inputs" : " outputs")
                                   << " but none with index " << i;
  return success();
}

int64_t HbmOp::getSizeInBytes() { return getNumElements() * elementBytes(getElementType()); }

LogicalResult HbmOp::verify() {
  RankedTensorType type = getTensorType();
  if (!type.hasStaticShape())
    return emitOpError("needs a static shape, got ") << type;
  if (!isDeviceElementType(type.getElementType()))
    return emitOpError("element type ")
           << type.getElementType() << " is not a device type (f32, bf16, f16, i32, i1)";
  bool bound = getKind() == HbmKind::input || getKind() == HbmKind::output;
  if (bound != getIndex().has_value())
    return emitOpError(bound ? "of kind input/output needs an index"
                             : "has an index but is not an input or output");
  if ((getKind() == HbmKind::constant) != static_cast<bool>(getValue()))
    return emitOpError(getValue() ? "has a value but is not a const" : "const needs a value");
  if (getValue() && getValue()->getType() != type)
    return emitOpError("value of type ") << getValue()->getType() << " does not match " << type;
  if (getOffset() && getKind() != HbmKind::internal)
    return emitOpError("only internal tensors have a scratch offset");
  if (getHostTransposed() && (getKind() != HbmKind::input || type.getRank() < 2))
    return emitOpError("host_transposed needs an input of rank 2 or more");
  if (std::optional<ArrayRef<int64_t>> shard = getShard()) {
    if (getKind() != HbmKind::input && getKind() != HbmKind::output)
      return emitOpError("only an input or an output is sharded across cores");
    if (shard->size() != 2 || (*shard)[0] < 0 || (*shard)[0] >= type.getRank() ||
        (*shard)[1] < 2)
      return emitOpError("shard must be [dim, parts] with dim in 0..")
             << type.getRank() - 1 << " and at least 2 parts";
  }
  // Read the attribute signed: the accessor is unsigned and -8 would pass.
  if (getOffsetAttr() && getOffsetAttr().getValue().isNegative())
    return emitOpError("offset ") << getOffsetAttr().getInt() << " is negative";
  return success();
}

int64_t AllocOp::getBytesPerPartition() {
  return getElements() * elementBytes(getElementType());
}

LogicalResult AllocOp::verify() {
  if (getSpace() == MemorySpace::hbm)
    return emitOpError("allocates tiles in sbuf or psum; HBM tensors are nisa.hbm");
  if (!isDeviceElementType(getElementType()))
    return emitOpError("element type ")
           << getElementType() << " is not a device type (f32, bf16, f16, i32, i1)";
  if (getPartitions() < 1 || getElements() < 1)
    return emitOpError("needs at least one partition and one element, got ")
           << getPartitions() << "x" << getElements();
  if (getOffsetAttr() && getOffsetAttr().getValue().isNegative())
    return emitOpError("offset ") << getOffsetAttr().getInt() << " is negative";
  const neuronc::HardwareModel *hw = targetOf(*this);
  if (!hw)
    return success();
  if (getPartitions() > hw->partitions)
    return emitOpError("has ") << getPartitions() << " partitions; " << hw->name << " has "
                               << hw->partitions;
  int64_t capacity =
      getSpace() == MemorySpace::sbuf ? hw->sbufPartitionBytes : hw->psumPartitionBytes;
  int64_t end = getOffset().value_or(0) + getBytesPerPartition();
  if (end > capacity)
    return emitOpError("needs bytes ")
           << getOffset().value_or(0) << ".." << end << " of each partition but "
           << stringifyMemorySpace(getSpace()) << " on " << hw->name << " has " << capacity;
  return success();
}

//===----------------------------------------------------------------------===//
// Memory lookup
//===----------------------------------------------------------------------===//

Operation *mlir::nisa::lookupMemory(Operation *instruction, FlatSymbolRefAttr name) {
  if (auto kernel = instruction->getParentOfType<KernelOp>())
    if (Operation *t = SymbolTable::lookupSymbolIn(kernel, name.getAttr()))
      return t;
  if (auto program = instruction->getParentOfType<ProgramOp>())
    return SymbolTable::lookupSymbolIn(program, name.getAttr());
  return nullptr;
}

MemoryResolver::MemoryResolver(ProgramOp program) {
  for (Operation &op : program.getBodyBlock()) {
    if (auto t = dyn_cast<HbmOp>(op))
      hbm[t.getSymNameAttr()] = t;
    else if (auto a = dyn_cast<AllocOp>(op))
      hbm[a.getSymNameAttr()] = a;
    else if (auto k = dyn_cast<KernelOp>(op)) {
      auto &map = tiles[k];
      for (AllocOp a : k.getBodyBlock().getOps<AllocOp>())
        map[a.getSymNameAttr()] = a;
    }
  }
}

Operation *MemoryResolver::lookup(KernelOp kernel, FlatSymbolRefAttr name) {
  auto it = tiles.find(kernel);
  if (it != tiles.end())
    if (AllocOp a = it->second.lookup(name.getAttr()))
      return a;
  return hbm.lookup(name.getAttr());
}

WalkResult MemoryResolver::walkAccesses(
    KernelOp kernel,
    llvm::function_ref<WalkResult(InstructionOpInterface, const MemoryAccess &, Operation *)> f) {
  SmallVector<MemoryAccess> accesses;
  for (Operation &op : kernel.getBodyBlock()) {
    auto inst = dyn_cast<InstructionOpInterface>(op);
    if (!inst)
      continue;
    accesses.clear();
    inst.getAccesses(accesses);
    for (const MemoryAccess &a : accesses)
      if (f(inst, a, lookup(kernel, a.memory)).wasInterrupted())
        return WalkResult::interrupt();
  }
  return WalkResult::advance();
}

int64_t mlir::nisa::detail::queueOf(Operation *op) {
  if (auto dma = dyn_cast<DmaCopyOp>(op))
    return dma.getQueue();
  if (auto ar = dyn_cast<AllReduceOp>(op))
    return ar.getQueue();
  if (auto ag = dyn_cast<AllGatherOp>(op))
    return ag.getQueue();
  if (auto rs = dyn_cast<ReduceScatterOp>(op))
    return rs.getQueue();
  return 0;
}

//===----------------------------------------------------------------------===//
// Structural rules shared by the instruction verifiers
//===----------------------------------------------------------------------===//

namespace {

/// The engines an instruction with an `engine` field may name.
LogicalResult checkEngine(Operation *op, Engine engine, ArrayRef<Engine> allowed) {
  if (llvm::is_contained(allowed, engine))
    return success();
  std::string names;
  for (Engine e : allowed)
    names += (names.empty() ? "" : ", ") + stringifyEngine(e).str();
  return op->emitOpError("cannot run on the ")
         << stringifyEngine(engine) << " engine (it runs on " << names << ")";
}

/// A compute engine's tile access: partitions start at 0, 32, 64 or 96
/// (32-partition quadrants; a start of 32 or 96 spans at most 32, a start
/// of 64 at most 64), and at most 3 free dims.
LogicalResult checkEngineAccess(Operation *op, StringRef role, AccessPatternAttr ap) {
  if (!ap.isTile())
    return op->emitOpError(role) << " must be an SBUF/PSUM tile access, not an HBM one "
                                    "(only DMA reaches HBM)";
  const neuronc::HardwareModel &hw = hardwareOf(op);
  int64_t start = ap.getPartStart(), count = ap.getPartCount();
  int64_t limit = hw.maxPartitionSpan(start);
  if (limit == 0) {
    std::string starts;
    for (int64_t q = 0; q < hw.partitions; q += hw.partitionQuadrant)
      starts += (q == 0 ? "" : q + hw.partitionQuadrant >= hw.partitions ? " or " : ", ") +
                std::to_string(q);
    return op->emitOpError(role) << " starts at partition " << start
                                 << "; engine accesses start at partition " << starts;
  }
  if (count > limit || start + count > hw.partitions)
    return op->emitOpError(role) << " spans partitions " << start << ":" << start + count
                                 << "; from partition " << start << " an access spans at most "
                                 << limit;
  if (ap.getSizes().size() > 3)
    return op->emitOpError(role) << " has " << ap.getSizes().size()
                                 << " free dims; engine accesses have at most 3";
  return success();
}

/// Two accesses that an engine walks in lockstep: same partitions count and
/// elements per partition.
LogicalResult checkSameShape(Operation *op, StringRef a, AccessPatternAttr x, StringRef b,
                             AccessPatternAttr y) {
  if (x.getPartCount() != y.getPartCount() || x.getNumElements() != y.getNumElements())
    return op->emitOpError(a) << " covers " << x.getPartCount() << " partitions x "
                              << x.getNumElements() << " elements but " << b << " covers "
                              << y.getPartCount() << " x " << y.getNumElements();
  return success();
}

/// A per-partition scalar operand: one element on each of `parts` partitions.
LogicalResult checkPerPartition(Operation *op, StringRef role, AccessPatternAttr ap,
                                int64_t parts) {
  if (!ap)
    return success();
  if (failed(checkEngineAccess(op, role, ap)))
    return failure();
  if (ap.getPartCount() != parts || ap.getNumElements() != 1)
    return op->emitOpError(role) << " must be one element on each of " << parts
                                 << " partitions, got " << ap.getPartCount() << " x "
                                 << ap.getNumElements();
  return success();
}

/// A scalar operand given exactly once: as an immediate or as an access.
LogicalResult checkScalar(Operation *op, StringRef role, Attribute imm, Attribute memory,
                          bool required) {
  if (imm && memory)
    return op->emitOpError(role) << " is given both as an immediate and as an access";
  if (required && !imm && !memory)
    return op->emitOpError(role) << " is missing";
  return success();
}

/// Optional symbol and pattern given together.
LogicalResult checkPaired(Operation *op, StringRef role, Attribute memory, Attribute ap) {
  if (static_cast<bool>(memory) != static_cast<bool>(ap))
    return op->emitOpError(role) << " needs both a memory and an access pattern";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Per-instruction verifiers, engines and accesses
//===----------------------------------------------------------------------===//

// dma_copy ------------------------------------------------------------------

LogicalResult DmaCopyOp::verify() {
  int64_t queue = getQueueAttr().getInt(); // signed: -1 is not 2^64 - 1
  if (queue < 0 || queue >= kMaxQueues)
    return emitOpError("queue ") << queue << " is not in 0.." << kMaxQueues - 1;
  for (auto [role, ap] : {std::pair{"destination", getDstAp()}, {"source", getSrcAp()}}) {
    int64_t dims = ap.getSizes().size() + (ap.isTile() ? 1 : 0);
    if (dims > 4)
      return emitOpError(role) << " pattern has " << dims
                               << " dims (partitions included); DMA patterns have at most 4";
  }
  if (getDstAp().getTotalElements() != getSrcAp().getTotalElements())
    return emitOpError("copies ") << getSrcAp().getTotalElements() << " source elements into "
                                  << getDstAp().getTotalElements() << " destination elements";
  if (failed(checkPaired(*this, "indirect", getIndirectAttr(), getIndirectApAttr())))
    return failure();
  if (getIndirect()) {
    if (!getIndirectStride() || !getIndirectBound())
      return emitOpError("indirect needs a stride and a bound");
    AccessPatternAttr tileSide = getDstAp().isTile() ? getDstAp() : getSrcAp();
    if (!tileSide.isTile() || getDstAp().isTile() == getSrcAp().isTile())
      return emitOpError("indirect copies between HBM and a tile");
    if (getIndirectApAttr().getPartCount() != tileSide.getPartCount() ||
        getIndirectApAttr().getNumElements() != 1)
      return emitOpError("indirect index access must be one element on each of the ")
             << tileSide.getPartCount() << " partitions";
  }
  return success();
}

Engine DmaCopyOp::getInstructionEngine() { return Engine::dma; }

void DmaCopyOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  // An indirect copy's HBM side moves each row by index * stride for an
  // index in [0, bound): it may touch any of those rows, so its access is
  // the pattern repeated over all of them (a gather's rows are not only
  // the ones its pattern names at index 0; semaphores and the race check
  // must order it after every store into the table).
  auto widened = [&](AccessPatternAttr ap) {
    if (!getIndirect() || ap.isTile())
      return ap;
    SmallVector<int64_t> sizes = {static_cast<int64_t>(*getIndirectBound())};
    SmallVector<int64_t> strides = {static_cast<int64_t>(*getIndirectStride())};
    sizes.append(ap.getSizes().begin(), ap.getSizes().end());
    strides.append(ap.getStrides().begin(), ap.getStrides().end());
    return AccessPatternAttr::get(getContext(), 0, 0, ap.getOffset(), sizes, strides);
  };
  out.push_back({getDstAttr(), widened(getDstAp()), true});
  out.push_back({getSrcAttr(), widened(getSrcAp()), false});
  if (getIndirect())
    out.push_back({getIndirectAttr(), *getIndirectAp(), false});
}

// TensorE ---------------------------------------------------------------------

LogicalResult LoadStationaryOp::verify() {
  if (failed(checkEngineAccess(*this, "stationary", getSrcAp())))
    return failure();
  int64_t maxCols = hardwareOf(*this).partitions;
  if (getSrcAp().getNumElements() > maxCols)
    return emitOpError("stationary matrix has M = ")
           << getSrcAp().getNumElements() << " columns; TensorE takes at most " << maxCols;
  return success();
}

Engine LoadStationaryOp::getInstructionEngine() { return Engine::tensor; }

void LoadStationaryOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult MultiplyMovingOp::verify() {
  if (failed(checkEngineAccess(*this, "accumulator", getDstAp())) ||
      failed(checkEngineAccess(*this, "moving", getSrcAp())))
    return failure();
  int64_t maxCols = hardwareOf(*this).psumBankFp32();
  if (getSrcAp().getNumElements() > maxCols)
    return emitOpError("moving matrix has N = ")
           << getSrcAp().getNumElements() << " columns; TensorE takes at most " << maxCols
           << " (one PSUM bank)";
  if (getDstAp().getNumElements() != getSrcAp().getNumElements())
    return emitOpError("accumulator has ") << getDstAp().getNumElements()
                                           << " columns but the moving matrix has "
                                           << getSrcAp().getNumElements();
  return success();
}

Engine MultiplyMovingOp::getInstructionEngine() { return Engine::tensor; }

void MultiplyMovingOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
  if (!getStart()) // accumulating reads the previous partial sums
    out.push_back({getDstAttr(), getDstAp(), false});
}

LogicalResult TransposeOp::verify() {
  if (failed(checkEngine(*this, getEngine(), {Engine::tensor, Engine::vector})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())))
    return failure();
  const neuronc::HardwareModel &hw = hardwareOf(*this);
  int64_t limit = getEngine() == Engine::tensor ? hw.partitions : hw.vectorTransposeMax;
  int64_t p = getSrcAp().getPartCount(), f = getSrcAp().getNumElements();
  if (p > limit || f > limit)
    return emitOpError("transposes a ") << p << "x" << f << " block; the "
                                        << stringifyEngine(getEngine()) << " engine takes at most "
                                        << limit << "x" << limit;
  if (getDstAp().getPartCount() != f || getDstAp().getNumElements() != p)
    return emitOpError("destination must be ")
           << f << "x" << p << " (the source transposed), got " << getDstAp().getPartCount()
           << "x" << getDstAp().getNumElements();
  return success();
}

Engine TransposeOp::getInstructionEngine() { return getEngine(); }

void TransposeOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

// ScalarE ---------------------------------------------------------------------

LogicalResult ActivationOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "source", getSrcAp())) ||
      failed(checkPaired(*this, "scale", getScaleAttr(), getScaleApAttr())) ||
      failed(checkPaired(*this, "bias", getBiasAttr(), getBiasApAttr())) ||
      failed(checkPaired(*this, "accumulate", getAccAttr(), getAccApAttr())) ||
      failed(checkScalar(*this, "scale", getScaleImmAttr(), getScaleAttr(), false)) ||
      failed(checkScalar(*this, "bias", getBiasImmAttr(), getBiasAttr(), false)))
    return failure();
  int64_t parts = getSrcAp().getPartCount();
  if (failed(checkPerPartition(*this, "scale", getScaleApAttr(), parts)) ||
      failed(checkPerPartition(*this, "bias", getBiasApAttr(), parts)) ||
      failed(checkPerPartition(*this, "accumulator", getAccApAttr(), parts)))
    return failure();
  return success();
}

Engine ActivationOp::getInstructionEngine() { return Engine::scalar; }

void ActivationOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
  if (getScale())
    out.push_back({getScaleAttr(), *getScaleAp(), false});
  if (getBias())
    out.push_back({getBiasAttr(), *getBiasAp(), false});
  if (getAcc())
    out.push_back({getAccAttr(), *getAccAp(), true});
}

// VectorE / GpSimdE -------------------------------------------------------------

LogicalResult TensorTensorOp::verify() {
  if (failed(checkEngine(*this, getEngine(), {Engine::vector, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "lhs", getLhsAp())) ||
      failed(checkEngineAccess(*this, "rhs", getRhsAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "lhs", getLhsAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "rhs", getRhsAp())))
    return failure();
  if (getOp() == AluOp::bypass)
    return emitOpError("needs an operation, not bypass");
  return success();
}

Engine TensorTensorOp::getInstructionEngine() { return getEngine(); }

void TensorTensorOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getLhsAttr(), getLhsAp(), false});
  out.push_back({getRhsAttr(), getRhsAp(), false});
}

LogicalResult TensorScalarOp::verify() {
  if (failed(checkEngine(*this, getEngine(),
                         {Engine::vector, Engine::scalar, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "source", getSrcAp())) ||
      failed(checkPaired(*this, "first scalar", getS0Attr(), getS0ApAttr())) ||
      failed(checkPaired(*this, "second scalar", getS1Attr(), getS1ApAttr())) ||
      failed(checkScalar(*this, "first scalar", getImm0Attr(), getS0Attr(), true)) ||
      failed(checkScalar(*this, "second scalar", getImm1Attr(), getS1Attr(),
                         getOp1().has_value())))
    return failure();
  int64_t parts = getSrcAp().getPartCount();
  if (failed(checkPerPartition(*this, "first scalar", getS0ApAttr(), parts)) ||
      failed(checkPerPartition(*this, "second scalar", getS1ApAttr(), parts)))
    return failure();
  if (!getOp1() && (getS1() || getImm1() || getReverse1()))
    return emitOpError("has a second scalar but no second operation");
  return success();
}

Engine TensorScalarOp::getInstructionEngine() { return getEngine(); }

void TensorScalarOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
  if (getS0())
    out.push_back({getS0Attr(), *getS0Ap(), false});
  if (getS1())
    out.push_back({getS1Attr(), *getS1Ap(), false});
}

LogicalResult ScalarTensorTensorOp::verify() {
  if (failed(checkEngine(*this, getEngine(), {Engine::vector, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "lhs", getLhsAp())) ||
      failed(checkEngineAccess(*this, "rhs", getRhsAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "lhs", getLhsAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "rhs", getRhsAp())) ||
      failed(checkPaired(*this, "scalar", getS0Attr(), getS0ApAttr())) ||
      failed(checkScalar(*this, "scalar", getImm0Attr(), getS0Attr(), true)) ||
      failed(checkPerPartition(*this, "scalar", getS0ApAttr(), getLhsAp().getPartCount())))
    return failure();
  if (getOp1() == AluOp::bypass)
    return emitOpError("needs a second operation, not bypass");
  return success();
}

Engine ScalarTensorTensorOp::getInstructionEngine() { return getEngine(); }

void ScalarTensorTensorOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getLhsAttr(), getLhsAp(), false});
  if (getS0())
    out.push_back({getS0Attr(), *getS0Ap(), false});
  out.push_back({getRhsAttr(), getRhsAp(), false});
}

LogicalResult TensorReduceOp::verify() {
  if (failed(checkEngine(*this, getEngine(), {Engine::vector, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())))
    return failure();
  if (!llvm::is_contained({AluOp::add, AluOp::max, AluOp::min, AluOp::multiply}, getOp()))
    return emitOpError("reduces with add, max, min or multiply, not ")
           << stringifyAluOp(getOp());
  ArrayRef<int64_t> sizes = getSrcAp().getSizes();
  int64_t last = sizes.empty() ? 1 : sizes.back();
  if (getDstAp().getPartCount() != getSrcAp().getPartCount() ||
      getDstAp().getNumElements() * last != getSrcAp().getNumElements())
    return emitOpError("destination must hold the source without its innermost dim (")
           << getSrcAp().getPartCount() << " x " << getSrcAp().getNumElements() / last
           << " elements), got " << getDstAp().getPartCount() << " x "
           << getDstAp().getNumElements();
  return success();
}

Engine TensorReduceOp::getInstructionEngine() { return getEngine(); }

void TensorReduceOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult TensorCopyOp::verify() {
  if (failed(checkEngine(*this, getEngine(),
                         {Engine::vector, Engine::scalar, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "source", getSrcAp())))
    return failure();
  return success();
}

Engine TensorCopyOp::getInstructionEngine() { return getEngine(); }

void TensorCopyOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult ReciprocalOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "source", getSrcAp())))
    return failure();
  return success();
}

Engine ReciprocalOp::getInstructionEngine() { return Engine::vector; }

void ReciprocalOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult SelectOp::verify() {
  if (failed(checkEngine(*this, getEngine(), {Engine::vector, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "condition", getCondAp())) ||
      failed(checkEngineAccess(*this, "true value", getOnTrueAp())) ||
      failed(checkEngineAccess(*this, "false value", getOnFalseAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "condition", getCondAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "true value", getOnTrueAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "false value", getOnFalseAp())))
    return failure();
  return success();
}

Engine SelectOp::getInstructionEngine() { return getEngine(); }

void SelectOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getCondAttr(), getCondAp(), false});
  out.push_back({getOnTrueAttr(), getOnTrueAp(), false});
  out.push_back({getOnFalseAttr(), getOnFalseAp(), false});
}

LogicalResult BnStatsOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())))
    return failure();
  int64_t maxElements = hardwareOf(*this).bnStatsMaxElements;
  if (getSrcAp().getNumElements() > maxElements)
    return emitOpError("takes at most ") << maxElements << " elements per partition, got "
                                         << getSrcAp().getNumElements();
  if (getDstAp().getPartCount() != getSrcAp().getPartCount() ||
      getDstAp().getNumElements() != 3)
    return emitOpError("writes 3 values (count, mean, M2) on each source partition");
  return success();
}

Engine BnStatsOp::getInstructionEngine() { return Engine::vector; }

void BnStatsOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult BnAggrOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())))
    return failure();
  if (getSrcAp().getNumElements() % 3 != 0)
    return emitOpError("reads bn_stats triples, got ")
           << getSrcAp().getNumElements() << " elements per partition";
  if (getDstAp().getPartCount() != getSrcAp().getPartCount() ||
      getDstAp().getNumElements() != 2)
    return emitOpError("writes 2 values (mean, variance) on each source partition");
  return success();
}

Engine BnAggrOp::getInstructionEngine() { return Engine::vector; }

void BnAggrOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult IotaOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())))
    return failure();
  if (getSteps().size() != getDstAp().getSizes().size())
    return emitOpError("has ") << getSteps().size() << " steps for "
                               << getDstAp().getSizes().size() << " free dims";
  return success();
}

Engine IotaOp::getInstructionEngine() { return Engine::gpsimd; }

void IotaOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
}

LogicalResult AffineSelectOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())) ||
      failed(checkSameShape(*this, "destination", getDstAp(), "source", getSrcAp())))
    return failure();
  if (getCoeffs().size() != getDstAp().getSizes().size())
    return emitOpError("has ") << getCoeffs().size() << " coefficients for "
                               << getDstAp().getSizes().size() << " free dims";
  return success();
}

Engine AffineSelectOp::getInstructionEngine() { return Engine::gpsimd; }

void AffineSelectOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult PartitionReduceOp::verify() {
  if (failed(checkEngineAccess(*this, "destination", getDstAp())) ||
      failed(checkEngineAccess(*this, "source", getSrcAp())))
    return failure();
  if (!llvm::is_contained({AluOp::add, AluOp::max, AluOp::min, AluOp::multiply}, getOp()))
    return emitOpError("reduces with add, max, min or multiply, not ")
           << stringifyAluOp(getOp());
  if (getDstAp().getPartCount() != 1 ||
      getDstAp().getNumElements() != getSrcAp().getNumElements())
    return emitOpError("destination must be one partition of ")
           << getSrcAp().getNumElements() << " elements";
  return success();
}

Engine PartitionReduceOp::getInstructionEngine() { return Engine::gpsimd; }

void PartitionReduceOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
  out.push_back({getSrcAttr(), getSrcAp(), false});
}

LogicalResult MemsetOp::verify() {
  if (failed(checkEngine(*this, getEngine(), {Engine::vector, Engine::gpsimd})) ||
      failed(checkEngineAccess(*this, "destination", getDstAp())))
    return failure();
  return success();
}

Engine MemsetOp::getInstructionEngine() { return getEngine(); }

void MemsetOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({getDstAttr(), getDstAp(), true});
}
