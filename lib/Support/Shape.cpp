//===- Shape.cpp - Shape rules shared by verifiers and kernels -----------===//

#include "neuronc/Support/Shape.h"

#include <limits>

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace neuronc {

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == kDynamic)
      return -1;
    // Saturate instead of overflowing: such a tensor is refused by size.
    if (d && n > std::numeric_limits<int64_t>::max() / d)
      return std::numeric_limits<int64_t>::max();
    n *= d;
  }
  return n;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += 'x';
    s += d == kDynamic ? std::string("?") : std::to_string(d);
  }
  return s;
}

bool broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b, Shape &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t &r = out[rank - 1 - i];
    if (da == db)
      r = da;
    else if (da == 1)
      r = db;
    else if (db == 1)
      r = da;
    else if (da == kDynamic)
      r = db; // at run time `da` must be 1 or `db`
    else if (db == kDynamic)
      r = da;
    else
      return false;
  }
  return true;
}

bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i];
    int64_t t = to[to.size() - 1 - i];
    if (f == 1 || f == t || f == kDynamic || t == kDynamic)
      continue;
    return false;
  }
  return true;
}

std::string checkAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallBitVector seen(std::max<int64_t>(rank, 1));
  for (int64_t a : axes) {
    if (a < 0 || a >= rank)
      return "axis " + std::to_string(a) + " is out of range for rank " +
             std::to_string(rank);
    if (seen.test(a))
      return "axis " + std::to_string(a) + " is listed twice";
    seen.set(a);
  }
  return {};
}

Shape reducedShape(ArrayRef<int64_t> in, ArrayRef<int64_t> axes, bool keepdims) {
  Shape out;
  for (auto [i, d] : llvm::enumerate(in)) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(i));
    if (!reduced)
      out.push_back(d);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

std::string checkPermutation(ArrayRef<int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return "permutation has " + std::to_string(perm.size()) +
           " entries but the input has rank " + std::to_string(rank);
  std::string err = checkAxes(perm, rank);
  if (!err.empty())
    return "permutation is invalid: " + err;
  return {};
}

Shape transposedShape(ArrayRef<int64_t> in, ArrayRef<int64_t> perm) {
  Shape out;
  for (int64_t p : perm)
    out.push_back(in[p]);
  return out;
}

std::string matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs, bool transposeLhs,
                        bool transposeRhs, Shape &out) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return "matmul operands must have rank >= 2, got " + formatShape(lhs) + " and " +
           formatShape(rhs);
  size_t l = lhs.size(), r = rhs.size();
  int64_t m = transposeLhs ? lhs[l - 1] : lhs[l - 2];
  int64_t kl = transposeLhs ? lhs[l - 2] : lhs[l - 1];
  int64_t kr = transposeRhs ? rhs[r - 1] : rhs[r - 2];
  int64_t n = transposeRhs ? rhs[r - 2] : rhs[r - 1];
  if (kl != kr && kl != kDynamic && kr != kDynamic)
    return "contraction sizes differ: lhs has K=" + std::to_string(kl) +
           " but rhs has K=" + std::to_string(kr);
  Shape batch;
  if (!broadcastShapes(lhs.drop_back(2), rhs.drop_back(2), batch))
    return "batch dimensions " + formatShape(lhs.drop_back(2)) + " and " +
           formatShape(rhs.drop_back(2)) + " do not broadcast";
  out = batch;
  out.push_back(m);
  out.push_back(n);
  return {};
}

Shape rowMajorStrides(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}


int64_t Window::outputSize(size_t d, int64_t in) const {
  if (in == kDynamic)
    return kDynamic;
  int64_t span = dilations[d] * (kernel[d] - 1) + 1;
  int64_t padded = in + padLo[d] + padHi[d];
  if (padded < span)
    return 0;
  return (padded - span) / strides[d] + 1;
}

std::string makeWindow(ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> padding, ArrayRef<int64_t> dilations, Window &out) {
  size_t k = kernel.size();
  if (strides.size() != k || dilations.size() != k || padding.size() != 2 * k)
    return "a window over " + std::to_string(k) + " spatial dim(s) needs " + std::to_string(k) +
           " strides and dilations and " + std::to_string(2 * k) + " pads (got " +
           std::to_string(strides.size()) + ", " + std::to_string(dilations.size()) + " and " +
           std::to_string(padding.size()) + ")";
  out = Window();
  for (size_t d = 0; d < k; ++d) {
    if (kernel[d] < 1 || strides[d] < 1 || dilations[d] < 1)
      return "spatial dim " + std::to_string(d) + ": kernel size, stride and dilation must be >= 1";
    if (padding[d] < 0 || padding[k + d] < 0)
      return "spatial dim " + std::to_string(d) + ": pads must be >= 0";
    out.kernel.push_back(kernel[d]);
    out.strides.push_back(strides[d]);
    out.dilations.push_back(dilations[d]);
    out.padLo.push_back(padding[d]);
    out.padHi.push_back(padding[k + d]);
  }
  return "";
}

/// The spatial result dims of `w` over `input`'s dims 2.., appended to `out`.
static std::string windowDims(ArrayRef<int64_t> input, const Window &w, Shape &out) {
  for (size_t d = 0; d < w.rank(); ++d) {
    int64_t o = w.outputSize(d, input[2 + d]);
    if (o != kDynamic && o < 1)
      return "spatial dim " + std::to_string(d) + " of size " + std::to_string(input[2 + d]) +
             " (padded by " + std::to_string(w.padLo[d] + w.padHi[d]) +
             ") is smaller than the window span " +
             std::to_string(w.dilations[d] * (w.kernel[d] - 1) + 1);
    out.push_back(o);
  }
  return "";
}

std::string convShape(ArrayRef<int64_t> input, ArrayRef<int64_t> weight, int64_t groups,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                      ArrayRef<int64_t> dilations, Shape &out) {
  if (input.size() < 3 || weight.size() != input.size())
    return "input and weight need the same rank >= 3 ([N, C, spatial...] and [F, C / groups, "
           "kernel...]), got " + formatShape(input) + " and " + formatShape(weight);
  Window w;
  if (std::string why = makeWindow(weight.drop_front(2), strides, padding, dilations, w);
      !why.empty())
    return why;
  if (groups < 1)
    return "groups must be >= 1";
  int64_t c = input[1], f = weight[0], cg = weight[1];
  if (f != kDynamic && f % groups)
    return "output channels " + std::to_string(f) + " are not a multiple of groups " +
           std::to_string(groups);
  if (c != kDynamic && c != cg * groups)
    return "input channels " + std::to_string(c) + " are not weight dim 1 (" +
           std::to_string(cg) + ") x groups (" + std::to_string(groups) + ")";
  out = {input[0], f};
  return windowDims(input, w, out);
}

std::string poolShape(ArrayRef<int64_t> input, ArrayRef<int64_t> kernel,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> padding, Shape &out) {
  if (input.size() != kernel.size() + 2)
    return "an input of rank " + std::to_string(input.size()) + " needs " +
           std::to_string(input.size() < 2 ? 0 : input.size() - 2) + " window sizes, got " +
           std::to_string(kernel.size());
  Window w;
  SmallVector<int64_t, 3> ones(kernel.size(), 1);
  if (std::string why = makeWindow(kernel, strides, padding, ones, w); !why.empty())
    return why;
  for (size_t d = 0; d < w.rank(); ++d)
    if (w.padLo[d] >= w.kernel[d] || w.padHi[d] >= w.kernel[d])
      return "spatial dim " + std::to_string(d) + ": pads must be smaller than the window (" +
             std::to_string(w.kernel[d]) + ")";
  out = {input[0], input[1]};
  return windowDims(input, w, out);
}

} // namespace neuronc
