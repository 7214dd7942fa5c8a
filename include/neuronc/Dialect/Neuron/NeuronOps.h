//===- NeuronOps.h - Ops of the neuron dialect ------------------*- C++ -*-===//

#ifndef NEURONC_DIALECT_NEURON_NEURONOPS_H
#define NEURONC_DIALECT_NEURON_NEURONOPS_H

#include "neuronc/Dialect/Neuron/NeuronDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "neuronc/Support/Buckets.h"

#define GET_OP_CLASSES
#include "neuronc/Dialect/Neuron/NeuronOps.h.inc"

#endif // NEURONC_DIALECT_NEURON_NEURONOPS_H
