//===- NeffValidationTest.cpp - Every record check of the reader, by text ===//
//
// One case per check of the executable reader past its checksums: the
// sample executable is damaged in memory (the writer encodes whatever it
// is given) or in its bytes, resealed with resealNeff so that the checksums
// agree, and the reader must refuse it with exactly the message
// docs/errors.md lists. The fuzz targets prove no bytes crash the reader;
// these pin what it says.
//
//===----------------------------------------------------------------------===//

#include "NeffSamples.h"

#include "llvm/Support/Endian.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

using namespace neuronc;
using namespace neuronc::neff;
using namespace neuronc::testing;

namespace {

/// The reader's message for `bytes` ("" if it accepts them).
std::string refusal(const std::vector<uint8_t> &bytes) {
  auto exe = readNeff(bytes);
  if (exe)
    return "";
  return llvm::toString(exe.takeError());
}

/// The reader's message for `exe` as the writer encodes it.
std::string refusal(const Executable &exe) { return refusal(writeNeff(exe)); }

/// `f` applied to the sample, then written and read.
std::string damaged(const std::function<void(Executable &)> &f) {
  Executable exe = sample();
  f(exe);
  return refusal(exe);
}

template <typename T> T get(const std::vector<uint8_t> &b, size_t at) {
  return llvm::support::endian::read<T, llvm::endianness::little>(&b[at]);
}
template <typename T> void put(std::vector<uint8_t> &b, size_t at, T v) {
  llvm::support::endian::write<T, llvm::endianness::little>(&b[at], v);
}

/// The byte offset of the section table entry named `name`.
size_t entryOf(const std::vector<uint8_t> &b, llvm::StringRef name) {
  uint32_t count = get<uint32_t>(b, 88);
  uint64_t table = get<uint64_t>(b, 96);
  for (uint32_t i = 0; i < count; ++i) {
    size_t at = table + 40 * i;
    if (llvm::StringRef(reinterpret_cast<const char *>(&b[at])) == name)
      return at;
  }
  ADD_FAILURE() << "no section " << name.str();
  return 0;
}

/// `f` applied to the sample's bytes, then resealed and read.
std::string resealed(const std::function<void(std::vector<uint8_t> &)> &f) {
  std::vector<uint8_t> b = writeNeff(sample());
  f(b);
  resealNeff(b);
  return refusal(b);
}

/// Renames section `from` to `to` (at most 15 characters).
void rename(std::vector<uint8_t> &b, llvm::StringRef from, llvm::StringRef to) {
  size_t at = entryOf(b, from);
  std::memset(&b[at], 0, 16);
  std::memcpy(&b[at], to.data(), to.size());
}

Program &prog(Executable &e) { return e.programs[0]; }
isa::Instruction &act(Executable &e) { return prog(e).streams[1][0]; }

/// Adds `inst` to the stream of its engine (after any there).
void add(Executable &e, isa::Instruction inst) {
  prog(e).streams[inst.stream()].push_back(std::move(inst));
}

isa::Instruction instruction(isa::Opcode op, isa::Engine engine,
                             llvm::SmallVector<isa::Operand, 4> operands) {
  isa::Instruction i;
  i.opcode = op;
  i.engine = engine;
  i.operands = std::move(operands);
  return i;
}

} // namespace

TEST(NeffValidation, ResealedSampleReadsBack) {
  // The baseline: resealing an intact file changes nothing.
  std::vector<uint8_t> b = writeNeff(sample());
  std::vector<uint8_t> again = b;
  resealNeff(again);
  EXPECT_EQ(again, b);
  EXPECT_EQ(refusal(b), "");
}

TEST(NeffValidation, Container) {
  EXPECT_EQ(resealed([](auto &b) { put<uint32_t>(b, 12, 64); }), "header size 64 is not 128");
  EXPECT_EQ(resealed([](auto &b) { put<uint16_t>(b, 8, 0); }),
            "format version 0.2 is older than this reader's 1.2: recompile the model with this "
            "neuronc");
  {
    std::vector<uint8_t> b = writeNeff(sample());
    size_t n = b.size();
    b.resize(n + 8);
    EXPECT_EQ(refusal(b), "the header records a file of " + std::to_string(n) +
                              " bytes but it has " + std::to_string(n + 8) +
                              ": bytes follow the recorded end");
  }
  EXPECT_EQ(damaged([](Executable &e) { e.target = "trn9"; }),
            "unknown target 'trn9'; known targets: trn1, trn2");
  EXPECT_EQ(resealed([](auto &b) { put<uint32_t>(b, 88, 1000); }),
            "section table at 128 with 1000 entries exceeds file size " +
                std::to_string(writeNeff(sample()).size()));
  // An offset near 2^64 must not wrap the bounds check (found by fuzzing).
  EXPECT_EQ(resealed([](auto &b) { put<uint64_t>(b, 96, ~uint64_t(4)); }),
            "section table at 18446744073709551611 with " +
                std::to_string(get<uint32_t>(writeNeff(sample()), 88)) +
                " entries exceeds file size " + std::to_string(writeNeff(sample()).size()));
  EXPECT_EQ(resealed([](auto &b) { put<uint64_t>(b, entryOf(b, "meta") + 16, 0); }),
            "section 'meta' at offset 0 overlaps the header or section table");
  EXPECT_EQ(resealed([](auto &b) { rename(b, "strings", "meta"); }),
            "section 'meta' appears twice");
  EXPECT_EQ(resealed([](auto &b) { rename(b, "strings", "strangs"); }),
            "section 'strings' is missing");
  EXPECT_EQ(resealed([](auto &b) { rename(b, "p0.debug", "p0.debog"); }),
            "section 'p0.debug' is missing");
  EXPECT_EQ(resealed([](auto &b) { rename(b, "p0.q3", "p0.q4"); }),
            "section 'p0.q3' is missing though the stream mask lists it");
  // An optional section may be missing, and one the reader does not know is
  // ignored: a newer writer's section reads as its absence.
  EXPECT_EQ(resealed([](auto &b) { rename(b, "p0.absorbed", "p0.future"); }), "");
}

TEST(NeffValidation, Records) {
  // A count larger than the bytes left, a string offset outside the table, a
  // string without its terminator: the meta section's first fields.
  EXPECT_EQ(resealed([](auto &b) {
              uint64_t meta = get<uint64_t>(b, entryOf(b, "meta") + 16);
              put<uint32_t>(b, meta, 1000000);
            }),
            "section 'meta': entry point count is 1000000, more than the " +
                std::to_string(get<uint64_t>(writeNeff(sample()),
                                             entryOf(writeNeff(sample()), "meta") + 24) -
                               4) +
                " bytes left can hold");
  EXPECT_EQ(resealed([](auto &b) {
              uint64_t meta = get<uint64_t>(b, entryOf(b, "meta") + 16);
              put<uint32_t>(b, meta + 4, 1u << 30);
            }),
            "section 'meta': entry point names string offset 1073741824 outside the string "
            "table (" +
                std::to_string(get<uint64_t>(writeNeff(sample()),
                                             entryOf(writeNeff(sample()), "strings") + 24)) +
                " bytes)");
  EXPECT_EQ(resealed([](auto &b) {
              size_t at = entryOf(b, "strings");
              uint64_t off = get<uint64_t>(b, at + 16), size = get<uint64_t>(b, at + 24);
              std::memset(&b[off], 'a', size);
            }),
            "section 'meta': entry point string at offset 0 is not terminated");
  EXPECT_EQ(resealed([](auto &b) {
              size_t at = entryOf(b, "p0.dma");
              b[get<uint64_t>(b, at + 16) + 4] = 6; // the first descriptor's flags
            }),
            "section 'p0.dma' descriptor 0: unknown descriptor flags 6");
}

/// The byte offset of section `name`'s data.
size_t dataOf(const std::vector<uint8_t> &b, llvm::StringRef name) {
  return get<uint64_t>(b, entryOf(b, name) + 16);
}

TEST(NeffValidation, AbsorbedOpsNameKernels) {
  // p0.absorbed: u32 count, then (u32 kernel, str op, str location) each.
  EXPECT_EQ(resealed([](auto &b) { put<uint32_t>(b, dataOf(b, "p0.absorbed") + 4, 5); }),
            "section 'p0.absorbed': absorbed op 0 names kernel 5 of 1");
  EXPECT_EQ(resealed([](auto &b) { put<uint32_t>(b, dataOf(b, "p0.absorbed"), 1000); }),
            "section 'p0.absorbed': absorbed op count is 1000, more than the 24 bytes left can "
            "hold");
}

TEST(NeffValidation, StreamRecordBytes) {
  // p0.scalar holds one record after its u32 count: u16 length, u8 opcode,
  // engine, queue, wait count, parameter count, operand count, ... (24
  // bytes), then 8 per wait and parameter, then the operands (rank at +2).
  const std::string at = "section 'p0.scalar' instruction 0: ";
  EXPECT_EQ(resealed([](auto &b) {
              size_t r = dataOf(b, "p0.scalar") + 4;
              put<uint16_t>(b, r, get<uint16_t>(b, r) + 8);
            }),
            at + "record length " +
                std::to_string(get<uint16_t>(writeNeff(sample()),
                                             dataOf(writeNeff(sample()), "p0.scalar") + 4) +
                               8) +
                " does not match its " +
                std::to_string(get<uint16_t>(writeNeff(sample()),
                                             dataOf(writeNeff(sample()), "p0.scalar") + 4)) +
                " bytes of fields");
  EXPECT_EQ(resealed([](auto &b) { b[dataOf(b, "p0.scalar") + 4 + 6] = 9; }),
            at + "has 9 parameters; at most 5");
  EXPECT_EQ(resealed([](auto &b) {
              size_t r = dataOf(b, "p0.scalar") + 4;
              b[r + 24 + 8 * b[r + 5] + 8 * b[r + 6] + 2] = 7;
            }),
            at + "operand rank 7 exceeds 4");
  // Two records claimed, one there: the second runs off the section's end.
  EXPECT_EQ(resealed([](auto &b) { put<uint32_t>(b, dataOf(b, "p0.scalar"), 2); })
                .find("section 'p0.scalar' instruction 1: length at byte "),
            0u);
  // The meta section's recorded size grown by 8: its decoder ends 8 bytes
  // early (the bytes are the alignment padding or the next section's).
  EXPECT_EQ(resealed([](auto &b) {
              size_t e = entryOf(b, "meta");
              put<uint64_t>(b, e + 24, get<uint64_t>(b, e + 24) + 8);
            }),
            "section 'meta': 8 byte(s) follow the last program record");
  EXPECT_EQ(resealed([](auto &b) { put<uint32_t>(b, dataOf(b, "p0.cost"), 0); }),
            "section 'p0.cost': has 0 cost tables for 1 kernels");
  EXPECT_EQ(resealed([](auto &b) { rename(b, "p0.q2", "p0.q1"); }),
            "section 'p0.q1' is present but the stream mask says it is empty");
}

TEST(NeffValidation, ProgramsAndVariables) {
  EXPECT_EQ(damaged([](Executable &e) { prog(e).target = "trn2"; }),
            "section 'meta': program 'f' targets trn2 in a trn1 executable");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).scratchBytes = -4; }),
            "section 'meta': program 'f' needs -4 scratch bytes");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).variables[0].shape = {128, -1}; }),
            "section 'meta': variable 'x' has dim -1");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).variables[2].offset = 4; }),
            "section 'meta': constant 'c' (8 bytes at 4) lies outside the const section (8 "
            "bytes)");
  // An offset near 2^63 must not wrap the check (found by fuzzing).
  EXPECT_EQ(damaged([](Executable &e) { prog(e).variables[2].offset = INT64_MAX - 4; }),
            "section 'meta': constant 'c' (8 bytes at 9223372036854775803) lies outside the "
            "const section (8 bytes)");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).variables[3].offset = INT64_MAX - 4; }),
            "section 'meta': internal tensor 't' lies outside the scratch area");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).variables[3].offset = 4000; }),
            "section 'meta': internal tensor 't' lies outside the scratch area");
  // Each variable fits a core's 16 GiB, the two together do not.
  EXPECT_EQ(damaged([](Executable &e) {
              prog(e).variables[0].shape = {int64_t(1) << 31, 1};
              prog(e).variables[1].shape = {int64_t(1) << 31, 1};
            }),
            "section 'meta': program 'f' needs 17179873280 bytes of HBM (inputs, outputs and "
            "scratch), more than a trn1 NeuronCore's 16.0 GiB");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).variables[0].index = 7; }),
            "program 'f': input 'x' has index 7");
  EXPECT_EQ(damaged([](Executable &e) {
              prog(e).variables.push_back({"x2", VarKind::Input, isa::DType::F32, {4}, 0, 0});
            }),
            "program 'f': two inputs have index 0");
  EXPECT_EQ(damaged([](Executable &e) {
              prog(e).variables.push_back({"x2", VarKind::Input, isa::DType::F32, {4}, 2, 0});
            }),
            "program 'f': input indices have a gap");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).debug[0].kernel = 3; }),
            "section 'p0.debug': debug entry 0 names kernel 3 of 1");
}

TEST(NeffValidation, EntryPointsAndBuckets) {
  {
    Executable e = bucketed(128);
    e.entries[0].signature.inputs[0][0] = symbolDim(5);
    EXPECT_EQ(refusal(e), "section 'meta': entry point 'f': input #0 names symbol 5 of 1");
  }
  {
    Executable e = sample();
    e.entries[0].buckets = {{0, {4}}};
    EXPECT_EQ(refusal(e), "entry point 'f' has no dynamic dims but a bucket with 1 sizes");
  }
  {
    Executable e = sample();
    e.entries[0].buckets = {{7, {}}};
    EXPECT_EQ(refusal(e), "entry point 'f' names program 7 of 1");
  }
  {
    Executable e = bucketed(128);
    e.entries[0].signature.inputs.push_back({symbolDim(0), 64});
    EXPECT_EQ(refusal(e), "entry point 'f' bucket seq=128 (program 'f') has 1 inputs and 1 "
                          "outputs; the signature needs 2 and 1");
  }
  {
    Executable e = bucketed(128);
    e.entries[0].signature.masks = {0};
    prog(e).variables.push_back({"m", VarKind::Input, isa::DType::F32, {128}, 1, 0});
    EXPECT_EQ(refusal(e), "entry point 'f' bucket seq=128 (program 'f'): mask input m is not i1");
  }
}

TEST(NeffValidation, InstructionRecords) {
  EXPECT_EQ(damaged([](Executable &e) { act(e).opcode = static_cast<isa::Opcode>(99); }),
            "section 'p0.scalar' instruction 0: unknown opcode 99");
  EXPECT_EQ(damaged([](Executable &e) { act(e).engine = static_cast<isa::Engine>(9); }),
            "section 'p0.scalar' instruction 0: unknown engine 9");
  EXPECT_EQ(damaged([](Executable &e) {
              // Written into the vector engine's stream but claiming the scalar engine.
              prog(e).streams[2].push_back(act(e));
            }),
            "section 'p0.vector' instruction 0: activation of stream scalar is in the wrong "
            "stream");
  EXPECT_EQ(damaged([](Executable &e) { act(e).flags |= isa::kHasScale; }),
            "section 'p0.scalar' instruction 0: activation has 3 operands; its flags call for 4");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).streams[6][0].params[0] = 9; }),
            "section 'p0.q2' instruction 0: names DMA descriptor 9 of 2");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).streams[6][0].flags |= isa::kIndirect; }),
            "section 'p0.q2' instruction 0: indirect flag disagrees with its descriptor");
}

TEST(NeffValidation, Operands) {
  const std::string at = "section 'p0.scalar' instruction 0: ";
  EXPECT_EQ(damaged([](Executable &e) {
              act(e).operands[0].dtype = static_cast<isa::DType>(99);
            }),
            at + "operand has an invalid memory space, element type or rank");
  EXPECT_EQ(damaged([](Executable &e) { act(e).operands[0].strides[0] = -1; }),
            at + "operand has a malformed access pattern (negative offset or stride, a size "
                 "below 1, or a reach beyond 2^40 elements)");
  EXPECT_EQ(damaged([](Executable &e) {
              act(e).operands[0].sizes[0] = int64_t(1) << 30;
              act(e).operands[0].strides[0] = 0;
            }),
            at + "operand walks more than 2^36 elements");
  EXPECT_EQ(damaged([](Executable &e) { act(e).operands[0].offset = 196600; }),
            at + "operand reaches byte 196856 of a sbuf partition of 196608");
  EXPECT_EQ(damaged([](Executable &e) { act(e).operands[0].sizes[0] = 32; }),
            at + "activation operands cover different element counts");
  EXPECT_EQ(damaged([](Executable &e) { act(e).operands[2].sizes[0] = 2; }),
            at + "activation scale/bias/accumulator must be one element per partition");
  EXPECT_EQ(damaged([](Executable &e) { act(e).operands[1] = hbm(0, 128, 64); }),
            at + "activation addresses HBM; only DMA does");
  // The same rules on an executable in memory.
  {
    Executable exe = sample();
    EXPECT_FALSE(static_cast<bool>(verifyExecutable(exe)));
    act(exe).operands[0].partStart = 32;
    act(exe).operands[0].partCount = 64;
    EXPECT_EQ(llvm::toString(verifyExecutable(exe)),
              at + "activation accesses partitions 32:96; from partition 32 an engine access "
                   "spans at most 32");
  }
  // The partition-start rule of compute engines, as the nisa verifier has it.
  EXPECT_EQ(damaged([](Executable &e) {
              act(e).operands[0].partStart = 32;
              act(e).operands[0].partCount = 64;
            }),
            at + "activation accesses partitions 32:96; from partition 32 an engine access "
                 "spans at most 32");
  EXPECT_EQ(damaged([](Executable &e) {
              act(e).operands[0].partStart = 16;
              act(e).operands[0].partCount = 16;
            }),
            at + "activation accesses partitions 16:32; from partition 16 an engine access "
                 "spans nothing");
  EXPECT_EQ(damaged([](Executable &e) { act(e).func = 200; }),
            at + "function/operation 200 is out of range");
  // A second ALU operation out of range (scalar_tensor_tensor on VectorE):
  // the function fields Isa.def gives the opcode are all checked.
  EXPECT_EQ(damaged([](Executable &e) {
              isa::Instruction stt = act(e);
              stt.opcode = isa::Opcode::ScalarTensorTensor;
              stt.engine = isa::Engine::vector;
              stt.flags = isa::kSignal;
              stt.func = static_cast<uint8_t>(isa::AluOp::multiply);
              stt.op1 = 99;
              stt.operands = {tile(128, 256, 64), tile(128, 0, 64), tile(128, 256, 64)};
              prog(e).streams[1].clear();
              prog(e).streams[2].push_back(stt);
            }),
            "section 'p0.vector' instruction 0: second operation 99 is out of range");
  EXPECT_EQ(damaged([](Executable &e) { act(e).flags |= 0x4000; }),
            at + "unknown flag bits 4041"); // with its own signal and bias bits
  EXPECT_EQ(damaged([](Executable &e) { act(e).waits = {{30, 1}}; }),
            at + "waits on stream 30 for count 1");
  EXPECT_EQ(damaged([](Executable &e) { act(e).debug = 5; }), at + "debug entry 5 of 1");
  // HBM operands live in the DMA descriptors.
  const std::string q2 = "section 'p0.q2' instruction 0: ";
  EXPECT_EQ(damaged([](Executable &e) { prog(e).dma[0].src.var = 9; }),
            q2 + "operand names variable 9 of 4");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).dma[0].src.dtype = isa::DType::BF16; }),
            q2 + "operand reads variable 'x' as bf16 but it holds f32");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).dma[0].src = hbm(0, 256, 64); }),
            q2 + "operand reaches element 16383 of variable 'x', which has 8192");
  EXPECT_EQ(damaged([](Executable &e) { prog(e).dma[0].src.sizes[1] = 32; }),
            q2 + "dma_copy source and destination differ in element count or type");
  EXPECT_EQ(damaged([](Executable &e) {
              prog(e).dma[0].indirect = true;
              prog(e).streams[6][0].flags |= isa::kIndirect;
              prog(e).dma[0].index = tile(128, 1024, 1, isa::DType::I32);
              prog(e).dma[0].indirectStride = 64;
              prog(e).dma[0].indirectBound = 200;
            }),
            q2 + "indirect dma_copy can reach element 20927 of 'x', which has 8192");
  EXPECT_EQ(damaged([](Executable &e) {
              prog(e).dma[0].indirect = true;
              prog(e).streams[6][0].flags |= isa::kIndirect;
              prog(e).dma[0].index = tile(128, 1024, 1, isa::DType::F32);
              prog(e).dma[0].indirectStride = 64;
              prog(e).dma[0].indirectBound = 2;
            }),
            q2 + "indirect dma_copy operands do not fit together");
}

TEST(NeffValidation, PerOpcodeRules) {
  using isa::Engine;
  using isa::Opcode;
  isa::Operand acc = tile(128, 0, 64);
  acc.space = isa::Space::Psum;
  // Each case adds one instruction to its engine's stream; the message
  // names the stream and the instruction's index in it.
  struct Case {
    Opcode op;
    Engine engine;
    llvm::SmallVector<isa::Operand, 4> operands;
    const char *message;
  } cases[] = {
      {Opcode::LoadStationary, Engine::tensor, {tile(128, 0, 256)},
       "section 'p0.tensor' instruction 0: load_stationary takes at most 128 columns from SBUF"},
      {Opcode::MultiplyMoving, Engine::tensor, {acc, tile(128, 0, 32)},
       "section 'p0.tensor' instruction 0: multiply_moving needs an f32 PSUM accumulator as "
       "wide as the moving matrix (at most 512)"},
      {Opcode::Transpose, Engine::vector, {tile(32, 0, 16), tile(32, 4096, 16)},
       "section 'p0.vector' instruction 0: transpose destination is not the source transposed"},
      {Opcode::TensorReduce, Engine::vector, {tile(128, 0, 2), tile(128, 4096, 64)},
       "section 'p0.vector' instruction 0: tensor_reduce destination is not the source without "
       "its innermost dim"},
      {Opcode::BnStats, Engine::vector, {tile(128, 0, 3), tile(128, 4096, 1024)},
       "section 'p0.vector' instruction 0: bn_stats takes at most 512 elements and writes 3 per "
       "partition"},
      {Opcode::BnAggr, Engine::vector, {tile(128, 0, 2), tile(128, 4096, 4)},
       "section 'p0.vector' instruction 0: bn_aggr reads triples and writes 2 values per "
       "partition"},
      {Opcode::PartitionReduce, Engine::gpsimd, {tile(2, 0, 64), tile(128, 4096, 64)},
       "section 'p0.gpsimd' instruction 0: partition_reduce writes one partition as wide as its "
       "source"},
      // The scalar stream already holds the sample's activation.
      {Opcode::Reciprocal, Engine::scalar, {tile(128, 0, 2), tile(128, 4096, 2)},
       "section 'p0.scalar' instruction 1: reciprocal cannot run on engine 1"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(damaged([&](Executable &e) { add(e, instruction(c.op, c.engine, c.operands)); }),
              c.message)
        << isa::opcodeName(c.op).str();
}
