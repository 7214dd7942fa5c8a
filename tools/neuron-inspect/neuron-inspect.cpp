//===- neuron-inspect.cpp - Look inside an executable ---------------------===//
//
// neuron-inspect model.neff [--disassemble] [--json]
// Prints the header, sections, entry points and their buckets, each
// program's variables and instruction counts per engine, and a static
// roofline per kernel and for the program: what bounds it and the
// predicted lower-bound time, without running it.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Target/HardwareModel.h"
#include "neuronc/Target/Neff.h"
#include "neuronc/Target/Roofline.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace neuronc;
namespace cl = llvm::cl;

static cl::OptionCategory category("neuron-inspect options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<executable .neff>"),
                                          cl::Required, cl::cat(category));
static cl::opt<bool> disassemble("disassemble",
                                 cl::desc("List every engine's instructions with their "
                                          "semaphores and source ops"),
                                 cl::cat(category));
static cl::opt<bool> json("json", cl::desc("Print everything as JSON"), cl::cat(category));

namespace {

std::string shapeString(const neff::Variable &v) {
  std::string s = "tensor<";
  for (int64_t d : v.shape)
    s += std::to_string(d) + "x";
  return s + isa::dtypeName(v.dtype).str() + ">";
}

std::string operandString(const neff::Program &p, const isa::Operand &o) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (o.space == isa::Space::Hbm)
    os << "@" << p.variables[o.var].name << "[" << o.offset;
  else
    os << isa::spaceName(o.space) << "[" << o.partStart << ":" << o.partStart + o.partCount
       << "]+" << o.offset << "[";
  for (int d = 0; d < o.rank; ++d)
    os << (d || o.space == isa::Space::Hbm ? ", " : "") << "[" << o.strides[d] << ","
       << o.sizes[d] << "]";
  os << "] " << isa::dtypeName(o.dtype);
  return s;
}

std::string instructionString(const neff::Program &p, const isa::Instruction &inst) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << isa::opcodeName(inst.opcode);
  switch (inst.opcode) {
  case isa::Opcode::Activation:
    os << " " << mlir::nisa::stringifyActFunc(static_cast<isa::ActFunc>(inst.func));
    break;
  case isa::Opcode::TensorTensor:
  case isa::Opcode::TensorReduce:
  case isa::Opcode::PartitionReduce:
  case isa::Opcode::TensorScalar:
  case isa::Opcode::ScalarTensorTensor:
    os << " " << mlir::nisa::stringifyAluOp(static_cast<isa::AluOp>(inst.func));
    if (inst.opcode == isa::Opcode::ScalarTensorTensor || inst.has(isa::kHasOp1))
      os << "," << mlir::nisa::stringifyAluOp(static_cast<isa::AluOp>(inst.op1));
    break;
  default:
    break;
  }
  for (size_t i = 0; i < inst.operands.size(); ++i)
    os << (i ? ", " : " ") << operandString(p, inst.operands[i]);
  if (inst.opcode == isa::Opcode::Activation)
    os << " scale " << inst.imm0 << " bias " << inst.imm1;
  if (inst.opcode == isa::Opcode::TensorScalar || inst.opcode == isa::Opcode::Memset ||
      inst.opcode == isa::Opcode::ScalarTensorTensor)
    os << " imm " << inst.imm0 << (inst.has(isa::kHasOp1) ? "," + std::to_string(inst.imm1) : "");
  if (inst.has(isa::kStart))
    os << " start";
  if (inst.has(isa::kIndirect))
    os << " indirect stride " << inst.params[1] << " bound " << inst.params[2];
  if (!inst.waits.empty()) {
    os << " wait(";
    for (size_t i = 0; i < inst.waits.size(); ++i)
      os << (i ? ", " : "") << mlir::nisa::streamName(inst.waits[i].stream)
         << " >= " << inst.waits[i].count;
    os << ")";
  }
  if (inst.has(isa::kSignal))
    os << " signal";
  return s;
}

std::string formatNs(double ns) {
  if (ns < 1000)
    return llvm::formatv("{0:f1} ns", ns).str();
  if (ns < 1e6)
    return llvm::formatv("{0:f2} us", ns / 1e3).str();
  return llvm::formatv("{0:f3} ms", ns / 1e6).str();
}

std::string formatBytes(int64_t b) {
  if (b < 10 * 1024)
    return std::to_string(b) + " B";
  if (b < 10 * 1024 * 1024)
    return llvm::formatv("{0:f1} KiB", b / 1024.0).str();
  return llvm::formatv("{0:f1} MiB", b / (1024.0 * 1024.0)).str();
}

llvm::json::Object rooflineJSON(const HardwareModel &hw, const neff::CostTable &c) {
  RooflineEstimate r = kernelRoofline(hw, c);
  return llvm::json::Object{
      {"tensor_ns", r.tensorNs},
      {"vector_ns", r.vectorNs},
      {"scalar_ns", r.scalarNs},
      {"gpsimd_ns", r.gpsimdNs},
      {"hbm_ns", r.hbmNs},
      {"latency_ns", r.latencyNs},
      {"predicted_ns", r.boundNs()},
      {"verdict", r.verdict()},
      {"matmul_flops", c.matmulFlops},
      {"hbm_read_bytes", c.hbmReadBytes},
      {"hbm_write_bytes", c.hbmWriteBytes},
      {"arithmetic_intensity", arithmeticIntensity(c)},
      {"ridge_point", hw.ridgePoint()},
      {"dma_count", c.dmaCount},
      {"instructions", llvm::json::Array{c.instructions[0], c.instructions[1],
                                         c.instructions[2], c.instructions[3]}},
  };
}

void printJSON(const neff::Executable &exe, llvm::ArrayRef<neff::SectionInfo> sections,
               const HardwareModel &hw) {
  llvm::json::Array secs, entries, programs;
  for (const auto &s : sections)
    secs.push_back(llvm::json::Object{{"name", s.name},
                                      {"offset", static_cast<int64_t>(s.offset)},
                                      {"size", static_cast<int64_t>(s.size)},
                                      {"crc32", static_cast<int64_t>(s.crc)}});
  for (const auto &e : exe.entries) {
    llvm::json::Array buckets;
    for (const auto &b : e.buckets)
      buckets.push_back(llvm::json::Object{{"program", static_cast<int64_t>(b.program)},
                                           {"dims", llvm::json::Array(b.dims)}});
    entries.push_back(llvm::json::Object{{"name", e.name}, {"buckets", std::move(buckets)}});
  }
  for (const auto &p : exe.programs) {
    llvm::json::Array vars, kernels, streams;
    for (const auto &v : p.variables)
      vars.push_back(llvm::json::Object{{"name", v.name},
                                        {"kind", neff::varKindName(v.kind)},
                                        {"type", shapeString(v)},
                                        {"bytes", v.bytes()},
                                        {"index", v.index}});
    for (const auto &k : p.kernels) {
      llvm::json::Object o{{"name", k.name},
                           {"kind", k.kind},
                           {"source", k.source},
                           {"location", k.location},
                           {"roofline", rooflineJSON(hw, k.cost)}};
      kernels.push_back(std::move(o));
    }
    for (size_t s = 0; s < p.streams.size(); ++s) {
      if (p.streams[s].empty())
        continue;
      llvm::json::Object o{{"stream", mlir::nisa::streamName(s)},
                           {"instructions", static_cast<int64_t>(p.streams[s].size())}};
      if (disassemble) {
        llvm::json::Array list;
        for (const auto &inst : p.streams[s]) {
          const neff::DebugEntry *d = p.debug.empty() ? nullptr : &p.debug[inst.debug];
          list.push_back(llvm::json::Object{
              {"text", instructionString(p, inst)},
              {"kernel", d ? p.kernels[d->kernel].name : ""},
              {"op", d ? d->op : ""},
              {"location", d ? d->location : ""}});
        }
        o["listing"] = std::move(list);
      }
      streams.push_back(std::move(o));
    }
    programs.push_back(llvm::json::Object{{"name", p.name},
                                          {"target", p.target},
                                          {"scratch_bytes", p.scratchBytes},
                                          {"variables", std::move(vars)},
                                          {"streams", std::move(streams)},
                                          {"kernels", std::move(kernels)},
                                          {"roofline", rooflineJSON(hw, programCost(p))}});
  }
  llvm::json::Object root{
      {"format", llvm::formatv("{0}.{1}", exe.major, exe.minor).str()},
      {"target", exe.target},
      {"compiler", exe.compiler},
      {"required_features", static_cast<int64_t>(exe.requiredFeatures)},
      {"content_hash", llvm::formatv("{0:x16}", exe.contentHash).str()},
      {"sections", std::move(secs)},
      {"entry_points", std::move(entries)},
      {"programs", std::move(programs)},
  };
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

void printText(const neff::Executable &exe, llvm::ArrayRef<neff::SectionInfo> sections,
               const HardwareModel &hw) {
  llvm::raw_ostream &os = llvm::outs();
  os << "executable: format " << exe.major << "." << exe.minor << ", target " << exe.target
     << " (" << hw.core << "), " << exe.compiler << "\n";
  os << "  content hash " << llvm::formatv("{0:x16}", exe.contentHash) << ", required features: ";
  if (!exe.requiredFeatures)
    os << "none";
  if (exe.requiredFeatures & neff::kFeatureIndirectDma)
    os << "indirect-dma ";
  if (exe.requiredFeatures & neff::kFeatureBuckets)
    os << "buckets";
  os << "\n\nsections (" << sections.size() << "):\n";
  for (const auto &s : sections)
    os << llvm::formatv("  {0,-14} offset {1,9}  size {2,10}  crc32 {3:x8}\n", s.name, s.offset,
                        s.size, s.crc);
  os << "\nentry points (" << exe.entries.size() << "):\n";
  for (const auto &e : exe.entries) {
    os << "  @" << e.name << ": " << e.buckets.size() << " bucket(s)\n";
    for (const auto &b : e.buckets) {
      os << "    program " << b.program << " (" << exe.programs[b.program].name << ")";
      if (b.dims.empty())
        os << " static shapes";
      else
        for (int64_t d : b.dims)
          os << " " << d;
      os << "\n";
    }
  }
  for (const auto &p : exe.programs) {
    os << "\nprogram @" << p.name << " on " << p.target << ": " << p.inputs().size()
       << " input(s), " << p.outputs().size() << " output(s), scratch "
       << formatBytes(p.scratchBytes) << "\n";
    for (const auto &v : p.variables)
      os << llvm::formatv("  {0,-10} {1,-8} {2,-28} {3}\n", v.name, neff::varKindName(v.kind),
                          shapeString(v), formatBytes(v.bytes()));
    os << "  instructions:";
    int64_t dma = 0, queues = 0;
    for (size_t s = 0; s < p.streams.size(); ++s) {
      if (s < static_cast<size_t>(mlir::nisa::kFirstQueueStream))
        os << " " << mlir::nisa::streamName(s) << " " << p.streams[s].size() << ",";
      else if (!p.streams[s].empty()) {
        dma += p.streams[s].size();
        ++queues;
      }
    }
    os << " dma " << dma << " on " << queues << " queue(s); " << p.instructionCount()
       << " in all\n";
    os << "  static roofline (lower bounds from the instructions' cost formulas; ridge point "
       << llvm::format("%.0f", hw.ridgePoint()) << " FLOP/B):\n";
    os << llvm::formatv("    {0,-6} {1,-18} {2,-20} {3,7} {4,10} {5,10} {6,9} {7,11}  {8}\n",
                        "kernel", "kind", "source", "instrs", "MFLOP", "HBM", "FLOP/B",
                        "predicted", "verdict");
    auto row = [&](llvm::StringRef name, llvm::StringRef kind, llvm::StringRef source,
                   const neff::CostTable &c) {
      RooflineEstimate r = kernelRoofline(hw, c);
      int64_t instrs = c.instructions[0] + c.instructions[1] + c.instructions[2] +
                       c.instructions[3] + c.dmaCount;
      os << llvm::formatv("    {0,-6} {1,-18} {2,-20} {3,7} {4,10:f2} {5,10} {6,9:f1} {7,11}  {8}\n",
                          name, kind.take_front(18), source.take_front(20), instrs,
                          c.matmulFlops / 1e6, formatBytes(c.hbmReadBytes + c.hbmWriteBytes),
                          arithmeticIntensity(c), formatNs(r.boundNs()), r.verdict());
    };
    for (const auto &k : p.kernels)
      row(k.name, k.kind, k.source, k.cost);
    row("all", "", "", programCost(p));
  }
  if (!disassemble)
    return;
  for (const auto &p : exe.programs) {
    os << "\n";
    for (size_t s = 0; s < p.streams.size(); ++s) {
      if (p.streams[s].empty())
        continue;
      os << "== program @" << p.name << ", stream " << mlir::nisa::streamName(s) << " ("
         << p.streams[s].size() << " instructions)\n";
      for (size_t i = 0; i < p.streams[s].size(); ++i) {
        const isa::Instruction &inst = p.streams[s][i];
        os << llvm::formatv("  {0,5}  ", i) << instructionString(p, inst);
        if (!p.debug.empty()) {
          const neff::DebugEntry &d = p.debug[inst.debug];
          os << "    ; " << p.kernels[d.kernel].name << " " << d.op;
          if (!d.location.empty())
            os << " " << d.location;
        }
        os << "\n";
      }
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category});
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "neuron-inspect " << getVersionString() << " (executable format "
       << neff::kMajorVersion << "." << neff::kMinorVersion << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "neuron-inspect: look inside a neuronc executable\n");
  std::vector<neff::SectionInfo> sections;
  auto exe = neff::readNeffFile(inputFilename, &sections);
  if (!exe) {
    llvm::errs() << "neuron-inspect: error: " << llvm::toString(exe.takeError()) << "\n";
    return 1;
  }
  const HardwareModel *hw = lookupHardwareModel(exe->target);
  if (json)
    printJSON(*exe, sections, *hw);
  else
    printText(*exe, sections, *hw);
  return 0;
}
