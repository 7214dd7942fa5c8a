//===- Pipelines.cpp - The compiler's pass pipelines ---------------------===//

#include "neuronc/Pipelines/Pipelines.h"

#include "neuronc/Dialect/Neuron/NeuronDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void neuronc::buildNeuronCleanupPipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
}

LogicalResult neuronc::verifyNeuronOnly(ModuleOp module) {
  bool ok = true;
  module.walk([&](func::FuncOp f) {
    for (Operation &op : f.getBody().getOps()) {
      if (isa<func::ReturnOp>(op) || isa<neuron::NeuronDialect>(op.getDialect()))
        continue;
      op.emitError("'") << op.getName()
                        << "' is not a neuron op; neuronc compiles functions of neuron ops "
                           "(importing other dialects is not available yet)";
      ok = false;
    }
  });
  return success(ok);
}
