//===- Pipelines.cpp - The compiler's pass pipelines ---------------------===//

#include "neuronc/Pipelines/Pipelines.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Pipelines/Entry.h"
#include "neuronc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
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
  return options;
}

void neuronc::buildNeuronCleanupPipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
}

void neuronc::buildImportPipeline(OpPassManager &pm, const ImportOptions &options) {
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
  pm.addPass(neuron::createNeuronCheckImportPass());
  neuron::NeuronLegalizeTypesPassOptions legalize;
  legalize.autoCast = options.autoCast;
  legalize.autoCastType = options.autoCastType;
  pm.addPass(neuron::createNeuronLegalizeTypesPass(legalize));
  buildNeuronCleanupPipeline(pm);
}

void neuronc::buildFusionPipeline(OpPassManager &pm) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(neuron::createNeuronFuseActivationsPass());
  fpm.addPass(neuron::createNeuronFuseSoftmaxPass());
  fpm.addPass(neuron::createNeuronFuseRmsNormPass());
  fpm.addPass(neuron::createNeuronFuseLayerNormPass());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(neuron::createNeuronFuseElementwisePass());
  buildNeuronCleanupPipeline(pm);
}

void neuronc::buildBackendPipeline(OpPassManager &pm, const BackendOptions &options) {
  neuron::NeuronLowerPassOptions lower;
  lower.target = options.target;
  lower.remarks = options.remarks;
  pm.addPass(neuron::createNeuronLowerPass(lower));
  OpPassManager &ppm = pm.nest<nisa::ProgramOp>();
  ppm.addPass(neuron::createNeuronAllocateMemoryPass());
  ppm.addPass(neuron::createNeuronInsertSemaphoresPass());
  ppm.addPass(neuron::createNeuronCheckRacesPass());
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
      if (!f.isExternal() && f.getSymName() == "main" && f.getNumArguments() == 0)
        drop.push_back(f);
  } else {
    FailureOr<func::FuncOp> fn = selectEntry(module, entry);
    if (failed(fn))
      return failure();
    // Keep the entry and everything it (transitively) calls.
    llvm::SmallPtrSet<Operation *, 8> keep = {fn->getOperation()};
    SmallVector<func::FuncOp> work = {*fn};
    SymbolTable symbols(module);
    while (!work.empty()) {
      func::FuncOp f = work.pop_back_val();
      f.walk([&](func::CallOp call) {
        if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
          if (keep.insert(callee).second)
            work.push_back(callee);
      });
    }
    for (auto f : module.getOps<func::FuncOp>())
      if (!keep.contains(f) && !f.isExternal())
        drop.push_back(f);
  }
  for (func::FuncOp f : drop)
    f.erase();
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
} // namespace

void neuronc::registerPipelines() {
  PassPipelineRegistration<BackendPipelineOptions>(
      "neuron-backend",
      "Lower neuron to nisa, allocate memory, insert semaphores and check for races",
      [](OpPassManager &pm, const BackendPipelineOptions &o) {
        BackendOptions options;
        options.target = o.target;
        options.remarks = o.remarks;
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
