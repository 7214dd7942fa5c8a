//===- LowerCollective.cpp - neuron.all_reduce onto the collective engines ===//
//
// A tensor-parallel program's all-reduce is one nisa.all_reduce: every core
// of the group hands its partial sum (an HBM tensor) to the collective
// engines on one of its DMA queues and receives the sum in its result
// tensor. The instruction synchronizes the group itself (the simulator
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

LogicalResult mlir::neuron::lowering::lowerAllReduce(FunctionLowering &fl, AllReduceOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  Type element = type.getElementType();
  if (!element.isF32() && !element.isBF16())
    return op.emitError("cannot lower 'neuron.all_reduce' of ")
           << type << ": the collective engines sum f32 or bf16 (cast the partial sums first)";
  const neuronc::HardwareModel &hw = fl.pb.hw();
  int64_t group = op.getGroup();
  if (group > hw.instanceCores())
    return op.emitError("all_reduce over ")
           << group << " cores, but a " << hw.name << " instance has " << hw.instanceCores()
           << " NeuronCores (" << hw.coresPerChip << " per chip, " << hw.chipsPerInstance
           << " chips): compile with a smaller --tp";
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
  if (fl.remarks)
    op.emitRemark("lowered as one all_reduce kernel: ")
        << neuronc::formatByteSize(static_cast<double>(bytes)) << " per core over " << group
        << " cores ("
        << (group <= hw.coresPerChip ? "inside one chip, through its HBM"
                                     : "over NeuronLink")
        << "), ring estimate " << llvm::formatv("{0:F1}", ns / 1000.0) << " us";
  return success();
}
