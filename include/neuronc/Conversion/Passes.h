//===- Passes.h - Import passes into the neuron dialect ---------*- C++ -*-===//

#ifndef NEURONC_CONVERSION_PASSES_H
#define NEURONC_CONVERSION_PASSES_H

#include "neuronc/Dialect/Nisa/NisaDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace mlir::neuron {

#define GEN_PASS_DECL
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"

/// Why `op` (a linalg.generic or a named elementwise linalg op) cannot be
/// raised to neuron ops, or an empty string when it can. Shared by the
/// raising pattern and the import check so that the error says exactly what
/// stopped the raising.
std::string whyGenericIsNotRaisable(Operation *op);

/// Why `op` (a tensor.insert_slice) cannot be imported, or an empty string
/// when it can (or is not one).
std::string whyInsertSliceIsNotRaisable(Operation *op);

/// Why `op` (a TOSA convolution or pooling op) cannot be imported (a
/// quantized type, non-zero zero points, a non-constant transposed
/// convolution weight), or an empty string when it can (or is not one).
std::string whyTosaWindowOpFails(Operation *op);

/// Why `op` (a linalg convolution or pooling op) cannot be imported, or an
/// empty string when it can (or is not one).
std::string whyLinalgWindowOpFails(Operation *op);

} // namespace mlir::neuron

#endif // NEURONC_CONVERSION_PASSES_H
