//===- NeuronDialect.cpp - The neuron dialect ----------------------------===//

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

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
