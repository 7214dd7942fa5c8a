//===- NeffTest.cpp - The executable's container, byte for byte -----------===//
//
// A hand-built executable exercising every field is written and read back
// equal; then single bytes are damaged and each damage is reported.
//
//===----------------------------------------------------------------------===//

#include "NeffSamples.h"

#include <gtest/gtest.h>

using namespace neuronc;
using namespace neuronc::neff;
using namespace neuronc::testing;

TEST(Neff, RoundTripsEveryField) {
  Executable exe = sample();
  std::vector<uint8_t> bytes = writeNeff(exe);
  std::vector<SectionInfo> sections;
  auto back = readNeff(bytes, &sections);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == exe);
  EXPECT_EQ(back->programs[0].debug[0].op, "aten::exp");
  EXPECT_EQ(back->programs[0].streams[1][0].waits[0].count, 1u);
  EXPECT_EQ(back->constants, exe.constants);
  // Writing what was read gives the same bytes (deterministic encoding).
  EXPECT_EQ(writeNeff(*back), bytes);
  // The streams present, the descriptors and the debug map are sections.
  std::vector<std::string> names;
  for (const SectionInfo &s : sections)
    names.push_back(s.name);
  for (const char *n : {"meta", "strings", "p0.scalar", "p0.q2", "p0.q3", "p0.dma", "p0.debug",
                        "p0.cost", "p0.absorbed", "const"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

TEST(Neff, AbsorbedOpsAreAnOptionalSection) {
  Executable exe = sample();
  auto back = readNeff(writeNeff(exe));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  ASSERT_EQ(back->programs[0].kernels[0].absorbed.size(), 2u);
  EXPECT_EQ(back->programs[0].kernels[0].absorbed[0].op, "neuron.mul");
  EXPECT_EQ(back->programs[0].kernels[0].absorbed[1].location, "model.mlir:3:5");
  // A program without fused kernels has no such section (written as before).
  exe.programs[0].kernels[0].absorbed.clear();
  std::vector<SectionInfo> sections;
  back = readNeff(writeNeff(exe), &sections);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == exe);
  for (const SectionInfo &s : sections)
    EXPECT_NE(s.name, "p0.absorbed");
}

TEST(Neff, BucketSignatureRoundTrips) {
  Executable exe = bucketed(128);
  auto back = readNeff(writeNeff(exe));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->entries, exe.entries);
  EXPECT_EQ(back->entries.front().signature.formatDims(back->entries.front().signature.inputs[0]),
            "[seq, 64]");
  EXPECT_DOUBLE_EQ(back->entries.front().signature.workAt({100}), 250.0);
}

TEST(Neff, BucketProgramMustMatchItsSizes) {
  // The program takes 128x64 but the table says the bucket is seq=256.
  auto back = readNeff(writeNeff(bucketed(256)));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "entry point 'f' bucket seq=256 (program 'f'): x has shape 128x64 but the bucket "
            "needs 256x64");
}

TEST(Neff, BucketedEntryNeedsItsFeatureBit) {
  Executable exe = bucketed(128);
  exe.requiredFeatures &= ~kFeatureBuckets;
  auto back = readNeff(writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "section 'meta': entry point 'f' is bucketed but the 'buckets' feature bit is not set");
}

TEST(Neff, StaticEntryHasNoSignatureAndAProgram) {
  Executable exe = sample();
  exe.entries.front().signature.inputs = {{128, 64}};
  auto back = readNeff(writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "section 'meta': entry point 'f' has no dynamic dims but a signature (inputs, "
            "outputs, masks or work terms)");
  exe = sample();
  exe.entries.front().buckets.clear();
  back = readNeff(writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "section 'meta': entry point 'f' has no bucket (no program to run)");
}

TEST(Neff, WritesItsOwnVersionWhateverWasRead) {
  Executable exe = sample();
  exe.minor = 0;
  auto back = readNeff(writeNeff(exe));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->minor, kMinorVersion);
}

TEST(Neff, VariablesMustFitOneCoresHbm) {
  // Refused before the simulator would allocate 32 GiB for it.
  Executable exe = sample();
  exe.programs[0].variables[0].shape = {int64_t(1) << 33, 1};
  auto back = readNeff(writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "section 'meta': variable 'x' is 34359738368 bytes, more than a trn1 NeuronCore's "
            "16.0 GiB of HBM");
}

TEST(Neff, HostTransposedInputsRoundTripAndNeedTheirFeatureBit) {
  Executable exe = sample();
  exe.programs[0].variables[0].hostTransposed = true; // x, input [128, 64]
  exe.requiredFeatures |= kFeatureHostLayouts;
  auto back = readNeff(writeNeff(exe));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == exe);
  EXPECT_TRUE(back->programs[0].variables[0].hostTransposed);
  EXPECT_EQ(back->programs[0].variables[0].hostShape(), (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(back->programs[0].variables[0].shape, (std::vector<int64_t>{128, 64}));

  exe.requiredFeatures &= ~kFeatureHostLayouts;
  back = readNeff(writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "section 'meta': variable 'x' is marked host-transposed but the 'host-layouts' "
            "feature bit is not set");

  // Only inputs of rank 2 or more are loaded transposed.
  exe = sample();
  exe.requiredFeatures |= kFeatureHostLayouts;
  for (Variable &v : exe.programs[0].variables)
    if (v.kind == VarKind::Output)
      v.hostTransposed = true;
  back = readNeff(writeNeff(exe));
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_NE(llvm::toString(back.takeError()).find("is marked host-transposed but is not an input"),
            std::string::npos);
}

TEST(Neff, EveryByteOfTheHeaderIsChecked) {
  std::vector<uint8_t> bytes = writeNeff(sample());
  for (size_t at = 0; at < kHeaderBytes; ++at) {
    std::vector<uint8_t> bad = bytes;
    bad[at] ^= 0x5a;
    EXPECT_FALSE(static_cast<bool>(readNeff(bad))) << "byte " << at;
  }
}

TEST(Neff, AnyFlippedSectionByteIsCaught) {
  std::vector<uint8_t> bytes = writeNeff(sample());
  std::vector<SectionInfo> sections;
  ASSERT_TRUE(static_cast<bool>(readNeff(bytes, &sections)));
  for (const SectionInfo &s : sections)
    for (uint64_t at = s.offset; at < s.offset + s.size; at += 7) {
      std::vector<uint8_t> bad = bytes;
      bad[at] ^= 0x01;
      auto r = readNeff(bad);
      ASSERT_FALSE(static_cast<bool>(r)) << s.name << " byte " << at;
      std::string msg = llvm::toString(r.takeError());
      EXPECT_NE(msg.find("section '" + s.name + "' checksum mismatch"), std::string::npos)
          << msg;
    }
}

TEST(Neff, TruncationAtEveryLengthIsRefused) {
  std::vector<uint8_t> bytes = writeNeff(sample());
  for (size_t n = 0; n < bytes.size(); n += 13) {
    auto r = readNeff(llvm::ArrayRef<uint8_t>(bytes).take_front(n));
    ASSERT_FALSE(static_cast<bool>(r)) << n;
    llvm::consumeError(r.takeError());
  }
}
