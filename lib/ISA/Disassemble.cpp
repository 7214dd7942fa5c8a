//===- Disassemble.cpp - Instructions as text -----------------------------===//

#include "neuronc/ISA/Disassemble.h"

#include "llvm/Support/raw_ostream.h"

using namespace neuronc;
using namespace neuronc::isa;

std::string neuronc::isa::variableTypeString(const neff::Variable &v) {
  std::string s = "tensor<";
  for (int64_t d : v.shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(v.dtype).str() + ">";
}

std::string neuronc::isa::operandString(const neff::Program &p, const Operand &o) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (o.space == Space::Hbm)
    os << "@" << p.variables[o.var].name << "[" << o.offset;
  else
    os << spaceName(o.space) << "[" << o.partStart << ":" << o.partStart + o.partCount
       << "]+" << o.offset << "[";
  for (int d = 0; d < o.rank; ++d)
    os << (d || o.space == Space::Hbm ? ", " : "") << "[" << o.strides[d] << ","
       << o.sizes[d] << "]";
  os << "] " << dtypeName(o.dtype);
  return s;
}

std::string neuronc::isa::instructionString(const neff::Program &p, const Instruction &inst) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << opcodeName(inst.opcode);
  // The function fields, as Isa.def says the opcode uses them.
  switch (funcKindOf(inst.opcode)) {
  case FuncKind::Act:
    os << " " << stringifyActFunc(static_cast<ActFunc>(inst.func));
    break;
  case FuncKind::Alu:
  case FuncKind::AluAlu:
  case FuncKind::AluOptAlu:
    os << " " << stringifyAluOp(static_cast<AluOp>(inst.func));
    if (funcKindOf(inst.opcode) == FuncKind::AluAlu ||
        (funcKindOf(inst.opcode) == FuncKind::AluOptAlu && inst.has(kHasOp1)))
      os << "," << stringifyAluOp(static_cast<AluOp>(inst.op1));
    break;
  case FuncKind::Cmp:
    os << " " << stringifyCmpOp(static_cast<CmpOp>(inst.func));
    break;
  case FuncKind::None:
    break;
  }
  for (size_t i = 0; i < inst.operands.size(); ++i)
    os << (i ? ", " : " ") << operandString(p, inst.operands[i]);
  if (inst.opcode == Opcode::Activation)
    os << " scale " << inst.imm0 << " bias " << inst.imm1;
  if (inst.opcode == Opcode::TensorScalar || inst.opcode == Opcode::Memset ||
      inst.opcode == Opcode::ScalarTensorTensor)
    os << " imm " << inst.imm0 << (inst.has(kHasOp1) ? "," + std::to_string(inst.imm1) : "");
  if (inst.has(kStart))
    os << " start";
  if (inst.has(kIndirect))
    os << " indirect stride " << inst.params[1] << " bound " << inst.params[2];
  if (!inst.waits.empty()) {
    os << " wait(";
    for (size_t i = 0; i < inst.waits.size(); ++i)
      os << (i ? ", " : "") << streamName(inst.waits[i].stream)
         << " >= " << inst.waits[i].count;
    os << ")";
  }
  if (inst.has(kSignal))
    os << " signal";
  return s;
}

