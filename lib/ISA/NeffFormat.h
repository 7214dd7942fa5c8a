//===- NeffFormat.h - Byte-level layout shared by writer and reader -*- C++ -*-===//
//
// Record sizes, section names and the operand counts each opcode carries:
// the parts of docs/neff-format.md that both sides must agree on.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_TARGET_NEFFFORMAT_H
#define NEURONC_LIB_TARGET_NEFFFORMAT_H

#include "neuronc/ISA/Neff.h"

#include <string>

namespace neuronc::neff::format {

constexpr uint32_t kSectionEntryBytes = 40; ///< name[16], offset, size, crc, flags
constexpr uint32_t kInstructionHeaderBytes = 24;
constexpr uint32_t kWaitBytes = 8;
constexpr uint32_t kOperandHeaderBytes = 24;
constexpr uint32_t kMaxSections = 4096;

/// Header field offsets.
enum HeaderField : uint32_t {
  kMagicAt = 0,
  kMajorAt = 8,
  kMinorAt = 10,
  kHeaderSizeAt = 12,
  kRequiredAt = 16,
  kOptionalAt = 24,
  kTargetAt = 32,   ///< char[16]
  kCompilerAt = 48, ///< char[32]
  kHashAt = 80,
  kSectionCountAt = 88,
  kSectionTableAt = 96,
  kFileSizeAt = 104,
  kHeaderCrcAt = 124,
};

inline std::string programSection(size_t program, llvm::StringRef what) {
  return "p" + std::to_string(program) + "." + what.str();
}

/// Operands an instruction of `op` carries in its stream record, given its
/// flags (DMA operands live in the descriptor table instead).
inline int expectedOperands(isa::Opcode op, uint16_t flags) {
  auto has = [&](isa::Flag f) { return (flags & f) ? 1 : 0; };
  switch (op) {
  case isa::Opcode::DmaCopy: return 0;
  case isa::Opcode::LoadStationary: return 1;
  case isa::Opcode::MultiplyMoving: return 2;
  case isa::Opcode::Transpose: return 2;
  case isa::Opcode::Activation:
    return 2 + has(isa::kHasScale) + has(isa::kHasBias) + has(isa::kHasAcc);
  case isa::Opcode::TensorTensor: return 3;
  case isa::Opcode::TensorScalar: return 2 + has(isa::kHasS0) + has(isa::kHasS1);
  case isa::Opcode::ScalarTensorTensor: return 3 + has(isa::kHasS0);
  case isa::Opcode::TensorReduce:
  case isa::Opcode::TensorCopy:
  case isa::Opcode::Reciprocal:
  case isa::Opcode::BnStats:
  case isa::Opcode::BnAggr:
  case isa::Opcode::AffineSelect:
  case isa::Opcode::PartitionReduce: return 2;
  case isa::Opcode::Select: return 4;
  case isa::Opcode::Iota:
  case isa::Opcode::Memset: return 1;
  }
  return -1;
}

} // namespace neuronc::neff::format

#endif // NEURONC_LIB_TARGET_NEFFFORMAT_H
