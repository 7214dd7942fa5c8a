//===- Dispatch.h - Host side of a bucketed call -----------------*- C++ -*-===//
//
// What every runner (the interpreter's neuron.dispatch, the runtime,
// neuron-run) does around a bucketed entry point: read the true sizes off the
// inputs, pick the bucket, pad the inputs with zeros, build the masks, and
// slice the bucket's outputs back to the true sizes.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_HOST_DISPATCH_H
#define NEURONC_HOST_DISPATCH_H

#include "neuronc/Host/Tensor.h"
#include "neuronc/Support/Buckets.h"

#include "llvm/ADT/SmallVector.h"

namespace neuronc {

/// A call bound to a bucket: its arguments (padded inputs, then masks).
struct BucketCall {
  size_t bucket = 0;
  std::vector<int64_t> sizes;  ///< the true size of each symbol
  double paddingFraction = 0;  ///< of the bucket's work
  llvm::SmallVector<Tensor> args;
};

/// Picks the bucket for `inputs` and builds its arguments. Errors are those
/// of BucketSignature::bindSizes and select.
llvm::Expected<BucketCall> prepareBucketCall(const BucketSignature &sig,
                                             llvm::ArrayRef<Tensor> inputs,
                                             llvm::StringRef entry);

/// The bucket's outputs cut to the true sizes of `call`.
llvm::SmallVector<Tensor> sliceBucketOutputs(const BucketSignature &sig, const BucketCall &call,
                                             llvm::ArrayRef<Tensor> outputs);

/// `t` in the leading corner of a zero tensor of `shape` (each dim >= t's).
Tensor padTensor(const Tensor &t, llvm::ArrayRef<int64_t> shape);

/// The leading corner of `t` of `shape` (each dim <= t's).
Tensor sliceTensor(const Tensor &t, llvm::ArrayRef<int64_t> shape);

} // namespace neuronc

#endif // NEURONC_HOST_DISPATCH_H
