//===- Shape.h - Shape rules shared by verifiers and kernels ----*- C++ -*-===//
//
// The shape rules of the neuron ops (numpy broadcasting, reductions, matmul,
// transpose) written once, without MLIR types, so that the op verifiers and
// the reference kernels cannot disagree. A dimension equal to `kDynamic`
// (the same value as `mlir::ShapedType::kDynamic`) is unknown until run time.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_SHAPE_H
#define NEURONC_SUPPORT_SHAPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <string>

namespace neuronc {

/// Marker of a dimension only known at run time.
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

using Shape = llvm::SmallVector<int64_t, 4>;

/// Number of elements, or -1 when a dimension is dynamic.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// Formats a shape as `4x?x8` (scalars as `scalar`), for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Numpy broadcasting of two shapes (trailing dims aligned, size-1 dims
/// stretch). Returns false when two static dims differ and neither is 1.
bool broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b, Shape &out);

/// True when `from` can be broadcast to exactly `to`.
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Checks that `axes` are unique and in [0, rank). Returns an empty string on
/// success, otherwise what is wrong.
std::string checkAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// Shape after reducing `axes` (which must pass checkAxes).
Shape reducedShape(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> axes, bool keepdims);

/// Checks that `perm` is a permutation of [0, rank); empty string on success.
std::string checkPermutation(llvm::ArrayRef<int64_t> perm, int64_t rank);

/// Result shape of a transpose: out[i] = in[perm[i]].
Shape transposedShape(llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> perm);

/// Result shape of a batched matmul. Returns an empty string on success and
/// fills `out`; otherwise says what is wrong.
std::string matmulShape(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                        bool transposeLhs, bool transposeRhs, Shape &out);

/// Row-major strides of a shape (in elements).
Shape rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// The spatial window of a convolution or pooling over `k` spatial dims:
/// kernel sizes, strides, leading then trailing pads, dilations.
struct Window {
  llvm::SmallVector<int64_t, 3> kernel, strides, padLo, padHi, dilations;
  size_t rank() const { return kernel.size(); }
  /// Output size of spatial dim `d` for an input of `in` (dynamic stays
  /// dynamic); < 1 when the window does not fit.
  int64_t outputSize(size_t d, int64_t in) const;
};

/// Builds a window from op attributes; empty string on success, else what
/// is wrong (lengths, non-positive strides/dilations/sizes, negative pads).
std::string makeWindow(llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
                       llvm::ArrayRef<int64_t> padding, llvm::ArrayRef<int64_t> dilations,
                       Window &out);

/// Result shape of a channels-first convolution ([N, C, D...] with weight
/// [F, C / groups, K...]); empty string on success, else what is wrong.
std::string convShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> weight,
                      int64_t groups, llvm::ArrayRef<int64_t> strides,
                      llvm::ArrayRef<int64_t> padding, llvm::ArrayRef<int64_t> dilations,
                      Shape &out);

/// Result shape of channels-first pooling ([N, C, D...]); empty on success.
std::string poolShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                      llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> padding,
                      Shape &out);

} // namespace neuronc

#endif // NEURONC_SUPPORT_SHAPE_H
