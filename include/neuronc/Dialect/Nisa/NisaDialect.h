//===- NisaDialect.h - The engine-level nisa dialect ------------*- C++ -*-===//
//
// The dialect, its enums (engines, memory spaces, activation functions, ALU
// operations: the single definition the lowering, the executable format and
// the simulator all use), the access-pattern attribute, and stream helpers.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_NISA_NISADIALECT_H
#define NEURONC_DIALECT_NISA_NISADIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include <cstdint>
#include <optional>
#include <string>

#include "neuronc/Dialect/Nisa/NisaDialect.h.inc"
#include "neuronc/Dialect/Nisa/NisaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "neuronc/Dialect/Nisa/NisaAttrs.h.inc"

namespace mlir::nisa {

/// Compute engines have streams 0-3 (their Engine value); DMA queue q is
/// stream kFirstQueueStream + q.
constexpr int64_t kFirstQueueStream = 4;
/// The most DMA queues a target may have (both profiles have 16).
constexpr int64_t kMaxQueues = 16;
constexpr int64_t kMaxStreams = kFirstQueueStream + kMaxQueues;

/// The stream of an instruction on `engine` (and `queue` for DMA).
inline int64_t streamOf(Engine engine, int64_t queue) {
  return engine == Engine::dma ? kFirstQueueStream + queue : static_cast<int64_t>(engine);
}
/// "tensor", "scalar", "vector", "gpsimd", "q0" ... "q15".
std::string streamName(int64_t stream);
/// The inverse of streamName, or nullopt.
std::optional<int64_t> parseStreamName(llvm::StringRef name);

/// One memory operand of an instruction.
struct MemoryAccess {
  FlatSymbolRefAttr memory;
  AccessPatternAttr ap;
  bool write = false;
};

/// A discardable attribute: on a `neuron` op, its index among the entry
/// function's ops (set by checked runs before lowering); on an internal
/// `nisa.hbm`, `[op index, result number]` of the value it holds, so that a
/// checked run can compare every intermediate tensor with the interpreter's.
constexpr llvm::StringLiteral kValueIdAttrName = "neuron.value_id";

/// Bytes of one element of `t` in device memory (i1 takes one byte).
int64_t elementBytes(Type t);

namespace detail {
/// The DMA queue of a dma_copy, 0 for other instructions.
int64_t queueOf(Operation *op);
} // namespace detail

} // namespace mlir::nisa

#endif // NEURONC_DIALECT_NISA_NISADIALECT_H
