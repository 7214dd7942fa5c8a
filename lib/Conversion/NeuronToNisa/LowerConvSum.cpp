//===- LowerConvSum.cpp - Two convolutions summed in PSUM -----------------===//
//
// A conv-sum kernel (neuron-fuse-conv-sums): `add(conv_a, conv_b)` and an
// epilogue on the sum. conv_a is lowered as a conv-epilogue kernel would
// be; conv_b (pointwise, unpadded, any stride) is its addend: per output
// tile it loads its own input block with conv_a's, and its matmuls
// accumulate into conv_a's PSUM tile after conv_a's, so the epilogue reads
// the sum and conv_b's output never reaches HBM. Its weights stay resident;
// conv_a plans its tiles in the SBUF conv_b's weights and blocks leave.
// When they do not fit together, conv_b runs as a kernel of its own and the
// add reads its output from HBM (the report says why).
//
//===----------------------------------------------------------------------===//

#include "ConvLowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

std::optional<ConvSum> mlir::neuron::lowering::findConvSum(ArrayRef<Operation *> ops) {
  for (Operation *op : ops)
    if (auto add = dyn_cast<AddOp>(op)) {
      auto lhs = add.getLhs().getDefiningOp<ConvOp>(), rhs = add.getRhs().getDefiningOp<ConvOp>();
      if (!lhs || !rhs || lhs == rhs)
        continue;
      auto pointwise = [](ConvOp c) {
        auto w = c.getWeight().getType();
        return w.getRank() == 4 && w.getDimSize(2) == 1 && w.getDimSize(3) == 1 &&
               llvm::all_of(c.getPadding(), [](int64_t p) { return p == 0; });
      };
      ConvSum sum{add, lhs, rhs};
      if (!pointwise(rhs) || (pointwise(lhs) && lhs.getInput().getType().getDimSize(1) <
                                                    rhs.getInput().getType().getDimSize(1)))
        std::swap(sum.main, sum.addend);
      if (!pointwise(sum.addend))
        sum.addend = {};
      return sum;
    }
  return std::nullopt;
}

LogicalResult mlir::neuron::lowering::lowerConvSum(FunctionLowering &fl, KernelOp k,
                                                   ArrayRef<Operation *> ops,
                                                   ArrayRef<std::pair<Value, Value>> outputs) {
  std::optional<ConvSum> found = findConvSum(ops);
  if (!found)
    return k.emitError("a conv-sum kernel without an add of its two convolutions");
  AddOp total = found->total;
  ConvOp a = found->main, b = found->addend ? found->addend : found->main;
  if (!found->addend)
    b = found->total.getLhs().getDefiningOp<ConvOp>() == a
            ? found->total.getRhs().getDefiningOp<ConvOp>()
            : found->total.getLhs().getDefiningOp<ConvOp>();
  SmallVector<Operation *> withTotal, epilogueOps;
  for (Operation *op : ops) {
    if (op == a.getOperation() || op == b.getOperation())
      continue;
    withTotal.push_back(op);
    if (op != total.getOperation())
      epilogueOps.push_back(op);
  }
  // The add's readers read the accumulator: conv_a's value stands for the
  // sum while the kernel is planned and emitted.
  SmallVector<OpOperand *> uses =
      llvm::map_to_vector(total->getUses(), [](OpOperand &u) { return &u; });
  SmallVector<std::pair<Value, Value>> fusedOutputs;
  for (auto [inner, outer] : outputs)
    fusedOutputs.push_back({inner == total.getResult() ? a.getResult() : inner, outer});
  std::optional<KernelBuilder> kb;
  auto separately = [&](const Twine &why) -> LogicalResult {
    for (OpOperand *u : uses)
      u->set(total.getResult());
    if (kb) {
      kb->kernel().erase();
      kb.reset();
    }
    recordSplit(k, "conv-sum", "the pointwise convolution is a kernel of its own: " + why);
    if (fl.remarks)
      k->emitRemark("the pointwise convolution is a kernel of its own: ") << why;
    if (failed(lowerConv(fl, k, b, {}, {{b.getResult(), b.getResult()}}, "conv")))
      return failure();
    return lowerConv(fl, k, a, withTotal, outputs, "conv-epilogue");
  };
  if (!found->addend)
    return separately("neither convolution is pointwise and unpadded");
  if (epilogueOps.empty())
    return separately("the kernel has no epilogue to store the sum");
  total.getResult().replaceAllUsesWith(a.getResult());
  const neuronc::HardwareModel &hw = fl.pb.hw();
  RowKernelSpec spec;
  spec.ops.push_back(a);
  spec.ops.append(epilogueOps.begin(), epilogueOps.end());
  spec.bufferOf = [&](Value v) { return fl.bufferOf(v); };
  spec.constantBuffer = [&](ConstantOp c) { return fl.constantBuffer(c); };
  for (auto [inner, outer] : fusedOutputs)
    spec.outputs.push_back({inner, fl.resultBuffer(outer)});
  spec.psum = a.getResult();
  std::string why;
  std::optional<RowKernel> epilogue = RowKernel::plan(std::move(spec), hw, why);
  if (!epilogue)
    return separately("the epilogue does not run on the output tiles (" + why + ")");
  kb.emplace(fl.pb, "conv-sum", k);
  ConvLowering main(fl, *kb, a, &*epilogue), added(fl, *kb, b, nullptr);
  if (!added.readShapes(why))
    return separately(why);
  main.reserved = added.summedBytes(std::max(hw.psumBankFp32(), a.getResult().getType().getShape().back()));
  if (!main.plan(why))
    return separately("the kernel's convolution does not fit next to it: " + why);
  if (main.groups != 1 || main.khPack > 1)
    return separately("the kernel's convolution is grouped or packs kernel rows");
  if (!added.planSummed(main, main.reserved, why))
    return separately(why);
  main.addend = &added;
  kb->setSource(a);
  main.run();
  if (fl.remarks)
    k->emitRemark("lowered as two convolutions summed in PSUM: ")
        << main.ct << " channel tile(s) x " << main.T << " taps, plus " << added.ct
        << " channel tile(s) of a pointwise convolution"
        << (added.sh * added.sw > 1 ? " with strides " + std::to_string(added.sh) + "x" +
                                          std::to_string(added.sw)
                                    : std::string())
        << ", into output tiles of " << main.nb << " image(s) x " << main.R << " row(s) x "
        << main.ncw << " columns"
        << (main.epilogueBuffers != 2
                ? ", " + std::to_string(main.epilogueBuffers) + " epilogue tiles in flight"
                : std::string())
        << "; stores on " << kb->storeQueues << " of " << hw.dmaEngines << " DMA queues";
  return success();
}
