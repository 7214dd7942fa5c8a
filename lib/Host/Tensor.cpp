//===- Tensor.cpp - Host tensors of the reference interpreter ------------===//

#include "neuronc/Host/Tensor.h"

#include "neuronc/Support/Float.h"

#include <cassert>
#include <map>
#include <mutex>
#include <cmath>

namespace neuronc {

llvm::StringRef dtypeName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::BF16: return "bf16";
  case DType::F16: return "f16";
  case DType::I32: return "i32";
  case DType::I1: return "i1";
  case DType::F64: return "f64";
  case DType::I64: return "i64";
  }
  return "?";
}

int64_t dtypeBytes(DType t) {
  switch (t) {
  case DType::F32: case DType::I32: return 4;
  case DType::BF16: case DType::F16: return 2;
  case DType::I1: return 1;
  case DType::F64: case DType::I64: return 8;
  }
  return 4;
}

namespace {

/// Keeps large buffers that tensors released, for the next tensor of about
/// the same size. A fresh multi-megabyte allocation is mmap'ed by malloc and
/// then page-faulted in on first touch, which costs more than the kernel
/// that fills it; an interpreter running a graph (or the same graph again)
/// asks for the same sizes over and over.
class StoragePool {
public:
  static StoragePool &get() {
    static StoragePool *pool = new StoragePool(); // never destroyed: tensors may outlive main
    return *pool;
  }

  std::shared_ptr<uint32_t[]> allocate(size_t words) {
    words = std::max<size_t>(words, 1);
    if (words >= kMinPooledWords) {
      std::lock_guard<std::mutex> lock(mutex_);
      // The smallest free buffer that fits without wasting more than half.
      auto it = free_.lower_bound(words);
      if (it != free_.end() && it->first <= 2 * words) {
        size_t capacity = it->first;
        uint32_t *p = it->second;
        free_.erase(it);
        pooledWords_ -= capacity;
        return wrap(p, capacity);
      }
    }
    return wrap(new uint32_t[words], words);
  }

private:
  static constexpr size_t kMinPooledWords = 64 * 1024;          // 256 KiB
  static constexpr size_t kMaxPooledWords = 256 * 1024 * 1024;  // 1 GiB

  std::shared_ptr<uint32_t[]> wrap(uint32_t *p, size_t capacity) {
    return std::shared_ptr<uint32_t[]>(p, [this, capacity](uint32_t *q) { release(q, capacity); });
  }

  void release(uint32_t *p, size_t capacity) {
    if (capacity >= kMinPooledWords) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (pooledWords_ + capacity <= kMaxPooledWords) {
        free_.emplace(capacity, p);
        pooledWords_ += capacity;
        return;
      }
    }
    delete[] p;
  }

  std::mutex mutex_;
  std::multimap<size_t, uint32_t *> free_;
  size_t pooledWords_ = 0;
};

} // namespace

Tensor Tensor::empty(DType dtype, llvm::ArrayRef<int64_t> shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_.assign(shape.begin(), shape.end());
  t.numel_ = numElements(shape);
  assert(t.numel_ >= 0 && "host tensors have static shapes");
  // Uninitialized on purpose: every kernel writes all of its output.
  t.storage_ = StoragePool::get().allocate(static_cast<size_t>(t.numel_));
  return t;
}

Tensor Tensor::filled(DType dtype, llvm::ArrayRef<int64_t> shape, double v) {
  Tensor t = empty(dtype, shape);
  if (t.isFloat())
    std::fill_n(t.f(), t.numel_, static_cast<float>(v));
  else
    std::fill_n(t.i(), t.numel_, static_cast<int32_t>(v));
  t.roundToType();
  return t;
}

Tensor Tensor::reshaped(llvm::ArrayRef<int64_t> shape) const {
  assert(numElements(shape) == numel_ && "reshape must keep the element count");
  Tensor t = *this;
  t.shape_.assign(shape.begin(), shape.end());
  return t;
}

Tensor Tensor::withDType(DType dtype) const {
  assert(neuronc::isFloat(dtype) == isFloat() && "storage class must match");
  Tensor t = *this;
  t.dtype_ = dtype;
  return t;
}

void Tensor::roundToType() {
  if (dtype_ == DType::BF16) {
    float *p = f();
    for (int64_t k = 0; k < numel_; ++k)
      p[k] = roundToBF16(p[k]);
  } else if (dtype_ == DType::F16) {
    float *p = f();
    for (int64_t k = 0; k < numel_; ++k)
      p[k] = roundToF16(p[k]);
  } else if (dtype_ == DType::I1) {
    int32_t *p = i();
    for (int64_t k = 0; k < numel_; ++k)
      p[k] = p[k] != 0;
  }
}

std::string Tensor::typeString() const {
  std::string s = "tensor<";
  for (int64_t d : shape_)
    s += std::to_string(d) + "x";
  s += dtypeName(dtype_).str() + ">";
  return s;
}

namespace {
/// splitmix64: tiny, well-mixed and identical everywhere, unlike the
/// standard library's distributions.
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
} // namespace

Tensor randomTensor(DType dtype, llvm::ArrayRef<int64_t> shape, uint64_t seed,
                    int32_t intRange) {
  Tensor t = Tensor::empty(dtype, shape);
  uint64_t state = seed;
  for (int64_t k = 0; k < t.numel(); ++k) {
    uint64_t r = splitmix64(state);
    if (t.isFloat())
      t.f()[k] = static_cast<float>(static_cast<double>(r >> 11) * 0x1.0p-52 - 1.0);
    else if (dtype == DType::I1)
      t.i()[k] = static_cast<int32_t>(r >> 63);
    else
      t.i()[k] = static_cast<int32_t>((r >> 33) % static_cast<uint64_t>(intRange));
  }
  t.roundToType();
  return t;
}

TensorStats computeStats(const Tensor &t) {
  TensorStats s;
  double sum = 0;
  int64_t finite = 0;
  bool seen = false;
  for (int64_t k = 0; k < t.numel(); ++k) {
    double v = t.get(k);
    if (std::isnan(v)) {
      ++s.nans;
      continue;
    }
    s.min = seen ? std::min(s.min, v) : v;
    s.max = seen ? std::max(s.max, v) : v;
    seen = true;
    if (std::isinf(v)) {
      ++s.infs;
      continue;
    }
    sum += v;
    ++finite;
  }
  s.mean = finite ? sum / finite : 0.0;
  return s;
}

} // namespace neuronc
