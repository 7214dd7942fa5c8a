//===- Dispatch.cpp - Host side of a bucketed call ------------------------===//

#include "neuronc/Host/Dispatch.h"

#include <cstring>

using namespace neuronc;

/// Copies the leading corner common to `from` and `to` (same rank), row by
/// row of the innermost dim. Every element is one 32-bit word in host storage.
static void copyCorner(const Tensor &from, Tensor &to) {
  int64_t rank = from.rank();
  if (rank == 0) {
    std::memcpy(const_cast<Tensor &>(to).i(), from.i(), 4);
    return;
  }
  llvm::SmallVector<int64_t> common(rank);
  for (int64_t d = 0; d < rank; ++d)
    common[d] = std::min(from.shape()[d], to.shape()[d]);
  if (llvm::is_contained(common, 0))
    return;
  Shape fs = rowMajorStrides(from.shape()), ts = rowMajorStrides(to.shape());
  int64_t inner = common[rank - 1];
  llvm::SmallVector<int64_t> idx(rank, 0);
  while (true) {
    int64_t fo = 0, to_ = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      fo += idx[d] * fs[d];
      to_ += idx[d] * ts[d];
    }
    std::memcpy(to.i() + to_, from.i() + fo, inner * 4);
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < common[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

Tensor neuronc::padTensor(const Tensor &t, llvm::ArrayRef<int64_t> shape) {
  if (llvm::equal(t.shape(), shape))
    return t;
  Tensor out = Tensor::filled(t.dtype(), shape, 0.0);
  copyCorner(t, out);
  return out;
}

Tensor neuronc::sliceTensor(const Tensor &t, llvm::ArrayRef<int64_t> shape) {
  if (llvm::equal(t.shape(), shape))
    return t;
  Tensor out = Tensor::empty(t.dtype(), shape);
  copyCorner(t, out);
  return out;
}

llvm::Expected<BucketCall> neuronc::prepareBucketCall(const BucketSignature &sig,
                                                      llvm::ArrayRef<Tensor> inputs,
                                                      llvm::StringRef entry) {
  std::vector<std::vector<int64_t>> shapes;
  for (const Tensor &t : inputs)
    shapes.emplace_back(t.shape().begin(), t.shape().end());
  llvm::Expected<std::vector<int64_t>> sizes = sig.bindSizes(shapes, entry);
  if (!sizes)
    return sizes.takeError();
  llvm::Expected<size_t> bucket = sig.select(*sizes, entry);
  if (!bucket)
    return bucket.takeError();
  BucketCall call;
  call.bucket = *bucket;
  call.sizes = *sizes;
  call.paddingFraction = sig.paddingFraction(*sizes, *bucket);
  const std::vector<int64_t> &padded = sig.buckets[*bucket];
  for (auto [t, dims] : llvm::zip(inputs, sig.inputs))
    call.args.push_back(padTensor(t, BucketSignature::shapeAt(dims, padded)));
  for (uint32_t s : sig.masks) {
    Tensor mask = Tensor::filled(DType::I1, {padded[s]}, 0.0);
    for (int64_t k = 0; k < (*sizes)[s]; ++k)
      mask.i()[k] = 1;
    call.args.push_back(std::move(mask));
  }
  return call;
}

llvm::SmallVector<Tensor> neuronc::sliceBucketOutputs(const BucketSignature &sig,
                                                      const BucketCall &call,
                                                      llvm::ArrayRef<Tensor> outputs) {
  llvm::SmallVector<Tensor> out;
  for (auto [t, dims] : llvm::zip(outputs, sig.outputs))
    out.push_back(sliceTensor(t, BucketSignature::shapeAt(dims, call.sizes)));
  return out;
}
