//===- SourceOps.h - How the profile's tables name source ops --*- C++ -*-===//
//
// Shared by the key-averages table and summary.json (defined in
// KeyAverages.cpp): short locations, what a fused kernel absorbed, and the
// per-name totals of source ops kept apart by location.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_PROFILE_SOURCEOPS_H
#define NEURONC_LIB_PROFILE_SOURCEOPS_H

#include "neuronc/Profile/Profile.h"

namespace neuronc::profile {

/// A debug-map location for a table: `m.mlir:6:9` (the file without its
/// directory); several ("a:6:9; a:7:10") as the lines they span per file,
/// `m.mlir:6-16`.
std::string shortLocation(llvm::StringRef location);

/// What a fused kernel absorbed, in words: `neuron.mul x4, neuron.reduce_sum,
/// neuron.add, neuron.rsqrt (m.mlir:6-16)`; empty for none.
std::string absorbedText(llvm::ArrayRef<neff::AbsorbedOp> absorbed);

/// The executable's record of a profiled kernel (its program's, by name),
/// or null.
const neff::Kernel *kernelRecord(const Profile &profile, const KernelStats &kernel);

/// Source ops summed by name alone (several locations of one name in one
/// row), by device time, largest first.
struct OpNameTotal {
  std::string name;
  int64_t rows = 0, calls = 0, instructions = 0;
  double deviceNs = 0;
};
std::vector<OpNameTotal> opNameTotals(const Profile &profile);

} // namespace neuronc::profile

#endif // NEURONC_LIB_PROFILE_SOURCEOPS_H
