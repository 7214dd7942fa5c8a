//===- neuron-opt.cpp - mlir-opt for neuronc ------------------------------===//
//
// Runs passes over .mlir files, for lit tests and debugging: every dialect
// and pass of neuronc plus the usual mlir-opt flags (--pass-pipeline,
// --split-input-file, --verify-diagnostics, --mlir-print-ir-after-all, ...).
// An ONNX model (`model.onnx`) is imported first, so the passes see the same
// neuron IR neuronc compiles, located at its nodes.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/OnnxImport.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/ToolOutputFile.h"

/// Imports the ONNX model in `input` and runs the mlir-opt driver on its
/// neuron IR (printed with locations, so they survive the re-parse).
static int runOnOnnx(std::unique_ptr<llvm::MemoryBuffer> input, llvm::StringRef inputFilename,
                     llvm::StringRef outputFilename, mlir::DialectRegistry &registry) {
  std::string text;
  {
    mlir::MLIRContext context(registry);
    mlir::OwningOpRef<mlir::ModuleOp> module = neuronc::importOnnx(*input, &context);
    if (!module)
      return 1;
    llvm::raw_string_ostream os(text);
    module->print(os, mlir::OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                             /*prettyForm=*/false));
  }
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (mlir::failed(mlir::MlirOptMain(output->os(),
                                     llvm::MemoryBuffer::getMemBufferCopy(text, inputFilename),
                                     registry, config)))
    return 1;
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  neuronc::registerAllPasses();
  mlir::DialectRegistry registry;
  neuronc::registerAllDialects(registry);
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, "neuronc optimizer driver\n", registry);
  if (inputFilename != "-") {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFilename, &error);
    if (input && neuronc::isOnnxBuffer(*input))
      return runOnOnnx(std::move(input), inputFilename, outputFilename, registry);
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
