//===- BucketReport.cpp - What shape bucketing costs ----------------------===//

#include "neuronc/Transforms/BucketReport.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace neuronc;

std::vector<BucketedEntry> neuronc::collectBucketedEntries(ModuleOp module) {
  std::vector<BucketedEntry> out;
  SymbolTable symbols(module);
  for (auto fn : module.getOps<func::FuncOp>()) {
    for (auto d : fn.getOps<neuron::DispatchOp>()) {
      BucketedEntry e;
      e.name = fn.getSymName().str();
      e.signature = d.getSignature();
      for (Attribute ref : d.getCallees()) {
        Operation *callee = symbols.lookup(cast<FlatSymbolRefAttr>(ref).getValue());
        int64_t kernels = 0;
        if (auto program = dyn_cast_or_null<nisa::ProgramOp>(callee)) {
          kernels = llvm::range_size(program.getBody().front().getOps<nisa::KernelOp>());
        } else if (auto f = dyn_cast_or_null<func::FuncOp>(callee)) {
          // Before lowering: what would become a kernel each.
          for (Operation &op : f.getBody().front().without_terminator())
            kernels += !llvm::isa<neuron::ConstantOp, neuron::ReshapeOp>(op);
        }
        e.kernels.push_back(kernels);
      }
      out.push_back(std::move(e));
    }
  }
  // After the lowering: each entry over its bucket programs.
  for (auto entry : module.getOps<nisa::EntryOp>()) {
    BucketedEntry e;
    e.name = entry.getSymName().str();
    e.signature = entry.getSignature();
    for (Attribute ref : entry.getCallees()) {
      auto program = dyn_cast_or_null<nisa::ProgramOp>(
          symbols.lookup(cast<FlatSymbolRefAttr>(ref).getValue()));
      e.kernels.push_back(
          program ? llvm::range_size(program.getBody().front().getOps<nisa::KernelOp>()) : 0);
    }
    out.push_back(std::move(e));
  }
  return out;
}

llvm::Expected<SizeHistogram> neuronc::parseSizeHistogram(llvm::StringRef text, size_t symbols,
                                                          llvm::StringRef path) {
  SizeHistogram h;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (auto [i, raw] : llvm::enumerate(lines)) {
    StringRef line = raw.split('#').first.trim();
    if (line.empty())
      continue;
    SmallVector<StringRef> cols;
    line.split(cols, ' ', -1, /*KeepEmpty=*/false);
    auto where = (path + ":" + Twine(i + 1) + ": ").str();
    if (cols.size() != symbols + 1)
      return llvm::createStringError(
          where + "expected " + std::to_string(symbols) + " size(s) and a count, got '" +
          line.str() + "'");
    std::vector<int64_t> sizes;
    for (size_t c = 0; c < symbols; ++c) {
      int64_t v = 0;
      if (cols[c].getAsInteger(10, v) || v < 1)
        return llvm::createStringError(where + "'" + cols[c].str() +
                                       "' is not a size (a positive integer)");
      sizes.push_back(v);
    }
    double count = 0;
    if (cols[symbols].getAsDouble(count) || count < 0 || !std::isfinite(count))
      return llvm::createStringError(where + "'" + cols[symbols].str() +
                                     "' is not a count (a non-negative number)");
    h.rows.push_back({std::move(sizes), count});
  }
  if (h.rows.empty())
    return llvm::createStringError((path + ": the histogram has no rows").str());
  return h;
}

/// The range (lo, hi] of symbol `s` in bucket `b`: above the next smaller
/// size any bucket gives that symbol.
static std::pair<int64_t, int64_t> rangeOf(const BucketSignature &sig, size_t b, size_t s) {
  int64_t hi = sig.buckets[b][s], lo = 0;
  for (const auto &other : sig.buckets)
    if (other[s] < hi)
      lo = std::max(lo, other[s]);
  return {lo, hi};
}

double neuronc::uniformPaddingWaste(const BucketSignature &sig, size_t b) {
  // E[work(n)] factorizes over the symbols: Σ_t c_t Π_s E[n_s^e_ts].
  double full = sig.workAt(sig.buckets[b]);
  if (full <= 0)
    return 0;
  double expected = 0;
  for (const WorkTerm &t : sig.work) {
    double term = t.coefficient;
    for (size_t s = 0; s < sig.symbols.size(); ++s) {
      auto [lo, hi] = rangeOf(sig, b, s);
      double sum = 0;
      for (int64_t n = lo + 1; n <= hi; ++n)
        sum += std::pow(static_cast<double>(n), t.exponents[s]);
      term *= sum / static_cast<double>(hi - lo);
    }
    expected += term;
  }
  return std::max(0.0, 1.0 - expected / full);
}

namespace {

/// A count as an integer when it is one.
std::string formatCount(double c) {
  if (c == std::floor(c) && c < 1e15)
    return std::to_string(static_cast<int64_t>(c));
  return llvm::formatv("{0:F2}", c).str();
}

/// Per bucket: the histogram's requests, their work and the padded work.
struct Observed {
  double requests = 0, work = 0, padded = 0;
};

struct EntryFigures {
  std::vector<double> uniform;
  std::vector<Observed> observed;
  double oversize = 0;
  std::vector<std::string> suggestions;
};

EntryFigures figuresOf(const BucketedEntry &e, const SizeHistogram *h) {
  const BucketSignature &sig = e.signature;
  EntryFigures f;
  f.observed.resize(sig.buckets.size());
  for (size_t b = 0; b < sig.buckets.size(); ++b)
    f.uniform.push_back(uniformPaddingWaste(sig, b));
  if (h)
    for (const auto &[sizes, count] : h->rows) {
      llvm::Expected<size_t> b = sig.select(sizes, e.name);
      if (!b) {
        llvm::consumeError(b.takeError());
        f.oversize += count;
        continue;
      }
      f.observed[*b].requests += count;
      f.observed[*b].work += count * sig.workAt(sizes);
      f.observed[*b].padded += count * sig.workAt(sig.buckets[*b]);
    }
  for (size_t b = 0; b < sig.buckets.size(); ++b) {
    double waste = f.uniform[b];
    const Observed &o = f.observed[b];
    bool fromHistogram = h && o.requests > 0;
    if (fromHistogram)
      waste = 1 - o.work / o.padded;
    if (waste <= 0.5 || (h && !fromHistogram))
      continue;
    std::string add;
    for (size_t s = 0; s < sig.symbols.size(); ++s) {
      auto [lo, hi] = rangeOf(sig, b, s);
      if (hi - lo > 1)
        add += (add.empty() ? "" : ",") + sig.symbols[s] + "=" + std::to_string((lo + hi + 1) / 2);
    }
    f.suggestions.push_back(llvm::formatv("bucket {0}: {1:F1}% of its work is padding{2}{3}",
                                          sig.formatSizes(sig.buckets[b]), 100 * waste,
                                          fromHistogram ? " for the histogram's sizes"
                                                        : " on average",
                                          add.empty() ? std::string("")
                                                      : "; add a bucket at " + add)
                                .str());
  }
  return f;
}

} // namespace

std::string neuronc::formatBucketReportText(llvm::ArrayRef<BucketedEntry> entries,
                                            const SizeHistogram *histogram) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (entries.empty())
    os << "bucket report: no bucketed entry points\n";
  for (const BucketedEntry &e : entries) {
    const BucketSignature &sig = e.signature;
    EntryFigures f = figuresOf(e, histogram);
    os << "bucket report for @" << e.name << " (" << sig.buckets.size() << " bucket(s) over "
       << llvm::join(sig.symbols, ", ") << ")\n";
    os << "  inputs:";
    for (const auto &d : sig.inputs)
      os << " " << sig.formatDims(d);
    os << "  outputs:";
    for (const auto &d : sig.outputs)
      os << " " << sig.formatDims(d);
    os << "\n";
    os << llvm::formatv("  {0,-24} {1,8} {2,16}", "bucket", "kernels", "padding (uniform)");
    if (histogram)
      os << llvm::formatv(" {0,10} {1,20}", "requests", "padding (histogram)");
    os << "\n";
    for (size_t b = 0; b < sig.buckets.size(); ++b) {
      os << llvm::formatv("  {0,-24} {1,8} {2,15:F1}%", sig.formatSizes(sig.buckets[b]),
                          e.kernels[b], 100 * f.uniform[b]);
      if (histogram) {
        const Observed &o = f.observed[b];
        os << llvm::formatv(" {0,10}", formatCount(o.requests));
        if (o.requests > 0)
          os << llvm::formatv(" {0,19:F1}%", 100 * (1 - o.work / o.padded));
        else
          os << llvm::formatv(" {0,20}", "-");
      }
      os << "\n";
    }
    if (histogram) {
      double work = 0, padded = 0;
      for (const Observed &o : f.observed) {
        work += o.work;
        padded += o.padded;
      }
      if (padded > 0)
        os << llvm::formatv("  overall for the histogram: {0:F1}% of the work is padding\n",
                            100 * (1 - work / padded));
      if (f.oversize > 0)
        os << "  " << formatCount(f.oversize)
           << " request(s) of the histogram are larger than the largest bucket and would be "
              "refused\n";
    }
    for (const std::string &s : f.suggestions)
      os << "  suggestion: " << s << "\n";
  }
  return out;
}

llvm::json::Value neuronc::formatBucketReportJSON(llvm::ArrayRef<BucketedEntry> entries,
                                                  const SizeHistogram *histogram) {
  llvm::json::Array list;
  for (const BucketedEntry &e : entries) {
    const BucketSignature &sig = e.signature;
    EntryFigures f = figuresOf(e, histogram);
    llvm::json::Array buckets;
    for (size_t b = 0; b < sig.buckets.size(); ++b) {
      llvm::json::Object sizes;
      for (size_t s = 0; s < sig.symbols.size(); ++s)
        sizes[sig.symbols[s]] = sig.buckets[b][s];
      llvm::json::Object o{{"sizes", std::move(sizes)},
                           {"kernels", e.kernels[b]},
                           {"padding_uniform", f.uniform[b]}};
      if (histogram) {
        o["requests"] = f.observed[b].requests;
        if (f.observed[b].requests > 0)
          o["padding_histogram"] = 1 - f.observed[b].work / f.observed[b].padded;
      }
      buckets.push_back(std::move(o));
    }
    llvm::json::Array suggestions;
    for (const std::string &s : f.suggestions)
      suggestions.push_back(s);
    llvm::json::Object entry{{"entry", e.name},
                             {"symbols", llvm::json::Array(sig.symbols)},
                             {"buckets", std::move(buckets)},
                             {"suggestions", std::move(suggestions)}};
    if (histogram)
      entry["oversize_requests"] = f.oversize;
    list.push_back(std::move(entry));
  }
  return llvm::json::Object{{"entries", std::move(list)}};
}
