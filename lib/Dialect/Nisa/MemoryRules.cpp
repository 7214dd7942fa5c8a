//===- MemoryRules.cpp - Rules of nisa that need the memories -===//
//
// The program-wide verifier: every instruction's accesses resolved against
// the tiles and HBM tensors they name (bounds, partition ranges), then the
// rules that depend on memory spaces and element types (only DMA reaches
// HBM, only TensorE writes PSUM, accumulators in one PSUM bank, ...).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "neuronc/ISA/HardwareModel.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nisa;

//===----------------------------------------------------------------------===//
// Rules that need the memories: bounds, spaces, element types
//===----------------------------------------------------------------------===//

namespace {

/// What an access resolved to.
struct Resolved {
  MemorySpace space;
  Type elementType;
  Operation *decl;
};

/// Checks every access of `inst` against the memory it names, then the
/// rules that depend on memory spaces and element types.
LogicalResult verifyMemories(InstructionOpInterface inst, ProgramOp program, KernelOp kernel,
                             MemoryResolver &memories) {
  Operation *op = inst;
  const neuronc::HardwareModel *hw = neuronc::lookupHardwareModel(program.getTarget());
  SmallVector<MemoryAccess> accesses;
  inst.getAccesses(accesses);
  llvm::DenseMap<Attribute, Resolved> resolved;
  for (const MemoryAccess &a : accesses) {
    Operation *decl = memories.lookup(kernel, a.memory);
    if (!decl || !isa<AllocOp, HbmOp>(decl))
      return op->emitOpError("names ") << a.memory << ", which is neither a tile of this kernel "
                                                      "nor an HBM tensor of the program";
    auto [lo, hi] = a.ap.getExtent();
    if (auto tile = dyn_cast<AllocOp>(decl)) {
      if (!a.ap.isTile())
        return op->emitOpError("accesses tile ")
               << a.memory << " without a partition range (write [start:end, offset, ...])";
      if (a.ap.getPartStart() + a.ap.getPartCount() > tile.getPartitions())
        return op->emitOpError("accesses partitions ")
               << a.ap.getPartStart() << ":" << a.ap.getPartStart() + a.ap.getPartCount()
               << " of " << a.memory << ", which has " << tile.getPartitions();
      if (hi > tile.getElements())
        return op->emitOpError("accesses elements ")
               << lo << ".." << hi << " of " << a.memory << ", which has " << tile.getElements()
               << " per partition";
      resolved[a.memory] = {tile.getSpace(), tile.getElementType(), tile};
    } else {
      auto hbm = cast<HbmOp>(decl);
      if (a.ap.isTile())
        return op->emitOpError("gives HBM tensor ") << a.memory << " a partition range";
      if (hi > hbm.getNumElements())
        return op->emitOpError("accesses elements ")
               << lo << ".." << hi << " of " << a.memory << ", which has "
               << hbm.getNumElements();
      resolved[a.memory] = {MemorySpace::hbm, hbm.getElementType(), hbm};
    }
  }

  Engine engine = inst.getInstructionEngine();
  for (const MemoryAccess &a : accesses) {
    MemorySpace space = resolved[a.memory].space;
    if (engine != Engine::dma && space == MemorySpace::hbm)
      return op->emitOpError("accesses HBM tensor ") << a.memory << "; only DMA reaches HBM";
    if (engine == Engine::gpsimd && space == MemorySpace::psum)
      return op->emitOpError("accesses PSUM tile ") << a.memory
                                                   << "; GpSimdE cannot access PSUM";
    if (a.write && space == MemorySpace::psum && engine != Engine::tensor)
      return op->emitOpError("writes PSUM tile ")
             << a.memory << "; only TensorE writes PSUM (evacuate it to SBUF instead)";
    // (multiply_moving's accumulating read of its own PSUM tile aside)
    auto mm = dyn_cast<MultiplyMovingOp>(op);
    if (engine == Engine::tensor && !a.write && space != MemorySpace::sbuf &&
        !(mm && a.memory == mm.getDstAttr()))
      return op->emitOpError("reads ") << a.memory << " from "
                                       << stringifyMemorySpace(space) << "; TensorE reads SBUF";
    if (engine == Engine::tensor && a.write && space != MemorySpace::psum)
      return op->emitOpError("writes ") << a.memory << " in " << stringifyMemorySpace(space)
                                        << "; TensorE writes PSUM";
  }
  auto typeOf = [&](FlatSymbolRefAttr m) { return resolved[m].elementType; };
  auto spaceOf = [&](FlatSymbolRefAttr m) { return resolved[m].space; };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](DmaCopyOp dma) -> LogicalResult {
        MemorySpace from = spaceOf(dma.getSrcAttr()), to = spaceOf(dma.getDstAttr());
        bool ok = (from == MemorySpace::hbm && to != MemorySpace::psum) ||
                  (from == MemorySpace::sbuf && to != MemorySpace::psum) ||
                  (from == MemorySpace::psum && to == MemorySpace::sbuf);
        if (!ok)
          return dma.emitOpError("cannot copy ")
                 << stringifyMemorySpace(from) << " to " << stringifyMemorySpace(to)
                 << " (DMA copies HBM<->SBUF, SBUF->SBUF, PSUM->SBUF and HBM->HBM)";
        if (typeOf(dma.getSrcAttr()) != typeOf(dma.getDstAttr()))
          return dma.emitOpError("copies ")
                 << typeOf(dma.getSrcAttr()) << " into " << typeOf(dma.getDstAttr())
                 << "; DMA does not convert (use tensor_copy)";
        if (dma.getIndirect() && (!typeOf(dma.getIndirectAttr()).isInteger(32) ||
                                  spaceOf(dma.getIndirectAttr()) != MemorySpace::sbuf))
          return dma.emitOpError("indirect indices must be an i32 SBUF tile");
        return success();
      })
      .Case<AllReduceOp, ReduceScatterOp>([&](auto reduce) -> LogicalResult {
        if (spaceOf(reduce.getSrcAttr()) != MemorySpace::hbm ||
            spaceOf(reduce.getDstAttr()) != MemorySpace::hbm)
          return reduce.emitOpError("reduces HBM tensors only");
        Type t = typeOf(reduce.getSrcAttr());
        if (t != typeOf(reduce.getDstAttr()) || !(t.isF32() || t.isBF16()))
          return reduce.emitOpError("reduces f32 or bf16 into the same type, got ")
                 << t << " into " << typeOf(reduce.getDstAttr());
        return success();
      })
      .Case<AllGatherOp, AllToAllOp, SendRecvOp>([&](auto move) -> LogicalResult {
        if (spaceOf(move.getSrcAttr()) != MemorySpace::hbm ||
            spaceOf(move.getDstAttr()) != MemorySpace::hbm)
          return move.emitOpError("moves HBM tensors only");
        if (typeOf(move.getSrcAttr()) != typeOf(move.getDstAttr()))
          return move.emitOpError("moves ")
                 << typeOf(move.getSrcAttr()) << " into " << typeOf(move.getDstAttr());
        return success();
      })
      .Case([&](MultiplyMovingOp mm) -> LogicalResult {
        if (spaceOf(mm.getDstAttr()) != MemorySpace::psum || !typeOf(mm.getDstAttr()).isF32())
          return mm.emitOpError("accumulates into an f32 PSUM tile");
        if (!isa<FloatType>(typeOf(mm.getSrcAttr())))
          return mm.emitOpError("moving matrix must be f32, bf16 or f16");
        auto tile = cast<AllocOp>(resolved[mm.getDstAttr()].decl);
        if (hw) {
          int64_t bank = hw->psumBankBytes();
          auto [lo, hi] = mm.getDstAp().getExtent();
          int64_t base = tile.getOffset().value_or(0);
          if ((hi - lo) * 4 > bank ||
              (tile.getOffset() && (base + lo * 4) / bank != (base + hi * 4 - 1) / bank))
            return mm.emitOpError("accumulator must lie in one ")
                   << bank << "-byte PSUM bank, got bytes " << base + lo * 4 << ".."
                   << base + hi * 4;
        }
        return success();
      })
      .Case([&](LoadStationaryOp ls) -> LogicalResult {
        if (!isa<FloatType>(typeOf(ls.getSrcAttr())))
          return ls.emitOpError("stationary matrix must be f32, bf16 or f16");
        return success();
      })
      .Case([&](TransposeOp t) -> LogicalResult {
        if (t.getEngine() == Engine::vector && (spaceOf(t.getDstAttr()) != MemorySpace::sbuf ||
                                                spaceOf(t.getSrcAttr()) != MemorySpace::sbuf))
          return t.emitOpError("on VectorE transposes SBUF to SBUF");
        if (t.getEngine() == Engine::tensor && !typeOf(t.getDstAttr()).isF32() &&
            typeOf(t.getDstAttr()) != typeOf(t.getSrcAttr()))
          return t.emitOpError("on TensorE writes f32 or the source's type into PSUM");
        return success();
      })
      .Case([&](ActivationOp act) -> LogicalResult {
        if (!isa<FloatType>(typeOf(act.getDstAttr())) || !isa<FloatType>(typeOf(act.getSrcAttr())))
          return act.emitOpError("computes on float tiles");
        return success();
      })
      .Default([](Operation *) { return success(); });
}

} // namespace

/// Every instruction's memories, resolved with one table for the program
/// (a symbol lookup per instruction would be quadratic in program size).
LogicalResult ProgramOp::verifyRegions() {
  MemoryResolver memories(*this);
  for (KernelOp kernel : getBodyBlock().getOps<KernelOp>())
    for (Operation &op : kernel.getBodyBlock())
      if (auto inst = dyn_cast<InstructionOpInterface>(op))
        if (failed(verifyMemories(inst, *this, kernel, memories)))
          return failure();
  return success();
}
