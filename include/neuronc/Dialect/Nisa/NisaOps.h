//===- NisaOps.h - Ops of the nisa dialect ----------------------*- C++ -*-===//

#ifndef NEURONC_DIALECT_NISA_NISAOPS_H
#define NEURONC_DIALECT_NISA_NISAOPS_H

#include "neuronc/Dialect/Nisa/NisaDialect.h"
#include "neuronc/Support/Buckets.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Visitors.h"

#include "neuronc/Dialect/Nisa/NisaInterfaces.h.inc"

#define GET_OP_CLASSES
#include "neuronc/Dialect/Nisa/NisaOps.h.inc"

namespace mlir::nisa {

/// The tile or HBM tensor an instruction's operand names: the kernel's own
/// tiles first, then the program's HBM tensors. Null when neither has it.
Operation *lookupMemory(Operation *instruction, FlatSymbolRefAttr name);

/// Resolves memory symbols of one program quickly (the passes look up every
/// operand of every instruction).
class MemoryResolver {
public:
  explicit MemoryResolver(ProgramOp program);
  /// The alloc of `kernel`, else the carried tile or hbm tensor of the
  /// program named `name`.
  Operation *lookup(KernelOp kernel, FlatSymbolRefAttr name);
  /// Calls `f(inst, access, memory)` for every access of every instruction
  /// of `kernel`, in order, with the tile or HBM tensor it names (null when
  /// none); stops when `f` interrupts, and says so.
  WalkResult walkAccesses(
      KernelOp kernel,
      llvm::function_ref<WalkResult(InstructionOpInterface, const MemoryAccess &, Operation *)> f);

private:
  /// The program's own symbols: hbm tensors and carried tiles.
  llvm::DenseMap<StringAttr, Operation *> hbm;
  llvm::DenseMap<Operation *, llvm::DenseMap<StringAttr, AllocOp>> tiles;
};

} // namespace mlir::nisa

#endif // NEURONC_DIALECT_NISA_NISAOPS_H
