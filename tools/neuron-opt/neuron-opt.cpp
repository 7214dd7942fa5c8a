//===- neuron-opt.cpp - mlir-opt for neuronc ------------------------------===//
//
// Runs passes over .mlir files, for lit tests and debugging: every dialect
// and pass of neuronc plus the usual mlir-opt flags (--pass-pipeline,
// --split-input-file, --verify-diagnostics, --mlir-print-ir-after-all, ...).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Pipelines/Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  neuronc::registerAllPasses();
  mlir::DialectRegistry registry;
  neuronc::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "neuronc optimizer driver\n", registry));
}
