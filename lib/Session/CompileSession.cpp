//===- CompileSession.cpp - What one neuronc invocation does --------------===//

#include "neuronc/Session/CompileSession.h"

#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"
#include "neuronc/Pipelines/CompileCache.h"
#include "neuronc/Pipelines/Entry.h"
#include "neuronc/Pipelines/Program.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Pipelines/RemoteCache.h"
#include "neuronc/Support/AtomicWrite.h"
#include "neuronc/Transforms/BucketReport.h"
#include "neuronc/Transforms/FusionReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using neuronc::EmitStage;
using neuronc::HttpUrl;

namespace {

/// The session's flags, under the names the driver's code uses.
struct Session {
  const neuronc::SessionOptions &o;
  const std::string &inputFilename = o.input;
  const std::string &outputFilename = o.output;
  const std::string &fusionReport = o.fusionReport;
  const std::string &bucketReport = o.bucketReport;
  const std::string &bucketHistogram = o.bucketHistogram;
  const std::string &dumpPhasesTo = o.dumpPhasesTo;
  const std::string &cacheDir = o.cacheDir;
  const std::string &entryName = o.compile.entry;
  const bool noCache = o.noCache;
  const bool lowerRemarks = o.compile.backend.remarks;
  const neuronc::CompileOptions &options = o.compile;

  /// Prints `<tool>: error: <msg>` and returns 1.
  int fail(const llvm::Twine &msg) const {
    llvm::errs() << o.tool << ": error: " << msg << "\n";
    return 1;
  }

  /// Writes `text` to `path` ('-': stderr), whole or not at all.
  int writeReport(llvm::StringRef path, llvm::StringRef text) const {
    if (path == "-") {
      llvm::errs() << text;
      return 0;
    }
    if (llvm::Error err = neuronc::writeFileAtomically(path, text.str()))
      return fail(llvm::toString(std::move(err))); // "cannot write <path>: <why>"
    return 0;
  }

  int run();
};

} // namespace

llvm::Error neuronc::validateSessionOptions(const SessionOptions &o) {
  auto error = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (!lookupHardwareModel(o.compile.backend.target))
    return error("unknown target '" + o.compile.backend.target + "'; known targets: " +
                 hardwareModelNames());
  if (o.compile.optLevel > 3)
    return error("-O" + llvm::Twine(o.compile.optLevel) + " is not a level; use -O0 to -O3");
  for (const std::string &rule : o.compile.disabledFusions)
    if (!llvm::is_contained(fusionRuleNames(), llvm::StringRef(rule)))
      return error("--disable-fusion: unknown fusion rule '" + rule + "'; the rules are " +
                   llvm::join(fusionRuleNames(), ", "));
  if (!o.bucketHistogram.empty() && o.bucketReport.empty())
    return error("--bucket-histogram is read by --bucket-report; give --bucket-report too");
  if (o.noCache && !o.cacheDir.empty())
    return error("--no-cache and --cache-dir contradict each other; give one");
  if (o.noCache && !o.cacheUrl.empty())
    return error("--no-cache and --cache-url contradict each other; give one");
  if (!o.cacheUrl.empty())
    if (llvm::Expected<HttpUrl> url = HttpUrl::parse(o.cacheUrl); !url)
      return error("--cache-url " + llvm::toString(url.takeError()));
  if (!(o.cacheTimeout > 0 && o.cacheTimeout <= 600)) {
    std::string seconds;
    llvm::raw_string_ostream(seconds) << llvm::format("%g", o.cacheTimeout);
    return error("--cache-timeout=" + seconds +
                 " is not a number of seconds above 0 and at most 600");
  }
  return llvm::Error::success();
}

int neuronc::runCompileSession(const SessionOptions &options) {
  if (llvm::Error err = validateSessionOptions(options)) {
    llvm::errs() << options.tool << ": error: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return Session{options}.run();
}

int Session::run() {
  // The input is read once: its bytes key the cache, then it is parsed.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFilename, &error);
  if (!input)
    return fail(error);

  // The compile cache: executables only, and only when nothing else (a
  // report, the phases, remarks) needs the compilation itself.
  bool sideOutputs = !fusionReport.empty() || !bucketReport.empty() || !dumpPhasesTo.empty() ||
                     lowerRemarks;
  std::optional<neuronc::CompileCache> cache;
  std::optional<neuronc::RemoteCache> remote; // --cache-url: the shared cache
  bool remoteMissed = false;
  std::string key;
  if (options.stage == EmitStage::Neff && !noCache) {
    cache.emplace(cacheDir.empty() ? neuronc::CompileCache::defaultDir() : cacheDir);
    key = neuronc::CompileCache::key(input->getBuffer(), options.fingerprint());
    if (!o.cacheUrl.empty())
      remote.emplace(cantFail(neuronc::HttpUrl::parse(o.cacheUrl)),
                     std::chrono::milliseconds(static_cast<int64_t>(o.cacheTimeout * 1000)));
    if (!sideOutputs) {
      neuronc::CompileCache::Lookup found = cache->lookup(key);
      if (!found.corrupt.empty())
        llvm::errs() << o.tool << ": warning: discarded a corrupted cache entry ("
                     << found.corrupt << "); compiling again\n";
      if (found.bytes) {
        if (llvm::Error err = neuronc::writeFileAtomically(
                outputFilename, std::string(found.bytes->begin(), found.bytes->end())))
          return fail(llvm::toString(std::move(err)));
        llvm::errs() << o.tool << ": cache hit " << key << " in " << cache->pathOf(key)
                     << ": compilation skipped\n";
        return 0;
      }
      // The shared cache second: a verified hit is written out and kept in
      // the local cache; a server that fails is not asked again this run.
      if (remote) {
        neuronc::RemoteCache::Lookup shared = remote->lookup(key);
        if (!shared.unavailable.empty()) {
          llvm::errs() << o.tool << ": warning: the remote cache " << remote->str()
                       << " is not used: " << shared.unavailable << "; compiling locally\n";
          remote.reset();
        } else if (!shared.corrupt.empty()) {
          llvm::errs() << o.tool << ": warning: ignored a corrupted remote cache entry ("
                       << shared.corrupt << "); compiling locally\n";
        } else if (shared.bytes) {
          if (llvm::Error err = neuronc::writeFileAtomically(
                  outputFilename, std::string(shared.bytes->begin(), shared.bytes->end())))
            return fail(llvm::toString(std::move(err)));
          if (llvm::Error err = cache->store(key, *shared.bytes))
            llvm::errs() << o.tool << ": warning: the compile cache was not updated: "
                         << llvm::toString(std::move(err)) << "\n";
          llvm::errs() << o.tool << ": remote cache hit " << key << " from " << remote->str()
                       << ": compilation skipped\n";
          return 0;
        } else {
          remoteMissed = true;
        }
      }
    }
  }

  std::unique_ptr<neuronc::Program> program = neuronc::Program::parse(std::move(input));
  if (!program)
    return 1;
  ModuleOp module = program->module();
  // Without --entry every entry candidate is compiled: say so when there is
  // none, instead of failing later with nothing to assemble. A module of
  // hand-written nisa.programs has no functions and is fine.
  if (entryName.empty() && options.stage == EmitStage::Neff &&
      neuronc::entryCandidates(module).empty() &&
      module.getOps<mlir::nisa::ProgramOp>().empty()) {
    std::string names;
    for (func::FuncOp f : module.getOps<func::FuncOp>())
      names += (names.empty() ? "@" : ", @") + f.getSymName().str();
    module.emitError("nothing to compile: no public func.func with a body other than a "
                     "host-side `main` with no arguments (functions: ")
        << (names.empty() ? "none" : names) << "); make one public or name it with --entry";
    return 1;
  }

  // The bucket histogram is read before compiling: a bad file fails fast.
  std::optional<std::string> histogramText;
  if (!bucketHistogram.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(bucketHistogram);
    if (!buf)
      return fail("cannot read " + bucketHistogram + ": " + buf.getError().message());
    histogramText = (*buf)->getBuffer().str();
  }

  std::string stem = inputFilename == "-" ? "stdin"
                                          : llvm::sys::path::stem(inputFilename).str();
  if (!dumpPhasesTo.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpPhasesTo))
      return fail("cannot create " + dumpPhasesTo + ": " + ec.message());
  llvm::SmallVector<neuronc::FusionDecision> decisions;
  int rc = 0;
  auto afterStage = [&](EmitStage stage) -> LogicalResult {
    if (stage == EmitStage::Fused) {
      decisions = neuronc::collectFusionDecisions(module);
      neuronc::clearFusionDecisions(module);
    }
    if (!dumpPhasesTo.empty()) {
      llvm::SmallString<256> path(dumpPhasesTo);
      llvm::sys::path::append(path, llvm::formatv("{0}.{1}.{2}.mlir", stem,
                                                  static_cast<int>(stage) + 1,
                                                  neuronc::stageName(stage))
                                        .str());
      std::string text;
      llvm::raw_string_ostream os(text);
      module.print(os);
      if ((rc = writeReport(path, text)))
        return failure();
    }
    return success();
  };
  if (failed(neuronc::compileModule(module, options, afterStage)))
    return rc ? rc : 1;
  // Fused kernels the lowering had to run as two.
  llvm::append_range(decisions, neuronc::takeLoweringSplits(module));

  if (!fusionReport.empty()) {
    std::string text =
        llvm::StringRef(fusionReport).ends_with(".json")
            ? llvm::formatv("{0:2}\n", neuronc::formatFusionReportJSON(decisions)).str()
            : neuronc::formatFusionReportText(decisions);
    if (int r = writeReport(fusionReport, text))
      return r;
  }
  if (!bucketReport.empty()) {
    auto entries = neuronc::collectBucketedEntries(module);
    std::optional<neuronc::SizeHistogram> histogram;
    if (histogramText) {
      if (entries.empty())
        return fail("--bucket-histogram given but nothing is bucketed (give --buckets)");
      auto h = neuronc::parseSizeHistogram(*histogramText,
                                           entries.front().signature.symbols.size(),
                                           bucketHistogram);
      if (!h)
        return fail(llvm::toString(h.takeError()));
      histogram = std::move(*h);
    }
    const neuronc::SizeHistogram *h = histogram ? &*histogram : nullptr;
    std::string text =
        llvm::StringRef(bucketReport).ends_with(".json")
            ? llvm::formatv("{0:2}\n", neuronc::formatBucketReportJSON(entries, h)).str()
            : neuronc::formatBucketReportText(entries, h);
    if (int r = writeReport(bucketReport, text))
      return r;
  }

  if (options.stage == EmitStage::Neff) {
    FailureOr<neuronc::neff::Executable> exe =
        neuronc::assemble(module, neuronc::getVersionString());
    if (failed(exe))
      return 1;
    // Written to a temporary file and renamed: never a partial executable.
    std::vector<uint8_t> bytes = neuronc::neff::writeNeff(*exe);
    if (llvm::Error err =
            neuronc::writeFileAtomically(outputFilename, std::string(bytes.begin(), bytes.end())))
      return fail(llvm::toString(std::move(err)));
    if (cache)
      if (llvm::Error err = cache->store(key, bytes))
        llvm::errs() << o.tool << ": warning: the compile cache was not updated: "
                     << llvm::toString(std::move(err)) << "\n";
    if (remote) {
      if (llvm::Error err = remote->store(key, bytes))
        llvm::errs() << o.tool << ": warning: the remote cache " << remote->str()
                     << " was not updated: " << llvm::toString(std::move(err)) << "\n";
      else if (remoteMissed)
        llvm::errs() << o.tool << ": remote cache miss " << key << " at " << remote->str()
                     << ": compiled and uploaded\n";
      else
        llvm::errs() << o.tool << ": uploaded " << key << " to the remote cache "
                     << remote->str() << "\n";
    }
    return 0;
  }

  // Only now write the output: a failed compile leaves no file behind, and
  // a failed write (a full disk) leaves none either.
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  if (llvm::Error err = neuronc::writeFileAtomically(outputFilename, std::move(text)))
    return fail(llvm::toString(std::move(err)));
  return 0;
}
