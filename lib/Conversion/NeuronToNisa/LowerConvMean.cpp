//===- LowerConvMean.cpp - A global average pool in a conv epilogue -------===//
//
// A conv-epilogue kernel whose epilogue ends in a mean over each image's
// pixels (ResNet's last block: conv3, residual add, ReLU, global average
// pool) cannot run that epilogue as a row kernel on the output tiles (it
// reduces them), and was split: the convolution stored its raw output, a
// second kernel read it back with the residual and reduced. When the output
// tiles hold whole images (a PSUM bank holds an image's pixels), the
// epilogue runs on the tiles as far as the value the mean reads, writes each
// image's value into a small ring in SBUF (stored too when the program reads
// it elsewhere), and a reduce over the free dim sums it into one column per
// image, scaled by 1 / pixels and stored: the feature map never goes to HBM
// for the pool. A narrowing cast and reshapes after the mean (a classifier's
// flatten under --auto-cast) are the scale's write and the store's view;
// other ops after it run as a row kernel of their own on the [N, F] means.
//
//===----------------------------------------------------------------------===//

#include "ConvLowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

/// heuristic: images in flight between the epilogue and the reduce, as
/// deep as a conv epilogue's ring (two serialized each image's residual
/// load, epilogue, reduce and store: ResNet-50's last block at 64², f32,
/// 20 us slower than its split).
static constexpr int kMeanRing = ConvLowering::kMaxEpilogueRing;

void ConvLowering::emitMean(const OutTile &t, int64_t fAbs, int64_t fsz, int a) {
  int64_t per = t.rows * t.cols; // whole images (lowerConvWithMean plans so)
  for (int64_t i = 0; i < t.nbc; ++i) {
    int s = mean->slot;
    mean->slot = (s + 1) % static_cast<int>(mean->values.size());
    FlatSymbolRefAttr value = mean->values[s];
    epilogue->emitEpilogueInto(kb, (t.n0 + i) * F + fAbs, fsz, 0, per, acc[a], i * per, value,
                               kb.tileAP(0, fsz, 0, per));
    kb.setSource(conv);
    Engine e = kb.pick(Opcode::TensorReduce, {Engine::vector, Engine::gpsimd}, fsz, per);
    kb.charge(e, kb.estimate(Opcode::TensorReduce, e, fsz, per));
    kb.emit<nisa::TensorReduceOp>(e, nisa::AluOp::add, mean->sums, kb.tileAP(0, fsz, s, 1), value,
                                  kb.tileAP(0, fsz, 0, per), DenseI64ArrayAttr(), UnitAttr());
    Engine se = kb.pick(Opcode::TensorScalar, {Engine::vector, Engine::gpsimd}, fsz, 1);
    kb.charge(se, kb.estimate(Opcode::TensorScalar, se, fsz, 1));
    auto col = kb.tileAP(0, fsz, s, 1);
    kb.emit<nisa::TensorScalarOp>(se, mean->means, col, mean->sums, col, nisa::AluOp::multiply,
                                  kb.builder().getF32FloatAttr(mean->scale), FlatSymbolRefAttr(),
                                  nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(),
                                  FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                  UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    // Channel f0 + p of image n at element n·F + f0 + p: one per partition.
    kb.dma(mean->out.sym, kb.hbmAP((t.n0 + i) * F + fAbs, {fsz, 1}, {1, 1}), mean->means, col,
           mean->type);
  }
}

std::optional<LogicalResult>
mlir::neuron::lowering::lowerConvWithMean(FunctionLowering &fl, Operation *anchor, ConvOp conv,
                                          ArrayRef<Operation *> epilogueOps,
                                          ArrayRef<std::pair<Value, Value>> outputs,
                                          StringRef kind) {
  auto type = conv.getResult().getType();
  int64_t rank = type.getRank();
  ReduceMeanOp red;
  for (Operation *op : epilogueOps)
    if (auto r = dyn_cast<ReduceMeanOp>(op)) {
      if (red)
        return std::nullopt;
      red = r;
    }
  if (!red || conv.getBias() || rank != 4)
    return std::nullopt;
  auto in = cast<RankedTensorType>(red.getInput().getType());
  if (in.getShape() != type.getShape() || !in.getElementType().isF32() ||
      red.getAxes().size() != 2 || red.getAxes()[0] != 2 || red.getAxes()[1] != 3)
    return std::nullopt;
  // The ops after the mean (reading it, or what reads it) and the ones
  // before; no other reduction among these.
  llvm::SmallPtrSet<Operation *, 8> after{red.getOperation()};
  SmallVector<Operation *> pre, post;
  for (Operation *op : epilogueOps) {
    if (op == red.getOperation())
      continue;
    bool late = llvm::any_of(op->getOperands(),
                             [&](Value v) { return after.contains(v.getDefiningOp()); });
    if (late) {
      after.insert(op);
      post.push_back(op);
    } else {
      if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op))
        return std::nullopt;
      pre.push_back(op);
    }
  }
  Value value = red.getInput();
  if (!llvm::is_contained(pre, value.getDefiningOp()))
    return std::nullopt;
  // A constant the ops after the mean read goes with them too.
  for (Operation *op : pre)
    if (isa<ConstantOp>(op) && llvm::any_of(op->getUsers(), [&](Operation *u) {
          return after.contains(u);
        }))
      post.insert(post.begin(), op);
  // The mean, then at most one float cast and reshapes (views), yielded:
  // stored as the kernel's result from the column, converted by the scale.
  Value tail = red.getResult();
  Type meanType = Builder(conv.getContext()).getF32Type();
  SmallVector<Operation *> chain;
  while (tail.hasOneUse()) {
    Operation *user = *tail.getUsers().begin();
    auto cast = dyn_cast<CastOp>(user);
    bool widthOk = cast && isa<FloatType>(getElementTypeOrSelf(cast.getType())) &&
                   meanType.isF32();
    if (!isa<ReshapeOp>(user) && !widthOk)
      break;
    if (cast)
      meanType = getElementTypeOrSelf(cast.getType());
    chain.push_back(user);
    tail = user->getResult(0);
  }
  bool direct = chain.size() == post.size() &&
                llvm::any_of(outputs, [&](auto o) { return o.first == tail; }) &&
                llvm::count_if(outputs, [&](auto o) {
                  return after.contains(o.first.getDefiningOp());
                }) == 1;
  if (direct)
    post.clear();
  else
    meanType = Builder(conv.getContext()).getF32Type();
  SmallVector<std::pair<Value, Value>> stored, later;
  std::optional<Value> meanOuter;
  for (auto [inner, outer] : outputs) {
    if (inner == (direct ? tail : red.getResult()))
      meanOuter = outer;
    else
      (after.contains(inner.getDefiningOp()) ? later : stored).push_back({inner, outer});
  }
  const neuronc::HardwareModel &hw = fl.pb.hw();
  RowKernelSpec spec;
  spec.ops.push_back(conv);
  spec.ops.append(pre.begin(), pre.end());
  spec.bufferOf = [&](Value v) { return fl.bufferOf(v); };
  spec.constantBuffer = [&](ConstantOp c) { return fl.constantBuffer(c); };
  spec.outputs.push_back({value, HbmBuffer{}});
  for (auto [inner, outer] : stored)
    spec.outputs.push_back({inner, fl.resultBuffer(outer)});
  spec.psum = conv.getResult();
  std::string why;
  std::optional<RowKernel> epilogue = RowKernel::plan(std::move(spec), hw, why);
  if (!epilogue)
    return std::nullopt;
  std::optional<KernelBuilder> kb;
  kb.emplace(fl.pb, kind, anchor);
  ConvLowering lowering(fl, *kb, conv, &*epilogue);
  int64_t bank = hw.psumBankFp32();
  int64_t pixels = type.getDimSize(2) * type.getDimSize(3);
  lowering.reserved = kMeanRing * std::min(bank, pixels) * 4 + 2 * kMeanRing * 4;
  if (!lowering.plan(why) || lowering.R != lowering.OH || lowering.ncw != lowering.OW ||
      lowering.convertIn || lowering.khPack > 1) {
    kb->kernel().erase();
    return std::nullopt;
  }
  ConvMean m;
  auto sb = nisa::MemorySpace::sbuf;
  int64_t parts = std::min(lowering.P, lowering.Fg);
  for (int i = 0; i < kMeanRing; ++i)
    m.values.push_back(kb->alloc(sb, parts, lowering.OH * lowering.OW, lowering.f32, "mv"));
  m.sums = kb->alloc(sb, parts, kMeanRing, lowering.f32, "msum");
  m.type = meanType;
  m.means = meanType.isF32() ? m.sums : kb->alloc(sb, parts, kMeanRing, meanType, "mean");
  m.out = meanOuter ? fl.resultBuffer(*meanOuter) : fl.resultBuffer(red.getResult());
  if (meanOuter)
    fl.setBuffer(red.getResult(), m.out);
  m.scale = 1.0f / static_cast<float>(lowering.OH * lowering.OW);
  m.storeBytes = static_cast<double>(lowering.N * lowering.F) * nisa::elementBytes(meanType);
  for (auto [inner, outer] : stored)
    m.storeBytes += static_cast<double>(
        cast<RankedTensorType>(inner.getType()).getNumElements() *
        std::max<int64_t>(1, cast<RankedTensorType>(inner.getType()).getElementTypeBitWidth() / 8));
  lowering.mean = &m;
  kb->setSource(conv);
  lowering.run();
  if (fl.remarks)
    anchor->emitRemark("lowered as one convolution kernel: ")
        << lowering.groups << " group(s) x " << lowering.ct << " channel tile(s) x "
        << lowering.T << " taps into output tiles of " << lowering.nb << " image(s) x "
        << lowering.R << " row(s) x " << lowering.ncw
        << " columns; the mean over each image's pixels taken on chip"
        << (post.empty() ? std::string() : ", the ops after it a kernel of their own")
        << "; stores on " << kb->storeQueues << " of " << hw.dmaEngines << " DMA queues";
  kb.reset();
  if (post.empty())
    return success();
  return lowerRowGroup(fl, anchor, post, later, kind);
}
