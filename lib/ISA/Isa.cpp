//===- Isa.cpp - The instruction set as the executable encodes it --------===//

#include "neuronc/ISA/Isa.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace neuronc::isa;

llvm::StringRef neuronc::isa::stringifyEngine(Engine e) {
  switch (e) {
#define NEURONC_ENGINE(name, value)                                            \
  case Engine::name:                                                           \
    return #name;
#include "neuronc/ISA/Isa.def"
  }
  return "";
}

llvm::StringRef neuronc::isa::stringifyActFunc(ActFunc f) {
  switch (f) {
#define NEURONC_ACT_FUNC(name, value)                                          \
  case ActFunc::name:                                                          \
    return #name;
#include "neuronc/ISA/Isa.def"
  }
  return "";
}

llvm::StringRef neuronc::isa::stringifyAluOp(AluOp op) {
  switch (op) {
#define NEURONC_ALU_OP(name, value)                                            \
  case AluOp::name:                                                            \
    return #name;
#include "neuronc/ISA/Isa.def"
  }
  return "";
}

llvm::StringRef neuronc::isa::stringifyCmpOp(CmpOp op) {
  switch (op) {
#define NEURONC_CMP_OP(name, value)                                            \
  case CmpOp::name:                                                            \
    return #name;
#include "neuronc/ISA/Isa.def"
  }
  return "";
}

std::optional<Engine> neuronc::isa::symbolizeEngine(llvm::StringRef name) {
#define NEURONC_ENGINE(n, value)                                               \
  if (name == #n)                                                              \
    return Engine::n;
#include "neuronc/ISA/Isa.def"
  return std::nullopt;
}

uint32_t neuronc::isa::maxEngine() {
  uint32_t m = 0;
#define NEURONC_ENGINE(name, value) m = std::max<uint32_t>(m, value);
#include "neuronc/ISA/Isa.def"
  return m;
}

uint32_t neuronc::isa::maxActFunc() {
  uint32_t m = 0;
#define NEURONC_ACT_FUNC(name, value) m = std::max<uint32_t>(m, value);
#include "neuronc/ISA/Isa.def"
  return m;
}

uint32_t neuronc::isa::maxAluOp() {
  uint32_t m = 0;
#define NEURONC_ALU_OP(name, value) m = std::max<uint32_t>(m, value);
#include "neuronc/ISA/Isa.def"
  return m;
}

uint32_t neuronc::isa::maxCmpOp() {
  uint32_t m = 0;
#define NEURONC_CMP_OP(name, value) m = std::max<uint32_t>(m, value);
#include "neuronc/ISA/Isa.def"
  return m;
}

std::string neuronc::isa::streamName(int64_t stream) {
  if (stream >= kFirstQueueStream)
    return "q" + std::to_string(stream - kFirstQueueStream);
  return stringifyEngine(static_cast<Engine>(stream)).str();
}

std::optional<int64_t> neuronc::isa::parseStreamName(llvm::StringRef name) {
  if (name.consume_front("q")) {
    int64_t q;
    // Canonical spellings only ("q9", not "q09"): one name per stream.
    if (name.getAsInteger(10, q) || q < 0 || q >= kMaxQueues || name != std::to_string(q))
      return std::nullopt;
    return kFirstQueueStream + q;
  }
  std::optional<Engine> e = symbolizeEngine(name);
  if (!e || *e == Engine::dma)
    return std::nullopt;
  return static_cast<int64_t>(*e);
}

llvm::StringRef neuronc::isa::opcodeName(Opcode op) {
  switch (op) {
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func)                         \
  case Opcode::name:                                                           \
    return #mnemonic;
#include "neuronc/ISA/Isa.def"
  }
  return "unknown";
}

std::optional<Opcode> neuronc::isa::symbolizeOpcode(llvm::StringRef mnemonic) {
#define NEURONC_OPCODE(name, mnem, value, engines, operands, optional, func)    \
  if (mnemonic == #mnem)                                                       \
    return Opcode::name;
#include "neuronc/ISA/Isa.def"
  return std::nullopt;
}

uint16_t neuronc::isa::optionalFlagsOf(Opcode op) {
  switch (op) {
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func)  \
  case Opcode::name:                                                           \
    return optional;
#include "neuronc/ISA/Isa.def"
  }
  return 0;
}

namespace {
/// The engines by their bare names, so that Isa.def's engine sets read as
/// lists of engines.
namespace engine_names {
#define NEURONC_ENGINE(name, value) constexpr Engine name = Engine::name;
#include "neuronc/ISA/Isa.def"
} // namespace engine_names

using namespace engine_names;
#define NEURONC_ENGINE_SET(set, ...) constexpr Engine set##Engines[] = {__VA_ARGS__};
#include "neuronc/ISA/Isa.def"
} // namespace

llvm::ArrayRef<Engine> neuronc::isa::enginesOf(Opcode op) {
  switch (op) {
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func)                         \
  case Opcode::name:                                                           \
    return engines##Engines;
#include "neuronc/ISA/Isa.def"
  }
  return {};
}

FuncKind neuronc::isa::funcKindOf(Opcode op) {
  switch (op) {
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func)  \
  case Opcode::name:                                                           \
    return FuncKind::func;
#include "neuronc/ISA/Isa.def"
  }
  return FuncKind::None;
}

int neuronc::isa::operandCount(Opcode op, uint16_t flags) {
  switch (op) {
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func)     \
  case Opcode::name:                                                           \
    return operands + llvm::popcount(static_cast<uint16_t>(flags & (optional)));
#include "neuronc/ISA/Isa.def"
  }
  return -1;
}

int64_t neuronc::isa::dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32: return 4;
  case DType::BF16:
  case DType::F16: return 2;
  case DType::I1: return 1;
  }
  return 4;
}

llvm::StringRef neuronc::isa::dtypeName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::BF16: return "bf16";
  case DType::F16: return "f16";
  case DType::I32: return "i32";
  case DType::I1: return "i1";
  }
  return "?";
}

llvm::StringRef neuronc::isa::spaceName(Space s) {
  switch (s) {
  case Space::Hbm: return "hbm";
  case Space::Sbuf: return "sbuf";
  case Space::Psum: return "psum";
  }
  return "?";
}

std::pair<int64_t, int64_t> Operand::tileBytes() const {
  // `offset` is a byte address for tiles; the pattern adds elements.
  int64_t reach = 0;
  for (int d = 0; d < rank; ++d)
    reach += (sizes[d] - 1) * strides[d];
  return {offset, offset + (reach + 1) * dtypeBytes(dtype)};
}

int64_t Operand::numElements() const {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}
