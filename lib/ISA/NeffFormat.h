//===- NeffFormat.h - Byte-level layout shared by writer and reader -*- C++ -*-===//
//
// Record sizes, section names and the operand counts each opcode carries
// (from include/neuronc/ISA/Isa.def):
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
/// Variable record flags.
constexpr uint8_t kVarHostTransposed = 1; ///< input loaded with its last two dims swapped
/// Input of a tensor-parallel program: the record's dims are followed by
/// the shard's dim and parts (i64 each).
constexpr uint8_t kVarSharded = 2;

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
/// flags (DMA operands live in the descriptor table instead): Isa.def says.
inline int expectedOperands(isa::Opcode op, uint16_t flags) {
  return isa::operandCount(op, flags);
}

} // namespace neuronc::neff::format

#endif // NEURONC_LIB_TARGET_NEFFFORMAT_H
