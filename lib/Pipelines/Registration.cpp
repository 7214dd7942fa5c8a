//===- Registration.cpp - Dialects and passes the tools know -------------===//

#include "neuronc/Pipelines/Registration.h"

#include "neuronc/Dialect/Neuron/NeuronDialect.h"
#include "neuronc/Dialect/Nisa/NisaDialect.h"
#include "neuronc/Conversion/Passes.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Transforms/NisaPasses.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/Passes.h"

void neuronc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::neuron::NeuronDialect, mlir::nisa::NisaDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::tensor::TensorDialect, mlir::linalg::LinalgDialect,
                  mlir::tosa::TosaDialect, mlir::vector::VectorDialect>();
  mlir::func::registerInlinerExtension(registry);
}

void neuronc::registerAllPasses() {
  mlir::neuron::registerNeuronPasses();
  mlir::nisa::registerNisaPasses();
  mlir::neuron::registerNeuronConversionPasses();
  neuronc::registerPipelines();
  mlir::registerInlinerPass();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}
