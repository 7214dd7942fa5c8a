//===- RuntimeTest.cpp - The runtime API and the profiler over it ---------===//
//
// A compiled program run through rt::Runtime: outputs match the reference
// interpreter, runs on two cores get their own correlation ids and host
// phases, bad configurations and submissions are refused with their
// reasons, and a Profiler turns the runs into a profile whose rows add up.
//
//===----------------------------------------------------------------------===//

#include "BackendHarness.h"

#include "neuronc/Host/Kernels.h"
#include "neuronc/Profile/Profile.h"
#include "neuronc/Simulator/Runtime.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace neuronc;

namespace {

const char *kProgram = R"(
func.func @main(%x: tensor<256x64xf32>, %w: tensor<64xf32>) -> tensor<256x64xf32> {
  %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06 : (tensor<256x64xf32>, tensor<64xf32>) -> tensor<256x64xf32>
  %1 = neuron.exp %0 : tensor<256x64xf32>
  return %1 : tensor<256x64xf32>
}
)";

struct RuntimeFixture : ::testing::Test {
  neuronc::testing::BackendHarness h;
  neff::Executable exe;
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
  void SetUp() override {
    std::string why;
    auto built = h.compile(kProgram, /*fuse=*/false, "trn1", why);
    ASSERT_TRUE(mlir::succeeded(built)) << why;
    exe = std::move(*built);
    Tensor x = Tensor::empty(DType::F32, {256, 64}), w = Tensor::empty(DType::F32, {64});
    for (int64_t i = 0; i < x.numel(); ++i)
      x.f()[i] = std::cos(0.1 * i);
    for (int64_t i = 0; i < w.numel(); ++i)
      w.f()[i] = 0.5f + 0.01f * i;
    inputs = {x, w};
    auto ref = h.interpret(kProgram, inputs, why);
    ASSERT_TRUE(mlir::succeeded(ref)) << why;
    expected.assign(ref->begin(), ref->end());
  }
  void expectClose(const Tensor &a, const Tensor &b) {
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.numel(); ++i)
      ASSERT_NEAR(a.f()[i], b.f()[i], 1e-4 * std::max(1.0f, std::fabs(b.f()[i]))) << i;
  }
};

TEST_F(RuntimeFixture, RunsOnTwoCoresWithCorrelatedHostPhases) {
  rt::NeuronConfig config;
  config.cores = {0, 1};
  config.traceModes = rt::kTraceAll;
  auto created = rt::Runtime::create(config);
  ASSERT_TRUE(static_cast<bool>(created)) << llvm::toString(created.takeError());
  rt::Runtime &runtime = **created;
  const rt::Model *model = runtime.adopt(exe, "test");
  auto a = runtime.submit(*model, "main", inputs, 0);
  auto b = runtime.submit(*model, "", inputs, 1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 1u);
  EXPECT_EQ(*b, 2u);
  // Nothing has run before the synchronization.
  EXPECT_TRUE(runtime.outputs(*a).empty());
  ASSERT_FALSE(static_cast<bool>(runtime.synchronize()));
  expectClose(runtime.outputs(*a).front(), expected.front());
  expectClose(runtime.outputs(*b).front(), expected.front());
  const rt::Run *ra = runtime.find(*a), *rb = runtime.find(*b);
  // Concurrently on the chip: same start, same device time (their HBM
  // demand fits the chip).
  EXPECT_EQ(ra->device.startNs, rb->device.startNs);
  EXPECT_NEAR(ra->device.deviceNs, rb->device.deviceNs, 1e-6);
  EXPECT_EQ(rb->device.core, 1u);
  EXPECT_FALSE(ra->device.trace.empty());
  std::map<std::string, std::set<uint64_t>> phases;
  for (const rt::HostEvent &e : runtime.hostEvents()) {
    phases[e.name].insert(e.run);
    EXPECT_LE(e.startNs, e.endNs);
  }
  EXPECT_EQ(phases["copy-in"], (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(phases["dispatch"], (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(phases["copy-out"], (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(phases["execute"].size(), 1u);
  // A later run starts on the chip after the earlier ones ended.
  auto c = runtime.run(*model, "main", inputs);
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_GE(runtime.runs().back()->device.startNs, ra->device.endNs);
}

TEST_F(RuntimeFixture, RefusesWhatItCannotRun) {
  auto str = [](llvm::Error e) { return llvm::toString(std::move(e)); };
  rt::NeuronConfig config;
  config.cores = {};
  auto none = rt::Runtime::create(config);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_EQ(str(none.takeError()), "the runtime needs at least one NeuronCore");
  config.cores = {0, 128};
  config.target = "trn2";
  auto past = rt::Runtime::create(config);
  ASSERT_FALSE(static_cast<bool>(past));
  EXPECT_EQ(str(past.takeError()),
            "NeuronCore 128 does not exist: a trn2 instance has 128 (0-127, 8 per chip)");
  config.target = "trn7";
  auto unknown = rt::Runtime::create(config);
  ASSERT_FALSE(static_cast<bool>(unknown));
  EXPECT_EQ(str(unknown.takeError()), "unknown target 'trn7' (known: trn1, trn2)");

  auto created = rt::Runtime::create(rt::NeuronConfig{});
  ASSERT_TRUE(static_cast<bool>(created));
  rt::Runtime &runtime = **created;
  const rt::Model *model = runtime.adopt(exe, "test.neff");
  auto otherCore = runtime.submit(*model, "main", inputs, 1);
  ASSERT_FALSE(static_cast<bool>(otherCore));
  EXPECT_EQ(str(otherCore.takeError()), "NeuronCore 1 is not one of this runtime's (0)");
  auto entry = runtime.submit(*model, "nope", inputs, 0);
  ASSERT_FALSE(static_cast<bool>(entry));
  EXPECT_EQ(str(entry.takeError()), "test.neff has no entry point 'nope' (it has: main)");
  auto few = runtime.submit(*model, "main", {inputs[0]}, 0);
  ASSERT_FALSE(static_cast<bool>(few));
  EXPECT_EQ(str(few.takeError()), "@main takes 2 input(s), 1 given");
  auto shape = runtime.submit(*model, "main", {inputs[1], inputs[1]}, 0);
  ASSERT_FALSE(static_cast<bool>(shape));
  EXPECT_EQ(str(shape.takeError()),
            "input #0 ('in0') must be tensor<256x64xf32>, got tensor<64xf32>");
  auto missing = runtime.load("/nonexistent/model.neff");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(str(missing.takeError()).find("/nonexistent/model.neff"), std::string::npos);
}

TEST_F(RuntimeFixture, ProfilerRowsAddUpToTheDeviceTime) {
  auto created = rt::Runtime::create(rt::NeuronConfig{});
  ASSERT_TRUE(static_cast<bool>(created));
  rt::Runtime &runtime = **created;
  const rt::Model *model = runtime.adopt(exe, "test");
  // A run before the profiler starts is not in the profile.
  ASSERT_TRUE(static_cast<bool>(runtime.run(*model, "main", inputs)));
  profile::Profiler profiler(runtime);
  profiler.start();
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(static_cast<bool>(runtime.submit(*model, "main", inputs, 0)));
  // collect() synchronizes first: the queued runs get their device time.
  auto prof = profiler.collect();
  profiler.stop();
  ASSERT_TRUE(static_cast<bool>(prof)) << llvm::toString(prof.takeError());
  EXPECT_EQ(prof->runs.size(), 2u);
  double ops = prof->idleNs, kernels = prof->idleNs;
  for (const profile::OpStats &o : prof->ops)
    ops += o.deviceNs;
  for (const profile::KernelStats &k : prof->kernels)
    kernels += k.deviceNs;
  EXPECT_NEAR(ops, prof->deviceNs, 1e-6 * prof->deviceNs);
  EXPECT_NEAR(kernels, prof->deviceNs, 1e-6 * prof->deviceNs);
  // -O0-style lowering here: the rmsnorm and the exp are separate kernels,
  // each called once per run.
  ASSERT_EQ(prof->kernels.size(), 2u);
  for (const profile::KernelStats &k : prof->kernels)
    EXPECT_EQ(k.calls, 2);
  EXPECT_EQ(prof->summary.at("iterations"), 2);
  EXPECT_GT(prof->summary.at("mbu_estimated_percent"), 0);
  EXPECT_EQ(prof->summary.at("mfu_estimated_percent"), 0);
  std::string table = profile::keyAveragesTable(*prof);
  EXPECT_NE(table.find("neuron.rmsnorm"), std::string::npos) << table;
  EXPECT_NE(table.find("Self device time total"), std::string::npos) << table;
}

} // namespace
