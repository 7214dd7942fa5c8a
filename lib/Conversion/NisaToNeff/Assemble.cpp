//===- Assemble.cpp - nisa programs to an executable ----------------------===//

#include "neuronc/Conversion/NisaToNeff.h"

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/InstructionCost.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>
#include <map>

using namespace mlir;
using namespace neuronc;
namespace nisa = mlir::nisa;

std::string neuronc::formatSourceLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatSourceLocation(name.getChildLoc());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::string s;
    for (Location l : fused.getLocations()) {
      std::string part = formatSourceLocation(l);
      if (part.empty())
        continue;
      s += (s.empty() ? "" : "; ") + part;
    }
    return s;
  }
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatSourceLocation(call.getCallee());
  return "";
}

std::string neuronc::locationOpName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    // An exporter's name inside ours wins: loc("neuron.mul"(loc("aten::mul"(...)))),
    // unless ours fused several of them (a fused rmsnorm of aten::pow, aten::mean, ...).
    std::string inner = locationOpName(name.getChildLoc());
    if (auto fused = dyn_cast<FusedLoc>(name.getChildLoc())) {
      llvm::StringSet<> names;
      for (Location l : fused.getLocations())
        if (std::string n = locationOpName(l); !n.empty())
          names.insert(n);
      if (names.size() > 1)
        return name.getName().str();
    }
    return inner.empty() ? name.getName().str() : inner;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string n = locationOpName(l); !n.empty())
        return n;
  return "";
}

namespace {

isa::DType dtypeOf(Type t) {
  if (t.isBF16())
    return isa::DType::BF16;
  if (t.isF16())
    return isa::DType::F16;
  if (t.isInteger(32))
    return isa::DType::I32;
  if (t.isInteger(1))
    return isa::DType::I1;
  return isa::DType::F32;
}

/// The bytes of a constant in device layout (i1 one byte each).
void appendConstant(ElementsAttr value, std::vector<uint8_t> &out) {
  Type et = value.getElementType();
  // The low `n` bytes of `v`, little-endian whatever the host is.
  auto push = [&](uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (et.isInteger(1)) {
      for (bool v : dense.getValues<bool>())
        out.push_back(v ? 1 : 0);
      return;
    }
    if (llvm::isa<FloatType>(et)) {
      for (APFloat v : dense.getValues<APFloat>()) {
        APInt bits = v.bitcastToAPInt();
        uint64_t raw = bits.getZExtValue();
        push(raw, bits.getBitWidth() / 8);
      }
      return;
    }
    for (APInt v : dense.getValues<APInt>()) {
      uint32_t raw = static_cast<uint32_t>(v.getSExtValue());
      push(raw, 4);
    }
    return;
  }
  // Other elements attributes (resources): go through APFloat/APInt values.
  if (llvm::isa<FloatType>(et)) {
    for (APFloat v : value.getValues<APFloat>()) {
      APInt bits = v.bitcastToAPInt();
      uint64_t raw = bits.getZExtValue();
      push(raw, bits.getBitWidth() / 8);
    }
  } else {
    for (APInt v : value.getValues<APInt>()) {
      if (et.isInteger(1)) {
        out.push_back(v.isZero() ? 0 : 1);
      } else {
        uint32_t raw = static_cast<uint32_t>(v.getSExtValue());
        push(raw, 4);
      }
    }
  }
}

struct ProgramAssembler {
  nisa::ProgramOp program;
  const HardwareModel &hw;
  std::vector<uint8_t> &constants;
  neff::Program out;
  nisa::MemoryResolver resolver;
  llvm::DenseMap<Operation *, uint32_t> varIndex;
  std::map<std::tuple<uint32_t, std::string, std::string>, uint32_t> debugIndex;

  ProgramAssembler(nisa::ProgramOp program, const HardwareModel &hw,
                   std::vector<uint8_t> &constants)
      : program(program), hw(hw), constants(constants), resolver(program) {}

  FailureOr<isa::Operand> operand(nisa::KernelOp kernel, FlatSymbolRefAttr sym,
                                  nisa::AccessPatternAttr ap, Operation *inst) {
    Operation *decl = resolver.lookup(kernel, sym);
    isa::Operand o;
    o.rank = ap.getSizes().size();
    for (int d = 0; d < o.rank; ++d) {
      o.sizes[d] = ap.getSizes()[d];
      o.strides[d] = ap.getStrides()[d];
    }
    if (auto tile = dyn_cast_or_null<nisa::AllocOp>(decl)) {
      if (!tile.getOffset())
        return inst->emitOpError("uses tile ") << sym << " before it is allocated";
      o.space = tile.getSpace() == nisa::MemorySpace::sbuf ? isa::Space::Sbuf : isa::Space::Psum;
      o.dtype = dtypeOf(tile.getElementType());
      o.partStart = ap.getPartStart();
      o.partCount = ap.getPartCount();
      o.offset = *tile.getOffset() + ap.getOffset() * isa::dtypeBytes(o.dtype);
      return o;
    }
    if (auto hbm = dyn_cast_or_null<nisa::HbmOp>(decl)) {
      o.space = isa::Space::Hbm;
      o.dtype = dtypeOf(hbm.getElementType());
      o.var = varIndex.lookup(hbm);
      o.offset = ap.getOffset();
      return o;
    }
    return inst->emitOpError("names unknown memory ") << sym;
  }

  LogicalResult run() {
    out.name = program.getSymName().str();
    out.target = program.getTarget().str();
    for (nisa::HbmOp t : program.getBodyBlock().getOps<nisa::HbmOp>()) {
      neff::Variable v;
      v.name = t.getSymName().str();
      v.dtype = dtypeOf(t.getElementType());
      v.shape.assign(t.getTensorType().getShape().begin(), t.getTensorType().getShape().end());
      switch (t.getKind()) {
      case nisa::HbmKind::input:
        v.kind = neff::VarKind::Input;
        v.index = *t.getIndex();
        break;
      case nisa::HbmKind::output:
        v.kind = neff::VarKind::Output;
        v.index = *t.getIndex();
        break;
      case nisa::HbmKind::constant:
        v.kind = neff::VarKind::Const;
        constants.resize((constants.size() + 63) / 64 * 64);
        v.offset = constants.size();
        appendConstant(*t.getValue(), constants);
        break;
      case nisa::HbmKind::internal:
        if (!t.getOffset())
          return t.emitOpError("has no scratch offset: run --nisa-allocate-memory first");
        v.kind = neff::VarKind::Internal;
        v.offset = *t.getOffset();
        out.scratchBytes = std::max(out.scratchBytes, v.offset + v.bytes());
        break;
      }
      varIndex[t] = out.variables.size();
      out.variables.push_back(std::move(v));
    }
    SmallVector<int64_t> stationary(1, hw.partitions);
    for (nisa::KernelOp kernel : program.getBodyBlock().getOps<nisa::KernelOp>()) {
      uint32_t ki = out.kernels.size();
      neff::Kernel k;
      k.name = kernel.getSymName().str();
      k.kind = kernel.getKind().str();
      k.source = kernel.getSource().str();
      k.location = formatSourceLocation(kernel.getLoc());
      out.kernels.push_back(std::move(k));
      for (Operation &op : kernel.getBodyBlock()) {
        if (!llvm::isa<nisa::InstructionOpInterface>(op))
          continue;
        FailureOr<isa::Instruction> inst = encode(kernel, &op);
        if (failed(inst))
          return failure();
        std::string name = locationOpName(op.getLoc());
        auto key = std::make_tuple(ki, name, formatSourceLocation(op.getLoc()));
        auto [it, inserted] = debugIndex.try_emplace(key, out.debug.size());
        if (inserted)
          out.debug.push_back({ki, name, std::get<2>(key)});
        inst->debug = it->second;
        if (inst->opcode == isa::Opcode::LoadStationary)
          stationary[0] = inst->operands[0].numElements();
        accumulateCost(hw, *inst, stationary[0], out.kernels[ki].cost);
        out.streams[inst->stream()].push_back(std::move(*inst));
      }
    }
    return success();
  }

  FailureOr<isa::Instruction> encode(nisa::KernelOp kernel, Operation *op) {
    isa::Instruction inst;
    auto iface = cast<nisa::InstructionOpInterface>(op);
    inst.engine = nisa::toIsa(iface.getInstructionEngine());
    if (auto w = op->getAttrOfType<DenseI64ArrayAttr>("wait"))
      for (size_t i = 0; i + 1 < w.size(); i += 2)
        inst.waits.push_back({static_cast<uint8_t>(w[i]), static_cast<uint32_t>(w[i + 1])});
    if (op->hasAttr("signal"))
      inst.flags |= isa::kSignal;
    bool failedOperand = false;
    auto add = [&](FlatSymbolRefAttr sym, nisa::AccessPatternAttr ap) {
      FailureOr<isa::Operand> o = operand(kernel, sym, ap, op);
      if (failed(o))
        failedOperand = true;
      else
        inst.operands.push_back(*o);
    };
    auto fl = [](std::optional<APFloat> v, float def) {
      return v ? v->convertToFloat() : def;
    };
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](nisa::DmaCopyOp d) {
          inst.opcode = isa::Opcode::DmaCopy;
          inst.queue = d.getQueue();
          add(d.getDstAttr(), d.getDstAp());
          add(d.getSrcAttr(), d.getSrcAp());
          neff::DmaDescriptor desc;
          if (d.getIndirect()) {
            inst.flags |= isa::kIndirect;
            add(d.getIndirectAttr(), *d.getIndirectAp());
            inst.params[1] = *d.getIndirectStride();
            inst.params[2] = *d.getIndirectBound();
            desc.indirect = true;
            desc.indirectStride = inst.params[1];
            desc.indirectBound = inst.params[2];
          }
          if (inst.operands.size() >= 2) {
            desc.dst = inst.operands[0];
            desc.src = inst.operands[1];
            if (desc.indirect && inst.operands.size() > 2)
              desc.index = inst.operands[2];
          }
          inst.params[0] = out.dma.size();
          out.dma.push_back(desc);
        })
        .Case([&](nisa::LoadStationaryOp l) {
          inst.opcode = isa::Opcode::LoadStationary;
          add(l.getSrcAttr(), l.getSrcAp());
        })
        .Case([&](nisa::MultiplyMovingOp m) {
          inst.opcode = isa::Opcode::MultiplyMoving;
          if (m.getStart())
            inst.flags |= isa::kStart;
          add(m.getDstAttr(), m.getDstAp());
          add(m.getSrcAttr(), m.getSrcAp());
        })
        .Case([&](nisa::TransposeOp t) {
          inst.opcode = isa::Opcode::Transpose;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::ActivationOp a) {
          inst.opcode = isa::Opcode::Activation;
          inst.func = static_cast<uint8_t>(a.getFunc());
          inst.imm0 = fl(a.getScaleImm(), 1.0f);
          inst.imm1 = fl(a.getBiasImm(), 0.0f);
          add(a.getDstAttr(), a.getDstAp());
          add(a.getSrcAttr(), a.getSrcAp());
          if (a.getScale()) {
            inst.flags |= isa::kHasScale;
            add(a.getScaleAttr(), *a.getScaleAp());
          }
          if (a.getBias()) {
            inst.flags |= isa::kHasBias;
            add(a.getBiasAttr(), *a.getBiasAp());
          }
          if (a.getAcc()) {
            inst.flags |= isa::kHasAcc;
            add(a.getAccAttr(), *a.getAccAp());
          }
        })
        .Case([&](nisa::TensorTensorOp t) {
          inst.opcode = isa::Opcode::TensorTensor;
          inst.func = static_cast<uint8_t>(t.getOp());
          add(t.getDstAttr(), t.getDstAp());
          add(t.getLhsAttr(), t.getLhsAp());
          add(t.getRhsAttr(), t.getRhsAp());
        })
        .Case([&](nisa::TensorScalarOp t) {
          inst.opcode = isa::Opcode::TensorScalar;
          inst.func = static_cast<uint8_t>(t.getOp0());
          inst.imm0 = fl(t.getImm0(), 0.0f);
          inst.imm1 = fl(t.getImm1(), 0.0f);
          if (t.getReverse0())
            inst.flags |= isa::kReverse0;
          if (t.getOp1()) {
            inst.flags |= isa::kHasOp1;
            inst.op1 = static_cast<uint8_t>(*t.getOp1());
            if (t.getReverse1())
              inst.flags |= isa::kReverse1;
          }
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
          if (t.getS0()) {
            inst.flags |= isa::kHasS0;
            add(t.getS0Attr(), *t.getS0Ap());
          }
          if (t.getS1()) {
            inst.flags |= isa::kHasS1;
            add(t.getS1Attr(), *t.getS1Ap());
          }
        })
        .Case([&](nisa::ScalarTensorTensorOp t) {
          inst.opcode = isa::Opcode::ScalarTensorTensor;
          inst.func = static_cast<uint8_t>(t.getOp0());
          inst.op1 = static_cast<uint8_t>(t.getOp1());
          inst.imm0 = fl(t.getImm0(), 0.0f);
          add(t.getDstAttr(), t.getDstAp());
          add(t.getLhsAttr(), t.getLhsAp());
          if (t.getS0()) {
            inst.flags |= isa::kHasS0;
            add(t.getS0Attr(), *t.getS0Ap());
          }
          add(t.getRhsAttr(), t.getRhsAp());
        })
        .Case([&](nisa::TensorReduceOp t) {
          inst.opcode = isa::Opcode::TensorReduce;
          inst.func = static_cast<uint8_t>(t.getOp());
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::TensorCopyOp t) {
          inst.opcode = isa::Opcode::TensorCopy;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::ReciprocalOp t) {
          inst.opcode = isa::Opcode::Reciprocal;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::SelectOp t) {
          inst.opcode = isa::Opcode::Select;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getCondAttr(), t.getCondAp());
          add(t.getOnTrueAttr(), t.getOnTrueAp());
          add(t.getOnFalseAttr(), t.getOnFalseAp());
        })
        .Case([&](nisa::BnStatsOp t) {
          inst.opcode = isa::Opcode::BnStats;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::BnAggrOp t) {
          inst.opcode = isa::Opcode::BnAggr;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::IotaOp t) {
          inst.opcode = isa::Opcode::Iota;
          inst.params[0] = t.getBase();
          inst.params[1] = t.getPartitionStep();
          for (auto [i, s] : llvm::enumerate(t.getSteps()))
            if (i + 2 < inst.params.size())
              inst.params[i + 2] = s;
          add(t.getDstAttr(), t.getDstAp());
        })
        .Case([&](nisa::AffineSelectOp t) {
          inst.opcode = isa::Opcode::AffineSelect;
          inst.func = static_cast<uint8_t>(t.getCmp());
          inst.imm0 = t.getFill().convertToFloat();
          inst.params[0] = t.getConstant();
          inst.params[1] = t.getPartitionCoeff();
          for (auto [i, s] : llvm::enumerate(t.getCoeffs()))
            if (i + 2 < inst.params.size())
              inst.params[i + 2] = s;
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::PartitionReduceOp t) {
          inst.opcode = isa::Opcode::PartitionReduce;
          inst.func = static_cast<uint8_t>(t.getOp());
          add(t.getDstAttr(), t.getDstAp());
          add(t.getSrcAttr(), t.getSrcAp());
        })
        .Case([&](nisa::MemsetOp t) {
          inst.opcode = isa::Opcode::Memset;
          inst.imm0 = t.getValue().convertToFloat();
          add(t.getDstAttr(), t.getDstAp());
        });
    if (failedOperand)
      return failure();
    return inst;
  }
};

} // namespace


FailureOr<neff::Executable> neuronc::assemble(ModuleOp module, StringRef compilerVersion) {
  neff::Executable exe;
  exe.compiler = ("neuronc " + compilerVersion).str();
  llvm::StringMap<uint32_t> programIndex;
  for (nisa::ProgramOp program : module.getOps<nisa::ProgramOp>()) {
    const HardwareModel *hw = lookupHardwareModel(program.getTarget());
    if (!hw)
      return program.emitOpError("unknown target ") << program.getTarget();
    if (exe.target.empty())
      exe.target = program.getTarget().str();
    else if (exe.target != program.getTarget())
      return program.emitOpError("targets ")
             << program.getTarget() << " but the executable is for " << exe.target;
    ProgramAssembler pa(program, *hw, exe.constants);
    if (failed(pa.run()))
      return failure();
    for (const auto &s : pa.out.streams)
      for (const isa::Instruction &inst : s)
        if (inst.has(isa::kIndirect))
          exe.requiredFeatures |= neff::kFeatureIndirectDma;
    programIndex[pa.out.name] = static_cast<uint32_t>(exe.programs.size());
    exe.programs.push_back(std::move(pa.out));
  }
  // Bucketed entry points: a nisa.entry over bucket programs.
  llvm::StringSet<> inBuckets;
  for (nisa::EntryOp d : module.getOps<nisa::EntryOp>()) {
    neff::EntryPoint entry;
    entry.name = d.getSymName().str();
    entry.signature = d.getSignature();
    for (auto [ref, sizes] : llvm::zip(d.getCallees(), entry.signature.buckets)) {
      StringRef callee = cast<FlatSymbolRefAttr>(ref).getValue();
      auto it = programIndex.find(callee);
      if (it == programIndex.end())
        return d.emitOpError("bucket ") << callee << " was not lowered to a program";
      entry.buckets.push_back({it->second, sizes});
      inBuckets.insert(callee);
    }
    exe.requiredFeatures |= neff::kFeatureBuckets;
    exe.entries.push_back(std::move(entry));
  }
  for (auto [i, p] : llvm::enumerate(exe.programs))
    if (!inBuckets.contains(p.name)) {
      neff::EntryPoint entry;
      entry.name = p.name;
      entry.buckets.push_back({static_cast<uint32_t>(i), {}});
      exe.entries.push_back(std::move(entry));
    }
  if (exe.programs.empty())
    return module.emitError("nothing to assemble: the module has no nisa.program (run "
                            "--neuron-lower and the backend passes first)");
  return exe;
}
