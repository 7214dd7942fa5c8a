//===- CollectiveOps.cpp - Collective instructions of nisa ----------------===//
//
// Verifiers, engines and accesses of all_reduce, all_gather,
// reduce_scatter, all_to_all and send_recv: instructions run by a group of
// NeuronCores together over the DMA rings.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Nisa/NisaOps.h"

using namespace mlir;
using namespace mlir::nisa;

/// What every collective shares: a DMA queue, a group of at least two
/// cores, and operands that are single contiguous runs of HBM tensors.
template <typename OpTy> static LogicalResult verifyCollective(OpTy op) {
  int64_t queue = op.getQueueAttr().getInt();
  if (queue < 0 || queue >= kMaxQueues)
    return op.emitOpError("queue ") << queue << " is not in 0.." << kMaxQueues - 1;
  if (op.getGroup() < 2)
    return op.emitOpError("group must be at least 2 cores, got ") << op.getGroup();
  for (auto [role, ap] : {std::pair{"destination", op.getDstAp()}, {"source", op.getSrcAp()}})
    if (ap.isTile() || ap.getSizes().size() != 1 || ap.getStrides()[0] != 1)
      return op.emitOpError(role) << " must be one contiguous run of an HBM tensor";
  return success();
}

/// Every collective writes its destination and reads its source.
template <typename OpTy> static void srcDstAccesses(OpTy op, SmallVectorImpl<MemoryAccess> &out) {
  out.push_back({op.getDstAttr(), op.getDstAp(), true});
  out.push_back({op.getSrcAttr(), op.getSrcAp(), false});
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyCollective(*this)))
    return failure();
  if (getDstAp().getTotalElements() != getSrcAp().getTotalElements())
    return emitOpError("reduces ") << getSrcAp().getTotalElements() << " source elements into "
                                   << getDstAp().getTotalElements() << " destination elements";
  return success();
}

Engine AllReduceOp::getInstructionEngine() { return Engine::dma; }

void AllReduceOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) { srcDstAccesses(*this, out); }

LogicalResult AllGatherOp::verify() {
  if (failed(verifyCollective(*this)))
    return failure();
  int64_t src = getSrcAp().getTotalElements();
  if (getDstAp().getTotalElements() != getGroup() * src)
    return emitOpError("gathers ") << src << " elements from each of " << getGroup()
                                   << " cores into " << getDstAp().getTotalElements();
  if (getOuter() < 1 || src % getOuter())
    return emitOpError("outer ") << getOuter() << " does not divide the part's " << src
                                 << " elements";
  return success();
}

Engine AllGatherOp::getInstructionEngine() { return Engine::dma; }

void AllGatherOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) { srcDstAccesses(*this, out); }

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyCollective(*this)))
    return failure();
  int64_t dst = getDstAp().getTotalElements();
  if (getSrcAp().getTotalElements() != getGroup() * dst)
    return emitOpError("scatters ") << getSrcAp().getTotalElements() << " elements over "
                                    << getGroup() << " cores into " << dst << " each";
  if (getOuter() < 1 || dst % getOuter())
    return emitOpError("outer ") << getOuter() << " does not divide the part's " << dst
                                 << " elements";
  return success();
}

Engine ReduceScatterOp::getInstructionEngine() { return Engine::dma; }

void ReduceScatterOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) { srcDstAccesses(*this, out); }

LogicalResult AllToAllOp::verify() {
  if (failed(verifyCollective(*this)))
    return failure();
  int64_t n = getSrcAp().getTotalElements();
  if (getDstAp().getTotalElements() != n)
    return emitOpError("exchanges ") << n << " source elements into "
                                     << getDstAp().getTotalElements() << " destination elements";
  if (n % getGroup())
    return emitOpError("cannot split ") << n << " elements into " << getGroup() << " parts";
  int64_t part = n / getGroup();
  for (auto [what, inner] : {std::pair{"split", getSrcInner()}, {"concat", getDstInner()}})
    if (inner < 1 || part % inner)
      return emitOpError(what) << " " << inner << " does not divide the part's " << part
                               << " elements";
  return success();
}

Engine AllToAllOp::getInstructionEngine() { return Engine::dma; }

void AllToAllOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) { srcDstAccesses(*this, out); }

LogicalResult SendRecvOp::verify() {
  if (failed(verifyCollective(*this)))
    return failure();
  if (getDstAp().getTotalElements() != getSrcAp().getTotalElements())
    return emitOpError("sends ") << getSrcAp().getTotalElements() << " elements into "
                                 << getDstAp().getTotalElements();
  int64_t shift = getShiftAttr().getInt(), group = getGroupAttr().getInt();
  if (shift == 0 || shift <= -group || shift >= group)
    return emitOpError("shift ") << shift << " is not in " << 1 - group << ".." << group - 1
                                 << " without 0";
  if (getCyclic() != 0 && getCyclic() != 1)
    return emitOpError("cyclic must be 0 or 1, got ") << getCyclic();
  return success();
}

Engine SendRecvOp::getInstructionEngine() { return Engine::dma; }

void SendRecvOp::getAccesses(SmallVectorImpl<MemoryAccess> &out) { srcDstAccesses(*this, out); }
