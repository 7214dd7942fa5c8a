//===- Lower.cpp - neuron-lower: neuron functions to nisa programs --------===//
//
// Walks each function in order and hands every op (or fused kernel) to the
// lowering of its kind; see the pass description in
// dialects/NeuronConversionPasses.td and docs/lowering.md.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RowKernel.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/AutoCast.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"
#include "neuronc/Support/ByteSize.h"
#include "neuronc/Support/Shape.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONLOWERPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

//===----------------------------------------------------------------------===//
// FunctionLowering
//===----------------------------------------------------------------------===//

SmallVector<int64_t> mlir::neuron::lowering::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

void mlir::neuron::lowering::recordSplit(Operation *kernel, StringRef kind, const Twine &why) {
  auto module = kernel->getParentOfType<ModuleOp>();
  if (!module)
    return;
  Builder b(kernel->getContext());
  // Named as the fusion pass named the kernel it formed.
  NamedAttribute fields[] = {b.getNamedAttr("kernel", b.getStringAttr("kernel (" + kind + ")")),
                             b.getNamedAttr("reason", b.getStringAttr(why.str())),
                             b.getNamedAttr("loc", kernel->getLoc())};
  SmallVector<Attribute> all;
  if (auto existing = module->getAttrOfType<ArrayAttr>(kLoweringSplitsAttrName))
    all.assign(existing.begin(), existing.end());
  all.push_back(b.getDictionaryAttr(fields));
  module->setAttr(kLoweringSplitsAttrName, b.getArrayAttr(all));
}

HbmBuffer FunctionLowering::constantBuffer(ConstantOp c) {
  auto it = constants.find(c.getValue());
  if (it != constants.end())
    return it->second;
  HbmBuffer b = pb.declare(nisa::HbmKind::constant, c.getType(), c.getLoc(), std::nullopt, {},
                           c.getValue());
  constants[c.getValue()] = b;
  return b;
}

HbmBuffer FunctionLowering::bufferOf(Value v) {
  auto it = buffers.find(v);
  if (it != buffers.end())
    return it->second;
  if (auto c = v.getDefiningOp<ConstantOp>()) {
    HbmBuffer b = constantBuffer(c);
    buffers[v] = b;
    return b;
  }
  llvm_unreachable("value without a buffer: lowered out of order");
}

bool FunctionLowering::endsProgram(Operation *op) {
  while (op->getParentOp() && !isa<func::FuncOp>(op->getParentOp()))
    op = op->getParentOp();
  if (!op->getParentOp())
    return false;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    if (isa<ReshapeOp, SliceOp, func::ReturnOp>(next))
      continue;
    auto t = dyn_cast<TransposeOp>(next);
    int64_t rank = t ? static_cast<int64_t>(t.getPerm().size()) : 0;
    if (rank > 0 && t.getPerm().back() == rank - 1)
      continue;
    return false;
  }
  return true;
}

HbmBuffer FunctionLowering::resultBuffer(Value v) {
  auto it = outputDestinations.find(v);
  if (it != outputDestinations.end())
    return buffers[v] = it->second;
  HbmBuffer b =
      pb.declare(nisa::HbmKind::internal, cast<RankedTensorType>(v.getType()), v.getLoc());
  // A checked run numbered the ops: the tensor says whose value it holds.
  auto result = dyn_cast<OpResult>(v);
  if (auto id = result ? result.getOwner()->getAttrOfType<IntegerAttr>(nisa::kValueIdAttrName)
                       : IntegerAttr())
    if (Operation *hbm = SymbolTable::lookupSymbolIn(pb.program(), b.sym.getAttr()))
      hbm->setAttr(nisa::kValueIdAttrName,
                   DenseI64ArrayAttr::get(v.getContext(),
                                          {id.getInt(), result.getResultNumber()}));
  return buffers[v] = b;
}

LogicalResult mlir::neuron::lowering::materializeFoldedCast(FunctionLowering &fl, Value v) {
  auto narrow = [](Value x) { return cast<RankedTensorType>(x.getType()).getElementType(); };
  if (!fl.hasBuffer(v) || !fl.bufferOf(v).elementType || fl.bufferOf(v).elementType == narrow(v))
    return success();
  // Up through a fused kernel's argument and reshapes to the cast.
  SmallVector<Value> chain{v};
  Value at = v;
  for (;;) {
    if (auto arg = dyn_cast<BlockArgument>(at)) {
      auto k = dyn_cast<KernelOp>(arg.getOwner()->getParentOp());
      if (!k)
        break;
      at = k.getInputs()[arg.getArgNumber()];
    } else if (auto r = at.getDefiningOp<ReshapeOp>()) {
      at = r.getInput();
    } else {
      break;
    }
    chain.push_back(at);
  }
  auto c = at.getDefiningOp<CastOp>();
  if (!c)
    return emitError(v.getLoc(), "internal error: a value reads a wider buffer than its type "
                                 "and no folded cast computes it");
  fl.forget(c);
  if (failed(lowerRowGroup(fl, c, {c}, {{c.getResult(), c.getResult()}}, "cast")))
    return failure();
  // The values between the cast and `v` view the narrow copy.
  for (Value x : llvm::drop_begin(llvm::reverse(chain))) {
    HbmBuffer b = fl.bufferOf(at);
    b.shape = SmallVector<int64_t>(cast<RankedTensorType>(x.getType()).getShape());
    fl.setBuffer(x, b);
    at = x;
  }
  return success();
}

void mlir::neuron::lowering::copyBuffer(FunctionLowering &fl, Operation *source,
                                        const HbmBuffer &dst, const HbmBuffer &src) {
  KernelBuilder kb(fl.pb, "copy", source);
  int64_t n = 1;
  for (int64_t s : src.shape)
    n *= s;
  StridedSpace space{{n}, {{1, 1}}};
  kb.copyHbm(dst.sym, src.sym, src.elementType, space, 0, 0);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

namespace {

bool isRowOp(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, ShiftRightLogicalOp, CompareOp, SelectOp, NegOp, AbsOp,
             ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp, TanhOp, SigmoidOp, ErfOp,
             SinOp, CosOp, GeluOp, SiluOp, ReluOp, RoundOp, FloorOp, CeilOp, CastOp, ReduceSumOp,
             ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, RmsNormOp, LayerNormOp,
             SoftmaxOp, BroadcastToOp>(op);
}

/// A float narrowing cast (--auto-cast's f32 -> bf16 of a weight or an
/// activation) whose only users convert on chip (onlyConvertingUses) is not
/// a kernel of its own: they read the wide source, so the narrowed copy
/// never round-trips HBM.
bool castFoldsIntoConsumers(CastOp c) {
  return isNarrowingFloatCast(c) && onlyConvertingUses(c.getResult());
}

/// A short kind for a single op's kernel: "mul", "rmsnorm", ...
std::string kindOf(Operation *op) { return op->getName().stripDialect().str(); }

/// One row op as its own kernel (a reduction across partitions when that
/// layout suits it).
LogicalResult lowerOne(FunctionLowering &fl, Operation *op) {
  FailureOr<bool> done = lowerPartitionReduction(fl, op);
  if (failed(done))
    return failure();
  if (*done)
    return success();
  return lowerRowGroup(fl, op, {op}, {{op->getResult(0), op->getResult(0)}}, kindOf(op));
}

/// Lowers the body of a fused neuron.kernel.
LogicalResult lowerKernelOp(FunctionLowering &fl, KernelOp k) {
  Block &body = k.getBody().front();
  for (auto [arg, in] : llvm::zip(body.getArguments(), k.getInputs()))
    fl.setBuffer(arg, fl.bufferOf(in));
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<std::pair<Value, Value>> outputs;
  for (auto [inner, outer] : llvm::zip(yield.getValues(), k.getResults()))
    outputs.push_back({inner, outer});
  // A matmul or convolution hero: the rest is its epilogue.
  SmallVector<Operation *> ops, epilogue;
  Operation *hero = nullptr;
  for (Operation &op : body.without_terminator()) {
    ops.push_back(&op);
    if (isa<MatmulOp, ConvOp>(op))
      hero = &op;
  }
  if (k.getKind() == "conv-chain")
    return lowerConvChain(fl, k, ops, outputs);
  if (k.getKind() == "conv-sum")
    return lowerConvSum(fl, k, ops, outputs);
  for (Operation *op : ops)
    if (op != hero)
      epilogue.push_back(op);
  if (auto mm = dyn_cast_or_null<MatmulOp>(hero))
    return lowerMatmul(fl, k, mm, epilogue, outputs, k.getKind());
  if (auto conv = dyn_cast_or_null<ConvOp>(hero))
    return lowerConv(fl, k, conv, epilogue, outputs, k.getKind());
  return lowerRowGroup(fl, k, ops, outputs, k.getKind());
}

/// Refuses a function with a tensor that cannot fit one core's HBM, before
/// anything is allocated for it.
LogicalResult checkFitsHbm(func::FuncOp fn, const neuronc::HardwareModel &hw) {
  int64_t limit = hw.hbmBytesPerCore();
  auto check = [&](Type t, Operation *at, Location loc) -> LogicalResult {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return success();
    int64_t n = neuronc::numElements(rt.getShape());
    int64_t width = std::max<int64_t>(1, rt.getElementTypeBitWidth() / 8);
    double bytes = static_cast<double>(n) * static_cast<double>(width); // no overflow
    if (bytes <= static_cast<double>(limit))
      return success();
    return emitError(loc) << "tensor " << t << " needs "
                          << neuronc::formatByteSize(bytes)
                          << " but a " << hw.name << " NeuronCore has "
                          << neuronc::formatByteSize(static_cast<double>(limit))
                          << " of HBM; split the computation (or bucket the dynamic dim smaller)";
  };
  for (BlockArgument a : fn.getArguments())
    if (failed(check(a.getType(), fn, a.getLoc())))
      return failure();
  WalkResult w = fn.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (failed(check(t, op, op->getLoc())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

/// Lowers one function into `program`.
LogicalResult lowerFunction(func::FuncOp fn, nisa::ProgramOp program,
                            const neuronc::HardwareModel &hw, bool remarks) {
  if (failed(checkFitsHbm(fn, hw)))
    return failure();
  ProgramBuilder pb(program, hw);
  FunctionLowering fl(pb, remarks);
  for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return fn.emitError("argument #") << i << " has type " << arg.getType()
                                        << "; the device needs statically shaped tensors "
                                           "(bucket dynamic dims first)";
    bool hostTransposed = static_cast<bool>(fn.getArgAttr(i, neuron::kHostTransposedAttrName));
    HbmBuffer in = pb.declare(nisa::HbmKind::input, type, arg.getLoc(), i,
                              ("in" + Twine(i)).str(), ElementsAttr(), hostTransposed);
    // A tensor-parallel program's input that is one core's part of the
    // caller's tensor.
    if (auto shard = fn.getArgAttrOfType<DenseI64ArrayAttr>(i, neuron::kShardAttrName))
      cast<nisa::HbmOp>(SymbolTable::lookupSymbolIn(program, in.sym.getAttr()))
          .setShardAttr(shard);
    fl.setBuffer(arg, in);
  }
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  SmallVector<HbmBuffer> results;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return fn.emitError("result #") << i << " has type " << v.getType()
                                      << "; the device needs statically shaped tensors";
    HbmBuffer out = pb.declare(nisa::HbmKind::output, type, ret.getLoc(), i,
                               ("out" + Twine(i)).str());
    // An output each core returns its part of (a layer output left split
    // along the sequence); the runtime joins the parts.
    if (auto shard = fn.getResultAttrOfType<DenseI64ArrayAttr>(i, neuron::kShardAttrName))
      cast<nisa::HbmOp>(SymbolTable::lookupSymbolIn(program, out.sym.getAttr()))
          .setShardAttr(shard);
    results.push_back(out);
    // The op computing a returned value writes straight into the output, also
    // through reshapes (a relabelling of the same bytes).
    Value root = v;
    while (auto r = root.getDefiningOp<ReshapeOp>())
      root = r.getInput();
    if (isa<BlockArgument>(root) || root.getDefiningOp<ConstantOp>() ||
        fl.outputDestinations.count(root))
      continue;
    HbmBuffer dst = out;
    dst.shape = SmallVector<int64_t>(cast<RankedTensorType>(root.getType()).getShape());
    fl.outputDestinations[root] = dst;
  }

  for (Type t : llvm::concat<const Type>(fn.getArgumentTypes(), fn.getResultTypes()))
    if (auto rt = dyn_cast<RankedTensorType>(t); rt && rt.hasStaticShape() &&
                                                  rt.getNumElements() == 0)
      return fn.emitError("takes or returns ")
             << t << ", which has no elements; the device has no empty tensors";
  for (Operation &op : fn.getBody().front().without_terminator()) {
    LogicalResult ok = success();
    for (Type t : llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
      if (auto rt = dyn_cast<RankedTensorType>(t); !rt || !rt.hasStaticShape())
        return op.emitError("has type ")
               << t << "; the device needs statically shaped tensors (bucket dynamic dims "
                       "first)";
      else if (rt.getNumElements() == 0)
        return op.emitError("has type ")
               << t << " with no elements; the device has no empty tensors (remove the empty "
                       "slice, split or reshape from the model)";
    if (isa<ConstantOp>(op))
      continue;
    if (auto r = dyn_cast<ReshapeOp>(op)) {
      HbmBuffer b = fl.bufferOf(r.getInput());
      b.shape = SmallVector<int64_t>(r.getType().getShape());
      fl.setBuffer(r.getResult(), b);
      continue;
    }
    // The cast's result is its (wider) source; its consumers convert.
    if (auto c = dyn_cast<CastOp>(op); c && castFoldsIntoConsumers(c)) {
      fl.setBuffer(c.getResult(), fl.bufferOf(c.getInput()));
      continue;
    }
    if (auto k = dyn_cast<KernelOp>(op))
      ok = lowerKernelOp(fl, k);
    else if (auto c = dyn_cast<CustomKernelOp>(op))
      ok = lowerCustomKernel(fl, c);
    else if (auto mm = dyn_cast<MatmulOp>(op))
      ok = lowerMatmul(fl, mm, mm, {}, {{mm.getResult(), mm.getResult()}}, "matmul");
    else if (auto conv = dyn_cast<ConvOp>(op))
      ok = lowerConv(fl, conv, conv, {}, {{conv.getResult(), conv.getResult()}}, "conv");
    else if (auto pool = dyn_cast<PoolOp>(op))
      ok = lowerPool(fl, pool);
    else if (auto at = dyn_cast<AttentionOp>(op))
      ok = lowerAttention(fl, at);
    else if (auto ar = dyn_cast<AllReduceOp>(op))
      ok = lowerAllReduce(fl, ar);
    else if (auto ag = dyn_cast<AllGatherOp>(op))
      ok = lowerAllGather(fl, ag);
    else if (auto rs = dyn_cast<ReduceScatterOp>(op))
      ok = lowerReduceScatter(fl, rs);
    else if (auto a2a = dyn_cast<AllToAllOp>(op))
      ok = lowerAllToAll(fl, a2a);
    else if (auto sr = dyn_cast<SendRecvOp>(op))
      ok = lowerSendRecv(fl, sr);
    else if (isRowOp(&op))
      ok = lowerOne(fl, &op);
    else
      ok = lowerDataMovement(fl, &op);
    if (failed(ok))
      return failure();
  }
  // Results not written into their output by the op computing them (an
  // argument, a constant, a value returned twice) are copied there.
  for (auto [v, out] : llvm::zip(ret.getOperands(), results)) {
    HbmBuffer have = fl.bufferOf(v);
    if (have.sym != out.sym)
      copyBuffer(fl, ret, out, have);
  }
  return success();
}

struct LowerPass : public mlir::neuron::impl::NeuronLowerPassBase<LowerPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const neuronc::HardwareModel *hw = neuronc::lookupHardwareModel(target);
    if (!hw) {
      module.emitError("unknown target '")
          << target << "'; known targets: " << neuronc::hardwareModelNames();
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> fns;
    // A bucketed function's dispatcher is not a program: it becomes a
    // nisa.entry over its buckets' programs below.
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && fn.getOps<DispatchOp>().empty())
        fns.push_back(fn);
    // Programs are created in order (so the output does not depend on the
    // thread count), then the functions are lowered in parallel, each into
    // its own program (buckets of one entry, independent functions).
    SmallVector<nisa::ProgramOp> programs;
    for (func::FuncOp fn : fns) {
      OpBuilder b(fn);
      programs.push_back(nisa::ProgramOp::create(b, fn.getLoc(), fn.getSymName(), hw->name));
      // The function's symbol moves to the program.
      fn.setSymName((fn.getSymName() + ".lowered").str());
    }
    MLIRContext *ctx = &getContext();
    ParallelDiagnosticHandler diagnostics(ctx);
    std::atomic<bool> ok{true};
    parallelFor(ctx, 0, fns.size(), [&](size_t i) {
      diagnostics.setOrderIDForThread(i);
      if (failed(lowerFunction(fns[i], programs[i], *hw, remarks)))
        ok = false;
      else if (std::optional<int64_t> k = faultInjectionKernel())
        injectFault(programs[i], *k);
      diagnostics.eraseOrderIDForThread();
    });
    if (!ok) {
      for (nisa::ProgramOp p : programs)
        p.erase();
      return signalPassFailure();
    }
    // Hand-written kernels the functions called are now part of their
    // programs: they are not programs of their own.
    llvm::SetVector<StringAttr> called;
    for (func::FuncOp fn : fns)
      fn.walk([&](CustomKernelOp c) { called.insert(c.getCalleeAttr().getAttr()); });
    for (func::FuncOp fn : fns)
      fn.erase();
    for (StringAttr name : called)
      if (Operation *p = SymbolTable::lookupSymbolIn(module, name))
        p->erase();
    // A dispatcher becomes the engine-level entry over its bucket programs:
    // after the lowering no graph op remains.
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      auto dispatches = llvm::to_vector(fn.getOps<DispatchOp>());
      if (dispatches.empty())
        continue;
      DispatchOp d = dispatches.front();
      OpBuilder b(fn);
      nisa::EntryOp::create(
          b, d.getLoc(), fn.getSymName(), d.getCalleesAttr(), d.getSymbolsAttr(),
          d.getInputDimsAttr(), d.getOutputDimsAttr(), d.getMasksAttr(), d.getBucketSizesAttr(),
          d.getWorkCoefficientsAttr(), d.getWorkExponentsAttr());
      fn.erase();
    }
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Row groups
//===----------------------------------------------------------------------===//

/// SBUF bytes per partition of every tile `kernel` allocates, each padded
/// to the next tile's alignment: an upper bound of what memory allocation,
/// which reuses dead tiles, will need.
static int64_t sbufBytesPerPartition(nisa::KernelOp kernel) {
  int64_t bytes = 0;
  for (auto alloc : kernel.getBodyBlock().getOps<nisa::AllocOp>())
    if (alloc.getSpace() == nisa::MemorySpace::sbuf)
      bytes += alloc.getAlignedBytesPerPartition();
  return bytes;
}

LogicalResult mlir::neuron::lowering::lowerRowGroup(FunctionLowering &fl, Operation *anchor,
                                                    ArrayRef<Operation *> ops,
                                                    ArrayRef<std::pair<Value, Value>> outputs,
                                                    StringRef kind) {
  llvm::SmallPtrSet<Operation *, 16> inGroup(ops.begin(), ops.end());
  RowKernelSpec spec;
  spec.ops.assign(ops.begin(), ops.end());
  spec.bufferOf = [&](Value v) { return fl.bufferOf(v); };
  spec.constantBuffer = [&](ConstantOp c) { return fl.constantBuffer(c); };
  SmallVector<std::pair<Value, Value>> copies;
  for (auto [inner, outer] : outputs) {
    Operation *def = inner.getDefiningOp();
    if (!def || !inGroup.contains(def) || isa<ConstantOp>(def)) {
      copies.push_back({inner, outer});
      continue;
    }
    spec.outputs.push_back({inner, fl.resultBuffer(outer)});
  }
  std::string why;
  std::optional<RowKernel> plan = RowKernel::plan(spec, fl.pb.hw(), why);
  if (plan) {
    // The plan's SBUF estimate counts every node as a tile; a faster layout
    // is kept when the tiles it really allocates fit.
    bool emitted = false;
    for (RowKernel::Layout layout : plan->fasterLayouts()) {
      ProgramBuilder::Snapshot before = fl.pb.snapshot();
      std::optional<RowKernel> trial = RowKernel::plan(spec, fl.pb.hw(), why);
      trial->setLayout(layout);
      KernelBuilder kb(fl.pb, kind, anchor);
      trial->emit(kb);
      if (sbufBytesPerPartition(kb.kernel()) <= fl.pb.hw().sbufPartitionBytes) {
        if (fl.remarks)
          anchor->emitRemark("lowered as one ") << kind << " kernel: " << trial->describe();
        emitted = true;
        break;
      }
      kb.kernel()->erase();
      fl.pb.restore(before);
    }
    if (!emitted) {
      KernelBuilder kb(fl.pb, kind, anchor);
      plan->emit(kb);
      if (fl.remarks)
        anchor->emitRemark("lowered as one ") << kind << " kernel: " << plan->describe();
    }
  } else {
    if (ops.size() == 1)
      return anchor->emitError("cannot lower '")
             << anchor->getName() << "': " << why;
    // No common iteration domain: one kernel per op, through HBM.
    if (fl.remarks)
      anchor->emitRemark("lowered as ") << ops.size() << " kernels instead of one: " << why;
    DenseMap<Value, Value> outerOf;
    for (auto [inner, outer] : outputs)
      outerOf[inner] = outer;
    // A kernel result that is a reshape of values only it uses: the op
    // before the reshapes writes the destination itself.
    for (auto [inner, outer] : outputs) {
      auto r = inner.getDefiningOp<ReshapeOp>();
      if (!r || !inGroup.contains(r))
        continue;
      Value v = r.getInput();
      while (auto prev = v.getDefiningOp<ReshapeOp>()) {
        if (!inGroup.contains(prev) || !v.hasOneUse() || outerOf.count(v))
          break;
        v = prev.getInput();
      }
      Operation *def = v.getDefiningOp();
      if (!def || !inGroup.contains(def) || isa<ConstantOp, ReshapeOp>(def) || !v.hasOneUse() ||
          outerOf.count(v) || fl.outputDestinations.count(v))
        continue;
      HbmBuffer dst = fl.resultBuffer(outer);
      fl.outputDestinations[v] = {dst.sym, SmallVector<int64_t>(
                                               cast<RankedTensorType>(v.getType()).getShape()),
                                  dst.elementType};
    }
    for (Operation *op : ops) {
      if (isa<ConstantOp>(op))
        continue;
      if (auto r = dyn_cast<ReshapeOp>(op)) {
        // A reshape moves no data: its result is its input's buffer, and a
        // kernel result must still reach the kernel's destination.
        HbmBuffer b = fl.bufferOf(r.getInput());
        b.shape = SmallVector<int64_t>(r.getType().getShape());
        if (auto it = outerOf.find(r.getResult()); it != outerOf.end()) {
          HbmBuffer dst = fl.resultBuffer(it->second);
          if (dst.sym != b.sym)
            copyBuffer(fl, op, dst, b);
          b = dst;
        }
        fl.setBuffer(r.getResult(), b);
        continue;
      }
      SmallVector<std::pair<Value, Value>> outs;
      for (Value res : op->getResults()) {
        outs.push_back({res, res});
        // A kernel result is written by its op into the kernel's destination.
        if (auto it = outerOf.find(res); it != outerOf.end())
          fl.outputDestinations[res] = fl.resultBuffer(it->second);
      }
      LogicalResult ok = success();
      if (auto mm = dyn_cast<MatmulOp>(op))
        ok = lowerMatmul(fl, op, mm, {}, outs, "matmul");
      else if (isRowOp(op))
        ok = lowerOne(fl, op);
      else
        ok = lowerDataMovement(fl, op);
      if (failed(ok))
        return failure();
    }
  }
  for (auto [inner, outer] : copies) {
    if (fl.hasBuffer(outer) && fl.bufferOf(outer).sym == fl.bufferOf(inner).sym)
      continue; // already written there by the fallback
    HbmBuffer dst = fl.resultBuffer(outer);
    copyBuffer(fl, anchor, dst, fl.bufferOf(inner));
  }
  return success();
}
