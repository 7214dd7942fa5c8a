//===- LowerCollective.cpp - Collectives onto the collective engines -----===//
//
// A tensor-parallel program's all-reduce is one nisa.all_reduce: every core
// of the group hands its partial sum (an HBM tensor) to the collective
// engines on one of its DMA queues and receives the sum in its result
// tensor; an all-gather is one nisa.all_gather, each core's part placed in
// every core's whole tensor. The instruction synchronizes the group itself (the simulator
// starts it when every core has reached it); inside one core it waits for
// the kernels writing its source like any DMA, so the core's other queues
// and engines keep working while the ring runs.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/Support/ByteSize.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace {

/// Refuses a group larger than the target's instance.
LogicalResult checkGroup(Operation *op, int64_t group, const neuronc::HardwareModel &hw) {
  if (group <= hw.instanceCores())
    return success();
  return op->emitError() << op->getName().stripDialect() << " over " << group
                         << " cores, but a " << hw.name << " instance has "
                         << hw.instanceCores() << " NeuronCores (" << hw.coresPerChip
                         << " per chip, " << hw.chipsPerInstance
                         << " chips): compile with a smaller --tp";
}

/// The remark both collectives give.
void collectiveRemark(FunctionLowering &fl, Operation *op, int64_t bytes, int64_t group, double ns) {
  const neuronc::HardwareModel &hw = fl.pb.hw();
  if (fl.remarks)
    op->emitRemark("lowered as one ")
        << op->getName().stripDialect() << " kernel: "
        << neuronc::formatByteSize(static_cast<double>(bytes)) << " per core over " << group
        << " cores ("
        << (group <= hw.coresPerChip ? "inside one chip, through its HBM" : "over NeuronLink")
        << "), ring estimate " << llvm::formatv("{0:F1}", ns / 1000.0) << " us";
}

} // namespace

LogicalResult mlir::neuron::lowering::lowerAllReduce(FunctionLowering &fl, AllReduceOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  Type element = type.getElementType();
  if (!element.isF32() && !element.isBF16())
    return op.emitError("cannot lower 'neuron.all_reduce' of ")
           << type << ": the collective engines sum f32 or bf16 (cast the partial sums first)";
  const neuronc::HardwareModel &hw = fl.pb.hw();
  int64_t group = op.getGroup();
  if (failed(checkGroup(op, group, hw)))
    return failure();
  HbmBuffer src = fl.bufferOf(op.getInput());
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  int64_t n = type.getNumElements();
  int64_t bytes = n * nisa::elementBytes(element);
  double ns = hw.allReduceNs(group, bytes);
  KernelBuilder kb(fl.pb, "all_reduce", op);
  int64_t queue = fl.pb.pickQueue(ns);
  kb.emit<nisa::AllReduceOp>(kb.builder().getI64IntegerAttr(queue), dst.sym,
                             kb.hbmAP(0, {n}, {1}), src.sym, kb.hbmAP(0, {n}, {1}),
                             kb.builder().getI64IntegerAttr(group), DenseI64ArrayAttr(),
                             UnitAttr());
  collectiveRemark(fl, op, bytes, group, ns);
  return success();
}

LogicalResult mlir::neuron::lowering::lowerAllGather(FunctionLowering &fl, AllGatherOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  const neuronc::HardwareModel &hw = fl.pb.hw();
  int64_t group = op.getGroup();
  if (failed(checkGroup(op, group, hw)))
    return failure();
  HbmBuffer src = fl.bufferOf(op.getInput());
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  int64_t n = in.getNumElements();
  int64_t outer = 1; // the dims before the gathered one: the parts interleave per block
  for (int64_t d = 0; d < static_cast<int64_t>(op.getDim()); ++d)
    outer *= in.getDimSize(d);
  int64_t bytes = group * n * nisa::elementBytes(in.getElementType());
  double ns = hw.allGatherNs(group, bytes);
  KernelBuilder kb(fl.pb, "all_gather", op);
  int64_t queue = fl.pb.pickQueue(ns);
  kb.emit<nisa::AllGatherOp>(kb.builder().getI64IntegerAttr(queue), dst.sym,
                             kb.hbmAP(0, {group * n}, {1}), src.sym, kb.hbmAP(0, {n}, {1}),
                             kb.builder().getI64IntegerAttr(group),
                             kb.builder().getI64IntegerAttr(outer), DenseI64ArrayAttr(),
                             UnitAttr());
  collectiveRemark(fl, op, bytes / group, group, ns);
  return success();
}

LogicalResult mlir::neuron::lowering::lowerReduceScatter(FunctionLowering &fl,
                                                         ReduceScatterOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  Type element = in.getElementType();
  if (!element.isF32() && !element.isBF16())
    return op.emitError("cannot lower 'neuron.reduce_scatter' of ")
           << in << ": the collective engines sum f32 or bf16 (cast the partial sums first)";
  const neuronc::HardwareModel &hw = fl.pb.hw();
  int64_t group = op.getGroup();
  if (failed(checkGroup(op, group, hw)))
    return failure();
  HbmBuffer src = fl.bufferOf(op.getInput());
  HbmBuffer dst = fl.resultBuffer(op.getResult());
  int64_t n = in.getNumElements();
  int64_t outer = 1; // the dims before the scattered one: each part is `outer` blocks
  for (int64_t d = 0; d < static_cast<int64_t>(op.getDim()); ++d)
    outer *= in.getDimSize(d);
  int64_t bytes = n * nisa::elementBytes(element);
  double ns = hw.reduceScatterNs(group, bytes);
  KernelBuilder kb(fl.pb, "reduce_scatter", op);
  int64_t queue = fl.pb.pickQueue(ns);
  kb.emit<nisa::ReduceScatterOp>(kb.builder().getI64IntegerAttr(queue), dst.sym,
                                 kb.hbmAP(0, {n / group}, {1}), src.sym, kb.hbmAP(0, {n}, {1}),
                                 kb.builder().getI64IntegerAttr(group),
                                 kb.builder().getI64IntegerAttr(outer), DenseI64ArrayAttr(),
                                 UnitAttr());
  collectiveRemark(fl, op, bytes, group, ns);
  return success();
}
