//===- Assemble.cpp - nisa programs to an executable ----------------------===//

#include "neuronc/Conversion/NisaToNeff.h"

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/InstructionCost.h"

#include "llvm/ADT/MapVector.h"

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
    // unless ours fused several of them (a fused rmsnorm of aten::pow, aten::mean, ...)
    // or fused ops that had only our names (fusion names each member after its op).
    std::string inner = locationOpName(name.getChildLoc());
    if (auto fused = dyn_cast<FusedLoc>(name.getChildLoc())) {
      llvm::StringSet<> names;
      for (Location l : fused.getLocations())
        if (std::string n = locationOpName(l); !n.empty())
          names.insert(n);
      if (names.size() > 1 || llvm::StringRef(inner).starts_with("neuron."))
        return name.getName().str();
    }
    return inner.empty() ? name.getName().str() : inner;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string n = locationOpName(l); !n.empty())
        return n;
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return locationOpName(call.getCallee());
  return "";
}

std::vector<neff::AbsorbedOp> neuronc::absorbedSourceOps(Location loc) {
  std::vector<neff::AbsorbedOp> out;
  if (auto name = dyn_cast<NameLoc>(loc))
    return absorbedSourceOps(name.getChildLoc());
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return out;
  // In source order: by file, line and column where the members have them.
  SmallVector<std::pair<Location, FileLineColLoc>> members;
  for (Location l : fused.getLocations())
    members.push_back({l, l->findInstanceOf<FileLineColLoc>()});
  llvm::stable_sort(members, [](auto a, auto b) {
    if (!a.second || !b.second)
      return a.second && !b.second;
    return std::make_tuple(a.second.getFilename().strref(), a.second.getLine(),
                           a.second.getColumn()) < std::make_tuple(b.second.getFilename().strref(),
                                                                   b.second.getLine(),
                                                                   b.second.getColumn());
  });
  for (auto [l, file] : members)
    if (std::string op = locationOpName(l); !op.empty())
      out.push_back({op, formatSourceLocation(l)});
  return out;
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
      // One core's part of an input or output (the verifier allows no other).
      if (std::optional<ArrayRef<int64_t>> shard = t.getShard()) {
        v.shardDim = (*shard)[0];
        v.shardParts = (*shard)[1];
      }
      v.dtype = dtypeOf(t.getElementType());
      v.shape.assign(t.getTensorType().getShape().begin(), t.getTensorType().getShape().end());
      switch (t.getKind()) {
      case nisa::HbmKind::input:
        v.kind = neff::VarKind::Input;
        v.index = *t.getIndex();
        v.hostTransposed = t.getHostTransposed();
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
    // Every kernel's record first: a prefetched load, in an earlier
    // kernel's stream, belongs to the kernel it names.
    uint32_t firstKernel = out.kernels.size();
    llvm::StringMap<uint32_t> kernelIndex;
    for (nisa::KernelOp kernel : program.getBodyBlock().getOps<nisa::KernelOp>()) {
      kernelIndex[kernel.getSymName()] = out.kernels.size();
      neff::Kernel k;
      k.name = kernel.getSymName().str();
      k.kind = kernel.getKind().str();
      k.source = kernel.getSource().str();
      k.location = formatSourceLocation(kernel.getLoc());
      k.absorbed = absorbedSourceOps(kernel.getLoc());
      out.kernels.push_back(std::move(k));
    }
    uint32_t ki = firstKernel;
    for (nisa::KernelOp kernel : program.getBodyBlock().getOps<nisa::KernelOp>()) {
      for (Operation &op : kernel.getBodyBlock()) {
        if (!llvm::isa<nisa::InstructionOpInterface>(op))
          continue;
        FailureOr<isa::Instruction> inst = encode(kernel, &op);
        if (failed(inst))
          return failure();
        std::string name = locationOpName(op.getLoc());
        uint32_t owner = ki;
        if (auto of = op.getAttrOfType<FlatSymbolRefAttr>(nisa::kPrefetchForAttrName)) {
          auto found = kernelIndex.find(of.getValue());
          if (found == kernelIndex.end())
            return op.emitOpError("is prefetched for kernel ")
                   << of << ", which the program does not have";
          owner = found->second;
        }
        auto key = std::make_tuple(owner, name, formatSourceLocation(op.getLoc()));
        auto [it, inserted] = debugIndex.try_emplace(key, out.debug.size());
        if (inserted)
          out.debug.push_back({owner, name, std::get<2>(key)});
        inst->debug = it->second;
        if (inst->opcode == isa::Opcode::LoadStationary)
          stationary[0] = inst->operands[0].numElements();
        accumulateCost(hw, *inst, stationary[0], out.kernels[owner].cost);
        out.streams[inst->stream()].push_back(std::move(*inst));
      }
      ++ki;
    }
    return success();
  }

  /// The record of instruction `op`, filled as its op declares in NisaOps.td
  /// (RecordEncoding) and its opcode's Isa.def row says: no case per op.
  FailureOr<isa::Instruction> encode(nisa::KernelOp kernel, Operation *op) {
    isa::Instruction inst;
    auto iface = cast<nisa::InstructionOpInterface>(op);
    const nisa::RecordEncoding &enc = iface.getRecordEncoding();
    std::optional<isa::Opcode> opcode = isa::symbolizeOpcode(op->getName().stripDialect());
    if (!opcode)
      return op->emitOpError("has no opcode in the instruction set (include/neuronc/ISA/Isa.def)");
    inst.opcode = *opcode;
    inst.engine = nisa::toIsa(iface.getInstructionEngine());
    if (auto w = op->getAttrOfType<DenseI64ArrayAttr>("wait"))
      for (size_t i = 0; i + 1 < w.size(); i += 2)
        inst.waits.push_back({static_cast<uint8_t>(w[i]), static_cast<uint32_t>(w[i + 1])});
    if (op->hasAttr("signal"))
      inst.flags |= isa::kSignal;
    for (auto [name, flag] : enc.flags)
      if (op->hasAttr(name))
        inst.flags |= flag;
    if (failed(encodeFunctions(op, inst)))
      return failure();
    for (auto [i, spec] : llvm::enumerate(enc.immediates)) {
      auto [name, def] = spec.split('=');
      double value = 0.0;
      if (auto f = op->getAttrOfType<FloatAttr>(name))
        value = f.getValue().convertToFloat();
      else if (!def.empty() && def.getAsDouble(value))
        return op->emitOpError("declares immediate '") << spec << "' with a bad default";
      (i == 0 ? inst.imm0 : inst.imm1) = static_cast<float>(value);
    }
    // dma_copy's params[0] names its descriptor; the declared ones follow.
    size_t param = inst.opcode == isa::Opcode::DmaCopy ? 1 : 0;
    for (StringRef name : enc.params) {
      Attribute a = op->getAttr(name);
      if (auto i = dyn_cast_or_null<IntegerAttr>(a))
        setParam(inst, param++, i.getInt());
      else if (auto arr = dyn_cast_or_null<DenseI64ArrayAttr>(a))
        for (int64_t v : arr.asArrayRef())
          setParam(inst, param++, v);
    }
    uint16_t optional = isa::optionalFlagsOf(inst.opcode);
    for (StringRef spec : enc.operands) {
      bool isOptional = spec.consume_back("?");
      auto sym = op->getAttrOfType<FlatSymbolRefAttr>(spec);
      auto ap = op->getAttrOfType<nisa::AccessPatternAttr>((spec + "_ap").str());
      uint16_t flag = 0;
      if (isOptional) {
        flag = static_cast<uint16_t>(optional & -optional); // the lowest one left
        optional &= ~flag;
      }
      if (!sym || !ap) {
        if (!isOptional)
          return op->emitOpError("has no operand '") << spec << "' to encode";
        continue;
      }
      FailureOr<isa::Operand> o = operand(kernel, sym, ap, op);
      if (failed(o))
        return failure();
      inst.operands.push_back(*o);
      inst.flags |= flag;
    }
    if (inst.opcode == isa::Opcode::DmaCopy)
      encodeDescriptor(op, inst);
    else if (isa::isCollective(inst.opcode))
      inst.queue = op->getAttrOfType<IntegerAttr>("queue").getInt(); // its operands in the record
    return inst;
  }

  /// params[k] = v; parameters past the record's are dropped (the verifier
  /// bounds the dims they describe).
  static void setParam(isa::Instruction &inst, size_t k, int64_t v) {
    if (k < inst.params.size())
      inst.params[k] = v;
  }

  /// The function fields of `op` by its opcode's function kind (Isa.def):
  /// `func` (Act), `op` (Alu), `op0` and `op1` (AluAlu, AluOptAlu with
  /// kHasOp1), `cmp` (Cmp).
  LogicalResult encodeFunctions(Operation *op, isa::Instruction &inst) {
    auto field = [&](StringRef name, bool optional, uint8_t &to) -> LogicalResult {
      auto a = op->getAttrOfType<IntegerAttr>(name);
      if (!a)
        return optional ? success()
                        : op->emitOpError("has no function attribute '") << name << "' to encode";
      to = static_cast<uint8_t>(a.getInt());
      return success();
    };
    switch (isa::funcKindOf(inst.opcode)) {
    case isa::FuncKind::None:
      return success();
    case isa::FuncKind::Act:
      return field("func", false, inst.func);
    case isa::FuncKind::Alu:
      return field("op", false, inst.func);
    case isa::FuncKind::Cmp:
      return field("cmp", false, inst.func);
    case isa::FuncKind::AluAlu:
      return success(succeeded(field("op0", false, inst.func)) &&
                     succeeded(field("op1", false, inst.op1)));
    case isa::FuncKind::AluOptAlu:
      if (failed(field("op0", false, inst.func)))
        return failure();
      if (op->hasAttr("op1"))
        inst.flags |= isa::kHasOp1;
      return field("op1", true, inst.op1);
    }
    return success();
  }

  /// A dma_copy's operands live in the executable's descriptor table
  /// (docs/neff-format.md); its record names the descriptor and the queue.
  void encodeDescriptor(Operation *op, isa::Instruction &inst) {
    inst.queue = op->getAttrOfType<IntegerAttr>("queue").getInt();
    neff::DmaDescriptor desc;
    desc.dst = inst.operands[0];
    desc.src = inst.operands[1];
    if (inst.operands.size() > 2) {
      inst.flags |= isa::kIndirect;
      desc.indirect = true;
      desc.index = inst.operands[2];
      desc.indirectStride = inst.params[1];
      desc.indirectBound = inst.params[2];
    }
    inst.params[0] = out.dma.size();
    out.dma.push_back(desc);
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
    for (const neff::Variable &v : pa.out.variables)
      if (v.hostTransposed)
        exe.requiredFeatures |= neff::kFeatureHostLayouts;
    if (pa.out.collectiveGroup() > 1)
      exe.requiredFeatures |= neff::kFeatureTensorParallel;
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
