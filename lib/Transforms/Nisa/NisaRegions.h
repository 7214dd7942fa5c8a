//===- NisaRegions.h - The memory each nisa instruction touches -*- C++ -*-===//
//
// Shared by semaphore insertion and the race checker: the program order of
// a nisa program's instructions (with their stream and position in it) and
// the memory regions each one reads and writes, as placed by allocation.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_TRANSFORMS_NISAREGIONS_H
#define NEURONC_LIB_TRANSFORMS_NISAREGIONS_H

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::nisa {

/// Bytes of one memory an access may touch. SBUF and PSUM regions are
/// partitions x a byte range within each; HBM regions are byte runs of one
/// memory (a bound tensor, or the scratch area internal tensors share).
struct MemRegion {
  MemorySpace space;
  const void *memory = nullptr; ///< HBM: which memory; null for SBUF/PSUM
  bool discard = false;         ///< a tile whose contents nobody reads
  int64_t p0 = 0, p1 = 0;       ///< partitions
  int64_t lo = 0, hi = 0;       ///< bounding byte range
  /// The exact sorted, disjoint byte runs [lo, hi) when few enough to keep
  /// (for tiles: within each of the partitions).
  llvm::SmallVector<std::pair<int64_t, int64_t>, 0> runs;
  /// The lattice the runs start on, kept however many runs there are: each
  /// run starts at `phase` modulo `period` bytes (the gcd of the pattern's
  /// byte strides) and is `runBytes` long; period 0 is one contiguous run
  /// starting at byte `phase`.
  /// Two regions whose runs fall in disjoint residues modulo the gcd of
  /// their periods cannot overlap (the two operands of an interleaving
  /// concatenation, each millions of 4-byte runs).
  int64_t period = 0, phase = 0, runBytes = 0;

  bool overlaps(const MemRegion &o) const;
  /// The ranges of `bucketBytes`-sized address buckets the region touches,
  /// ascending and disjoint: its runs' when it has them (a strided HBM
  /// access touches a few buckets per row, not every bucket of its
  /// bounding range), else the bounding range's.
  llvm::SmallVector<std::pair<int64_t, int64_t>, 1> buckets(int64_t bucketBytes) const;
  /// True when every byte of `o` is in this region.
  bool covers(const MemRegion &o) const;
};

/// One instruction in program order.
struct Step {
  InstructionOpInterface inst;
  int64_t stream;
  int64_t pos; ///< index within its stream
  llvm::SmallVector<MemRegion, 2> reads, writes;
};

/// Collects the instructions of `program` in program order with their
/// regions. Fails (with an error on the op) when a tile or internal tensor
/// has no offset yet.
LogicalResult collectSteps(ProgramOp program, llvm::SmallVectorImpl<Step> &steps);

/// "sbuf partitions 0:128 bytes 0..16384", "hbm in0 bytes 0..4096" (`inst`
/// is unused).
std::string describeAccess(Operation *inst, const MemRegion &r);

/// Finds, for each access of a new instruction, the earlier accesses that
/// conflict with it. Buckets regions by address so that lookups stay cheap
/// on big programs, and drops accesses that can no longer matter: one fully
/// covered by a later write (what depends on it also depends on that
/// write), and a read fully covered by a later read of the same stream
/// (which finishes after it).
class ConflictIndex {
public:
  /// Calls `onConflict(earlierStep, earlierRegion, laterRegion)` for every
  /// earlier access that conflicts with an access of `step` (`index`), then
  /// records the step's own accesses.
  void visit(int64_t index, const Step &step,
             llvm::function_ref<void(int64_t, const MemRegion &, const MemRegion &)> onConflict);

private:
  struct Entry {
    int64_t step;
    int64_t stream;
    MemRegion region;
    bool write;
    bool dead = false;
  };
  struct Bucket {
    llvm::SmallVector<int64_t, 4> reads, writes; ///< entry indices
  };
  std::vector<Entry> entries;
  /// (memory, space, bucket) -> entries touching it
  llvm::DenseMap<std::tuple<const void *, int, int64_t>, Bucket> buckets;
  static constexpr int64_t kBucketBytes = 4096;
};

} // namespace mlir::nisa

#endif // NEURONC_LIB_TRANSFORMS_NISAREGIONS_H
