//===- embed_runtime.cpp - A program that embeds the runtime --------------===//
//
// neuronc-embed-runtime model.neff [input.npy ...]
// Loads a validated executable, runs its first entry on the simulated
// NeuronCore with the given inputs (zeros of each input's shape when none
// are given) and prints each output's shape and statistics and the device
// time. It links the runtime, the instruction set, host tensors and LLVM
// Support only: test/layering/runtime-without-mlir.test checks that the
// binary needs no MLIR library, which is how an embedder uses neuronc
// (docs/architecture.md#embedding-the-runtime).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Host/Npy.h"
#include "neuronc/Simulator/Runtime.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace neuronc;

static int fail(llvm::Error e) {
  llvm::errs() << "neuronc-embed-runtime: error: " << llvm::toString(std::move(e)) << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: neuronc-embed-runtime model.neff [input.npy ...]\n";
    return 2;
  }
  auto runtime = rt::Runtime::create(rt::NeuronConfig{});
  if (!runtime)
    return fail(runtime.takeError());
  auto model = (*runtime)->load(argv[1]);
  if (!model)
    return fail(model.takeError());
  auto program = (*model)->program("");
  if (!program)
    return fail(program.takeError());

  std::vector<Tensor> inputs;
  for (int i = 2; i < argc; ++i) {
    auto buffer = llvm::MemoryBuffer::getFile(argv[i]);
    if (!buffer)
      return fail(llvm::createStringError(buffer.getError(), "cannot read %s", argv[i]));
    auto t = decodeNpy((*buffer)->getBuffer());
    if (!t)
      return fail(t.takeError());
    inputs.push_back(std::move(*t));
  }
  if (argc == 2)
    for (const neff::Variable &v : (*program)->variables)
      if (v.kind == neff::VarKind::Input)
        inputs.push_back(Tensor::filled(sim::hostDType(v.dtype), v.shape, 0.0));

  auto id = (*runtime)->submit(**model, "", inputs, /*core=*/0);
  if (!id)
    return fail(id.takeError());
  if (llvm::Error e = (*runtime)->synchronize())
    return fail(std::move(e));
  const rt::Run *run = (*runtime)->find(*id);
  for (size_t i = 0; i < run->outputs.size(); ++i) {
    const Tensor &t = run->outputs[i];
    TensorStats s = computeStats(t);
    llvm::outs() << "output #" << i << ": " << dtypeName(t.dtype()) << "[";
    for (size_t d = 0; d < t.shape().size(); ++d)
      llvm::outs() << (d ? "x" : "") << t.shape()[d];
    llvm::outs() << llvm::formatv("] min {0} max {1} mean {2}\n", s.min, s.max, s.mean);
  }
  llvm::outs() << llvm::formatv("device time: {0:f2} us\n", run->device.deviceNs / 1e3);
  return 0;
}
