//===- NeffWriter.cpp - Encoding the executable ---------------------------===//

#include "NeffFormat.h"

#include "neuronc/Support/AtomicWrite.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

using namespace neuronc;
using namespace neuronc::neff;
using namespace neuronc::neff::format;

llvm::StringRef neuronc::neff::varKindName(VarKind k) {
  switch (k) {
  case VarKind::Input: return "input";
  case VarKind::Output: return "output";
  case VarKind::Const: return "const";
  case VarKind::Internal: return "internal";
  }
  return "?";
}

std::vector<int64_t> Variable::localHostShape() const {
  std::vector<int64_t> s = shape;
  if (hostTransposed && s.size() >= 2)
    std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

std::vector<int64_t> Variable::hostShape() const {
  std::vector<int64_t> s = localHostShape();
  if (sharded() && shardDim < static_cast<int64_t>(s.size()))
    s[shardDim] *= shardParts;
  return s;
}

int64_t Variable::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<const Variable *> Program::inputs() const {
  std::vector<const Variable *> out;
  for (const Variable &v : variables)
    if (v.kind == VarKind::Input)
      out.push_back(&v);
  llvm::sort(out, [](auto *a, auto *b) { return a->index < b->index; });
  return out;
}

std::vector<const Variable *> Program::outputs() const {
  std::vector<const Variable *> out;
  for (const Variable &v : variables)
    if (v.kind == VarKind::Output)
      out.push_back(&v);
  llvm::sort(out, [](auto *a, auto *b) { return a->index < b->index; });
  return out;
}

int64_t Program::instructionCount() const {
  int64_t n = 0;
  for (const auto &s : streams)
    n += s.size();
  return n;
}

int64_t Program::collectiveGroup() const {
  int64_t group = 1;
  for (const auto &s : streams)
    for (const isa::Instruction &inst : s)
      if (isa::isCollective(inst.opcode))
        group = std::max(group, inst.params[0]);
  return group;
}

bool neuronc::isa::operator==(const isa::Operand &a, const isa::Operand &b) {
  if (a.space != b.space || a.dtype != b.dtype || a.var != b.var || a.partStart != b.partStart ||
      a.partCount != b.partCount || a.offset != b.offset || a.rank != b.rank)
    return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.sizes[d] != b.sizes[d] || a.strides[d] != b.strides[d])
      return false;
  return true;
}

bool neuronc::neff::operator==(const DmaDescriptor &a, const DmaDescriptor &b) {
  return a.dst == b.dst && a.src == b.src && a.indirect == b.indirect &&
         (!a.indirect || (a.index == b.index && a.indirectStride == b.indirectStride &&
                          a.indirectBound == b.indirectBound));
}

bool neuronc::isa::operator==(const isa::Instruction &a, const isa::Instruction &b) {
  if (a.opcode != b.opcode || a.engine != b.engine || a.queue != b.queue || a.flags != b.flags ||
      a.func != b.func || a.op1 != b.op1 ||
      // Bit for bit, as encoded: a NaN immediate equals itself.
      llvm::bit_cast<uint32_t>(a.imm0) != llvm::bit_cast<uint32_t>(b.imm0) ||
      llvm::bit_cast<uint32_t>(a.imm1) != llvm::bit_cast<uint32_t>(b.imm1) ||
      a.params != b.params || a.debug != b.debug || a.waits.size() != b.waits.size() ||
      a.operands.size() != b.operands.size())
    return false;
  for (size_t i = 0; i < a.waits.size(); ++i)
    if (a.waits[i].stream != b.waits[i].stream || a.waits[i].count != b.waits[i].count)
      return false;
  for (size_t i = 0; i < a.operands.size(); ++i)
    if (!(a.operands[i] == b.operands[i]))
      return false;
  return true;
}

bool Executable::operator==(const Executable &o) const {
  return major == o.major && minor == o.minor && requiredFeatures == o.requiredFeatures &&
         optionalFeatures == o.optionalFeatures && target == o.target &&
         compiler == o.compiler && entries == o.entries && programs == o.programs &&
         constants == o.constants;
}

namespace {

/// Little-endian appends.
class Bytes {
public:
  std::vector<uint8_t> data;
  void u8(uint8_t v) { data.push_back(v); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void i64(int64_t v) { put(static_cast<uint64_t>(v)); }
  void f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    put(u);
  }
  void pad(size_t n) { data.insert(data.end(), n, 0); }
  void align(size_t a) { pad((a - data.size() % a) % a); }
  template <typename T> void put(T v) {
    uint8_t buf[sizeof(T)];
    llvm::support::endian::write<T, llvm::endianness::little>(buf, v);
    data.insert(data.end(), buf, buf + sizeof(T));
  }
  template <typename T> void patch(size_t at, T v) {
    llvm::support::endian::write<T, llvm::endianness::little>(data.data() + at, v);
  }
};

/// The string table: every string once, NUL-terminated.
class Strings {
public:
  uint32_t add(llvm::StringRef s) {
    auto [it, inserted] = index.try_emplace(s, bytes.data.size());
    if (inserted) {
      bytes.data.insert(bytes.data.end(), s.begin(), s.end());
      bytes.u8(0);
    }
    return it->second;
  }
  Bytes bytes;

private:
  llvm::StringMap<uint32_t> index;
};

void writeOperand(Bytes &b, const isa::Operand &o) {
  b.u8(static_cast<uint8_t>(o.space));
  b.u8(static_cast<uint8_t>(o.dtype));
  b.u8(o.rank);
  b.u8(0);
  b.u32(o.var);
  b.u32(o.partStart);
  b.u32(o.partCount);
  b.i64(o.offset);
  for (int d = 0; d < o.rank; ++d) {
    b.i64(o.sizes[d]);
    b.i64(o.strides[d]);
  }
}

int paramCount(const isa::Instruction &inst) {
  int n = 0;
  for (size_t i = 0; i < inst.params.size(); ++i)
    if (inst.params[i])
      n = i + 1;
  if (inst.opcode == isa::Opcode::DmaCopy)
    n = std::max(n, 1);
  return n;
}

void writeInstruction(Bytes &b, const isa::Instruction &inst) {
  size_t start = b.data.size();
  int params = paramCount(inst);
  bool dma = inst.opcode == isa::Opcode::DmaCopy;
  b.u16(0); // length, patched below
  b.u8(static_cast<uint8_t>(inst.opcode));
  b.u8(static_cast<uint8_t>(inst.engine));
  b.u8(inst.queue);
  b.u8(static_cast<uint8_t>(inst.waits.size()));
  b.u8(static_cast<uint8_t>(params));
  b.u8(dma ? 0 : static_cast<uint8_t>(inst.operands.size()));
  b.u16(inst.flags);
  b.u8(inst.func);
  b.u8(inst.op1);
  b.u32(inst.debug);
  b.f32(inst.imm0);
  b.f32(inst.imm1);
  for (const isa::Wait &w : inst.waits) {
    b.u8(w.stream);
    b.pad(3);
    b.u32(w.count);
  }
  for (int i = 0; i < params; ++i)
    b.i64(inst.params[i]);
  if (!dma)
    for (const isa::Operand &o : inst.operands)
      writeOperand(b, o);
  b.patch<uint16_t>(start, static_cast<uint16_t>(b.data.size() - start));
}

void writeCost(Bytes &b, const CostTable &c) {
  for (auto *arr : {&c.instructions, &c.cycles, &c.elements})
    for (int64_t v : *arr)
      b.i64(v);
  for (int64_t v : {c.matmulFlops, c.transposeFlops, c.transcendentals, c.dmaCount, c.dmaBytes,
                    c.dmaQueueNs, c.hbmReadBytes, c.hbmWriteBytes, c.sbufBytes, c.psumBytes})
    b.i64(v);
}

} // namespace

/// The container around `sections`: header, section table (offsets and
/// CRC-32s), the sections 8-byte aligned, and the content hash.
static std::vector<uint8_t>
writeContainer(const Executable &exe, std::vector<std::pair<std::string, Bytes>> &sections) {
  // Header, section table, then the sections (8-byte aligned).
  Bytes out;
  out.pad(kHeaderBytes);
  uint64_t tableAt = out.data.size();
  out.pad(sections.size() * kSectionEntryBytes);
  std::vector<uint64_t> offsets;
  for (auto &[name, b] : sections) {
    out.align(8);
    offsets.push_back(out.data.size());
    out.data.insert(out.data.end(), b.data.begin(), b.data.end());
  }
  uint64_t hash = 0;
  {
    std::vector<uint8_t> all;
    for (auto &[name, b] : sections)
      all.insert(all.end(), b.data.begin(), b.data.end());
    hash = llvm::xxHash64(all);
  }
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t at = tableAt + i * kSectionEntryBytes;
    const std::string &name = sections[i].first;
    std::memcpy(out.data.data() + at, name.data(), std::min<size_t>(name.size(), 15));
    out.patch<uint64_t>(at + 16, offsets[i]);
    out.patch<uint64_t>(at + 24, sections[i].second.data.size());
    out.patch<uint32_t>(at + 32, llvm::crc32(sections[i].second.data));
  }
  std::memcpy(out.data.data() + kMagicAt, kMagic, 8);
  // The layout written is always this writer's, whatever version was read.
  out.patch<uint16_t>(kMajorAt, kMajorVersion);
  out.patch<uint16_t>(kMinorAt, kMinorVersion);
  out.patch<uint32_t>(kHeaderSizeAt, kHeaderBytes);
  out.patch<uint64_t>(kRequiredAt, exe.requiredFeatures);
  out.patch<uint64_t>(kOptionalAt, exe.optionalFeatures);
  std::memcpy(out.data.data() + kTargetAt, exe.target.data(), std::min<size_t>(exe.target.size(), 15));
  std::memcpy(out.data.data() + kCompilerAt, exe.compiler.data(),
              std::min<size_t>(exe.compiler.size(), 31));
  out.patch<uint64_t>(kHashAt, hash);
  out.patch<uint32_t>(kSectionCountAt, sections.size());
  out.patch<uint64_t>(kSectionTableAt, tableAt);
  out.patch<uint64_t>(kFileSizeAt, out.data.size());
  out.patch<uint32_t>(kHeaderCrcAt,
                      llvm::crc32(llvm::ArrayRef<uint8_t>(out.data.data(), kHeaderCrcAt)));
  return out.data;
}

std::vector<uint8_t> neuronc::neff::writeNeff(const Executable &exe) {
  Strings strings;
  std::vector<std::pair<std::string, Bytes>> sections;
  // meta: entry points and programs.
  Bytes meta;
  meta.u32(exe.entries.size());
  for (const EntryPoint &e : exe.entries) {
    meta.u32(strings.add(e.name));
    // The signature (format 1.1): symbols, dims of inputs and outputs, masks,
    // the work model.
    const BucketSignature &sig = e.signature;
    meta.u32(sig.symbols.size());
    for (const std::string &sym : sig.symbols)
      meta.u32(strings.add(sym));
    for (const auto *list : {&sig.inputs, &sig.outputs}) {
      meta.u32(list->size());
      for (const auto &dims : *list) {
        meta.u32(dims.size());
        for (int64_t d : dims)
          meta.i64(d);
      }
    }
    meta.u32(sig.masks.size());
    for (uint32_t m : sig.masks)
      meta.u32(m);
    meta.u32(sig.work.size());
    for (const WorkTerm &t : sig.work) {
      uint64_t bits;
      std::memcpy(&bits, &t.coefficient, 8);
      meta.put(bits);
      for (uint32_t x : t.exponents)
        meta.u32(x);
    }
    meta.u32(e.buckets.size());
    for (const Bucket &bk : e.buckets) {
      meta.u32(bk.program);
      meta.u32(bk.dims.size());
      for (int64_t d : bk.dims)
        meta.i64(d);
    }
  }
  meta.u32(exe.programs.size());
  for (const Program &p : exe.programs) {
    meta.u32(strings.add(p.name));
    meta.u32(strings.add(p.target));
    meta.i64(p.scratchBytes);
    meta.u32(p.variables.size());
    for (const Variable &v : p.variables) {
      meta.u32(strings.add(v.name));
      meta.u8(static_cast<uint8_t>(v.kind));
      meta.u8(static_cast<uint8_t>(v.dtype));
      meta.u8(static_cast<uint8_t>(v.shape.size()));
      meta.u8((v.hostTransposed ? kVarHostTransposed : 0) |
              (v.sharded() ? kVarSharded : 0)); // flags
      meta.i64(v.index);
      meta.i64(v.offset);
      for (int64_t d : v.shape)
        meta.i64(d);
      if (v.sharded()) {
        meta.i64(v.shardDim);
        meta.i64(v.shardParts);
      }
    }
    meta.u32(p.kernels.size());
    for (const Kernel &k : p.kernels)
      for (const std::string *s : {&k.name, &k.kind, &k.source, &k.location})
        meta.u32(strings.add(*s));
    // Which streams have instructions (bit per stream).
    uint32_t present = 0;
    for (size_t s = 0; s < p.streams.size(); ++s)
      if (!p.streams[s].empty())
        present |= 1u << s;
    meta.u32(present);
  }
  sections.push_back({"meta", std::move(meta)});
  for (size_t pi = 0; pi < exe.programs.size(); ++pi) {
    const Program &p = exe.programs[pi];
    for (size_t s = 0; s < p.streams.size(); ++s) {
      if (p.streams[s].empty())
        continue;
      Bytes b;
      b.u32(p.streams[s].size());
      for (const isa::Instruction &inst : p.streams[s])
        writeInstruction(b, inst);
      sections.push_back({programSection(pi, isa::streamName(s)), std::move(b)});
    }
    Bytes dma;
    dma.u32(p.dma.size());
    for (const DmaDescriptor &d : p.dma) {
      dma.u8(d.indirect ? 1 : 0);
      dma.pad(7);
      dma.i64(d.indirectStride);
      dma.i64(d.indirectBound);
      writeOperand(dma, d.dst);
      writeOperand(dma, d.src);
      if (d.indirect)
        writeOperand(dma, d.index);
    }
    sections.push_back({programSection(pi, "dma"), std::move(dma)});
    Bytes debug;
    debug.u32(p.debug.size());
    for (const DebugEntry &d : p.debug) {
      debug.u32(d.kernel);
      debug.u32(strings.add(d.op));
      debug.u32(strings.add(d.location));
    }
    sections.push_back({programSection(pi, "debug"), std::move(debug)});
    Bytes cost;
    cost.u32(p.kernels.size());
    for (const Kernel &k : p.kernels)
      writeCost(cost, k.cost);
    sections.push_back({programSection(pi, "cost"), std::move(cost)});
    // What fused kernels absorbed: only when one did, so that a program
    // without fusion is written as before.
    Bytes absorbed;
    uint32_t count = 0;
    for (const Kernel &k : p.kernels)
      count += k.absorbed.size();
    if (count) {
      absorbed.u32(count);
      for (size_t ki = 0; ki < p.kernels.size(); ++ki)
        for (const AbsorbedOp &a : p.kernels[ki].absorbed) {
          absorbed.u32(ki);
          absorbed.u32(strings.add(a.op));
          absorbed.u32(strings.add(a.location));
        }
      sections.push_back({programSection(pi, "absorbed"), std::move(absorbed)});
    }
  }
  Bytes constants;
  constants.data = exe.constants;
  sections.push_back({"const", std::move(constants)});
  sections.insert(sections.begin() + 1, {"strings", std::move(strings.bytes)});

  return writeContainer(exe, sections);
}

void neuronc::neff::resealNeff(std::vector<uint8_t> &bytes) {
  if (bytes.size() < kHeaderBytes)
    return;
  auto get = [&](size_t at, auto zero) {
    decltype(zero) v;
    std::memcpy(&v, bytes.data() + at, sizeof(v));
    return llvm::support::endian::byte_swap(v, llvm::endianness::little);
  };
  auto put = [&](size_t at, auto v) {
    v = llvm::support::endian::byte_swap(v, llvm::endianness::little);
    std::memcpy(bytes.data() + at, &v, sizeof(v));
  };
  uint64_t count = get(kSectionCountAt, uint32_t());
  uint64_t tableAt = get(kSectionTableAt, uint64_t());
  std::vector<uint8_t> all;
  for (uint64_t i = 0; i < count && i < kMaxSections; ++i) {
    uint64_t at = tableAt + i * kSectionEntryBytes;
    if (tableAt > bytes.size() || at + kSectionEntryBytes > bytes.size() || at < tableAt)
      break;
    uint64_t off = get(at + 16, uint64_t()), size = get(at + 24, uint64_t());
    if (off > bytes.size() || size > bytes.size() - off)
      continue;
    llvm::ArrayRef<uint8_t> data(bytes.data() + off, size);
    put(at + 32, llvm::crc32(data));
    all.insert(all.end(), data.begin(), data.end());
  }
  put(kHashAt, llvm::xxHash64(all));
  put(kFileSizeAt, uint64_t(bytes.size()));
  put(kHeaderCrcAt, llvm::crc32(llvm::ArrayRef<uint8_t>(bytes.data(), kHeaderCrcAt)));
}

llvm::Error neuronc::neff::writeNeffFile(llvm::StringRef path, const Executable &exe) {
  std::vector<uint8_t> bytes = writeNeff(exe);
  return writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
}
