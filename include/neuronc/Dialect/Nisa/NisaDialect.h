//===- NisaDialect.h - The engine-level nisa dialect ------------*- C++ -*-===//
//
// The dialect, its enums (engines, activation functions and ALU operations
// are generated from the instruction set's description, include/neuronc/ISA/
// Isa.def; memory spaces and HBM kinds are the dialect's own), the
// access-pattern attribute, and stream helpers.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_NISA_NISADIALECT_H
#define NEURONC_DIALECT_NISA_NISADIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "neuronc/ISA/Isa.h"

#include <cstdint>
#include <optional>
#include <string>

#include "neuronc/Dialect/Nisa/NisaDialect.h.inc"
#include "neuronc/Dialect/Nisa/NisaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "neuronc/Dialect/Nisa/NisaAttrs.h.inc"

namespace mlir::nisa {

/// The instruction set's view of the dialect's enums. Both are generated
/// from include/neuronc/ISA/Isa.def, so the values agree by construction.
inline neuronc::isa::Engine toIsa(Engine e) { return static_cast<neuronc::isa::Engine>(e); }
inline neuronc::isa::ActFunc toIsa(ActFunc f) { return static_cast<neuronc::isa::ActFunc>(f); }
inline neuronc::isa::AluOp toIsa(AluOp op) { return static_cast<neuronc::isa::AluOp>(op); }
inline neuronc::isa::CmpOp toIsa(CmpOp op) { return static_cast<neuronc::isa::CmpOp>(op); }

using neuronc::isa::kFirstQueueStream;
using neuronc::isa::kMaxQueues;
using neuronc::isa::kMaxStreams;
using neuronc::isa::parseStreamName;
using neuronc::isa::streamName;

/// The stream of an instruction on `engine` (and `queue` for DMA).
inline int64_t streamOf(Engine engine, int64_t queue) {
  return neuronc::isa::streamOf(toIsa(engine), queue);
}

/// One memory operand of an instruction.
struct MemoryAccess {
  FlatSymbolRefAttr memory;
  AccessPatternAttr ap;
  bool write = false;
};

/// How an instruction op's attributes fill its executable record, declared
/// per op in NisaOps.td (`recordOperands`, ...). The encoder reads it, so an
/// instruction needs no encoder code of its own.
struct RecordEncoding {
  /// Memory operands in record order: attribute `x` and its pattern `x_ap`;
  /// `x?` is optional and sets the next optional flag of its opcode.
  llvm::SmallVector<llvm::StringRef, 4> operands;
  /// The attributes of imm0 and imm1, `name` or `name=default`.
  llvm::SmallVector<llvm::StringRef, 2> immediates;
  /// The integer (or integer-array) attributes of params[0...].
  llvm::SmallVector<llvm::StringRef, 3> params;
  /// Unit attributes and the flag each sets.
  llvm::SmallVector<std::pair<llvm::StringRef, uint16_t>, 2> flags;
};

/// A discardable attribute: on a `neuron` op, its index among the entry
/// function's ops (set by checked runs before lowering); on an internal
/// `nisa.hbm`, `[op index, result number]` of the value it holds, so that a
/// checked run can compare every intermediate tensor with the interpreter's.
constexpr llvm::StringLiteral kValueIdAttrName = "neuron.value_id";

/// A discardable attribute on an instruction that runs in an earlier
/// kernel's stream on behalf of the kernel it names (`--nisa-prefetch-loads`
/// moves independent loads there): the executable's debug map attributes it
/// to that kernel.
constexpr llvm::StringLiteral kPrefetchForAttrName = "nisa.prefetch_for";

/// Bytes of one element of `t` in device memory (i1 takes one byte).
int64_t elementBytes(Type t);

namespace detail {
/// The DMA queue of a dma_copy, 0 for other instructions.
int64_t queueOf(Operation *op);
} // namespace detail

} // namespace mlir::nisa

#endif // NEURONC_DIALECT_NISA_NISADIALECT_H
