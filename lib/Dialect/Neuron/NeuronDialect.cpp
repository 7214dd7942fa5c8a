//===- NeuronDialect.cpp - The neuron dialect ----------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::neuron;

#include "neuronc/Dialect/Neuron/NeuronDialect.cpp.inc"
#include "neuronc/Dialect/Neuron/NeuronEnums.cpp.inc"
#include "neuronc/Dialect/Neuron/NeuronInterfaces.cpp.inc"

void NeuronDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "neuronc/Dialect/Neuron/NeuronOps.cpp.inc"
      >();
}

/// Folders return attributes; this turns them back into `neuron.constant`.
Operation *NeuronDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

std::optional<double> mlir::neuron::getSplatValue(Value v) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return static_cast<double>(i.getValue().getSExtValue());
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat)
    return std::nullopt;
  if (isa<FloatType>(splat.getElementType()))
    return splat.getSplatValue<APFloat>().convertToDouble();
  if (splat.getElementType().isInteger(1))
    return splat.getSplatValue<bool>() ? 1.0 : 0.0;
  if (splat.getElementType().isIntOrIndex())
    return static_cast<double>(splat.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
}

int64_t mlir::neuron::elementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

std::optional<int64_t> mlir::neuron::tensorBytes(Type t) {
  auto shaped = dyn_cast<RankedTensorType>(t);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  return shaped.getNumElements() * elementBytes(shaped.getElementType());
}
