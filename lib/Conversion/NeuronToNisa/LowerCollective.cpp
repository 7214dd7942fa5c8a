//===- LowerCollective.cpp - Collectives onto the collective engines -----===//
//
// A tensor-parallel program's all-reduce is one nisa.all_reduce: every core
// of the group hands its partial sum (an HBM tensor) to the collective
// engines on one of its DMA queues and receives the sum in its result
// tensor (over a ring, or a tree for small messages, as the hardware table's
// model says is faster); an all-gather is one nisa.all_gather, each core's
// part placed in every core's whole tensor; an all-to-all and a send/recv
// move parts between the cores unchanged. The instruction synchronizes the group itself (the simulator
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

/// The remark every collective gives; `algorithm` is how the engines run it.
void collectiveRemark(FunctionLowering &fl, Operation *op, int64_t bytes, int64_t group, double ns,
                      StringRef algorithm) {
  const neuronc::HardwareModel &hw = fl.pb.hw();
  if (fl.remarks)
    op->emitRemark("lowered as one ")
        << op->getName().stripDialect() << " kernel: "
        << neuronc::formatByteSize(static_cast<double>(bytes)) << " per core over " << group
        << " cores ("
        << (group <= hw.coresPerChip ? "inside one chip, through its HBM" : "over NeuronLink")
        << "), " << algorithm << " estimate " << llvm::formatv("{0:F1}", ns / 1000.0) << " us";
}

/// Refuses partial sums the collective engines cannot add.
LogicalResult checkSummable(Operation *op, RankedTensorType type) {
  Type element = type.getElementType();
  if (element.isF32() || element.isBF16())
    return success();
  return op->emitError("cannot lower '")
         << op->getName() << "' of " << type
         << ": the collective engines sum f32 or bf16 (cast the partial sums first)";
}

/// The product of `type`'s dims before `dim`: the blocks a part is made of
/// when a collective splits or joins along `dim`.
int64_t blocksBefore(RankedTensorType type, int64_t dim) {
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= type.getDimSize(d);
  return outer;
}

/// What every collective's lowering shares: the group checked against the
/// instance, one kernel named after `op` holding one `NisaOp` that moves
/// `srcN` elements of the input into `dstN` of the result on the DMA queue
/// free first, with the instruction's `params` after the group (a gather's
/// or scatter's outer blocks; the all_to_all's split and concat runs; the
/// send_recv's shift and wrap), and the remark with `bytes` per core and the
/// estimate `ns` of `algorithm`.
template <typename NisaOp>
LogicalResult emitCollective(FunctionLowering &fl, Operation *op, Value input, Value result,
                             int64_t group, int64_t srcN, int64_t dstN,
                             ArrayRef<int64_t> params, int64_t bytes, double ns,
                             StringRef algorithm = "ring") {
  if (failed(checkGroup(op, group, fl.pb.hw())))
    return failure();
  HbmBuffer src = fl.bufferOf(input);
  HbmBuffer dst = fl.resultBuffer(result);
  KernelBuilder kb(fl.pb, op->getName().stripDialect(), op);
  OpBuilder &b = kb.builder();
  IntegerAttr queue = b.getI64IntegerAttr(fl.pb.pickQueue(ns));
  nisa::AccessPatternAttr dstAp = kb.hbmAP(0, {dstN}, {1}), srcAp = kb.hbmAP(0, {srcN}, {1});
  if constexpr (std::is_same_v<NisaOp, nisa::AllReduceOp>)
    kb.emit<NisaOp>(queue, dst.sym, dstAp, src.sym, srcAp, b.getI64IntegerAttr(group),
                    DenseI64ArrayAttr(), UnitAttr());
  else if constexpr (std::is_same_v<NisaOp, nisa::AllToAllOp> ||
                     std::is_same_v<NisaOp, nisa::SendRecvOp>)
    kb.emit<NisaOp>(queue, dst.sym, dstAp, src.sym, srcAp, b.getI64IntegerAttr(group),
                    b.getI64IntegerAttr(params[0]), b.getI64IntegerAttr(params[1]),
                    DenseI64ArrayAttr(), UnitAttr());
  else
    kb.emit<NisaOp>(queue, dst.sym, dstAp, src.sym, srcAp, b.getI64IntegerAttr(group),
                    b.getI64IntegerAttr(params[0]), DenseI64ArrayAttr(), UnitAttr());
  collectiveRemark(fl, op, bytes, group, ns, algorithm);
  return success();
}

} // namespace

LogicalResult mlir::neuron::lowering::lowerAllReduce(FunctionLowering &fl, AllReduceOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  if (failed(checkSummable(op, type)))
    return failure();
  int64_t n = type.getNumElements(), group = op.getGroup();
  int64_t bytes = n * nisa::elementBytes(type.getElementType());
  const neuronc::HardwareModel &hw = fl.pb.hw();
  return emitCollective<nisa::AllReduceOp>(fl, op, op.getInput(), op.getResult(), group, n, n,
                                           /*params=*/{}, bytes, hw.allReduceNs(group, bytes),
                                           hw.allReduceUsesTree(group, bytes) ? "tree" : "ring");
}

LogicalResult mlir::neuron::lowering::lowerAllGather(FunctionLowering &fl, AllGatherOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  int64_t n = in.getNumElements(), group = op.getGroup();
  int64_t bytes = n * nisa::elementBytes(in.getElementType());
  return emitCollective<nisa::AllGatherOp>(fl, op, op.getInput(), op.getResult(), group, n,
                                           group * n, {blocksBefore(in, op.getDim())}, bytes,
                                           fl.pb.hw().allGatherNs(group, group * bytes));
}

LogicalResult mlir::neuron::lowering::lowerReduceScatter(FunctionLowering &fl,
                                                         ReduceScatterOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  if (failed(checkSummable(op, in)))
    return failure();
  int64_t n = in.getNumElements(), group = op.getGroup();
  int64_t bytes = n * nisa::elementBytes(in.getElementType());
  return emitCollective<nisa::ReduceScatterOp>(fl, op, op.getInput(), op.getResult(), group, n,
                                               n / group, {blocksBefore(in, op.getDim())}, bytes,
                                               fl.pb.hw().reduceScatterNs(group, bytes));
}

LogicalResult mlir::neuron::lowering::lowerAllToAll(FunctionLowering &fl, AllToAllOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  int64_t n = in.getNumElements(), group = op.getGroup();
  int64_t bytes = n * nisa::elementBytes(in.getElementType());
  // A part is the input with the split dim divided by the group; the
  // source holds it in runs of its elements from the split dim on, the
  // destination in runs from the concat dim on.
  SmallVector<int64_t> part(in.getShape());
  part[op.getSplit()] /= group;
  auto runFrom = [&](int64_t dim) {
    int64_t run = 1;
    for (int64_t d = dim; d < static_cast<int64_t>(part.size()); ++d)
      run *= part[d];
    return run;
  };
  return emitCollective<nisa::AllToAllOp>(
      fl, op, op.getInput(), op.getResult(), group, n, n,
      {runFrom(op.getSplit()), runFrom(op.getConcat())}, bytes,
      fl.pb.hw().allToAllNs(group, bytes), "pairwise");
}

LogicalResult mlir::neuron::lowering::lowerSendRecv(FunctionLowering &fl, SendRecvOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  int64_t n = in.getNumElements(), group = op.getGroup();
  int64_t bytes = n * nisa::elementBytes(in.getElementType());
  return emitCollective<nisa::SendRecvOp>(
      fl, op, op.getInput(), op.getResult(), group, n, n,
      {op.getShiftAttr().getInt(), op.getCyclic() ? 1 : 0}, bytes,
      fl.pb.hw().sendRecvNs(group, bytes), "one-hop");
}
