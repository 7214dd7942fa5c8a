//===- NisaDialect.cpp - The engine-level nisa dialect --------------------===//

#include "neuronc/Dialect/Nisa/NisaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nisa;

#include "neuronc/Dialect/Nisa/NisaDialect.cpp.inc"
#include "neuronc/Dialect/Nisa/NisaEnums.cpp.inc"
#include "neuronc/Dialect/Nisa/NisaInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "neuronc/Dialect/Nisa/NisaAttrs.cpp.inc"

void NisaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "neuronc/Dialect/Nisa/NisaAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "neuronc/Dialect/Nisa/NisaOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Element sizes
//===----------------------------------------------------------------------===//

int64_t mlir::nisa::elementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// Access patterns
//===----------------------------------------------------------------------===//

int64_t AccessPatternAttr::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : getSizes())
    n *= s;
  return n;
}

std::pair<int64_t, int64_t> AccessPatternAttr::getExtent() const {
  int64_t lo = getOffset(), hi = getOffset();
  for (auto [size, stride] : llvm::zip(getSizes(), getStrides())) {
    int64_t span = (size - 1) * stride;
    if (span < 0)
      lo += span;
    else
      hi += span;
  }
  return {lo, hi + 1};
}

void AccessPatternAttr::walkElements(llvm::function_ref<void(int64_t, int64_t)> f) const {
  ArrayRef<int64_t> sizes = getSizes(), strides = getStrides();
  if (llvm::is_contained(sizes, 0))
    return;
  int64_t p0 = isTile() ? getPartStart() : 0;
  int64_t pn = isTile() ? getPartCount() : 1;
  SmallVector<int64_t, 4> idx(sizes.size(), 0);
  for (int64_t p = p0; p < p0 + pn; ++p) {
    std::fill(idx.begin(), idx.end(), 0);
    int64_t e = getOffset();
    while (true) {
      f(p, e);
      int d = static_cast<int>(sizes.size()) - 1;
      for (; d >= 0; --d) {
        e += strides[d];
        if (++idx[d] < sizes[d])
          break;
        e -= strides[d] * sizes[d];
        idx[d] = 0;
      }
      if (d < 0)
        break;
    }
  }
}

int64_t AccessPatternAttr::getRunElements() const {
  ArrayRef<int64_t> sizes = getSizes(), strides = getStrides();
  int d = static_cast<int>(sizes.size()) - 1;
  if (d < 0 || strides[d] != 1)
    return 1;
  int64_t run = sizes[d];
  for (--d; d >= 0 && strides[d] == run; --d)
    run *= sizes[d];
  return run;
}

LogicalResult AccessPatternAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        int64_t partStart, int64_t partCount, int64_t offset,
                                        ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  if (sizes.size() != strides.size())
    return emitError() << "access pattern has " << sizes.size() << " sizes but "
                       << strides.size() << " strides";
  if (partStart < 0 || partCount < 0)
    return emitError() << "access pattern has a negative partition range";
  if (offset < 0)
    return emitError() << "access pattern has a negative offset " << offset;
  for (int64_t s : sizes)
    if (s < 1)
      return emitError() << "access pattern dim of size " << s << " (sizes must be >= 1)";
  for (int64_t s : strides)
    if (s < 0)
      return emitError() << "access pattern stride " << s << " is negative";
  return success();
}

/// `p0:p1, off, [s,n], ...` (tile) or `off, [s,n], ...` (HBM).
static void printAPBody(AsmPrinter &p, AccessPatternAttr ap) {
  if (ap.isTile())
    p << ap.getPartStart() << ":" << ap.getPartStart() + ap.getPartCount() << ", ";
  p << ap.getOffset();
  for (auto [size, stride] : llvm::zip(ap.getSizes(), ap.getStrides()))
    p << ", [" << stride << "," << size << "]";
}

static ParseResult parseAPBody(AsmParser &p, AccessPatternAttr &ap) {
  int64_t first = 0, partStart = 0, partCount = 0, offset = 0;
  if (p.parseInteger(first))
    return failure();
  if (succeeded(p.parseOptionalColon())) {
    int64_t end;
    if (p.parseInteger(end) || p.parseComma() || p.parseInteger(offset))
      return failure();
    partStart = first;
    partCount = end - first;
    if (partCount <= 0)
      return p.emitError(p.getCurrentLocation(), "partition range ")
             << first << ":" << end << " is empty";
  } else {
    offset = first;
  }
  SmallVector<int64_t> sizes, strides;
  while (succeeded(p.parseOptionalComma())) {
    int64_t stride, size;
    if (p.parseLSquare() || p.parseInteger(stride) || p.parseComma() || p.parseInteger(size) ||
        p.parseRSquare())
      return failure();
    strides.push_back(stride);
    sizes.push_back(size);
  }
  ap = AccessPatternAttr::getChecked([&] { return p.emitError(p.getCurrentLocation()); },
                                     p.getContext(), partStart, partCount, offset, sizes,
                                     strides);
  return success(static_cast<bool>(ap));
}

Attribute AccessPatternAttr::parse(AsmParser &p, Type) {
  AccessPatternAttr ap;
  if (p.parseLess() || parseAPBody(p, ap) || p.parseGreater())
    return {};
  return ap;
}

void AccessPatternAttr::print(AsmPrinter &p) const {
  p << "<";
  printAPBody(p, *this);
  p << ">";
}

namespace mlir::nisa::detail {
/// Shared with the op printers: the bracketed body of a `custom<Access>`.
void printAccessBody(OpAsmPrinter &p, AccessPatternAttr ap) { printAPBody(p, ap); }
ParseResult parseAccessBody(OpAsmParser &p, AccessPatternAttr &ap) { return parseAPBody(p, ap); }
} // namespace mlir::nisa::detail
