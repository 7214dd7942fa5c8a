//===- Inspect.h - What an executable holds, as text or JSON ----*- C++ -*-===//
//
// neuron-inspect's report: header, sections, entry points and buckets, each
// program's variables and instruction counts per engine, per kernel its
// static roofline bound and the verdict of a replay of its program alone
// (profile::replay), and optionally the disassembly annotated with the times
// a profile measured. Needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_PROFILE_INSPECT_H
#define NEURONC_PROFILE_INSPECT_H

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"
#include "neuronc/Profile/Profile.h"

#include "llvm/Support/raw_ostream.h"

namespace neuronc::profile {

/// What the report shows.
struct InspectOptions {
  bool disassemble = false; ///< list every stream's instructions
  bool json = false;        ///< JSON instead of text
  /// Measured times of a profile of this executable, shown next to each
  /// instruction (null: none).
  const MeasuredTimes *measured = nullptr;
};

/// Prints the report of `exe` (whose sections are `sections`) for `hw`.
void printExecutable(llvm::raw_ostream &os, const neff::Executable &exe,
                     llvm::ArrayRef<neff::SectionInfo> sections, const HardwareModel &hw,
                     const InspectOptions &options);

} // namespace neuronc::profile

#endif // NEURONC_PROFILE_INSPECT_H
