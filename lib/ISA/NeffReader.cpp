//===- NeffReader.cpp - Decoding and validating the executable ------------===//
//
// Nothing in the file is trusted until checked: the header (magic, version,
// feature bits, CRC), the section table against the file size, each
// section's CRC and the content hash, then every count against the bytes
// left, every enum against its range, every string offset, and every
// operand against the memory it addresses (a tile access inside SBUF/PSUM,
// an HBM access inside its variable, DMA element counts equal). A program
// the reader returns can be executed without bounds checks.
//
//===----------------------------------------------------------------------===//

#include "InstructionRules.h"
#include "NeffCursor.h"
#include "NeffFormat.h"

#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/Support/ByteSize.h"
#include "neuronc/Support/Shape.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

using namespace neuronc;
using namespace neuronc::neff;
using namespace neuronc::neff::format;
using namespace neuronc::neff::detail;
using llvm::createStringError;
using llvm::Error;

namespace {

isa::Operand readOperand(Cursor &c) {
  isa::Operand o;
  o.space = static_cast<isa::Space>(c.u8("operand space"));
  o.dtype = static_cast<isa::DType>(c.u8("operand type"));
  o.rank = c.u8("operand rank");
  c.skip(1);
  o.var = c.u32("operand variable");
  o.partStart = c.u32("operand partition start");
  o.partCount = c.u32("operand partition count");
  o.offset = c.i64("operand offset");
  if (o.rank > isa::kMaxDims) {
    c.fail("operand rank " + llvm::Twine(unsigned(o.rank)) + " exceeds " + llvm::Twine(isa::kMaxDims));
    return o;
  }
  for (int d = 0; d < o.rank; ++d) {
    o.sizes[d] = c.i64("operand size");
    o.strides[d] = c.i64("operand stride");
  }
  return o;
}

} // namespace

/// A bucket's program must take the entry's inputs at the bucket's sizes,
/// then the masks, and return its outputs at those sizes.
static llvm::Error checkBucketProgram(const EntryPoint &e, const Bucket &b, const Program &p) {
  const BucketSignature &sig = e.signature;
  if (!sig.dynamic()) {
    if (!b.dims.empty())
      return fail("entry point '" + e.name + "' has no dynamic dims but a bucket with " +
                  llvm::Twine(b.dims.size()) + " sizes");
    return llvm::Error::success();
  }
  std::vector<const Variable *> in = p.inputs(), out = p.outputs();
  std::string where = "entry point '" + e.name + "' bucket " + sig.formatSizes(b.dims) +
                      " (program '" + p.name + "')";
  if (in.size() != sig.inputs.size() + sig.masks.size() || out.size() != sig.outputs.size())
    return fail(where + " has " + llvm::Twine(in.size()) + " inputs and " +
                llvm::Twine(out.size()) + " outputs; the signature needs " +
                llvm::Twine(sig.inputs.size() + sig.masks.size()) + " and " +
                llvm::Twine(sig.outputs.size()));
  auto check = [&](const Variable *v, std::vector<int64_t> want) -> llvm::Error {
    if (v->shape != want)
      return fail(where + ": " + v->name + " has shape " + formatShape(v->shape) +
                  " but the bucket needs " + formatShape(want));
    return llvm::Error::success();
  };
  for (size_t i = 0; i < sig.inputs.size(); ++i)
    if (llvm::Error err = check(in[i], BucketSignature::shapeAt(sig.inputs[i], b.dims)))
      return err;
  for (size_t k = 0; k < sig.masks.size(); ++k) {
    if (in[sig.inputs.size() + k]->dtype != isa::DType::I1)
      return fail(where + ": mask input " + in[sig.inputs.size() + k]->name + " is not i1");
    if (llvm::Error err = check(in[sig.inputs.size() + k], {b.dims[sig.masks[k]]}))
      return err;
  }
  for (size_t i = 0; i < sig.outputs.size(); ++i)
    if (llvm::Error err = check(out[i], BucketSignature::shapeAt(sig.outputs[i], b.dims)))
      return err;
  return llvm::Error::success();
}

namespace {
/// The container read and checked (header, section table, checksums,
/// content hash), before any section is decoded.
struct Container {
  Executable exe;
  llvm::StringMap<llvm::ArrayRef<uint8_t>> sections;
  const HardwareModel *hw = nullptr;
};
} // namespace

static llvm::Expected<Container> readContainer(llvm::ArrayRef<uint8_t> bytes,
                                               std::vector<SectionInfo> *sectionsOut) {
  Container out;
  Executable &exe = out.exe;
  llvm::StringMap<llvm::ArrayRef<uint8_t>> &sections = out.sections;
  using llvm::support::endian::read;
  auto r16 = [&](size_t at) { return read<uint16_t, llvm::endianness::little>(&bytes[at]); };
  auto r32 = [&](size_t at) { return read<uint32_t, llvm::endianness::little>(&bytes[at]); };
  auto r64 = [&](size_t at) { return read<uint64_t, llvm::endianness::little>(&bytes[at]); };
  if (bytes.size() < kHeaderBytes)
    return fail("the file is " + llvm::Twine(bytes.size()) + " bytes, shorter than the " +
                llvm::Twine(kHeaderBytes) + "-byte header: it is truncated or not an executable");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0)
    return fail("not a neuronc executable (bad magic; expected NCXNEFF)");
  exe.major = r16(kMajorAt);
  exe.minor = r16(kMinorAt);
  if (exe.major != kMajorVersion)
    return fail("format version " + llvm::Twine(exe.major) + "." + llvm::Twine(exe.minor) +
                (exe.major > kMajorVersion ? " is newer than" : " is older than") +
                " this reader's " + llvm::Twine(kMajorVersion) + "." + llvm::Twine(kMinorVersion) +
                ": recompile the model with this neuronc");
  uint32_t headerCrc = llvm::crc32(bytes.take_front(kHeaderCrcAt));
  if (headerCrc != r32(kHeaderCrcAt))
    return fail("header checksum mismatch (stored " + llvm::utohexstr(r32(kHeaderCrcAt)) +
                ", computed " + llvm::utohexstr(headerCrc) + "): the header is corrupted");
  if (r32(kHeaderSizeAt) != kHeaderBytes)
    return fail("header size " + llvm::Twine(r32(kHeaderSizeAt)) + " is not " +
                llvm::Twine(kHeaderBytes));
  exe.requiredFeatures = r64(kRequiredAt);
  exe.optionalFeatures = r64(kOptionalAt);
  if (uint64_t unknown = exe.requiredFeatures & ~kKnownRequiredFeatures)
    return fail("the executable requires feature bits 0x" + llvm::utohexstr(unknown) +
                " that this reader does not know: update neuronc");
  auto text = [&](size_t at, size_t n) {
    const char *p = reinterpret_cast<const char *>(&bytes[at]);
    return std::string(p, strnlen(p, n));
  };
  exe.target = text(kTargetAt, 16);
  exe.compiler = text(kCompilerAt, 32);
  exe.contentHash = r64(kHashAt);
  uint64_t fileSize = r64(kFileSizeAt);
  if (fileSize != bytes.size())
    return fail("the header records a file of " + llvm::Twine(fileSize) + " bytes but it has " +
                llvm::Twine(bytes.size()) + (fileSize > bytes.size() ? ": it is truncated"
                                         : ": bytes follow the recorded end"));
  const HardwareModel *hw = out.hw = lookupHardwareModel(exe.target);
  if (!hw)
    return fail("unknown target '" + exe.target + "'; known targets: " + hardwareModelNames());
  uint32_t sectionCount = r32(kSectionCountAt);
  uint64_t tableAt = r64(kSectionTableAt);
  // Written so that no sum can wrap: tableAt comes from the file.
  if (sectionCount > kMaxSections || tableAt < kHeaderBytes || tableAt > bytes.size() ||
      uint64_t(sectionCount) * kSectionEntryBytes > bytes.size() - tableAt)
    return fail("section table at " + llvm::Twine(tableAt) + " with " +
                llvm::Twine(sectionCount) + " entries exceeds file size " +
                llvm::Twine(bytes.size()));

  // Sections by name, each checked against the file and its CRC.
  std::vector<uint8_t> hashed;
  for (uint32_t i = 0; i < sectionCount; ++i) {
    size_t at = tableAt + i * kSectionEntryBytes;
    std::string name = text(at, 16);
    uint64_t off = r64(at + 16), size = r64(at + 24);
    uint32_t crc = r32(at + 32);
    if (off > bytes.size() || size > bytes.size() - off)
      return fail("section '" + name + "' offset " + llvm::Twine(off) + " + size " +
                  llvm::Twine(size) + " exceeds file size " + llvm::Twine(bytes.size()));
    if (off < tableAt + uint64_t(sectionCount) * kSectionEntryBytes && size)
      return fail("section '" + name + "' at offset " + llvm::Twine(off) +
                  " overlaps the header or section table");
    llvm::ArrayRef<uint8_t> data = bytes.slice(off, size);
    uint32_t actual = llvm::crc32(data);
    if (actual != crc)
      return fail("section '" + name + "' checksum mismatch (stored " + llvm::utohexstr(crc) +
                  ", computed " + llvm::utohexstr(actual) + "): its bytes are corrupted");
    if (!sections.try_emplace(name, data).second)
      return fail("section '" + name + "' appears twice");
    hashed.insert(hashed.end(), data.begin(), data.end());
    if (sectionsOut)
      sectionsOut->push_back({name, off, size, crc});
  }
  if (llvm::xxHash64(hashed) != exe.contentHash)
    return fail("content hash mismatch: the sections are not those the header was written for");
  return out;
}

llvm::Error neuronc::neff::verifyNeffChecksums(llvm::ArrayRef<uint8_t> bytes) {
  llvm::Expected<Container> c = readContainer(bytes, nullptr);
  if (!c)
    return c.takeError();
  return llvm::Error::success();
}

namespace {

/// Reads section 'meta' and each program's sections of a container whose
/// checksums were verified, validating every field the simulator relies on.
/// Record-level problems fail the cursor; whole-section ones return errors.
class MetaReader {
public:
  MetaReader(Executable &exe, llvm::StringMap<llvm::ArrayRef<uint8_t>> &sections,
             const HardwareModel *hw, StringTable &strings)
      : exe(exe), sections(sections), hw(hw), hbmBytes(hw->hbmBytesPerCore()),
        strings(strings) {}

  /// Program record `pi` of section 'meta' and its sections.
  llvm::Error program(Cursor &c, size_t pi);

private:
  Executable &exe;
  llvm::StringMap<llvm::ArrayRef<uint8_t>> &sections;
  const HardwareModel *hw;
  const int64_t hbmBytes;
  StringTable &strings;

  static std::string gib(int64_t b) { return formatByteSize(static_cast<double>(b)); }

public:
  /// One entry point record of section 'meta'.
  void entryPoint(Cursor &c) {
    EntryPoint ep;
    ep.name = strings.get(c.u32("entry name"), c, "entry point");
    BucketSignature &sig = ep.signature;
    if (exe.minor >= 1) {
      uint32_t symbols = c.count("symbol count", 4);
      for (uint32_t k = 0; k < symbols && c.ok(); ++k)
        sig.symbols.push_back(strings.get(c.u32("symbol name"), c, "symbol"));
      for (auto *list : {&sig.inputs, &sig.outputs}) {
        uint32_t n = c.count("signature value count", 4);
        for (uint32_t k = 0; k < n && c.ok(); ++k) {
          uint32_t rank = c.count("signature rank", 8);
          std::vector<int64_t> dims;
          for (uint32_t d = 0; d < rank && c.ok(); ++d)
            dims.push_back(c.i64("signature dim"));
          list->push_back(std::move(dims));
        }
      }
      uint32_t masks = c.count("mask count", 4);
      for (uint32_t k = 0; k < masks && c.ok(); ++k)
        sig.masks.push_back(c.u32("mask symbol"));
      uint32_t terms = c.count("work term count", 8 + 4ull * symbols);
      for (uint32_t k = 0; k < terms && c.ok(); ++k) {
        WorkTerm t;
        uint64_t bits = c.get<uint64_t>("work coefficient");
        std::memcpy(&t.coefficient, &bits, 8);
        for (uint32_t x = 0; x < symbols && c.ok(); ++x)
          t.exponents.push_back(c.u32("work exponent"));
        sig.work.push_back(std::move(t));
      }
  }
    uint32_t buckets = c.count("bucket count", 8);
    for (uint32_t b = 0; b < buckets && c.ok(); ++b) {
      Bucket bk;
      bk.program = c.u32("bucket program");
      uint32_t dims = c.count("bucket dims", 8);
      for (uint32_t d = 0; d < dims && c.ok(); ++d)
        bk.dims.push_back(c.i64("bucket dim"));
      ep.buckets.push_back(std::move(bk));
      if (c.ok() && sig.dynamic())
        sig.buckets.push_back(ep.buckets.back().dims);
  }
    if (c.ok() && sig.dynamic())
      if (llvm::Error err = sig.verify())
        c.fail("entry point '" + ep.name + "': " + llvm::toString(std::move(err)));
    if (c.ok() && ep.buckets.empty())
      c.fail("entry point '" + ep.name + "' has no bucket (no program to run)");
    if (c.ok() && !sig.dynamic() &&
        (!sig.inputs.empty() || !sig.outputs.empty() || !sig.masks.empty() || !sig.work.empty()))
      c.fail("entry point '" + ep.name +
             "' has no dynamic dims but a signature (inputs, outputs, masks or work terms)");
    if (c.ok() && sig.dynamic() && !(exe.requiredFeatures & kFeatureBuckets))
      c.fail("entry point '" + ep.name +
             "' is bucketed but the 'buckets' feature bit is not set");
    exe.entries.push_back(std::move(ep));
  }

  /// One variable record of program `p`; false when the record is bad.
  bool variable(Cursor &c, Program &p) {
    Variable v;
    v.name = strings.get(c.u32("variable name"), c, "variable");
    uint8_t kind = c.u8("variable kind"), dtype = c.u8("variable type"),
            rank = c.u8("variable rank"), flags = c.u8("variable flags");
    v.index = c.i64("variable index");
    v.offset = c.i64("variable offset");
    if (kind > kLastVarKind || dtype > isa::kLastDType || rank > 16) {
      c.fail("variable '" + v.name + "' has an invalid kind, type or rank");
      return false;
  }
    v.kind = static_cast<VarKind>(kind);
    v.dtype = static_cast<isa::DType>(dtype);
    if (flags & ~(kVarHostTransposed | kVarSharded)) {
      c.fail("variable '" + v.name + "' has unknown flags " + llvm::Twine(unsigned(flags)));
      return false;
    }
    v.hostTransposed = flags & kVarHostTransposed;
    if (v.hostTransposed && (v.kind != VarKind::Input || rank < 2 ||
                             !(exe.requiredFeatures & kFeatureHostLayouts))) {
      c.fail("variable '" + v.name + "' is marked host-transposed but " +
             (v.kind != VarKind::Input ? "is not an input"
              : rank < 2               ? "has rank " + std::to_string(rank)
                                       : "the 'host-layouts' feature bit is not set"));
      return false;
    }
    int64_t elements = 1;
    for (uint8_t d = 0; d < rank && c.ok(); ++d) {
      int64_t s = c.i64("variable dim");
      if (s < 0 || s > (int64_t(1) << 40) || (s && elements > (int64_t(1) << 40) / s)) {
        c.fail("variable '" + v.name + "' has dim " + llvm::Twine(s));
        return false;
      }
      elements *= s;
      v.shape.push_back(s);
  }
    if (!c.ok())
      return false;
    if (flags & kVarSharded) {
      v.shardDim = c.i64("shard dim");
      v.shardParts = c.i64("shard parts");
      if (!c.ok())
        return false;
      bool io = v.kind == VarKind::Input || v.kind == VarKind::Output;
      if (!io || !(exe.requiredFeatures & kFeatureTensorParallel) ||
          v.shardDim < 0 || v.shardDim >= rank || v.shardParts < 2 || v.shardParts > 1024) {
        c.fail("variable '" + v.name + "' is sharded along dim " + llvm::Twine(v.shardDim) +
               " into " + llvm::Twine(v.shardParts) + " parts but " +
               (!io ? "is neither an input nor an output"
                : !(exe.requiredFeatures & kFeatureTensorParallel)
                    ? "the 'tensor-parallel' feature bit is not set"
                    : "it has rank " + std::to_string(rank) +
                          " (a dim in 0..rank-1 and 2..1024 parts are valid)"));
        return false;
      }
    }
    // Offsets come from the file: compared without sums that could wrap
    // (bytes() is at most 2^43 here).
    int64_t constBytes = static_cast<int64_t>(exe.constants.size());
    if (v.kind == VarKind::Const &&
        (v.offset < 0 || v.bytes() > constBytes || v.offset > constBytes - v.bytes()))
      c.fail("constant '" + v.name + "' (" + llvm::Twine(v.bytes()) + " bytes at " +
             llvm::Twine(v.offset) + ") lies outside the const section (" +
             llvm::Twine(exe.constants.size()) + " bytes)");
    if (v.kind == VarKind::Internal &&
        (v.offset < 0 || v.bytes() > p.scratchBytes || v.offset > p.scratchBytes - v.bytes()))
      c.fail("internal tensor '" + v.name + "' lies outside the scratch area");
    if (c.ok() && v.bytes() > hbmBytes)
      c.fail("variable '" + v.name + "' is " + llvm::Twine(v.bytes()) + " bytes, more than a " +
             hw->name + " NeuronCore's " + gib(hbmBytes) + " of HBM");
    p.variables.push_back(std::move(v));
    return true;
  }

  /// Section p<i>.debug: the debug map from instructions to kernels and ops.
  llvm::Error debugMap(size_t pi, Program &p, llvm::ArrayRef<uint8_t> data) {
    Cursor d(data, "section '" + programSection(pi, "debug") + "'");
    uint32_t n = d.count("debug entry count", 12);
    for (uint32_t i = 0; i < n && d.ok(); ++i) {
      DebugEntry e;
      e.kernel = d.u32("debug kernel");
      e.op = strings.get(d.u32("debug op"), d, "debug entry");
      e.location = strings.get(d.u32("debug location"), d, "debug entry");
      if (d.ok() && e.kernel >= p.kernels.size())
        d.fail("debug entry " + llvm::Twine(i) + " names kernel " + llvm::Twine(e.kernel) +
               " of " + llvm::Twine(p.kernels.size()));
      p.debug.push_back(std::move(e));
    }
    if (!d.ok())
      return fail(d.error);
    return llvm::Error::success();
  }

  /// Section p<i>.absorbed (optional): the source ops fused kernels absorbed.
  llvm::Error absorbedOps(size_t pi, Program &p, llvm::ArrayRef<uint8_t> data) {
    Cursor d(data, "section '" + programSection(pi, "absorbed") + "'");
    uint32_t n = d.count("absorbed op count", 12);
    for (uint32_t i = 0; i < n && d.ok(); ++i) {
      uint32_t kernel = d.u32("absorbed kernel");
      AbsorbedOp a;
      a.op = strings.get(d.u32("absorbed op"), d, "absorbed op");
      a.location = strings.get(d.u32("absorbed location"), d, "absorbed op");
      if (d.ok() && kernel >= p.kernels.size())
        d.fail("absorbed op " + llvm::Twine(i) + " names kernel " + llvm::Twine(kernel) + " of " +
               llvm::Twine(p.kernels.size()));
      if (d.ok())
        p.kernels[kernel].absorbed.push_back(std::move(a));
    }
    if (!d.ok())
      return fail(d.error);
    return llvm::Error::success();
  }

  /// Section p<i>.cost: one static cost table per kernel.
  llvm::Error costTables(size_t pi, Program &p, llvm::ArrayRef<uint8_t> data) {
    Cursor k(data, "section '" + programSection(pi, "cost") + "'");
    uint32_t n = k.count("cost table count", 8 * 22);
    if (k.ok() && n != p.kernels.size())
      k.fail("has " + llvm::Twine(n) + " cost tables for " + llvm::Twine(p.kernels.size()) +
             " kernels");
    for (uint32_t i = 0; i < n && k.ok(); ++i) {
      CostTable &t = p.kernels[i].cost;
      for (auto *arr : {&t.instructions, &t.cycles, &t.elements})
        for (int64_t &v : *arr)
          v = k.i64("cost");
      for (int64_t *v : {&t.matmulFlops, &t.transposeFlops, &t.transcendentals, &t.dmaCount,
                         &t.dmaBytes, &t.dmaQueueNs, &t.hbmReadBytes, &t.hbmWriteBytes,
                         &t.sbufBytes, &t.psumBytes})
        *v = k.i64("cost");
    }
    if (!k.ok())
      return fail(k.error);
    return llvm::Error::success();
  }


  /// Section p<i>.dma: the DMA descriptors dma_copy instructions name.
  llvm::Error dmaDescriptors(size_t pi, Program &p, llvm::ArrayRef<uint8_t> data) {
    Cursor d(data, "section '" + programSection(pi, "dma") + "'");
    uint32_t n = d.count("descriptor count", 24 + 2 * kOperandHeaderBytes);
    for (uint32_t i = 0; i < n && d.ok(); ++i) {
      d.setContext("section '" + programSection(pi, "dma") + "' descriptor " +
                   std::to_string(i));
      DmaDescriptor desc;
      uint8_t flags = d.u8("indirect flag");
      d.skip(7);
      desc.indirect = flags & 1;
      desc.indirectStride = d.i64("indirect stride");
      desc.indirectBound = d.i64("indirect bound");
      desc.dst = readOperand(d);
      desc.src = readOperand(d);
      if (desc.indirect)
        desc.index = readOperand(d);
      if (!d.ok())
        break;
      if (flags > 1)
        d.fail("unknown descriptor flags " + llvm::Twine(unsigned(flags)));
      p.dma.push_back(desc);
    }
    if (!d.ok())
      return fail(d.error);
    return llvm::Error::success();
  }


  /// One instruction record of stream `s`, checked against the hardware
  /// rules; false (with `d` failed) when it is bad.
  bool instruction(Cursor &d, Program &p, int64_t s) {
    uint64_t start = d.offset();
    isa::Instruction inst;
    uint16_t length = d.u16("length");
    uint8_t opcode = d.u8("opcode");
    uint8_t engine = d.u8("engine");
    inst.queue = d.u8("queue");
    uint8_t waits = d.u8("wait count");
    uint8_t params = d.u8("parameter count");
    uint8_t operands = d.u8("operand count");
    inst.flags = d.u16("flags");
    inst.func = d.u8("function");
    inst.op1 = d.u8("second operation");
    inst.debug = d.u32("debug entry");
    inst.imm0 = d.f32("immediate");
    inst.imm1 = d.f32("immediate");
    if (!d.ok())
      return false;
    if (opcode < 1 || opcode > isa::kLastOpcode) {
      d.fail("unknown opcode " + llvm::Twine(unsigned(opcode)));
      return false;
    }
    inst.opcode = static_cast<isa::Opcode>(opcode);
    if (engine > static_cast<uint8_t>(isa::Engine::dma)) {
      d.fail("unknown engine " + llvm::Twine(unsigned(engine)));
      return false;
    }
    inst.engine = static_cast<isa::Engine>(engine);
    if (inst.stream() != s) {
      d.fail(isa::opcodeName(inst.opcode) + " of stream " +
             isa::streamName(inst.stream()) + " is in the wrong stream");
      return false;
    }
    if (params > inst.params.size()) {
      d.fail("has " + llvm::Twine(unsigned(params)) + " parameters; at most " +
             llvm::Twine(inst.params.size()));
      return false;
    }
    if (operands != format::expectedOperands(inst.opcode, inst.flags)) {
      d.fail(isa::opcodeName(inst.opcode) + " has " + llvm::Twine(unsigned(operands)) +
             " operands; its flags call for " +
             llvm::Twine(format::expectedOperands(inst.opcode, inst.flags)));
      return false;
    }
    for (uint8_t w = 0; w < waits && d.ok(); ++w) {
      isa::Wait wt;
      wt.stream = d.u8("wait stream");
      d.skip(3);
      wt.count = d.u32("wait count");
      inst.waits.push_back(wt);
    }
    for (uint8_t k = 0; k < params && d.ok(); ++k)
      inst.params[k] = d.i64("parameter");
    for (uint8_t k = 0; k < operands && d.ok(); ++k)
      inst.operands.push_back(readOperand(d));
    if (!d.ok())
      return false;
    if (d.offset() - start != length) {
      d.fail("record length " + llvm::Twine(length) + " does not match its " +
             llvm::Twine(d.offset() - start) + " bytes of fields");
      return false;
    }
    if (inst.opcode == isa::Opcode::DmaCopy) {
      if (inst.params[0] < 0 || inst.params[0] >= static_cast<int64_t>(p.dma.size())) {
        d.fail("names DMA descriptor " + llvm::Twine(inst.params[0]) + " of " +
               llvm::Twine(p.dma.size()));
        return false;
      }
      const DmaDescriptor &desc = p.dma[inst.params[0]];
      if (desc.indirect != inst.has(isa::kIndirect)) {
        d.fail("indirect flag disagrees with its descriptor");
        return false;
      }
      inst.operands = {desc.dst, desc.src};
      if (desc.indirect) {
        inst.operands.push_back(desc.index);
        inst.params[1] = desc.indirectStride;
        inst.params[2] = desc.indirectBound;
      }
    }
    if (!checkInstruction(p, *hw, inst, d))
      return false;
    p.streams[s].push_back(std::move(inst));
    return true;
  }


private:
  /// Inputs and outputs of `p` are numbered 0..n-1.
  llvm::Error checkIndices(const Program &p) {
    for (VarKind kind : {VarKind::Input, VarKind::Output}) {
      std::vector<bool> seen;
      for (const Variable &v : p.variables)
        if (v.kind == kind) {
          if (v.index < 0 || v.index >= static_cast<int64_t>(p.variables.size()))
            return fail("program '" + p.name + "': " + varKindName(kind) + " '" + v.name +
                        "' has index " + llvm::Twine(v.index));
          seen.resize(std::max<size_t>(seen.size(), v.index + 1));
          if (seen[v.index])
            return fail("program '" + p.name + "': two " + varKindName(kind) + "s have index " +
                        llvm::Twine(v.index));
          seen[v.index] = true;
        }
      if (llvm::is_contained(seen, false))
        return fail("program '" + p.name + "': " + varKindName(kind) + " indices have a gap");
    }
    return llvm::Error::success();
  }

  /// A sharded input or output belongs to a program with collectives, and
  /// its parts divide the program's group (each core holds a whole part).
  llvm::Error checkShards(const Program &p) {
    int64_t group = p.collectiveGroup();
    for (const Variable &v : p.variables)
      if (v.sharded() && (group < 2 || group % v.shardParts))
        return fail("program '" + p.name + "': " + varKindName(v.kind) + " '" + v.name +
                    "' is sharded into " +
                    llvm::Twine(v.shardParts) + " parts but the program " +
                    (group < 2 ? llvm::Twine("has no collective (it is not part of a group)")
                               : "is one core's part of a group of " + llvm::Twine(group) +
                                     " cores"));
    return llvm::Error::success();
  }

  /// What the device allocates for a run of `p` must fit one core's HBM.
  void checkFootprint(Cursor &c, const Program &p) {
    int64_t total = p.scratchBytes;
    for (const Variable &v : p.variables)
      if ((v.kind == VarKind::Input || v.kind == VarKind::Output) && total <= hbmBytes)
        total += v.bytes(); // each at most the core's HBM: the sum cannot wrap
    if (total > hbmBytes)
      c.fail("program '" + p.name + "' needs " + llvm::Twine(total) +
             " bytes of HBM (inputs, outputs and scratch), more than a " + hw->name +
             " NeuronCore's " + gib(hbmBytes));
  }

  /// Stream section `s` of program `pi` (present per `present`, the mask).
  llvm::Error stream(size_t pi, Program &p, int64_t s, uint32_t present) {
    std::string name = programSection(pi, isa::streamName(s));
    auto it = sections.find(name);
    bool found = it != sections.end();
    if (found != static_cast<bool>(present & (1u << s)))
      return fail("section '" + name + "' " +
                  (found ? "is present but the stream mask says it is empty"
                         : "is missing though the stream mask lists it"));
    if (!found)
      return llvm::Error::success();
    Cursor d(it->second, "section '" + name + "'");
    uint32_t n = d.count("instruction count", kInstructionHeaderBytes);
    for (uint32_t i = 0; i < n && d.ok(); ++i) {
      d.setContext("section '" + name + "' instruction " + std::to_string(i));
      if (!instruction(d, p, s))
        break;
    }
    if (!d.ok())
      return fail(d.error);
    return llvm::Error::success();
  }
};

llvm::Error MetaReader::program(Cursor &c, size_t pi) {
  Program p;
  p.name = strings.get(c.u32("program name"), c, "program");
  p.target = strings.get(c.u32("program target"), c, "program target");
  p.scratchBytes = c.i64("scratch bytes");
  if (c.ok() && p.target != exe.target)
    c.fail("program '" + p.name + "' targets " + p.target + " in a " + exe.target +
           " executable");
  if (c.ok() && (p.scratchBytes < 0 || p.scratchBytes > (int64_t(1) << 40)))
    c.fail("program '" + p.name + "' needs " + llvm::Twine(p.scratchBytes) + " scratch bytes");
  uint32_t vars = c.count("variable count", 24);
  for (uint32_t vi = 0; vi < vars && c.ok(); ++vi)
    if (!variable(c, p))
      break;
  if (c.ok())
    checkFootprint(c, p);
  uint32_t kernels = c.count("kernel count", 16);
  for (uint32_t k = 0; k < kernels && c.ok(); ++k) {
    Kernel kern;
    kern.name = strings.get(c.u32("kernel name"), c, "kernel");
    kern.kind = strings.get(c.u32("kernel kind"), c, "kernel kind");
    kern.source = strings.get(c.u32("kernel source"), c, "kernel source");
    kern.location = strings.get(c.u32("kernel location"), c, "kernel location");
    p.kernels.push_back(std::move(kern));
  }
  uint32_t present = c.u32("stream mask");
  if (!c.ok())
    return llvm::Error::success(); // the caller reports the cursor's error
  if (llvm::Error err = checkIndices(p))
    return err;
  // Debug map, cost tables, DMA descriptors, then the streams that use them.
  llvm::ArrayRef<uint8_t> data[3];
  const char *names[3] = {"debug", "cost", "dma"};
  for (int i = 0; i < 3; ++i) {
    auto it = sections.find(programSection(pi, names[i]));
    if (it == sections.end())
      return fail("section '" + programSection(pi, names[i]) + "' is missing");
    data[i] = it->second;
  }
  if (llvm::Error err = debugMap(pi, p, data[0]))
    return err;
  if (llvm::Error err = costTables(pi, p, data[1]))
    return err;
  if (llvm::Error err = dmaDescriptors(pi, p, data[2]))
    return err;
  if (auto it = sections.find(programSection(pi, "absorbed")); it != sections.end())
    if (llvm::Error err = absorbedOps(pi, p, it->second))
      return err;
  for (int64_t s = 0; s < isa::kMaxStreams; ++s)
    if (llvm::Error err = stream(pi, p, s, present))
      return err;
  if (llvm::Error err = checkShards(p))
    return err;
  exe.programs.push_back(std::move(p));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Executable> neuronc::neff::readNeff(llvm::ArrayRef<uint8_t> bytes,
                                                   std::vector<SectionInfo> *sectionsOut) {
  llvm::Expected<Container> container = readContainer(bytes, sectionsOut);
  if (!container)
    return container.takeError();
  Executable exe = std::move(container->exe);
  llvm::StringMap<llvm::ArrayRef<uint8_t>> &sections = container->sections;
  for (const char *required : {"meta", "strings", "const"})
    if (!sections.count(required))
      return fail("section '" + llvm::Twine(required) + "' is missing");
  StringTable strings(sections["strings"]);
  exe.constants.assign(sections["const"].begin(), sections["const"].end());
  MetaReader reader(exe, sections, container->hw, strings);

  Cursor c(sections["meta"], "section 'meta'");
  uint32_t entries = c.count("entry point count", 8);
  for (uint32_t e = 0; e < entries && c.ok(); ++e)
    reader.entryPoint(c);
  uint32_t programs = c.count("program count", 24);
  for (uint32_t pi = 0; pi < programs && c.ok(); ++pi)
    if (llvm::Error err = reader.program(c, pi))
      return err;
  if (c.ok() && c.offset() != c.size())
    c.fail(llvm::Twine(c.size() - c.offset()) + " byte(s) follow the last program record");
  if (!c.ok())
    return fail(c.error);
  for (const EntryPoint &e : exe.entries)
    for (const Bucket &b : e.buckets) {
      if (b.program >= exe.programs.size())
        return fail("entry point '" + e.name + "' names program " + llvm::Twine(b.program) +
                    " of " + llvm::Twine(exe.programs.size()));
      if (llvm::Error err = checkBucketProgram(e, b, exe.programs[b.program]))
        return err;
    }
  return exe;
}

llvm::Error neuronc::neff::verifyExecutable(const Executable &exe) {
  // One set of rules: the reader's, over the bytes the writer makes.
  std::vector<uint8_t> bytes = writeNeff(exe);
  llvm::Expected<Executable> read = readNeff(bytes);
  return read ? llvm::Error::success() : read.takeError();
}

llvm::Expected<Executable> neuronc::neff::readNeffFile(llvm::StringRef path,
                                                       std::vector<SectionInfo> *sections) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false);
  if (!buf)
    return fail("cannot read " + path + ": " + buf.getError().message());
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
                                (*buf)->getBufferSize());
  auto exe = readNeff(bytes, sections);
  if (!exe)
    return fail(path + ": " + llvm::toString(exe.takeError()));
  return exe;
}
