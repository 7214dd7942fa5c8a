//===- InstructionRules.h - Rules of decoded instructions ----*- C++ -*-===//
//
// Private to lib/ISA: the checks the reader applies to every decoded
// instruction (neff::verifyExecutable reaches them for executables in
// memory).
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_ISA_INSTRUCTIONRULES_H
#define NEURONC_LIB_ISA_INSTRUCTIONRULES_H

#include "NeffCursor.h"

#include "neuronc/ISA/HardwareModel.h"

namespace neuronc::neff::detail {

/// Checks `inst` of program `p` against the rules of `hw`; on a violation
/// fails `c` with the reason and returns false.
bool checkInstruction(const Program &p, const HardwareModel &hw, const isa::Instruction &inst,
                      Cursor &c);

} // namespace neuronc::neff::detail

#endif // NEURONC_LIB_ISA_INSTRUCTIONRULES_H
