//===- Buckets.h - Shape buckets of an entry point ---------------*- C++ -*-===//
//
// The contract between `--neuron-bucket-shapes`, the executable and every
// runner: an entry point's symbolic signature (which input and output dims
// are which symbol), the static buckets it was compiled for, the masks the
// host passes with the padded inputs, and the work model that says how much
// of a bucket's work is padding. Pure data and arithmetic, no MLIR and no
// tensors, so the compiler, the NEFF reader and the runtime share it.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_BUCKETS_H
#define NEURONC_SUPPORT_BUCKETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace neuronc {

/// A dim of a signature: a static size (>= 0) or symbol k encoded as -1 - k.
inline int64_t symbolDim(uint32_t symbol) { return -1 - static_cast<int64_t>(symbol); }
inline bool isSymbolDim(int64_t d) { return d < 0; }
inline uint32_t symbolOf(int64_t d) { return static_cast<uint32_t>(-1 - d); }

/// One term of the work model: coefficient × Π size[s]^exponents[s].
struct WorkTerm {
  double coefficient = 0;
  std::vector<uint32_t> exponents; ///< one per symbol
  bool operator==(const WorkTerm &) const = default;
};

/// How an entry point with dynamic dims maps onto its static buckets.
struct BucketSignature {
  std::vector<std::string> symbols;          ///< names of the dynamic dims
  std::vector<std::vector<int64_t>> inputs;  ///< per input, its dims
  std::vector<std::vector<int64_t>> outputs; ///< per output, its dims
  /// Symbols whose mask (an i1 vector of the bucket's size, true for real
  /// elements) follows the inputs, in this order, in every bucket's program.
  std::vector<uint32_t> masks;
  /// Work (FLOPs + transcendentals + bytes moved) as a polynomial of the
  /// symbol sizes.
  std::vector<WorkTerm> work;
  /// Per bucket, a size per symbol; smallest work first.
  std::vector<std::vector<int64_t>> buckets;
  bool operator==(const BucketSignature &) const = default;

  bool dynamic() const { return !symbols.empty(); }

  /// Checks internal consistency (symbol indices, counts, sizes >= 1);
  /// the error says what is wrong.
  llvm::Error verify() const;

  /// Reads each symbol's size off the actual input shapes. Errors name the
  /// input, the dim, what the signature wants and what was given; a size
  /// of 0 is refused.
  llvm::Expected<std::vector<int64_t>>
  bindSizes(llvm::ArrayRef<std::vector<int64_t>> inputShapes, llvm::StringRef entry) const;

  /// The bucket with the least work among those at least `sizes` in every
  /// symbol. An oversize input is an error naming the size and the largest
  /// bucket.
  llvm::Expected<size_t> select(llvm::ArrayRef<int64_t> sizes, llvm::StringRef entry) const;

  /// The work model at `sizes`.
  double workAt(llvm::ArrayRef<int64_t> sizes) const;

  /// 1 - work(sizes) / work(bucket): the fraction of the bucket's work that
  /// is padding when it runs at `sizes`.
  double paddingFraction(llvm::ArrayRef<int64_t> sizes, size_t bucket) const;

  /// `dims` with every symbol replaced by its size in `sizes`.
  static std::vector<int64_t> shapeAt(llvm::ArrayRef<int64_t> dims,
                                      llvm::ArrayRef<int64_t> sizes);

  /// e.g. `seq=128,batch=2`.
  std::string formatSizes(llvm::ArrayRef<int64_t> sizes) const;
  /// e.g. `?seqx4096` for a dims list, symbols by name.
  std::string formatDims(llvm::ArrayRef<int64_t> dims) const;
};

} // namespace neuronc

#endif // NEURONC_SUPPORT_BUCKETS_H
