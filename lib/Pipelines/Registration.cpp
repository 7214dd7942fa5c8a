//===- Registration.cpp - Dialects and passes the tools know -------------===//

#include "neuronc/Pipelines/Registration.h"

#include "neuronc/Dialect/Neuron/NeuronDialect.h"
#include "neuronc/Dialect/Nisa/NisaDialect.h"
#include "neuronc/Conversion/Passes.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Transforms/NisaPasses.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/Passes.h"

void neuronc::registerAllDialects(mlir::DialectRegistry &registry) {
  // The device-side input dialects.
  registry.insert<mlir::neuron::NeuronDialect, mlir::nisa::NisaDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect, mlir::tensor::TensorDialect,
                  mlir::linalg::LinalgDialect, mlir::tosa::TosaDialect>();
  // The dialects of the host code around an exported kernel (drivers,
  // timers, printers, loops over buffers): they must parse so that the entry
  // can be picked out of the file; the import check rejects them in the
  // entry itself.
  registry.insert<mlir::vector::VectorDialect, mlir::scf::SCFDialect, mlir::LLVM::LLVMDialect,
                  mlir::memref::MemRefDialect, mlir::cf::ControlFlowDialect,
                  mlir::bufferization::BufferizationDialect, mlir::affine::AffineDialect>();
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
