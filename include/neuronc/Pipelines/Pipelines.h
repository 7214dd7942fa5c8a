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

#include <optional>
#include <string>
#include <vector>

namespace neuronc {

/// The stages `neuronc --emit=` can stop after, in pipeline order.
enum class EmitStage {
  Neuron,    ///< imported into neuron ops and canonicalized
  Legalized, ///< f64/i64 converted, optional 16-bit auto-cast
  Bucketed,  ///< dynamic dims specialized into static buckets and a dispatcher
  Fused,     ///< after the fusion passes (named kernels recognized)
  Lowered,   ///< engine instructions, before allocation and synchronization
  Nisa,      ///< engine instructions: allocated, synchronized, race-checked
  Neff,      ///< the executable
};

/// The stage's name as `--emit=` and the phase dump files spell it.
llvm::StringRef stageName(EmitStage stage);
/// The stage of a name (`neuron` is also `imported`).
std::optional<EmitStage> parseStage(llvm::StringRef name);

/// How the backend lowers and encodes.
struct BackendOptions {
  std::string target = "trn1"; ///< trn1 | trn2
  bool remarks = false;        ///< a remark per kernel on how it was lowered
  /// Internal HBM tensors keep bytes of their own (checked runs read them
  /// after the program ends).
  bool distinctScratch = false;
  /// Loads of what an earlier kernel stored from a tile that still holds it
  /// read the tile instead (`--nisa-forward-stores`); off at -O0, where every
  /// kernel round-trips HBM.
  bool forwardStores = true;
  /// A kernel's loads of constants and inputs start during the kernel
  /// before it (`--nisa-prefetch-loads`); off at -O0.
  bool prefetchLoads = true;
  /// Kernels that only copy one HBM tensor into another (slices, permutes
  /// keeping the contiguous dim) are absorbed into the loads that read the
  /// copy (`--nisa-fold-copy-kernels`); off at -O0.
  bool foldCopies = true;
};

/// How input programs are brought into the neuron dialect.
struct ImportOptions {
  bool dropHostCalls = false;       ///< remove timers/prints instead of rejecting them
  bool returnPrinted = false;       ///< printed tensors become results (implies dropping)
  std::string autoCast = "none";    ///< none | matmult | all
  std::string autoCastType = "bf16"; ///< bf16 | f16
  /// Seed of the random values that replace elided weights
  /// (`dense_resource<__elided__>`); -1: elided weights are an error.
  int64_t randomElidedWeights = -1;
};

/// How dynamic dims become static buckets.
struct BucketOptions {
  std::string buckets;      ///< `seq:128,256;batch:auto:1:8`; empty: no bucketing asked
  unsigned maxBuckets = 64; ///< refuse larger grids
};

/// Everything that decides what the compiler produces: the options of every
/// stage, the level and the last stage. The compile cache hashes it.
struct CompileOptions {
  ImportOptions import;
  BucketOptions bucket;
  BackendOptions backend;
  unsigned optLevel = 2;                ///< 0: no fusion; 1: named kernels; 2, 3: full fusion
  /// Fusion rules not to apply (names of fusionRuleNames()), to compare a
  /// program with and without one.
  std::vector<std::string> disabledFusions;
  /// Entry arguments only read transposed are taken in the device's layout
  /// and swapped by the runtime at load (--prepack-weights).
  bool prepackWeights = false;
  /// Tensor parallelism: the program one of `tp` cores runs (--tp=N;
  /// 1: none), and where --neuron-shard-tp writes its report ('-': stderr).
  int64_t tp = 1;
  std::string tpReport;
  /// With tp > 1: sequence parallelism (--tp-sequence-parallel).
  bool sequenceParallel = false;
  EmitStage stage = EmitStage::Neff;    ///< the last stage to run
  std::string entry;                    ///< compile only this function (and callees)
  /// A stable text of every field, for cache keys and reproducers.
  std::string fingerprint() const;
};

/// Adds the passes of one stage (import through nisa; neff is not a pass).
/// Bucketing is added when a spec is given, or from the lowering on (the
/// device needs static shapes); fusion is skipped at -O0.
void buildStagePipeline(mlir::OpPassManager &pm, EmitStage stage,
                        const CompileOptions &options);
/// Every stage up to options.stage, in order: the whole compiler as one
/// pass pipeline (`neuron-opt --neuron-pipeline`).
void buildCompilePipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// Runs the stages up to options.stage on `module` (after restricting it
/// to options.entry), with the pass manager command-line options applied;
/// `afterStage` (if given) sees the module after each stage and may fail.
mlir::LogicalResult
compileModule(mlir::ModuleOp module, const CompileOptions &options,
              llvm::function_ref<mlir::LogicalResult(EmitStage)> afterStage = {});

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
/// The conversion part of import (everything before type legalization).
void buildConversionPipeline(mlir::OpPassManager &pm, const ImportOptions &options);
/// Type legalization (f64/i64, auto-cast) and cleanup.
void buildLegalizePipeline(mlir::OpPassManager &pm, const ImportOptions &options);

/// Fusion: recognize RMSNorm, softmax/log-softmax and activations, then
/// (unless `namedOnly`, -O1) fuse what is left producer→consumer into
/// neuron.kernel regions. Decisions are recorded for the fusion report.
void buildFusionPipeline(mlir::OpPassManager &pm, bool namedOnly = false,
                         llvm::ArrayRef<std::string> disabled = {});

/// The fusion rules --disable-fusion names, in pipeline order.
llvm::ArrayRef<llvm::StringRef> fusionRuleNames();

/// Canonicalization and CSE over every function.
void buildNeuronCleanupPipeline(mlir::OpPassManager &pm);

/// Keeps only what is compiled: with an `entry` name, that function and the
/// functions it calls; without, every function except host-side `main`s with
/// no arguments. Then drops the host globals nothing references any more.
/// Fails (with an error listing candidates) on an unknown entry.
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

/// --neuron-prepack-weights on `module` (with the pass manager command-line
/// options applied).
mlir::LogicalResult prepackWeights(mlir::ModuleOp module);

/// --neuron-shard-tp=parts=`tp` on `module` (then --neuron-sequence-parallel
/// when asked): each function becomes the program one of `tp` cores runs
/// (with the pass manager command-line options applied).
mlir::LogicalResult shardModule(mlir::ModuleOp module, int64_t tp,
                                bool sequenceParallel = false);

/// The backend: lower to nisa, forward stores to later loads through SBUF,
/// allocate memory, insert semaphores, check for races.
void buildBackendPipeline(mlir::OpPassManager &pm, const BackendOptions &options);
/// The lowering alone (--neuron-lower).
void buildLowerPipeline(mlir::OpPassManager &pm, const BackendOptions &options);
/// Store forwarding, allocation, semaphores and the race check, per
/// program; with `distinctScratch` internal HBM tensors keep their stores
/// and bytes of their own.
void buildProgramPipeline(mlir::OpPassManager &pm, const BackendOptions &options = {});

/// The backend pipeline, run on `module` with the pass manager command-line
/// options applied.
mlir::LogicalResult lowerModule(mlir::ModuleOp module, const BackendOptions &options);

/// Registers `--neuron-import`, `--neuron-fuse`, `--neuron-backend` and the
/// whole compiler `--neuron-pipeline` as pass pipelines for neuron-opt.
void registerPipelines();

} // namespace neuronc

#endif // NEURONC_PIPELINES_PIPELINES_H
