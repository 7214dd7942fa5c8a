//===- Kernels.h - Reference kernels on host tensors ------------*- C++ -*-===//
//
// One plain C++ function per op family. These are the correctness oracle of
// the whole compiler: every later stage is compared against them, and they
// are compared against numpy. Floats are computed in f32 with reductions
// accumulated in f64; bf16/f16 results are rounded to their type. Kernels
// never modify their inputs and report run-time shape errors as llvm::Error.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_HOST_KERNELS_H
#define NEURONC_HOST_KERNELS_H

#include "neuronc/Host/Tensor.h"

#include "llvm/Support/Error.h"

#include <optional>

namespace neuronc::ref {

/// Shl/ShrS/ShrU shift i32 lhs by rhs: amounts outside [0, 31] give 0 (ShrS:
/// the sign); Bit* are bitwise on integers (i1 included).
enum class BinaryKind { Add, Sub, Mul, Div, Max, Min, Pow, BitAnd, BitOr, BitXor, Shl, ShrS, ShrU };
enum class CompareKind { EQ, LT, LE, GT, GE };
enum class UnaryKind {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Reciprocal, Square, Tanh, Sigmoid, Erf,
  GeluErf, GeluTanh, Silu, Relu, Round, Floor, Ceil, Sin, Cos
};
enum class ReduceKind { Sum, Mean, Max, Min, Prod };

llvm::Expected<Tensor> binary(BinaryKind kind, const Tensor &lhs, const Tensor &rhs);
llvm::Expected<Tensor> compare(CompareKind kind, const Tensor &lhs, const Tensor &rhs);
llvm::Expected<Tensor> select(const Tensor &cond, const Tensor &onTrue, const Tensor &onFalse);
llvm::Expected<Tensor> unary(UnaryKind kind, const Tensor &x);
llvm::Expected<Tensor> reduce(ReduceKind kind, const Tensor &x, llvm::ArrayRef<int64_t> axes,
                              bool keepdims);
/// Batched matmul; the result has `resultType` (default: the operands' type),
/// e.g. f32 for bf16 operands accumulated in f32.
llvm::Expected<Tensor> matmul(const Tensor &lhs, const Tensor &rhs, bool transposeLhs,
                              bool transposeRhs, std::optional<DType> resultType = {});
llvm::Expected<Tensor> transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm);
/// `x` (rank >= 2) with its last two dims swapped, as a new contiguous tensor.
Tensor swapLastTwoDims(const Tensor &x);
llvm::Expected<Tensor> reshape(const Tensor &x, llvm::ArrayRef<int64_t> shape);
llvm::Expected<Tensor> broadcastTo(const Tensor &x, llvm::ArrayRef<int64_t> shape);
llvm::Expected<Tensor> slice(const Tensor &x, llvm::ArrayRef<int64_t> offsets,
                             llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides);
llvm::Expected<Tensor> concat(llvm::ArrayRef<Tensor> inputs, int64_t axis);
llvm::Expected<Tensor> gather(const Tensor &table, const Tensor &indices, int64_t axis);
llvm::Expected<Tensor> cast(const Tensor &x, DType to);
llvm::Expected<Tensor> rmsnorm(const Tensor &x, const Tensor *weight,
                               llvm::ArrayRef<int64_t> axes, float epsilon);
llvm::Expected<Tensor> layernorm(const Tensor &x, const Tensor *weight, const Tensor *bias,
                                 llvm::ArrayRef<int64_t> axes, float epsilon);
llvm::Expected<Tensor> softmax(const Tensor &x, int64_t axis, bool log);
/// softmax(q·kᵀ·scale + mask [, causal]) · v per head, in f32, rounded to
/// `resultType`: q [..., H, M, D], k [..., G, N, D], v [..., G, N, Dv] with
/// query head h reading key/value head h / (H / G); `mask` (may be null)
/// broadcasts to [..., H, M, N]; with `causalOffset` row i sees keys
/// j <= i + causalOffset.
llvm::Expected<Tensor> attention(const Tensor &q, const Tensor &k, const Tensor &v,
                                 const Tensor *mask, float scale,
                                 std::optional<int64_t> causalOffset, DType resultType);

/// Channels-first N-D convolution ([N, C, D...] with weight [F, C / groups,
/// K...] and optional bias [F]), products accumulated in f64, rounded to
/// `resultType`. `padding` lists the leading pads, then the trailing ones.
llvm::Expected<Tensor> conv(const Tensor &input, const Tensor &weight, const Tensor *bias,
                            int64_t groups, llvm::ArrayRef<int64_t> strides,
                            llvm::ArrayRef<int64_t> padding, llvm::ArrayRef<int64_t> dilations,
                            DType resultType);
/// Channels-first N-D max (`isMax`) or average pooling; padded positions are
/// ignored, except that `countIncludePad` averages over the whole window.
llvm::Expected<Tensor> pool(bool isMax, const Tensor &input, llvm::ArrayRef<int64_t> kernel,
                            llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> padding,
                            bool countIncludePad);

} // namespace neuronc::ref

#endif // NEURONC_HOST_KERNELS_H
