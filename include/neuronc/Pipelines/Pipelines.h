//===- Pipelines.h - The compiler's pass pipelines ---------------*- C++ -*-===//
//
// Pipelines live here, not in the tools, so that neuronc, neuron-opt,
// neuron-run and the tests all build exactly the same pass lists.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_PIPELINES_PIPELINES_H
#define NEURONC_PIPELINES_PIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace neuronc {

/// The stages `neuronc --emit=` can stop after, in pipeline order.
enum class EmitStage {
  Neuron,   ///< imported, legalized, canonicalized neuron IR
  Bucketed, ///< dynamic dims specialized into static buckets and a dispatcher
  Fused,    ///< after the fusion passes (named kernels recognized)
  Nisa,   ///< engine instructions: tiled, allocated, synchronized, race-checked
  Neff,   ///< the executable
};

/// How the backend lowers and encodes.
struct BackendOptions {
  std::string target = "trn1"; ///< trn1 | trn2
  bool remarks = false;        ///< a remark per kernel on how it was lowered
};

/// How input programs are brought into the neuron dialect.
struct ImportOptions {
  bool dropHostCalls = false;       ///< remove timers/prints instead of rejecting them
  bool returnPrinted = false;       ///< printed tensors become results (implies dropping)
  std::string autoCast = "none";    ///< none | matmult | all
  std::string autoCastType = "bf16"; ///< bf16 | f16
};

/// How dynamic dims become static buckets.
struct BucketOptions {
  std::string buckets;      ///< `seq:128,256;batch:auto:1:8`; empty: no bucketing asked
  unsigned maxBuckets = 64; ///< refuse larger grids
};

/// Registers `--buckets` (repeatable, joined with ';') and `--max-buckets`.
void registerBucketCLOptions();
/// The bucket options as the command line set them.
BucketOptions bucketOptionsFromCL();

/// Shape bucketing, then cleanup.
void buildBucketPipeline(mlir::OpPassManager &pm, const BucketOptions &options);

/// The bucket pipeline on `module` (with the pass manager command-line
/// options applied).
mlir::LogicalResult bucketModule(mlir::ModuleOp module, const BucketOptions &options);

/// True when some function of `module` has a dynamically shaped argument.
bool hasDynamicFunctions(mlir::ModuleOp module);

/// Registers the import flags every tool shares (--drop-host-calls,
/// --auto-cast, --auto-cast-type); call before parsing the command line.
void registerImportCLOptions();
/// The import options as the command line set them.
ImportOptions importOptionsFromCL();
/// The --help category of the import flags.
llvm::cl::OptionCategory &importCLCategory();

/// Import: (drop host calls,) inline, convert TOSA/linalg/tensor to neuron,
/// canonicalize, check that nothing else is left, legalize types, clean up.
void buildImportPipeline(mlir::OpPassManager &pm, const ImportOptions &options);

/// Fusion: recognize RMSNorm, softmax/log-softmax and activations, then fuse
/// what is left producer→consumer into neuron.kernel regions. Decisions are
/// recorded for the fusion report.
void buildFusionPipeline(mlir::OpPassManager &pm);

/// Canonicalization and CSE over every function.
void buildNeuronCleanupPipeline(mlir::OpPassManager &pm);

/// Keeps only what is compiled: with an `entry` name, that function and the
/// functions it calls; without, every function except host-side `main`s with
/// no arguments. Fails (with an error listing candidates) on an unknown entry.
mlir::LogicalResult restrictToEntry(mlir::ModuleOp module, llvm::StringRef entry);

/// Parses the main buffer of `sourceMgr`. When parsing fails on text that
/// looks like pre-TOSA-1.0 syntax, adds a note saying so and what to do.
mlir::OwningOpRef<mlir::ModuleOp> parseInput(llvm::SourceMgr &sourceMgr,
                                             mlir::MLIRContext *context);

/// restrictToEntry + the import pipeline, run on `module` with the pass
/// manager command-line options (--mlir-print-ir-after-all, ...) applied.
mlir::LogicalResult importModule(mlir::ModuleOp module, llvm::StringRef entry,
                                 const ImportOptions &options);

/// The fusion pipeline, run on `module` with the pass manager command-line
/// options applied.
mlir::LogicalResult fuseModule(mlir::ModuleOp module);

/// The backend: lower to nisa, allocate memory, insert semaphores, check
/// for races.
void buildBackendPipeline(mlir::OpPassManager &pm, const BackendOptions &options);

/// The backend pipeline, run on `module` with the pass manager command-line
/// options applied.
mlir::LogicalResult lowerModule(mlir::ModuleOp module, const BackendOptions &options);

/// Registers `--neuron-import` as a pass pipeline for neuron-opt.
void registerPipelines();

} // namespace neuronc

#endif // NEURONC_PIPELINES_PIPELINES_H
