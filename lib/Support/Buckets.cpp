//===- Buckets.cpp - Shape buckets of an entry point -----------------------===//

#include "neuronc/Support/Buckets.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <limits>

using namespace neuronc;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error BucketSignature::verify() const {
  size_t n = symbols.size();
  auto checkDims = [&](const std::vector<std::vector<int64_t>> &list,
                       const char *what) -> llvm::Error {
    for (auto [i, dims] : llvm::enumerate(list))
      for (int64_t d : dims)
        if (isSymbolDim(d) && symbolOf(d) >= n)
          return fail(llvm::Twine(what) + " #" + llvm::Twine(i) + " names symbol " +
                      llvm::Twine(symbolOf(d)) + " of " + llvm::Twine(n));
    return llvm::Error::success();
  };
  if (llvm::Error e = checkDims(inputs, "input"))
    return e;
  if (llvm::Error e = checkDims(outputs, "output"))
    return e;
  for (uint32_t m : masks)
    if (m >= n)
      return fail("mask names symbol " + llvm::Twine(m) + " of " + llvm::Twine(n));
  for (const WorkTerm &t : work) {
    if (t.exponents.size() != n)
      return fail("work term has " + llvm::Twine(t.exponents.size()) + " exponents for " +
                  llvm::Twine(n) + " symbols");
    for (uint32_t e : t.exponents)
      if (e > 16)
        return fail("work term exponent " + llvm::Twine(e) + " is out of range (at most 16)");
    if (!std::isfinite(t.coefficient) || t.coefficient < 0)
      return fail("work term coefficient is not a finite non-negative number");
  }
  for (auto [i, b] : llvm::enumerate(buckets)) {
    if (b.size() != n)
      return fail("bucket #" + llvm::Twine(i) + " has " + llvm::Twine(b.size()) +
                  " sizes for " + llvm::Twine(n) + " symbols");
    for (int64_t s : b)
      if (s < 1)
        return fail("bucket #" + llvm::Twine(i) + " has size " + llvm::Twine(s) +
                    " (sizes are at least 1)");
  }
  if (n && buckets.empty())
    return fail("a signature with dynamic dims has no buckets");
  return llvm::Error::success();
}

llvm::Expected<std::vector<int64_t>>
BucketSignature::bindSizes(llvm::ArrayRef<std::vector<int64_t>> inputShapes,
                           llvm::StringRef entry) const {
  if (inputShapes.size() != inputs.size())
    return fail("@" + entry + " takes " + llvm::Twine(inputs.size()) + " input(s), got " +
                llvm::Twine(inputShapes.size()));
  std::vector<int64_t> sizes(symbols.size(), -1);
  std::vector<std::pair<size_t, size_t>> from(symbols.size());
  for (auto [i, dims] : llvm::enumerate(inputs)) {
    const std::vector<int64_t> &have = inputShapes[i];
    if (have.size() != dims.size())
      return fail("@" + entry + " input #" + llvm::Twine(i) + " has rank " +
                  llvm::Twine(have.size()) + ", expected " + formatDims(dims));
    for (auto [d, want] : llvm::enumerate(dims)) {
      if (!isSymbolDim(want)) {
        if (have[d] != want)
          return fail("@" + entry + " input #" + llvm::Twine(i) + " dim " + llvm::Twine(d) +
                      " is " + llvm::Twine(have[d]) + ", expected " + llvm::Twine(want) +
                      " (the input must be " + formatDims(dims) + ")");
        continue;
      }
      uint32_t s = symbolOf(want);
      if (sizes[s] < 0) {
        sizes[s] = have[d];
        from[s] = {i, d};
      } else if (sizes[s] != have[d]) {
        return fail("@" + entry + " input #" + llvm::Twine(i) + " dim " + llvm::Twine(d) +
                    " is " + llvm::Twine(have[d]) + " but input #" + llvm::Twine(from[s].first) +
                    " dim " + llvm::Twine(from[s].second) + " is " + llvm::Twine(sizes[s]) +
                    "; both are '" + symbols[s] + "' and must be equal");
      }
    }
  }
  for (auto [s, size] : llvm::enumerate(sizes)) {
    if (size < 0)
      return fail("@" + entry + ": no input gives the size of '" + symbols[s] + "'");
    if (size == 0)
      return fail("@" + entry + ": '" + symbols[s] +
                  "' is 0 (input #" + llvm::Twine(from[s].first) + " dim " +
                  llvm::Twine(from[s].second) +
                  "); empty inputs are not run: a bucketed dim must be at least 1");
  }
  return sizes;
}

llvm::Expected<size_t> BucketSignature::select(llvm::ArrayRef<int64_t> sizes,
                                               llvm::StringRef entry) const {
  size_t best = buckets.size();
  double bestWork = std::numeric_limits<double>::infinity();
  for (auto [i, b] : llvm::enumerate(buckets)) {
    bool fits = true;
    for (auto [want, have] : llvm::zip(b, sizes))
      fits &= have <= want;
    if (!fits)
      continue;
    double w = workAt(b);
    if (best == buckets.size() || w < bestWork) {
      best = i;
      bestWork = w;
    }
  }
  if (best < buckets.size())
    return best;
  // Name the symbol(s) that do not fit and the largest bucket of each.
  std::string why;
  for (auto [s, have] : llvm::enumerate(sizes)) {
    int64_t largest = 0;
    for (const auto &b : buckets)
      largest = std::max(largest, b[s]);
    if (have > largest)
      why += (why.empty() ? "" : "; ") + ("'" + symbols[s] + "' is " + llvm::Twine(have) +
                                          " but the largest bucket is " + llvm::Twine(largest))
                                             .str();
  }
  if (why.empty())
    why = "no bucket holds " + formatSizes(sizes);
  return fail("@" + entry + ": " + why +
              "; recompile with a larger bucket (--buckets) or split the input");
}

double BucketSignature::workAt(llvm::ArrayRef<int64_t> sizes) const {
  double w = 0;
  for (const WorkTerm &t : work) {
    double term = t.coefficient;
    for (auto [e, n] : llvm::zip(t.exponents, sizes))
      term *= std::pow(static_cast<double>(n), e);
    w += term;
  }
  return w;
}

double BucketSignature::paddingFraction(llvm::ArrayRef<int64_t> sizes, size_t bucket) const {
  double full = workAt(buckets[bucket]);
  if (full <= 0)
    return 0;
  return std::max(0.0, 1.0 - workAt(sizes) / full);
}

std::vector<int64_t> BucketSignature::shapeAt(llvm::ArrayRef<int64_t> dims,
                                              llvm::ArrayRef<int64_t> sizes) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    out.push_back(isSymbolDim(d) ? sizes[symbolOf(d)] : d);
  return out;
}

std::string BucketSignature::formatSizes(llvm::ArrayRef<int64_t> sizes) const {
  std::string s;
  for (auto [i, n] : llvm::enumerate(sizes))
    s += (i ? "," : "") + symbols[i] + "=" + std::to_string(n);
  return s;
}

std::string BucketSignature::formatDims(llvm::ArrayRef<int64_t> dims) const {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i)
      s += ", ";
    s += isSymbolDim(d) ? (symbolOf(d) < symbols.size() ? symbols[symbolOf(d)] : "?")
                        : std::to_string(d);
  }
  return s + "]";
}
