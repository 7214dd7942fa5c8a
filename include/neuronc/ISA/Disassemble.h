//===- Disassemble.h - Instructions as text ---------------------*- C++ -*-===//
//
// The disassembler: one line of text per decoded instruction, its operands
// named by the program's variables and memories. neuron-inspect prints
// these; they need the executable only, never the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_ISA_DISASSEMBLE_H
#define NEURONC_ISA_DISASSEMBLE_H

#include "neuronc/ISA/Neff.h"

#include <string>

namespace neuronc::isa {

/// `tensor<128x4096xf32>` for an HBM variable.
std::string variableTypeString(const neff::Variable &v);
/// `@x[0, [4096,128], [1,4096]] f32` for HBM, `sbuf[0:128]+512[[1,64]] f32`
/// for a tile.
std::string operandString(const neff::Program &p, const Operand &o);
/// One instruction: mnemonic, function or ALU ops, operands, immediates,
/// flags, semaphore waits and signal, e.g.
/// `activation exp sbuf[0:128]+0[[1,64]] f32, ... scale 1 bias 0 wait(q0 >= 1)`.
std::string instructionString(const neff::Program &p, const Instruction &inst);

} // namespace neuronc::isa

#endif // NEURONC_ISA_DISASSEMBLE_H
