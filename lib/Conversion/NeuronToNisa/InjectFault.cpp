//===- InjectFault.cpp - Deliberately wrong kernels for checked runs ------===//
//
// Tests of `neuron-run --check` need a lowering that is wrong in a known
// kernel. With NEURONC_INJECT_LOWERING_FAULT=N in the environment, the
// lowering maps x to 2x + 1 in what kernel N of each program last computes
// into a tile. The compile cache keys executables by the variable too.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::neuron::lowering;

std::optional<int64_t> mlir::neuron::lowering::faultInjectionKernel() {
  const char *env = std::getenv("NEURONC_INJECT_LOWERING_FAULT");
  int64_t k = 0;
  if (!env || llvm::StringRef(env).getAsInteger(10, k) || k < 0)
    return std::nullopt;
  return k;
}

void mlir::neuron::lowering::injectFault(nisa::ProgramOp program, int64_t index) {
  auto kernels = llvm::to_vector(program.getBodyBlock().getOps<nisa::KernelOp>());
  if (index >= static_cast<int64_t>(kernels.size()))
    return;
  nisa::KernelOp kernel = kernels[index];
  nisa::MemoryResolver resolver(program);
  for (Operation &op : llvm::reverse(kernel.getBodyBlock())) {
    auto inst = dyn_cast<nisa::InstructionOpInterface>(op);
    if (!inst || inst.getInstructionEngine() == nisa::Engine::dma)
      continue;
    SmallVector<nisa::MemoryAccess> accesses;
    inst.getAccesses(accesses);
    for (const nisa::MemoryAccess &a : accesses) {
      auto tile = dyn_cast_or_null<nisa::AllocOp>(resolver.lookup(kernel, a.memory));
      if (!a.write || !tile || tile.getDiscard() || !isa<FloatType>(tile.getElementType()))
        continue;
      nisa::Engine engine = inst.getInstructionEngine();
      if (engine == nisa::Engine::tensor ||
          (engine == nisa::Engine::gpsimd && tile.getSpace() == nisa::MemorySpace::psum))
        engine = nisa::Engine::vector;
      OpBuilder b(op.getContext());
      b.setInsertionPointAfter(&op);
      nisa::TensorScalarOp::create(
          b, op.getLoc(), nisa::EngineAttr::get(b.getContext(), engine), a.memory, a.ap,
          a.memory, a.ap, nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::multiply),
          b.getF32FloatAttr(2.0f), FlatSymbolRefAttr(), nisa::AccessPatternAttr(), UnitAttr(),
          nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::add), b.getF32FloatAttr(1.0f),
          FlatSymbolRefAttr(), nisa::AccessPatternAttr(), UnitAttr(), DenseI64ArrayAttr(),
          UnitAttr());
      return;
    }
  }
}
