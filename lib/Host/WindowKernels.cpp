//===- WindowKernels.cpp - Reference convolution and pooling --------------===//
//
// The reference kernels of neuron.conv and neuron.pool: channels first, any
// number of spatial dims, each output position visiting the input positions
// its window covers (padded positions skipped: they read 0 for a
// convolution and are ignored by max pooling). Products accumulate in f64.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Host/Kernels.h"
#include "neuronc/Support/Shape.h"

#include <cmath>
#include <limits>
#include <vector>

using llvm::ArrayRef;
using llvm::Expected;

namespace neuronc::ref {
namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// For every output position (row-major over `out`) and window tap
/// (row-major over the kernel), the input position (row-major over `in`)
/// the tap reads, or -1 where it falls into padding.
std::vector<int64_t> tapOffsets(const Window &w, ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  size_t k = w.rank();
  int64_t outCount = numElements(out), taps = numElements(w.kernel);
  std::vector<int64_t> offsets(outCount * taps);
  Shape o(k, 0);
  for (int64_t op = 0; op < outCount; ++op) {
    Shape t(k, 0);
    for (int64_t tp = 0; tp < taps; ++tp) {
      int64_t pos = 0;
      bool inside = true;
      for (size_t d = 0; d < k; ++d) {
        int64_t x = o[d] * w.strides[d] - w.padLo[d] + t[d] * w.dilations[d];
        inside &= x >= 0 && x < in[d];
        pos = pos * in[d] + x;
      }
      offsets[op * taps + tp] = inside ? pos : -1;
      for (int64_t d = static_cast<int64_t>(k) - 1; d >= 0; --d) {
        if (++t[d] < w.kernel[d])
          break;
        t[d] = 0;
      }
    }
    for (int64_t d = static_cast<int64_t>(k) - 1; d >= 0; --d) {
      if (++o[d] < out[d])
        break;
      o[d] = 0;
    }
  }
  return offsets;
}

} // namespace

Expected<Tensor> conv(const Tensor &input, const Tensor &weight, const Tensor *bias,
                      int64_t groups, ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                      ArrayRef<int64_t> dilations, DType resultType) {
  if (!input.isFloat() || !weight.isFloat() || (bias && !bias->isFloat()))
    return fail("conv: operands must be float");
  Shape outShape;
  if (std::string why =
          convShape(input.shape(), weight.shape(), groups, strides, padding, dilations, outShape);
      !why.empty())
    return fail("conv: " + why);
  if (bias && (bias->rank() != 1 || bias->shape()[0] != outShape[1]))
    return fail("conv: bias of shape " + formatShape(bias->shape()) + " is not [" +
                std::to_string(outShape[1]) + "]");
  Window w;
  (void)makeWindow(weight.shape().drop_front(2), strides, padding, dilations, w);
  ArrayRef<int64_t> inSpatial = input.shape().drop_front(2);
  ArrayRef<int64_t> outSpatial = ArrayRef<int64_t>(outShape).drop_front(2);
  int64_t n = input.shape()[0], c = input.shape()[1], f = outShape[1];
  int64_t cg = weight.shape()[1], fg = f / groups;
  int64_t inCount = numElements(inSpatial), outCount = numElements(outSpatial);
  int64_t taps = numElements(w.kernel);
  std::vector<int64_t> offsets = tapOffsets(w, inSpatial, outSpatial);
  Tensor out = Tensor::empty(resultType, outShape);
  const float *x = input.f(), *wt = weight.f();
  float *y = out.f();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < f; ++oc) {
      int64_t g = oc / fg;
      double init = bias ? bias->f()[oc] : 0.0;
      for (int64_t op = 0; op < outCount; ++op) {
        double acc = init;
        const int64_t *off = &offsets[op * taps];
        for (int64_t ic = 0; ic < cg; ++ic) {
          const float *plane = x + (b * c + g * cg + ic) * inCount;
          const float *wrow = wt + (oc * cg + ic) * taps;
          for (int64_t t = 0; t < taps; ++t)
            if (off[t] >= 0)
              acc += static_cast<double>(wrow[t]) * plane[off[t]];
        }
        y[(b * f + oc) * outCount + op] = static_cast<float>(acc);
      }
    }
  out.roundToType();
  return out;
}

Expected<Tensor> pool(bool isMax, const Tensor &input, ArrayRef<int64_t> kernel,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                      bool countIncludePad) {
  if (!input.isFloat())
    return fail("pool: the input must be float");
  Shape outShape;
  if (std::string why = poolShape(input.shape(), kernel, strides, padding, outShape);
      !why.empty())
    return fail("pool: " + why);
  Window w;
  llvm::SmallVector<int64_t, 3> ones(kernel.size(), 1);
  (void)makeWindow(kernel, strides, padding, ones, w);
  ArrayRef<int64_t> inSpatial = input.shape().drop_front(2);
  ArrayRef<int64_t> outSpatial = ArrayRef<int64_t>(outShape).drop_front(2);
  int64_t planes = outShape[0] * outShape[1];
  int64_t inCount = numElements(inSpatial), outCount = numElements(outSpatial);
  int64_t taps = numElements(kernel);
  std::vector<int64_t> offsets = tapOffsets(w, inSpatial, outSpatial);
  Tensor out = Tensor::empty(input.dtype(), outShape);
  for (int64_t p = 0; p < planes; ++p) {
    const float *plane = input.f() + p * inCount;
    for (int64_t op = 0; op < outCount; ++op) {
      const int64_t *off = &offsets[op * taps];
      double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
      int64_t count = 0;
      for (int64_t t = 0; t < taps; ++t) {
        if (off[t] < 0)
          continue;
        ++count;
        acc = isMax ? std::max<double>(acc, plane[off[t]]) : acc + plane[off[t]];
      }
      if (!isMax)
        acc /= countIncludePad ? static_cast<double>(taps) : static_cast<double>(count);
      out.f()[p * outCount + op] = static_cast<float>(acc);
    }
  }
  out.roundToType();
  return out;
}

} // namespace neuronc::ref
