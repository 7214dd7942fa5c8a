//===- Isa.h - The instruction set as the executable encodes it -*- C++ -*-===//
//
// Plain C++ view of one nisa instruction with every address resolved: what
// the NEFF writer encodes, the reader decodes, the simulator executes and
// the disassembler prints. The enums and opcodes are generated from the one
// description in Isa.def, from which the nisa dialect's enum attributes are
// generated too. This header needs LLVM Support only: a runtime that loads
// and runs executables never includes MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_ISA_ISA_H
#define NEURONC_ISA_ISA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <string>

namespace neuronc::isa {

/// The engine an instruction runs on. DMA instructions also name a queue.
enum class Engine : uint32_t {
#define NEURONC_ENGINE(name, value) name = value,
#include "neuronc/ISA/Isa.def"
};
/// ScalarE's function table: `func(scale * x + bias)`.
enum class ActFunc : uint32_t {
#define NEURONC_ACT_FUNC(name, value) name = value,
#include "neuronc/ISA/Isa.def"
};
/// ScalarE's sin and cos read arguments with |a| <= kTrigActivationBound: one
/// period around 0 (π) and a margin for the rounding of a range reduction
/// (neuronc::reduceAngle passes π by |x|·2^-23). Beyond it the hardware's
/// result is not the function, and the simulator gives NaN, so a kernel that
/// skips the reduction fails its check instead of passing by luck.
constexpr float kTrigActivationBound = 4.0f;
/// VectorE/GpSimdE ALU operations. Comparisons produce 1 or 0.
enum class AluOp : uint32_t {
#define NEURONC_ALU_OP(name, value) name = value,
#include "neuronc/ISA/Isa.def"
};
/// Comparison of an affine_select's predicate with zero.
enum class CmpOp : uint32_t {
#define NEURONC_CMP_OP(name, value) name = value,
#include "neuronc/ISA/Isa.def"
};

/// The spelling of each enumerator ("gelu_tanh"), and its inverse.
llvm::StringRef stringifyEngine(Engine e);
llvm::StringRef stringifyActFunc(ActFunc f);
llvm::StringRef stringifyAluOp(AluOp op);
llvm::StringRef stringifyCmpOp(CmpOp op);
std::optional<Engine> symbolizeEngine(llvm::StringRef name);

/// The largest value of each enum, for range checks on decoded fields.
uint32_t maxEngine();
uint32_t maxActFunc();
uint32_t maxAluOp();
uint32_t maxCmpOp();

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

/// Instruction kinds, numbered as the executable stores them (Isa.def).
enum class Opcode : uint8_t {
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func) name = value,
#include "neuronc/ISA/Isa.def"
};
/// The largest opcode value (opcodes are numbered 1, 2, ... without gaps).
constexpr uint8_t kLastOpcode = 0
#define NEURONC_OPCODE(name, mnemonic, value, engines, operands, optional, func) +1
#include "neuronc/ISA/Isa.def"
    ;

/// The nisa op name without the dialect, e.g. "dma_copy".
llvm::StringRef opcodeName(Opcode op);
/// The opcode whose mnemonic is `mnemonic`, e.g. "dma_copy".
std::optional<Opcode> symbolizeOpcode(llvm::StringRef mnemonic);
/// The engines `op` may run on (DMA for dma_copy).
llvm::ArrayRef<Engine> enginesOf(Opcode op);

/// Element types of device memory. i1 takes one byte.
enum class DType : uint8_t { F32 = 0, BF16, F16, I32, I1 };
constexpr uint8_t kLastDType = static_cast<uint8_t>(DType::I1);
int64_t dtypeBytes(DType t);
llvm::StringRef dtypeName(DType t);
/// A collective (all_reduce, all_gather, reduce_scatter, all_to_all,
/// send_recv): it runs on the collective engines across the cores of a
/// group, its params[0] the group's size.
inline bool isCollective(Opcode op) {
  return op == Opcode::AllReduce || op == Opcode::AllGather || op == Opcode::ReduceScatter ||
         op == Opcode::AllToAll || op == Opcode::SendRecv;
}
inline bool isFloat(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::F16; }

enum class Space : uint8_t { Hbm = 0, Sbuf, Psum };
constexpr uint8_t kLastSpace = static_cast<uint8_t>(Space::Psum);
llvm::StringRef spaceName(Space s);

constexpr int kMaxDims = 4;

/// One operand: a memory and an access pattern over it (sizes and strides in
/// elements). HBM: `var` is the variable index and `offset` an element
/// offset into it. SBUF/PSUM: `offset` is the byte address of the pattern's
/// first element within each partition, and partitions
/// [partStart, partStart + partCount) are walked outermost.
struct Operand {
  Space space = Space::Sbuf;
  DType dtype = DType::F32;
  uint32_t var = 0;
  uint32_t partStart = 0;
  uint32_t partCount = 0;
  int64_t offset = 0;     ///< HBM: element offset; tiles: byte offset in the partition
  uint8_t rank = 0;
  std::array<int64_t, kMaxDims> sizes{};
  std::array<int64_t, kMaxDims> strides{}; ///< in elements

  /// Elements per partition (tiles) or in all (HBM).
  int64_t numElements() const;
  /// Elements including partitions.
  int64_t totalElements() const { return numElements() * (space == Space::Hbm ? 1 : partCount); }
  int64_t bytes() const { return totalElements() * dtypeBytes(dtype); }
  /// Tiles: [first, last) bytes the pattern reaches within each partition.
  /// The pattern must be well formed (non-negative strides, sizes >= 1), as
  /// the reader checks.
  std::pair<int64_t, int64_t> tileBytes() const;
};

/// Instruction flags.
enum Flag : uint16_t {
  kSignal = 1 << 0,   ///< increment this stream's semaphore on completion
  kStart = 1 << 1,    ///< multiply_moving: overwrite the accumulator
  kReverse0 = 1 << 2, ///< tensor_scalar: s0 op0 x
  kReverse1 = 1 << 3,
  kHasOp1 = 1 << 4,   ///< tensor_scalar: a second operation
  kHasScale = 1 << 5, ///< activation: scale is an operand
  kHasBias = 1 << 6,  ///< activation: bias is an operand
  kHasAcc = 1 << 7,   ///< activation: accumulate into an operand
  kHasS0 = 1 << 8,    ///< tensor_scalar / scalar_tensor_tensor: s0 is an operand
  kHasS1 = 1 << 9,
  kIndirect = 1 << 10, ///< dma_copy: indirect operand present
  kLastFlag = kIndirect,
};

/// A semaphore wait: `stream`'s counter must reach `count`.
struct Wait {
  uint8_t stream;
  uint32_t count;
};

/// One decoded instruction. Operand order per opcode is documented in
/// docs/neff-format.md; destination first.
struct Instruction {
  Opcode opcode = Opcode::DmaCopy;
  Engine engine = Engine::dma;
  uint8_t queue = 0;      ///< DMA queue
  uint16_t flags = 0;
  uint8_t func = 0;       ///< ActFunc, AluOp op0, or CmpOp
  uint8_t op1 = 0;        ///< AluOp op1
  float imm0 = 0, imm1 = 0;         ///< scale/bias, scalars, memset value, fill
  std::array<int64_t, 5> params{};  ///< iota/affine_select coefficients, indirect stride/bound
  llvm::SmallVector<Wait, 2> waits;
  llvm::SmallVector<Operand, 4> operands;
  uint32_t debug = 0;     ///< index into the debug map

  bool has(Flag f) const { return flags & f; }
  int64_t stream() const { return streamOf(engine, queue); }
};

/// What an instruction's function fields (`func`, `op1`) hold.
enum class FuncKind : uint8_t { None, Act, Alu, AluAlu, AluOptAlu, Cmp };
/// The function fields of `op` (Isa.def).
FuncKind funcKindOf(Opcode op);

/// Operands an instruction of `op` carries in its stream record given its
/// flags (Isa.def: the fixed ones plus one per optional-operand flag set).
int operandCount(Opcode op, uint16_t flags);
/// The flags (Isa.def's `optional` column) that each add one operand to the
/// record, lowest bit first: the k-th optional operand sets the k-th of them.
uint16_t optionalFlagsOf(Opcode op);

bool operator==(const Operand &a, const Operand &b);
bool operator==(const Instruction &a, const Instruction &b);

} // namespace neuronc::isa

#endif // NEURONC_ISA_ISA_H
