//===- HostTensor.cpp - Attributes <-> host tensors ----------------------===//

#include "neuronc/Dialect/Neuron/HostTensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using neuronc::DType;
using neuronc::Tensor;

std::optional<DType> mlir::neuron::toDType(Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF16())
    return DType::F16;
  if (t.isF64())
    return DType::F64;
  if (t.isInteger(1))
    return DType::I1;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(64))
    return DType::I64;
  return std::nullopt;
}

Type mlir::neuron::toElementType(MLIRContext *ctx, DType dtype) {
  Builder b(ctx);
  switch (dtype) {
  case DType::F32: return b.getF32Type();
  case DType::BF16: return b.getBF16Type();
  case DType::F16: return b.getF16Type();
  case DType::F64: return b.getF64Type();
  case DType::I1: return b.getI1Type();
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  }
  return {};
}

std::optional<Tensor> mlir::neuron::toHostTensor(ElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype || *dtype == DType::F64 || *dtype == DType::I64)
    return std::nullopt;
  Tensor t = Tensor::empty(*dtype, type.getShape());
  int64_t n = t.numel();
  if (*dtype == DType::F32) {
    if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && !dense.isSplat()) {
      // Fast path: the raw data of a dense f32 attribute is the f32 array.
      ArrayRef<char> raw = dense.getRawData();
      std::memcpy(t.f(), raw.data(), n * sizeof(float));
      return t;
    }
    auto values = attr.tryGetValues<float>();
    if (!values)
      return std::nullopt;
    std::copy_n(values->begin(), n, t.f());
    return t;
  }
  if (t.isFloat()) {
    auto values = attr.tryGetValues<APFloat>();
    if (!values)
      return std::nullopt;
    float *p = t.f();
    for (APFloat v : *values) {
      bool lost;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      *p++ = v.convertToFloat();
    }
    return t;
  }
  auto values = attr.tryGetValues<APInt>();
  if (!values)
    return std::nullopt;
  int32_t *p = t.i();
  for (const APInt &v : *values)
    *p++ = *dtype == DType::I1 ? static_cast<int32_t>(v.getBoolValue())
                               : static_cast<int32_t>(v.getSExtValue());
  return t;
}

DenseElementsAttr mlir::neuron::toElementsAttr(const Tensor &t, RankedTensorType type) {
  int64_t n = t.numel();
  Type elem = type.getElementType();
  if (elem.isF32())
    return DenseElementsAttr::get(type, ArrayRef<float>(t.f(), n));
  if (elem.isInteger(32))
    return DenseElementsAttr::get(type, ArrayRef<int32_t>(t.i(), n));
  if (elem.isInteger(1)) {
    SmallVector<bool> bits(n);
    for (int64_t k = 0; k < n; ++k)
      bits[k] = t.i()[k] != 0;
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  auto floatType = dyn_cast<FloatType>(elem);
  if (!floatType)
    return {};
  SmallVector<APFloat> values;
  values.reserve(n);
  for (int64_t k = 0; k < n; ++k) {
    APFloat v(t.f()[k]);
    bool lost;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v);
  }
  return DenseElementsAttr::get(type, values);
}
