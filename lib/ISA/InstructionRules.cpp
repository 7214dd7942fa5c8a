//===- InstructionRules.cpp - The hardware rules of decoded instructions --===//
//
// What the simulator relies on for every instruction of a program: its
// engine may run the opcode, its flags, waits and debug index exist, every
// operand lies inside the memory it addresses, compute engines respect the
// partition-start rule and never address HBM, the function fields are in
// range (Isa.def), and each opcode's operand shapes fit together.
//
//===----------------------------------------------------------------------===//

#include "InstructionRules.h"

#include "neuronc/ISA/InstructionCost.h"

#include "llvm/ADT/STLExtras.h"

using namespace neuronc;
using namespace neuronc::neff;
using namespace neuronc::neff::detail;

namespace {

/// The largest element index a pattern reaches (offset included), or -1
/// when it is malformed (non-positive size, negative stride).
int64_t maxIndex(const isa::Operand &o) {
  constexpr int64_t kLimit = int64_t(1) << 40;
  if (o.offset < 0 || o.offset > kLimit)
    return -1;
  __int128 hi = o.offset;
  for (int d = 0; d < o.rank; ++d) {
    if (o.sizes[d] < 1 || o.strides[d] < 0 || o.sizes[d] > kLimit || o.strides[d] > kLimit)
      return -1;
    hi += static_cast<__int128>(o.sizes[d] - 1) * o.strides[d];
  }
  if (hi > kLimit)
    return -1;
  return static_cast<int64_t>(hi);
}

struct ProgramChecker {
  const Program &p;
  const HardwareModel &hw;

  /// Checks an operand against the memory it addresses.
  bool operand(const isa::Operand &o, Cursor &c, const char *role) {
    if (o.space > static_cast<isa::Space>(isa::kLastSpace) ||
        o.dtype > static_cast<isa::DType>(isa::kLastDType) || o.rank > isa::kMaxDims) {
      c.fail(llvm::Twine(role) + " has an invalid memory space, element type or rank");
      return false;
    }
    int64_t hi = maxIndex(o);
    if (hi < 0) {
      c.fail(llvm::Twine(role) + " has a malformed access pattern (negative offset or stride, "
                                 "a size below 1, or a reach beyond 2^40 elements)");
      return false;
    }
    __int128 elements = std::max<uint32_t>(o.partCount, 1);
    for (int d = 0; d < o.rank; ++d)
      elements *= o.sizes[d];
    if (elements > (__int128(1) << 36)) {
      c.fail(llvm::Twine(role) + " walks more than 2^36 elements");
      return false;
    }
    if (o.space == isa::Space::Hbm) {
      if (o.var >= p.variables.size()) {
        c.fail(llvm::Twine(role) + " names variable " + llvm::Twine(o.var) + " of " +
               llvm::Twine(p.variables.size()));
        return false;
      }
      const Variable &v = p.variables[o.var];
      if (v.dtype != o.dtype) {
        c.fail(llvm::Twine(role) + " reads variable '" + v.name + "' as " +
               isa::dtypeName(o.dtype) + " but it holds " + isa::dtypeName(v.dtype));
        return false;
      }
      if (hi >= v.numElements()) {
        c.fail(llvm::Twine(role) + " reaches element " + llvm::Twine(hi) + " of variable '" +
               v.name + "', which has " + llvm::Twine(v.numElements()));
        return false;
      }
      return true;
    }
    int64_t capacity = o.space == isa::Space::Sbuf ? hw.sbufPartitionBytes : hw.psumPartitionBytes;
    if (o.partCount < 1 ||
        uint64_t(o.partStart) + uint64_t(o.partCount) > static_cast<uint64_t>(hw.partitions)) {
      c.fail(llvm::Twine(role) + " spans partitions " + llvm::Twine(o.partStart) + ":" +
             llvm::Twine(o.partStart + o.partCount) + " of " + llvm::Twine(hw.partitions));
      return false;
    }
    int64_t end = o.tileBytes().second;
    if (end > capacity) {
      c.fail(llvm::Twine(role) + " reaches byte " + llvm::Twine(end) + " of a " +
             isa::spaceName(o.space) + " partition of " + llvm::Twine(capacity));
      return false;
    }
    return true;
  }

  bool sameShape(const isa::Operand &a, const isa::Operand &b, Cursor &c, const char *what) {
    if (a.partCount != b.partCount || a.numElements() != b.numElements()) {
      c.fail(llvm::Twine(what) + " operands cover different element counts");
      return false;
    }
    return true;
  }

  bool scalar(const isa::Operand &s, const isa::Operand &main, Cursor &c, const char *what) {
    if (s.partCount != main.partCount || s.numElements() != 1) {
      c.fail(llvm::Twine(what) + " must be one element per partition");
      return false;
    }
    return true;
  }

  /// The rules the simulator relies on, per opcode.
  bool instruction(const isa::Instruction &inst, Cursor &c) {
    using isa::Opcode;
    if (!llvm::is_contained(isa::enginesOf(inst.opcode), inst.engine)) {
      c.fail(isa::opcodeName(inst.opcode) + " cannot run on engine " +
             llvm::Twine(static_cast<int>(inst.engine)));
      return false;
    }
    if (inst.flags > (isa::kLastFlag << 1) - 1) {
      c.fail("unknown flag bits " + llvm::Twine::utohexstr(inst.flags));
      return false;
    }
    for (const isa::Wait &w : inst.waits)
      if (w.stream >= isa::kMaxStreams || w.count < 1) {
        c.fail("waits on stream " + llvm::Twine(unsigned(w.stream)) + " for count " +
               llvm::Twine(w.count));
        return false;
      }
    if (inst.debug >= p.debug.size() && !p.debug.empty()) {
      c.fail("debug entry " + llvm::Twine(inst.debug) + " of " + llvm::Twine(p.debug.size()));
      return false;
    }
    for (size_t i = 0; i < inst.operands.size(); ++i)
      if (!operand(inst.operands[i], c, "operand"))
        return false;
    if (inst.opcode != Opcode::DmaCopy && !isa::isCollective(inst.opcode))
      for (const isa::Operand &o : inst.operands) {
        if (!isTile(o)) {
          c.fail(isa::opcodeName(inst.opcode) + " addresses HBM; only DMA does");
          return false;
        }
        // The partition-start rule of compute engines (the nisa verifier's).
        int64_t limit = hw.maxPartitionSpan(o.partStart);
        if (limit == 0 || o.partCount > limit) {
          c.fail(isa::opcodeName(inst.opcode) + " accesses partitions " +
                 llvm::Twine(o.partStart) + ":" + llvm::Twine(o.partStart + o.partCount) +
                 "; from partition " + llvm::Twine(o.partStart) + " an engine access spans " +
                 (limit ? "at most " + llvm::Twine(limit) : llvm::Twine("nothing")));
          return false;
        }
      }
    return functionFields(inst, c) && opcodeRules(inst, c);
  }

  /// The function fields hold what Isa.def says the opcode uses, in range.
  bool functionFields(const isa::Instruction &inst, Cursor &c) {
    uint32_t max = 0, max1 = 0;
    switch (isa::funcKindOf(inst.opcode)) {
    case isa::FuncKind::None:
      return true;
    case isa::FuncKind::Act:
      max = isa::maxActFunc();
      break;
    case isa::FuncKind::Alu:
      max = isa::maxAluOp();
      break;
    case isa::FuncKind::AluAlu:
    case isa::FuncKind::AluOptAlu:
      max = max1 = isa::maxAluOp();
      break;
    case isa::FuncKind::Cmp:
      max = isa::maxCmpOp();
      break;
    }
    if (inst.func > max) {
      c.fail("function/operation " + llvm::Twine(unsigned(inst.func)) + " is out of range");
      return false;
    }
    if (inst.op1 > max1 && max1) {
      c.fail("second operation " + llvm::Twine(unsigned(inst.op1)) + " is out of range");
      return false;
    }
    return true;
  }

  static bool isTile(const isa::Operand &o) { return o.space != isa::Space::Hbm; }

  /// The rules of the collectives: two HBM operands of one type (f32 or
  /// bf16 when summed), a group of at least 2 cores, the whole side `group`
  /// times the part side (equal for all_reduce), and `outer` blocks
  /// (params[1]) dividing the part.
  bool collectiveRules(const isa::Instruction &inst, Cursor &c) {
    using isa::Opcode;
    const auto &ops = inst.operands;
    bool sums = inst.opcode == Opcode::AllReduce || inst.opcode == Opcode::ReduceScatter;
    llvm::StringRef name = isa::opcodeName(inst.opcode);
    if (ops.size() != 2 || isTile(ops[0]) || isTile(ops[1]) || ops[0].dtype != ops[1].dtype ||
        (sums && ops[0].dtype != isa::DType::F32 && ops[0].dtype != isa::DType::BF16) ||
        inst.params[0] < 2) {
      c.fail(name + " needs two HBM operands of one " + (sums ? "float " : "") +
             "type and a group of at least 2 cores");
      return false;
    }
    int64_t group = inst.params[0], n = ops[1].totalElements();
    if (inst.opcode == Opcode::AllReduce || inst.opcode == Opcode::AllToAll ||
        inst.opcode == Opcode::SendRecv) {
      if (ops[0].totalElements() != n) {
        c.fail(name + " needs as many destination elements as source elements");
        return false;
      }
      // all_to_all: parts of n / group elements, split and concat runs
      // dividing them; send_recv: a shift inside the group, cyclic 0 or 1.
      if (inst.opcode == Opcode::AllToAll &&
          (n % group || inst.params[1] < 1 || inst.params[2] < 1 ||
           (n / group) % inst.params[1] || (n / group) % inst.params[2])) {
        c.fail("all_to_all needs parts of the group dividing the source and split and concat "
               "runs dividing a part");
        return false;
      }
      if (inst.opcode == Opcode::SendRecv &&
          (inst.params[1] == 0 || inst.params[1] <= -group || inst.params[1] >= group ||
           (inst.params[2] != 0 && inst.params[2] != 1))) {
        c.fail("send_recv needs a shift inside the group and cyclic 0 or 1");
        return false;
      }
      return true;
    }
    // all_gather: dst is the whole, src the part; reduce_scatter the reverse.
    const isa::Operand &whole = ops[sums ? 1 : 0], &part = ops[sums ? 0 : 1];
    if (inst.params[1] < 1 || whole.totalElements() != inst.params[0] * part.totalElements() ||
        part.totalElements() % inst.params[1]) {
      c.fail(name + " needs the " + (sums ? "source" : "destination") + " group times the " +
             (sums ? "destination" : "source") + " and outer blocks dividing the latter");
      return false;
    }
    return true;
  }

  /// The rules of each opcode: operand shapes, spaces and types, and the
  /// range of its function or ALU operations.
  bool opcodeRules(const isa::Instruction &inst, Cursor &c) {
    using isa::Opcode;
    const auto &ops = inst.operands;
    switch (inst.opcode) {
    case Opcode::AllReduce:
    case Opcode::AllGather:
    case Opcode::ReduceScatter:
    case Opcode::AllToAll:
    case Opcode::SendRecv:
      return collectiveRules(inst, c);
    case Opcode::DmaCopy: {
      if (ops.size() < 2 || ops[0].totalElements() != ops[1].totalElements() ||
          ops[0].dtype != ops[1].dtype) {
        c.fail("dma_copy source and destination differ in element count or type");
        return false;
      }
      if (inst.has(isa::kIndirect)) {
        if (ops.size() < 3) {
          c.fail("indirect dma_copy without its index operand");
          return false;
        }
        const isa::Operand &tile = isTile(ops[0]) ? ops[0] : ops[1];
        const isa::Operand &mem = isTile(ops[0]) ? ops[1] : ops[0];
        if (isTile(mem) || !isTile(tile) || ops[2].dtype != isa::DType::I32 ||
            ops[2].partCount != tile.partCount || ops[2].numElements() != 1 || mem.rank < 1 ||
            mem.sizes[0] != tile.partCount || inst.params[1] < 1 || inst.params[2] < 1) {
          c.fail("indirect dma_copy operands do not fit together");
          return false;
        }
        // The furthest row an index may pick must stay inside the variable.
        const Variable &v = p.variables[mem.var];
        __int128 reach = maxIndex(mem) + __int128(inst.params[2] - 1) * inst.params[1];
        if (reach >= v.numElements()) {
          c.fail("indirect dma_copy can reach element " +
                 (reach > INT64_MAX ? llvm::Twine("beyond 2^63")
                                    : llvm::Twine(static_cast<int64_t>(reach))) +
                 " of '" +
                 v.name + "', which has " + llvm::Twine(v.numElements()));
          return false;
        }
      }
      return true;
    }
    case Opcode::LoadStationary:
      if (ops[0].numElements() > hw.partitions || ops[0].space != isa::Space::Sbuf) {
        c.fail("load_stationary takes at most " + llvm::Twine(hw.partitions) +
               " columns from SBUF");
        return false;
      }
      return true;
    case Opcode::MultiplyMoving:
      if (ops[0].space != isa::Space::Psum || ops[0].dtype != isa::DType::F32 ||
          ops[1].numElements() > hw.psumBankFp32() ||
          ops[0].numElements() != ops[1].numElements()) {
        c.fail("multiply_moving needs an f32 PSUM accumulator as wide as the moving matrix "
               "(at most " + llvm::Twine(hw.psumBankFp32()) + ")");
        return false;
      }
      return true;
    case Opcode::Transpose:
      if (ops[0].partCount != ops[1].numElements() ||
          ops[0].numElements() != static_cast<int64_t>(ops[1].partCount)) {
        c.fail("transpose destination is not the source transposed");
        return false;
      }
      return true;
    case Opcode::Activation: {
      if (!sameShape(ops[0], ops[1], c, "activation"))
        return false;
      for (size_t i = 2; i < ops.size(); ++i)
        if (!scalar(ops[i], ops[1], c, "activation scale/bias/accumulator"))
          return false;
      return true;
    }
    case Opcode::TensorTensor:
      return sameShape(ops[0], ops[1], c, "tensor_tensor") &&
             sameShape(ops[0], ops[2], c, "tensor_tensor");
    case Opcode::TensorScalar:
    case Opcode::ScalarTensorTensor: {
      if (!sameShape(ops[0], ops[1], c, isa::opcodeName(inst.opcode).data()))
        return false;
      size_t scalars = ops.size() - (inst.opcode == Opcode::ScalarTensorTensor ? 3 : 2);
      for (size_t i = 0; i < scalars; ++i)
        if (!scalar(ops[2 + i], ops[1], c, "scalar operand"))
          return false;
      if (inst.opcode == Opcode::ScalarTensorTensor)
        return sameShape(ops[0], ops.back(), c, "scalar_tensor_tensor");
      return true;
    }
    case Opcode::TensorReduce: {
      int64_t last = ops[1].rank ? ops[1].sizes[ops[1].rank - 1] : 1;
      if (ops[0].partCount != ops[1].partCount ||
          __int128(ops[0].numElements()) * last != ops[1].numElements()) {
        c.fail("tensor_reduce destination is not the source without its innermost dim");
        return false;
      }
      return true;
    }
    case Opcode::TensorCopy:
    case Opcode::Reciprocal:
      return sameShape(ops[0], ops[1], c, isa::opcodeName(inst.opcode).data());
    case Opcode::Select:
      return sameShape(ops[0], ops[1], c, "select") && sameShape(ops[0], ops[2], c, "select") &&
             sameShape(ops[0], ops[3], c, "select");
    case Opcode::BnStats:
      if (ops[1].numElements() > hw.bnStatsMaxElements || ops[0].numElements() != 3 ||
          ops[0].partCount != ops[1].partCount) {
        c.fail("bn_stats takes at most " + llvm::Twine(hw.bnStatsMaxElements) +
               " elements and writes 3 per partition");
        return false;
      }
      return true;
    case Opcode::BnAggr:
      if (ops[1].numElements() % 3 || ops[0].numElements() != 2 ||
          ops[0].partCount != ops[1].partCount) {
        c.fail("bn_aggr reads triples and writes 2 values per partition");
        return false;
      }
      return true;
    case Opcode::AffineSelect:
      return sameShape(ops[0], ops[1], c, "affine_select");
    case Opcode::PartitionReduce:
      if (ops[0].partCount != 1 || ops[0].numElements() != ops[1].numElements()) {
        c.fail("partition_reduce writes one partition as wide as its source");
        return false;
      }
      return true;
    case Opcode::Iota:
    case Opcode::Memset:
      return true;
    }
    return true;
  }
};

} // namespace

bool neuronc::neff::detail::checkInstruction(const Program &p, const HardwareModel &hw,
                                             const isa::Instruction &inst, Cursor &c) {
  return ProgramChecker{p, hw}.instruction(inst, c);
}
