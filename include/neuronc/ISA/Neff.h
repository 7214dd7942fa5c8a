//===- Neff.h - The NEFF-like executable ------------------------*- C++ -*-===//
//
// The in-memory form of a neuronc executable and its binary container
// (docs/neff-format.md): a fixed header (magic, version, feature bits,
// target, content hash, compiler version), a section table, and sections
// each with a CRC-32: metadata (entry points with their bucket table,
// programs, variables, kernels), strings, one instruction stream per
// engine and DMA queue, DMA descriptors, constants, the debug map from
// instructions to kernels and source ops, and static cost tables.
//
// The reader validates sizes, offsets, counts, enums, ranges and checksums
// before it trusts anything, and reports the first problem precisely; a
// program it returns can be executed without further bounds checks.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_ISA_NEFF_H
#define NEURONC_ISA_NEFF_H

#include "neuronc/ISA/Isa.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include "neuronc/Support/Buckets.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace neuronc::neff {

constexpr char kMagic[8] = {'N', 'C', 'X', 'N', 'E', 'F', 'F', '\0'};
constexpr uint16_t kMajorVersion = 1;
constexpr uint16_t kMinorVersion = 2;
constexpr uint32_t kHeaderBytes = 128; // format: the header's size, not hardware

/// Feature bits. A reader refuses a file whose required bits it does not
/// know; optional bits may be ignored.
enum Feature : uint64_t {
  kFeatureIndirectDma = 1ull << 0, ///< dma_copy with an index tile (gather)
  kFeatureBuckets = 1ull << 1,     ///< some entry point is bucketed (has dynamic dims)
  kFeatureHostLayouts = 1ull << 2, ///< some input is loaded in another layout than given
  /// some program is one core's part of a tensor-parallel group: it has
  /// collectives, and some input is a shard of the tensor the caller gives
  kFeatureTensorParallel = 1ull << 3,
};
constexpr uint64_t kKnownRequiredFeatures =
    kFeatureIndirectDma | kFeatureBuckets | kFeatureHostLayouts | kFeatureTensorParallel;

/// What a variable is to the program.
enum class VarKind : uint8_t { Input = 0, Output, Const, Internal };
constexpr uint8_t kLastVarKind = static_cast<uint8_t>(VarKind::Internal);
llvm::StringRef varKindName(VarKind k);

/// An HBM tensor of a program.
struct Variable {
  std::string name;
  VarKind kind = VarKind::Internal;
  isa::DType dtype = isa::DType::F32;
  std::vector<int64_t> shape;
  int64_t index = 0;  ///< input/output position
  int64_t offset = 0; ///< internal: byte offset in scratch; const: byte offset in the const section
  /// Input only: the caller gives the tensor with its last two dims swapped
  /// and the runtime swaps them when it loads it (a prepacked weight).
  bool hostTransposed = false;
  /// Input only, in a tensor-parallel program: the caller gives the whole
  /// tensor, `shardParts` times larger along `shardDim` of the host shape,
  /// and each core receives one part of it (-1: every core receives all).
  int64_t shardDim = -1;
  int64_t shardParts = 1;
  bool sharded() const { return shardDim >= 0; }
  /// The part core `rank` of a `group`-core group receives: consecutive
  /// cores share a part when there are fewer parts than cores.
  int64_t shardOf(int64_t rank, int64_t group) const {
    return sharded() ? rank / (group / shardParts) : 0;
  }
  int64_t numElements() const;
  /// The shape of this core's tensor as the caller lays it out: `shape`,
  /// with the last two dims swapped when hostTransposed.
  std::vector<int64_t> localHostShape() const;
  /// The shape the caller gives: localHostShape(), times shardParts along
  /// shardDim.
  std::vector<int64_t> hostShape() const;
  int64_t bytes() const { return numElements() * isa::dtypeBytes(dtype); }
  bool operator==(const Variable &) const = default;
};

/// Static costs of one kernel, summed from its instructions with the cost
/// formulas of the target.
struct CostTable {
  std::array<int64_t, 4> instructions{}; ///< per compute engine (Engine value)
  std::array<int64_t, 4> cycles{};       ///< busy cycles per compute engine
  std::array<int64_t, 4> elements{};     ///< elements processed per compute engine
  int64_t matmulFlops = 0;               ///< 2*K*M*N over multiply_moving
  int64_t transposeFlops = 0;            ///< TensorE transposes as identity matmuls
  int64_t transcendentals = 0;           ///< ScalarE function evaluations
  int64_t dmaCount = 0;
  int64_t dmaBytes = 0;
  int64_t dmaQueueNs = 0;                ///< summed queue time (ns), at full bandwidth
  int64_t hbmReadBytes = 0;
  int64_t hbmWriteBytes = 0;
  int64_t sbufBytes = 0;                 ///< SBUF bytes read and written by engines and DMA
  int64_t psumBytes = 0;
  bool operator==(const CostTable &) const = default;
};

/// A source op a fused kernel stands for.
struct AbsorbedOp {
  std::string op;       ///< `neuron.mul`, or the exporter's name (`aten::mul`)
  std::string location; ///< file:line:col
  bool operator==(const AbsorbedOp &) const = default;
};

/// One kernel: a named span of the program's instructions.
struct Kernel {
  std::string name, kind, source, location;
  CostTable cost;
  /// The source ops a fused kernel absorbed, in source order; empty for a
  /// kernel of one op (section p<i>.absorbed).
  std::vector<AbsorbedOp> absorbed;
  bool operator==(const Kernel &) const = default;
};

/// Where an instruction came from.
struct DebugEntry {
  uint32_t kernel = 0;
  std::string op;       ///< the source op's name (`aten::mul` when the exporter said so)
  std::string location; ///< file:line:col
  bool operator==(const DebugEntry &) const = default;
};

/// The operands of a DMA (what real NEFFs keep as descriptors).
struct DmaDescriptor {
  isa::Operand dst, src;
  bool indirect = false;
  isa::Operand index;
  int64_t indirectStride = 0, indirectBound = 0;
};
bool operator==(const DmaDescriptor &a, const DmaDescriptor &b);

/// One executable program (one bucket of one entry point).
struct Program {
  std::string name;
  std::string target;
  std::vector<Variable> variables;
  std::vector<Kernel> kernels;
  std::vector<DebugEntry> debug;
  std::vector<DmaDescriptor> dma;
  /// Instructions per stream (compute engines 0-3, DMA queue q at 4 + q). A
  /// DMA instruction's params[0] is its descriptor; decoded instructions
  /// also carry the descriptor's operands.
  std::array<std::vector<isa::Instruction>, isa::kMaxStreams> streams;
  int64_t scratchBytes = 0;
  bool operator==(const Program &) const = default;

  /// Inputs/outputs in index order.
  std::vector<const Variable *> inputs() const;
  std::vector<const Variable *> outputs() const;
  int64_t instructionCount() const;
  /// The cores of the tensor-parallel group this program is one core's part
  /// of: the largest collective's group (1 when it has no collectives).
  int64_t collectiveGroup() const;
};

/// A static shape an entry point was specialized for.
struct Bucket {
  uint32_t program = 0;
  /// The sizes of the entry's dynamic dims this bucket was compiled for
  /// (empty for a static program).
  std::vector<int64_t> dims;
  bool operator==(const Bucket &) const = default;
};

/// A callable function: its signature (dims that are symbols, masks, the
/// work model) and its buckets, in the signature's bucket order.
struct EntryPoint {
  std::string name;
  BucketSignature signature;
  std::vector<Bucket> buckets;
  bool operator==(const EntryPoint &) const = default;
};

struct Executable {
  uint16_t major = kMajorVersion, minor = kMinorVersion;
  uint64_t requiredFeatures = 0, optionalFeatures = 0;
  std::string target;
  std::string compiler;
  uint64_t contentHash = 0; ///< as read (the writer computes it)
  std::vector<EntryPoint> entries;
  std::vector<Program> programs;
  std::vector<uint8_t> constants;
  bool operator==(const Executable &o) const;
};

/// A section of the container, for neuron-inspect.
struct SectionInfo {
  std::string name;
  uint64_t offset = 0, size = 0;
  uint32_t crc = 0;
};

/// Encodes `exe` (the content hash and checksums are computed here).
std::vector<uint8_t> writeNeff(const Executable &exe);
/// Writes `exe` to `path` atomically (a temporary file renamed into place),
/// so that a failure never leaves a partial executable.
llvm::Error writeNeffFile(llvm::StringRef path, const Executable &exe);
/// Recomputes what the writer derives from the bytes: every section's CRC-32
/// (where the table entry lies inside the file), the content hash, the file
/// size and the header CRC. Damage made between writeNeff and this reaches
/// the reader's record checks instead of its checksums (fuzzing, tests).
/// Bytes too short for a header are left alone.
void resealNeff(std::vector<uint8_t> &bytes);

/// Checks the container only: header, section table, every section's CRC and
/// the content hash (what a cache needs to trust a file it wrote).
llvm::Error verifyNeffChecksums(llvm::ArrayRef<uint8_t> bytes);
/// Decodes and validates. The error names the first problem, e.g. "section
/// 'dma' offset 4096 + size 900 exceeds file size 4500".
llvm::Expected<Executable> readNeff(llvm::ArrayRef<uint8_t> bytes,
                                    std::vector<SectionInfo> *sections = nullptr);
/// Checks an executable built in memory by every rule the reader enforces
/// (the hardware rules of each instruction, the entry points, the memory
/// bounds), as the simulator would find it after writing and reading it.
llvm::Error verifyExecutable(const Executable &exe);
llvm::Expected<Executable> readNeffFile(llvm::StringRef path,
                                        std::vector<SectionInfo> *sections = nullptr);

} // namespace neuronc::neff

#endif // NEURONC_ISA_NEFF_H
