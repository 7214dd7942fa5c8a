//===- OnnxImport.h - ONNX models into the neuron dialect -------*- C++ -*-===//
//
// Reads an ONNX model (a ModelProto, opsets up to 17) and builds one
// func.func of neuron ops: the graph inputs that are not initializers are
// its arguments, initializers and Constant nodes become neuron.constant,
// and the graph outputs are its results. Shapes come from ONNX's own shape
// inference; Shape-derived constant subgraphs (Shape, Gather, Concat,
// Unsqueeze, ... on known integers) are folded while importing, so the
// reshapes torch.onnx.export writes get static shapes. A `dim_param` dim is
// a dynamic dim named by the argument's `neuron.dim_names`, which
// --buckets=NAME:... understands.
//
// Every op carries the location `onnx::<OpType>`, with the node's name
// inside, at `<model>.onnx:<node number>:1`, so profiles and fusion reports
// speak ONNX (tables name an op by the innermost name: the node's, which
// torch.onnx.export makes the module path, e.g. `/layers.0/mlp/MatMul`). An op the importer does
// not support is one error per op type, naming the first such node, the opset and what to use
// instead.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_CONVERSION_ONNXIMPORT_H
#define NEURONC_CONVERSION_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"

namespace neuronc {

/// The ONNX op types the importer supports (default domain), sorted.
llvm::ArrayRef<llvm::StringRef> supportedOnnxOps();

/// Whether `buffer` should be read as ONNX (its name ends in `.onnx`).
bool isOnnxBuffer(const llvm::MemoryBuffer &buffer);

/// Imports the ONNX model in `buffer` (named after its file, whose directory
/// holds any external data). Returns null after emitting errors on
/// `context`'s diagnostic handler.
mlir::OwningOpRef<mlir::ModuleOp> importOnnx(const llvm::MemoryBuffer &buffer,
                                             mlir::MLIRContext *context);

} // namespace neuronc

#endif // NEURONC_CONVERSION_ONNXIMPORT_H
