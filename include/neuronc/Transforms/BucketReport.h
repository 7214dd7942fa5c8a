//===- BucketReport.h - What shape bucketing costs ---------------*- C++ -*-===//
//
// `neuronc --bucket-report`: per bucket of every bucketed entry point, its
// sizes, how many kernels it compiled to, and the padding waste (the
// fraction of its work spent on padding) for sizes uniformly distributed
// over the bucket's range and, given a histogram of real sizes, for those;
// with a suggestion where a bucket is mostly padding.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TRANSFORMS_BUCKETREPORT_H
#define NEURONC_TRANSFORMS_BUCKETREPORT_H

#include "neuronc/Support/Buckets.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace neuronc {

/// One bucketed entry point as the report sees it.
struct BucketedEntry {
  std::string name;
  BucketSignature signature;
  std::vector<int64_t> kernels; ///< per bucket: kernels of its program (or fused function)
};

/// The bucketed entry points of `module` (at any stage after bucketing).
std::vector<BucketedEntry> collectBucketedEntries(mlir::ModuleOp module);

/// Observed sizes: one row per line, a size per symbol then a count
/// (`# comments` and blank lines allowed).
struct SizeHistogram {
  std::vector<std::pair<std::vector<int64_t>, double>> rows;
};

/// Parses a histogram for an entry with `symbols` symbols. Errors name the
/// line and what is wrong.
llvm::Expected<SizeHistogram> parseSizeHistogram(llvm::StringRef text, size_t symbols,
                                                 llvm::StringRef path);

/// The padding waste of bucket `b` when sizes are uniform over its range
/// (each symbol independently, from just above the next smaller size of
/// that symbol up to the bucket's).
double uniformPaddingWaste(const BucketSignature &sig, size_t b);

/// The report as text.
std::string formatBucketReportText(llvm::ArrayRef<BucketedEntry> entries,
                                   const SizeHistogram *histogram);
/// The report as JSON.
llvm::json::Value formatBucketReportJSON(llvm::ArrayRef<BucketedEntry> entries,
                                         const SizeHistogram *histogram);

} // namespace neuronc

#endif // NEURONC_TRANSFORMS_BUCKETREPORT_H
