//===- Pipelines.cpp - The compiler's pass pipelines ---------------------===//

#include "neuronc/Pipelines/Pipelines.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/Pipelines/Entry.h"
#include "neuronc/Transforms/NisaPasses.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Regex.h"

using namespace mlir;

llvm::cl::OptionCategory &neuronc::importCLCategory() {
  static llvm::cl::OptionCategory category("import options");
  return category;
}

namespace {
/// The import flags of the tools, registered once for all of them.
struct ImportCLOptions {
  llvm::cl::opt<bool> dropHostCalls{
      "drop-host-calls",
      llvm::cl::desc("Remove calls to host functions (timers, printers), vector.print and test "
                     "assertions, with a warning each, instead of rejecting them"),
      llvm::cl::cat(neuronc::importCLCategory())};
  llvm::cl::opt<bool> returnPrinted{
      "return-printed",
      llvm::cl::desc("Implies --drop-host-calls; every tensor passed to a dropped printer or assertion becomes "
                     "an extra result of its function instead of dead code"),
      llvm::cl::cat(neuronc::importCLCategory())};
  llvm::cl::opt<std::string> autoCast{
      "auto-cast", llvm::cl::desc("Compute in 16-bit floats: none, matmult or all"),
      llvm::cl::init("none"), llvm::cl::cat(neuronc::importCLCategory())};
  llvm::cl::opt<std::string> autoCastType{
      "auto-cast-type", llvm::cl::desc("The 16-bit type for --auto-cast: bf16 or f16"),
      llvm::cl::init("bf16"), llvm::cl::cat(neuronc::importCLCategory())};
  llvm::cl::opt<int64_t> randomElidedWeights{
      "random-elided-weights",
      llvm::cl::desc("Weights printed as dense_resource<__elided__> get seeded random values "
                     "(normal, stddev 0.02) with a warning, so the program compiles and "
                     "profiles; its results are not the model's"),
      llvm::cl::value_desc("seed"), llvm::cl::init(-1),
      llvm::cl::cat(neuronc::importCLCategory())};
};
llvm::ManagedStatic<ImportCLOptions> importCLOptions;
} // namespace

void neuronc::registerImportCLOptions() { (void)*importCLOptions; }

namespace {
/// The bucketing flags, registered once for every tool.
struct BucketCLOptions {
  llvm::cl::list<std::string> buckets{
      "buckets",
      llvm::cl::desc("Static buckets for a dynamic dim: NAME:SIZES (seq:128,256,512) or "
                     "NAME:auto:MIN:MAX (powers of two); NAME is a neuron.dim_names name or "
                     "argI.D; repeat the flag or separate with ';' for a grid"),
      llvm::cl::value_desc("spec"), llvm::cl::cat(neuronc::importCLCategory())};
  llvm::cl::opt<unsigned> maxBuckets{
      "max-buckets", llvm::cl::desc("Refuse a bucket grid with more buckets than this"),
      llvm::cl::init(64), llvm::cl::cat(neuronc::importCLCategory())};
};
llvm::ManagedStatic<BucketCLOptions> bucketCLOptions;
} // namespace

void neuronc::registerBucketCLOptions() { (void)*bucketCLOptions; }

neuronc::BucketOptions neuronc::bucketOptionsFromCL() {
  BucketOptions options;
  if (!bucketCLOptions.isConstructed())
    return options;
  options.buckets = llvm::join(bucketCLOptions->buckets, ";");
  options.maxBuckets = bucketCLOptions->maxBuckets;
  return options;
}

void neuronc::buildBucketPipeline(OpPassManager &pm, const BucketOptions &options) {
  neuron::NeuronBucketShapesPassOptions bucket;
  bucket.buckets = options.buckets;
  bucket.maxBuckets = options.maxBuckets;
  pm.addPass(neuron::createNeuronBucketShapesPass(bucket));
  buildNeuronCleanupPipeline(pm);
}

LogicalResult neuronc::bucketModule(ModuleOp module, const BucketOptions &options) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  buildBucketPipeline(pm, options);
  return pm.run(module);
}

bool neuronc::hasDynamicFunctions(ModuleOp module) {
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal())
      for (Type t : fn.getArgumentTypes())
        if (auto rt = dyn_cast<RankedTensorType>(t); rt && !rt.hasStaticShape())
          return true;
  return false;
}

neuronc::ImportOptions neuronc::importOptionsFromCL() {
  ImportOptions options;
  if (!importCLOptions.isConstructed())
    return options;
  options.returnPrinted = importCLOptions->returnPrinted;
  options.dropHostCalls = importCLOptions->dropHostCalls || options.returnPrinted;
  options.autoCast = importCLOptions->autoCast;
  options.autoCastType = importCLOptions->autoCastType;
  options.randomElidedWeights = importCLOptions->randomElidedWeights;
  return options;
}

void neuronc::buildNeuronCleanupPipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
}

void neuronc::buildConversionPipeline(OpPassManager &pm, const ImportOptions &options) {
  if (options.dropHostCalls || options.returnPrinted) {
    neuron::NeuronDropHostCallsPassOptions drop;
    drop.returnPrinted = options.returnPrinted;
    pm.addPass(neuron::createNeuronDropHostCallsPass(drop));
  }
  // Inline without the inliner's default canonicalization: input dialects'
  // folders do not all agree with their own lowering (tosa.cast folds an i1
  // true to -1.0), so nothing is folded before it is neuron.
  pm.addPass(createInlinerPass(/*opPipelines=*/{}, /*defaultPipelineBuilder=*/
                               [](OpPassManager &) {}));
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(neuron::createNeuronConvertTosaPass());
  fpm.addPass(neuron::createNeuronConvertLinalgPass());
  fpm.addPass(neuron::createNeuronConvertTensorPass());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(neuron::createNeuronRefineShapesPass());
  fpm.addPass(createCanonicalizerPass());
  pm.addPass(createSymbolDCEPass());
  neuron::NeuronCheckImportPassOptions check;
  check.randomElidedWeights = options.randomElidedWeights;
  pm.addPass(neuron::createNeuronCheckImportPass(check));
}

void neuronc::buildLegalizePipeline(OpPassManager &pm, const ImportOptions &options) {
  neuron::NeuronLegalizeTypesPassOptions legalize;
  legalize.autoCast = options.autoCast;
  legalize.autoCastType = options.autoCastType;
  pm.addPass(neuron::createNeuronLegalizeTypesPass(legalize));
  buildNeuronCleanupPipeline(pm);
}

void neuronc::buildImportPipeline(OpPassManager &pm, const ImportOptions &options) {
  buildConversionPipeline(pm, options);
  buildLegalizePipeline(pm, options);
}

namespace {
/// A fusion rule --disable-fusion can name, and its pass.
struct FusionRule {
  llvm::StringRef name;
  std::unique_ptr<Pass> (*create)();
};
/// The named rules in pipeline order; "elementwise" (general fusion, after
/// canonicalization, not at -O1) comes before "pool", which pulls a pooling
/// into the convolution kernel general fusion formed, "sums", which
/// accumulates a bare pointwise convolution that such a kernel adds into
/// its PSUM tiles, and "chains", which joins a pointwise convolution to
/// such a kernel; "casts" moves casts to
/// where general fusion takes them in (not at -O1 either).
const FusionRule kFusionRules[] = {
    {"transposes", [] { return neuron::createNeuronFoldTransposesPass(); }},
    {"batchnorm", [] { return neuron::createNeuronFoldBatchNormPass(); }},
    {"groups", [] { return neuron::createNeuronMergeConvGroupsPass(); }},
    {"siblings", [] { return neuron::createNeuronMergeSiblingMatmulsPass(); }},
    {"activations", [] { return neuron::createNeuronFuseActivationsPass(); }},
    {"softmax", [] { return neuron::createNeuronFuseSoftmaxPass(); }},
    {"attention", [] { return neuron::createNeuronFuseAttentionPass(); }},
    {"rows", [] { return neuron::createNeuronOrderMatmulRowsPass(); }},
    {"broadcast", [] { return neuron::createNeuronFoldBroadcastOperandsPass(); }},
    {"rmsnorm", [] { return neuron::createNeuronFuseRmsNormPass(); }},
    {"layernorm", [] { return neuron::createNeuronFuseLayerNormPass(); }},
    {"casts", [] { return neuron::createNeuronHoistCastsPass(); }},
    {"elementwise", [] { return neuron::createNeuronFuseElementwisePass(); }},
    {"pool", [] { return neuron::createNeuronFusePoolPass(); }},
    {"sums", [] { return neuron::createNeuronFuseConvSumsPass(); }},
    {"chains", [] { return neuron::createNeuronFuseConvChainsPass(); }},
};
} // namespace

llvm::ArrayRef<llvm::StringRef> neuronc::fusionRuleNames() {
  static const llvm::SmallVector<llvm::StringRef> names =
      llvm::map_to_vector(kFusionRules, [](const FusionRule &r) { return r.name; });
  return names;
}

void neuronc::buildFusionPipeline(OpPassManager &pm, bool namedOnly,
                                  llvm::ArrayRef<std::string> disabled) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  for (const FusionRule &rule : kFusionRules) {
    bool general = rule.name == "elementwise";
    // Moving casts pays when general fusion then takes them into kernels.
    bool forGeneral = general || rule.name == "casts" || rule.name == "sums" ||
                      rule.name == "chains";
    if (general)
      fpm.addPass(createCanonicalizerPass());
    if (!llvm::is_contained(disabled, rule.name) && !(forGeneral && namedOnly))
      fpm.addPass(rule.create());
    // Windows over more than two spatial dims become the lowering's 2-D ones
    // once batch normalization has folded into them and before the other
    // fusions see the convolutions (the lowering pipeline repeats it for
    // programs that skip fusion).
    if (rule.name == "batchnorm")
      fpm.addPass(neuron::createNeuronDecomposeWindowsPass());
  }
  buildNeuronCleanupPipeline(pm);
}

void neuronc::buildLowerPipeline(OpPassManager &pm, const BackendOptions &options) {
  neuron::NeuronLowerPassOptions lower;
  lower.target = options.target;
  lower.remarks = options.remarks;
  pm.addNestedPass<func::FuncOp>(neuron::createNeuronDecomposeWindowsPass());
  pm.addPass(neuron::createNeuronLowerPass(lower));
}

void neuronc::buildProgramPipeline(OpPassManager &pm, const BackendOptions &options) {
  OpPassManager &ppm = pm.nest<nisa::ProgramOp>();
  // A checked run reads every internal tensor, so the copies stay there.
  if (options.foldCopies && !options.distinctScratch) {
    nisa::NisaFoldCopyKernelsPassOptions fold;
    fold.remarks = options.remarks;
    ppm.addPass(nisa::createNisaFoldCopyKernelsPass(fold));
  }
  if (options.forwardStores) {
    nisa::NisaForwardStoresPassOptions forward;
    forward.keepStores = options.distinctScratch;
    forward.remarks = options.remarks;
    ppm.addPass(nisa::createNisaForwardStoresPass(forward));
    nisa::NisaSpreadLoadsPassOptions spread;
    spread.remarks = options.remarks;
    ppm.addPass(nisa::createNisaSpreadLoadsPass(spread));
  }
  if (options.prefetchLoads) {
    nisa::NisaPrefetchLoadsPassOptions prefetch;
    prefetch.remarks = options.remarks;
    ppm.addPass(nisa::createNisaPrefetchLoadsPass(prefetch));
  }
  nisa::NisaAllocateMemoryPassOptions allocate;
  allocate.reuseScratch = !options.distinctScratch;
  ppm.addPass(nisa::createNisaAllocateMemoryPass(allocate));
  ppm.addPass(nisa::createNisaInsertSemaphoresPass());
  ppm.addPass(nisa::createNisaCheckRacesPass());
}

void neuronc::buildBackendPipeline(OpPassManager &pm, const BackendOptions &options) {
  buildLowerPipeline(pm, options);
  buildProgramPipeline(pm, options);
}

llvm::StringRef neuronc::stageName(EmitStage stage) {
  switch (stage) {
  case EmitStage::Neuron: return "imported";
  case EmitStage::Legalized: return "legalized";
  case EmitStage::Bucketed: return "bucketed";
  case EmitStage::Fused: return "fused";
  case EmitStage::Lowered: return "lowered";
  case EmitStage::Nisa: return "nisa";
  case EmitStage::Neff: return "neff";
  }
  return "?";
}

std::string neuronc::CompileOptions::fingerprint() const {
  return llvm::formatv("stage={0} O={1} entry={2} drop-host-calls={3} return-printed={4} "
                       "auto-cast={5}:{6} buckets={7} max-buckets={8} target={9} remarks={10} "
                       "disable-fusion={11} prepack-weights={12} random-elided-weights={13} tp={14} "
                       "sp={15} forward-stores={16} prefetch-loads={17} fold-copies={18}",
                       stageName(stage), optLevel, entry, import.dropHostCalls,
                       import.returnPrinted, import.autoCast, import.autoCastType,
                       bucket.buckets, bucket.maxBuckets, backend.target, backend.remarks,
                       llvm::join(disabledFusions, ","), prepackWeights,
                       import.randomElidedWeights, tp, sequenceParallel,
                       backend.forwardStores, backend.prefetchLoads, backend.foldCopies)
      .str();
}

void neuronc::buildStagePipeline(OpPassManager &pm, EmitStage stage,
                                 const CompileOptions &options) {
  switch (stage) {
  case EmitStage::Neuron:
    buildConversionPipeline(pm, options.import);
    return;
  case EmitStage::Legalized:
    buildLegalizePipeline(pm, options.import);
    return;
  case EmitStage::Bucketed:
    if (!options.bucket.buckets.empty() || options.stage >= EmitStage::Lowered)
      buildBucketPipeline(pm, options.bucket);
    return;
  case EmitStage::Fused:
    // Tensor parallelism decides the per-core shapes every later pass sees.
    if (options.tp > 1) {
      neuron::NeuronShardTensorParallelPassOptions tp;
      tp.parts = options.tp;
      tp.report = options.tpReport;
      pm.addPass(neuron::createNeuronShardTensorParallelPass(tp));
      if (options.sequenceParallel)
        pm.addPass(neuron::createNeuronSequenceParallelPass());
    }
    // Prepacking is a layout choice, made at every level, before the
    // fusions see the transposes it removes.
    if (options.prepackWeights)
      pm.addPass(neuron::createNeuronPrepackWeightsPass());
    if (options.optLevel > 0)
      buildFusionPipeline(pm, /*namedOnly=*/options.optLevel == 1, options.disabledFusions);
    return;
  case EmitStage::Lowered:
    buildLowerPipeline(pm, options.backend);
    return;
  case EmitStage::Nisa: {
    BackendOptions backend = options.backend;
    backend.forwardStores = backend.forwardStores && options.optLevel > 0;
    backend.prefetchLoads = backend.prefetchLoads && options.optLevel > 0;
    backend.foldCopies = backend.foldCopies && options.optLevel > 0;
    buildProgramPipeline(pm, backend);
    return;
  }
  case EmitStage::Neff:
    return;
  }
}

void neuronc::buildCompilePipeline(OpPassManager &pm, const CompileOptions &options) {
  for (int s = 0; s <= static_cast<int>(options.stage); ++s)
    buildStagePipeline(pm, static_cast<EmitStage>(s), options);
}

LogicalResult neuronc::compileModule(ModuleOp module, const CompileOptions &options,
                                     llvm::function_ref<LogicalResult(EmitStage)> afterStage) {
  if (failed(restrictToEntry(module, options.entry)))
    return failure();
  // Embedders that never parsed a command line get the defaults (both are
  // idempotent).
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // One timing report (--mlir-timing) with a scope per stage.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  // One pass manager per stage, so that each stage's result can be seen.
  for (int s = 0; s <= static_cast<int>(options.stage); ++s) {
    auto stage = static_cast<EmitStage>(s);
    if (stage == EmitStage::Neff)
      break;
    PassManager pm(module.getContext());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    TimingScope scope = root.nest(stageName(stage));
    pm.enableTiming(scope);
    buildStagePipeline(pm, stage, options);
    if (!pm.empty() && failed(pm.run(module)))
      return failure();
    if (afterStage && failed(afterStage(stage)))
      return failure();
  }
  return success();
}

LogicalResult neuronc::lowerModule(ModuleOp module, const BackendOptions &options) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  buildBackendPipeline(pm, options);
  return pm.run(module);
}

LogicalResult neuronc::restrictToEntry(ModuleOp module, StringRef entry) {
  SmallVector<func::FuncOp> drop;
  if (entry.empty()) {
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && isHostFunction(f))
        drop.push_back(f);
  } else {
    FailureOr<func::FuncOp> fn = selectEntry(module, entry);
    if (failed(fn))
      return failure();
    // Keep the entry and every function it (transitively) names: callees
    // and a dispatcher's bucket functions. The entry is compiled even when
    // it is private.
    fn->setPublic();
    llvm::SmallPtrSet<Operation *, 8> keep = {fn->getOperation()};
    SmallVector<func::FuncOp> work = {*fn};
    SymbolTable symbols(module);
    llvm::DenseSet<StringAttr> called; // every symbol a kept function names
    while (!work.empty()) {
      func::FuncOp f = work.pop_back_val();
      if (std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(f))
        for (const SymbolTable::SymbolUse &use : *uses) {
          called.insert(use.getSymbolRef().getRootReference());
          if (auto callee = symbols.lookup<func::FuncOp>(use.getSymbolRef().getRootReference()))
            if (keep.insert(callee).second)
              work.push_back(callee);
        }
    }
    for (auto f : module.getOps<func::FuncOp>())
      if (!keep.contains(f) && !f.isExternal())
        drop.push_back(f);
    // Hand-written kernels no kept function calls are not compiled either:
    // an error in one would stop an unrelated entry.
    for (auto p : llvm::make_early_inc_range(module.getOps<nisa::ProgramOp>()))
      if (!called.contains(p.getSymNameAttr()))
        p.erase();
  }
  for (func::FuncOp f : drop)
    f.erase();
  // Host globals only the dropped functions used (format strings, buffers).
  dropUnreferencedHostSymbols(module);
  return success();
}

LogicalResult neuronc::importModule(ModuleOp module, StringRef entry,
                                   const ImportOptions &options) {
  if (failed(restrictToEntry(module, entry)))
    return failure();
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  buildImportPipeline(pm, options);
  return pm.run(module);
}

LogicalResult neuronc::prepackWeights(ModuleOp module) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  pm.addPass(neuron::createNeuronPrepackWeightsPass());
  return pm.run(module);
}

LogicalResult neuronc::shardModule(ModuleOp module, int64_t tp, bool sequenceParallel) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  neuron::NeuronShardTensorParallelPassOptions options;
  options.parts = tp;
  pm.addPass(neuron::createNeuronShardTensorParallelPass(options));
  if (sequenceParallel)
    pm.addPass(neuron::createNeuronSequenceParallelPass());
  return pm.run(module);
}

LogicalResult neuronc::fuseModule(ModuleOp module) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  buildFusionPipeline(pm);
  return pm.run(module);
}

namespace {
/// Spellings only pre-1.0 TOSA has, with what each one is.
struct LegacyMarker {
  const char *regex;
  const char *what;
};
constexpr LegacyMarker kLegacyTosa[] = {
    {"new_shape[[:space:]]*=", "a `new_shape` attribute on tosa.reshape"},
    {"tosa\\.const\"?[[:space:]]*\\(?\\)?[[:space:]]*<?\\{[[:space:]]*value[[:space:]]*=",
     "`value` instead of `values` on tosa.const"},
    {"shift[[:space:]]*=[[:space:]]*[0-9]+[[:space:]]*:[[:space:]]*i(8|32)",
     "a `shift` attribute on tosa.mul"},
    {"start[[:space:]]*=[[:space:]]*array", "a `start` attribute on tosa.slice"},
    {"multiples[[:space:]]*=[[:space:]]*array", "a `multiples` attribute on tosa.tile"},
};
} // namespace

OwningOpRef<ModuleOp> neuronc::parseInput(llvm::SourceMgr &sourceMgr, MLIRContext *context) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
  if (module)
    return module;
  StringRef text = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  if (!text.contains("tosa."))
    return module;
  for (const LegacyMarker &marker : kLegacyTosa) {
    llvm::Regex re(marker.regex);
    SmallVector<StringRef, 2> matches;
    if (!re.match(text, &matches))
      continue;
    sourceMgr.PrintMessage(
        llvm::errs(), llvm::SMLoc::getFromPointer(matches.front().data()),
        llvm::SourceMgr::DK_Note,
        Twine("the input looks like pre-TOSA-1.0 syntax (") + marker.what +
            "); MLIR 22 parses TOSA 1.0 only: re-export the model with a current exporter, "
            "or update it (shapes are tosa.const_shape operands, tosa.const takes `values`, "
            "tosa.mul takes its shift as a third operand)");
    break;
  }
  return module;
}

namespace {
struct BackendPipelineOptions : public PassPipelineOptions<BackendPipelineOptions> {
  Option<std::string> target{*this, "target", llvm::cl::desc("trn1 or trn2"),
                             llvm::cl::init("trn1")};
  Option<bool> remarks{*this, "remarks", llvm::cl::desc("A remark per kernel"),
                       llvm::cl::init(false)};
  Option<bool> forwardStores{*this, "forward-stores",
                             llvm::cl::desc("Keep activations in SBUF between kernels"),
                             llvm::cl::init(true)};
  Option<bool> prefetchLoads{*this, "prefetch-loads",
                             llvm::cl::desc("Start loads of constants and inputs a kernel early"),
                             llvm::cl::init(true)};
  Option<bool> foldCopies{*this, "fold-copies",
                          llvm::cl::desc("Absorb copy-only kernels into the loads that read them"),
                          llvm::cl::init(true)};
};
struct ImportPipelineOptions : public PassPipelineOptions<ImportPipelineOptions> {
  Option<bool> dropHostCalls{*this, "drop-host-calls",
                             llvm::cl::desc("Remove host calls instead of rejecting them"),
                             llvm::cl::init(false)};
  Option<bool> returnPrinted{*this, "return-printed",
                             llvm::cl::desc("Printed tensors become extra results"),
                             llvm::cl::init(false)};
  Option<std::string> autoCast{*this, "auto-cast", llvm::cl::desc("none, matmult or all"),
                               llvm::cl::init("none")};
  Option<std::string> autoCastType{*this, "auto-cast-type", llvm::cl::desc("bf16 or f16"),
                                   llvm::cl::init("bf16")};
};
/// The whole compiler's options for `--neuron-pipeline`.
struct CompilePipelineOptions : public PassPipelineOptions<CompilePipelineOptions> {
  Option<neuronc::EmitStage> stage{
      *this, "stage", llvm::cl::desc("The last stage"), llvm::cl::init(neuronc::EmitStage::Nisa),
      llvm::cl::values(clEnumValN(neuronc::EmitStage::Neuron, "imported", "imported"),
                       clEnumValN(neuronc::EmitStage::Legalized, "legalized", "types legalized"),
                       clEnumValN(neuronc::EmitStage::Bucketed, "bucketed", "shapes bucketed"),
                       clEnumValN(neuronc::EmitStage::Fused, "fused", "fused"),
                       clEnumValN(neuronc::EmitStage::Lowered, "lowered", "lowered to nisa"),
                       clEnumValN(neuronc::EmitStage::Nisa, "nisa",
                                  "allocated, synchronized, race-checked"))};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("0: no fusion, 1: named kernels, 2-3: all"),
                            llvm::cl::init(2)};
  Option<std::string> target{*this, "target", llvm::cl::desc("trn1 or trn2"),
                             llvm::cl::init("trn1")};
  Option<std::string> buckets{*this, "buckets", llvm::cl::desc("Bucket spec (see --buckets)"),
                              llvm::cl::init("")};
  Option<unsigned> maxBuckets{*this, "max-buckets", llvm::cl::desc("Largest bucket grid"),
                              llvm::cl::init(64)};
  Option<bool> dropHostCalls{*this, "drop-host-calls",
                             llvm::cl::desc("Remove host calls instead of rejecting them"),
                             llvm::cl::init(false)};
  Option<bool> returnPrinted{*this, "return-printed",
                             llvm::cl::desc("Printed tensors become extra results"),
                             llvm::cl::init(false)};
  Option<std::string> autoCast{*this, "auto-cast", llvm::cl::desc("none, matmult or all"),
                               llvm::cl::init("none")};
  Option<std::string> autoCastType{*this, "auto-cast-type", llvm::cl::desc("bf16 or f16"),
                                   llvm::cl::init("bf16")};
};

} // namespace

std::optional<neuronc::EmitStage> neuronc::parseStage(llvm::StringRef name) {
  for (int s = 0; s <= static_cast<int>(EmitStage::Neff); ++s)
    if (stageName(static_cast<EmitStage>(s)) == name ||
        (name == "neuron" && s == static_cast<int>(EmitStage::Neuron)))
      return static_cast<EmitStage>(s);
  return std::nullopt;
}

void neuronc::registerPipelines() {
  PassPipelineRegistration<CompilePipelineOptions>(
      "neuron-pipeline",
      "The whole compiler as one pipeline: import, legalize, bucket, fuse, lower and the "
      "program passes, up to `stage`",
      [](OpPassManager &pm, const CompilePipelineOptions &o) {
        CompileOptions options;
        options.stage = o.stage;
        options.optLevel = o.optLevel;
        options.backend.target = o.target;
        options.bucket.buckets = o.buckets;
        options.bucket.maxBuckets = o.maxBuckets;
        options.import.returnPrinted = o.returnPrinted;
        options.import.dropHostCalls = o.dropHostCalls || o.returnPrinted;
        options.import.autoCast = o.autoCast;
        options.import.autoCastType = o.autoCastType;
        buildCompilePipeline(pm, options);
      });
  PassPipelineRegistration<BackendPipelineOptions>(
      "neuron-backend",
      "Lower neuron to nisa, allocate memory, insert semaphores and check for races",
      [](OpPassManager &pm, const BackendPipelineOptions &o) {
        BackendOptions options;
        options.target = o.target;
        options.remarks = o.remarks;
        options.forwardStores = o.forwardStores;
        options.prefetchLoads = o.prefetchLoads;
        options.foldCopies = o.foldCopies;
        buildBackendPipeline(pm, options);
      });
  PassPipelineRegistration<>("neuron-fuse",
                             "Recognize named kernels (RMSNorm, softmax, SiLU, GELU) and clean up",
                             [](OpPassManager &pm) { buildFusionPipeline(pm); });
  PassPipelineRegistration<ImportPipelineOptions>(
      "neuron-import", "Import TOSA/linalg/tensor/arith programs into the neuron dialect",
      [](OpPassManager &pm, const ImportPipelineOptions &o) {
        ImportOptions options;
        options.dropHostCalls = o.dropHostCalls;
        options.returnPrinted = o.returnPrinted;
        options.autoCast = o.autoCast;
        options.autoCastType = o.autoCastType;
        buildImportPipeline(pm, options);
      });
}
