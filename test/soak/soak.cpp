//===- soak.cpp - Differential soak in the regimes real models live in ----===//
//
// neuronc-soak [--programs N] [--seconds S] [--seed S] [--levels 0,1,2,3]
//              [--targets trn1,trn2] [--max-elements N] [--print SEED]
//
// Generates programs (RealisticGenerator.h), runs each on the reference
// interpreter, then compiles it at every level for every target and runs
// the executable on the simulator with every read of unwritten memory
// caught; every output must agree with the interpreter's (max |error| /
// max(1, max |expected|) within 1e-4 · max(1, sqrt(K / 128)) for the largest
// matmul contraction K, as f32 accumulation error grows with it while the
// interpreter accumulates in f64; 2e-2 with bf16, as a fused chain keeps
// f32 between its ops where the interpreter rounds each to bf16).
// Configurations whose executables are byte-identical to an earlier one of
// the same program run once. A failure prints the seed, the configuration and the reason, then
// minimizes the program (halving its dims, then dropping ops, while it still
// fails the same configuration), prints it and the checked run of it that
// names the first kernel that diverges. Ends with
// `soak: N programs ..., F failed`; exits 1 when anything failed.
//
//===----------------------------------------------------------------------===//

#include "RealisticGenerator.h"

#include "neuronc/Check/Check.h"
#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Simulator/Simulator.h"
#include "neuronc/Conversion/NisaToNeff.h"
#include "neuronc/ISA/Neff.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <map>

using namespace mlir;
using namespace neuronc;
namespace cl = llvm::cl;

static cl::opt<int64_t> programs("programs", cl::desc("Programs to generate"), cl::init(100));
static cl::opt<double> seconds("seconds", cl::desc("Stop starting programs after S seconds (0: no limit)"),
                               cl::init(0));
static cl::opt<uint64_t> seedBase("seed", cl::desc("Seed of the first program"), cl::init(1));
static cl::list<unsigned> levels("levels", cl::desc("-O levels"), cl::CommaSeparated);
static cl::list<std::string> targets("targets", cl::desc("Targets"), cl::CommaSeparated);
static cl::opt<int64_t> maxElements("max-elements", cl::desc("Elements per tensor at most"),
                                    cl::init(1 << 22));
static cl::opt<int64_t> printSeed("print", cl::desc("Print the program of this seed and exit"),
                                  cl::init(-1));

namespace {

/// One compiled configuration of a program.
struct Config {
  unsigned level;
  std::string target;
  std::string name() const { return "-O" + std::to_string(level) + " " + target; }
};

/// Runs one program text through the interpreter and every configuration.
class Runner {
public:
  Runner() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  MLIRContext context;
  int64_t configsRun = 0, configsDeduplicated = 0;

  /// Empty when every configuration agrees; else "-O2 trn1: <why>" of the
  /// first that does not (only `only` when given).
  std::string run(const std::string &text, uint64_t seed, llvm::ArrayRef<Config> configs,
                  double tolerance, const Config *only = nullptr) {
    std::string diags;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        diags += d.str() + "; ";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return "the generator made invalid IR: " + diags;
    auto fn = *module->getOps<func::FuncOp>().begin();
    SmallVector<Tensor> args;
    for (auto [i, t] : llvm::enumerate(fn.getFunctionType().getInputs())) {
      auto type = cast<RankedTensorType>(t);
      args.push_back(randomTensor(*hostTypeOf(type), type.getShape(), seed * 31 + i));
    }
    FailureOr<SmallVector<Tensor>> want = interpret(fn, args);
    if (failed(want))
      return "the interpreter failed: " + diags;
    std::map<std::string, std::map<uint64_t, bool>> seen; // target -> exe hash
    for (const Config &c : configs) {
      if (only && (c.level != only->level || c.target != only->target))
        continue;
      diags.clear();
      OwningOpRef<ModuleOp> copy = module->clone();
      CompileOptions options;
      options.optLevel = c.level;
      options.backend.target = c.target;
      if (failed(compileModule(*copy, options)))
        return c.name() + ": does not compile: " + diags;
      FailureOr<neff::Executable> exe = assemble(*copy, getVersionString());
      if (failed(exe))
        return c.name() + ": does not assemble: " + diags;
      std::vector<uint8_t> bytes = neff::writeNeff(*exe);
      uint64_t hash = llvm::xxh3_64bits(bytes);
      if (!seen[c.target].insert({hash, true}).second) {
        ++configsDeduplicated;
        continue;
      }
      ++configsRun;
      sim::Options simOptions;
      simOptions.checkReads = true;
      llvm::Expected<sim::Result> got = sim::run(*exe, exe->programs.front(), args, simOptions);
      if (!got)
        return c.name() + ": the simulator stopped: " + llvm::toString(got.takeError());
      for (size_t r = 0; r < want->size(); ++r) {
        const Tensor &w = (*want)[r], &g = got->outputs[r];
        if (w.shape() != g.shape())
          return c.name() + ": output #" + std::to_string(r) + " has the wrong shape";
        double scale = 1, err = 0;
        for (int64_t k = 0; k < w.numel(); ++k) {
          double x = w.get(k), y = g.get(k);
          if ((std::isnan(x) && std::isnan(y)) || (std::isinf(x) && x == y))
            continue;
          if (std::isfinite(x))
            scale = std::max(scale, std::abs(x));
          err = std::max(err, std::isfinite(x) && std::isfinite(y) ? std::abs(x - y) : INFINITY);
        }
        if (err / scale > tolerance)
          return c.name() + ": output #" + std::to_string(r) + " differs by " +
                 std::to_string(err / scale) + " of its magnitude (tolerance " +
                 std::to_string(tolerance) + ")";
      }
    }
    return "";
  }
};

/// A generated program and the tolerance its outputs are held to.
struct Program {
  std::string text, kind;
  double tolerance;
};

Program generate(uint64_t seed, soak::Limits limits) {
  soak::RealisticGenerator gen(seed, limits);
  Program p{gen.generate(), gen.kind, 1e-4};
  if (p.text.find("bf16") != std::string::npos)
    p.tolerance = 2e-2; // a fused chain keeps f32 between ops, the interpreter rounds each
  else if (gen.maxK > 128)
    p.tolerance *= std::sqrt(static_cast<double>(gen.maxK) / 128);
  return p;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "neuronc-soak: realistic differential testing\n");
  soak::Limits limits;
  limits.maxElements = maxElements;
  if (printSeed >= 0) {
    llvm::outs() << generate(printSeed, limits).text;
    return 0;
  }
  std::vector<Config> configs;
  std::vector<unsigned> lv(levels.begin(), levels.end());
  if (lv.empty())
    lv = {0, 1, 2, 3};
  std::vector<std::string> tg(targets.begin(), targets.end());
  if (tg.empty())
    tg = {"trn1", "trn2"};
  for (const std::string &t : tg)
    for (unsigned l : lv)
      configs.push_back({l, t});

  Runner runner;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::map<std::string, int64_t> kinds;
  int64_t done = 0, failures = 0;
  for (int64_t i = 0; i < programs; ++i) {
    if (seconds > 0 && elapsed() > seconds)
      break;
    uint64_t seed = seedBase + i;
    Program program = generate(seed, limits);
    const std::string &text = program.text, &kind = program.kind;
    ++kinds[kind];
    ++done;
    std::string why = runner.run(text, seed, configs, program.tolerance);
    if (done % 500 == 0)
      llvm::errs() << "soak: " << done << " programs, " << failures << " failed, "
                   << llvm::format("%.0f", elapsed()) << " s\n";
    if (why.empty())
      continue;
    ++failures;
    llvm::outs() << "FAIL seed " << seed << " (" << kind << "): " << why << "\n";
    // The configuration that failed, to minimize against.
    const Config *failing = nullptr;
    for (const Config &c : configs)
      if (llvm::StringRef(why).starts_with(c.name() + ":"))
        failing = &c;
    // Smaller dims, then fewer ops, while the same configuration fails.
    soak::Limits best = limits;
    std::string smallest = text;
    for (int shrink = 1; shrink <= 14; ++shrink) {
      soak::Limits l = limits;
      l.shrink = shrink;
      Program t = generate(seed, l);
      if (runner.run(t.text, seed, configs, t.tolerance, failing).empty())
        break;
      best = l;
      smallest = t.text;
    }
    for (int ops = 1; ops < 64; ++ops) {
      soak::Limits l = best;
      l.maxOps = ops;
      Program t = generate(seed, l);
      if (!runner.run(t.text, seed, configs, t.tolerance, failing).empty()) {
        smallest = t.text;
        break;
      }
    }
    llvm::outs().flush();
    llvm::outs() << "minimized (replay: neuronc-soak --print " << seed << " gives the original):\n"
                 << smallest;
    if (failing) {
      OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(smallest, &runner.context);
      if (m) {
        auto fn = *m->getOps<func::FuncOp>().begin();
        SmallVector<Tensor> args;
        for (auto [k, t] : llvm::enumerate(fn.getFunctionType().getInputs())) {
          auto type = cast<RankedTensorType>(t);
          args.push_back(randomTensor(*hostTypeOf(type), type.getShape(), seed * 31 + k));
        }
        check::Options options;
        options.backend.target = failing->target;
        options.fuse = failing->level > 0;
        llvm::Expected<check::Report> report = check::checkEntry(*m, "main", args, options);
        if (report)
          check::printReport(llvm::outs(), *report);
        else
          llvm::outs() << "checked run: " << llvm::toString(report.takeError()) << "\n";
      }
    }
  }
  llvm::outs() << "kinds:";
  for (auto &[k, n] : kinds)
    llvm::outs() << " " << k << "=" << n;
  llvm::outs() << "\nsoak: " << done << " programs, " << runner.configsRun
               << " configurations simulated, " << runner.configsDeduplicated
               << " identical to another, in " << llvm::format("%.1f", elapsed()) << " s; "
               << (done - failures) << " passed, " << failures << " failed\n";
  return failures ? 1 : 0;
}
