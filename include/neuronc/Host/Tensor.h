//===- Tensor.h - Host tensors of the reference interpreter -----*- C++ -*-===//
//
// A dense row-major host buffer with an element type and a shape. Floating
// types (f32, bf16, f16) are stored as f32 values that are exactly
// representable in their type; i32 and i1 are stored as int32 (i1 as 0/1).
// Storage is shared and immutable once a kernel returns it, so reshape is
// free and values can be passed around by copy.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_HOST_TENSOR_H
#define NEURONC_HOST_TENSOR_H

#include "neuronc/Support/Shape.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace neuronc {

/// Element types a host tensor can hold. F64/I64 exist so that file I/O can
/// name them; the interpreter computes only on the others.
enum class DType : uint8_t { F32, BF16, F16, I32, I1, F64, I64 };

/// Short numpy-like name (`f32`, `bf16`, `i1`, ...).
llvm::StringRef dtypeName(DType t);
inline bool isFloat(DType t) {
  return t == DType::F32 || t == DType::BF16 || t == DType::F16 || t == DType::F64;
}
/// Bytes per element on the device (bf16/f16: 2, i1: 1).
int64_t dtypeBytes(DType t);

/// A host tensor. See the file comment for the storage rules.
class Tensor {
public:
  Tensor() = default;

  /// A tensor with uninitialized contents.
  static Tensor empty(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// A tensor with every element set to `v` (converted to the storage type).
  static Tensor filled(DType dtype, llvm::ArrayRef<int64_t> shape, double v);

  DType dtype() const { return dtype_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  bool isFloat() const { return neuronc::isFloat(dtype_); }
  bool valid() const { return storage_ != nullptr; }

  float *f() { return reinterpret_cast<float *>(storage_.get()); }
  const float *f() const { return reinterpret_cast<const float *>(storage_.get()); }
  int32_t *i() { return reinterpret_cast<int32_t *>(storage_.get()); }
  const int32_t *i() const { return reinterpret_cast<const int32_t *>(storage_.get()); }

  /// Element `k` (row-major) as a double, whatever the storage.
  double get(int64_t k) const { return isFloat() ? f()[k] : i()[k]; }

  /// Same storage under another shape with the same element count.
  Tensor reshaped(llvm::ArrayRef<int64_t> shape) const;
  /// Same storage, element type relabelled (storage class must match).
  Tensor withDType(DType dtype) const;

  /// Rounds float contents to bf16/f16 precision when the type says so.
  void roundToType();

  /// e.g. `tensor<4x8xf32>`.
  std::string typeString() const;

private:
  DType dtype_ = DType::F32;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<uint32_t[]> storage_;
};

/// Deterministic pseudo-random contents for `--random-inputs`: floats uniform
/// in [-1, 1) (then rounded to the type), integers uniform in [0, intRange),
/// i1 fair coin flips. The same seed gives the same tensor on every machine.
Tensor randomTensor(DType dtype, llvm::ArrayRef<int64_t> shape, uint64_t seed,
                    int32_t intRange = 8);

/// Summary statistics of a tensor's values.
struct TensorStats {
  double min = 0, max = 0, mean = 0;
  int64_t nans = 0, infs = 0;
};
TensorStats computeStats(const Tensor &t);

} // namespace neuronc

#endif // NEURONC_HOST_TENSOR_H
