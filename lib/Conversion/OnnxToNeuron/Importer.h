//===- Importer.h - The ONNX importer's state, shared by its parts -*- C++ -*-===//
//
// Private to lib/Conversion/OnnxToNeuron: one import (Importer) is split by
// idea over ImportOnnx.cpp (types, tensors, known values, the graph walk),
// FoldShapes.cpp (which nodes fold at import, and result shapes shape
// inference did not give), EvaluateConstants.cpp (the evaluator of nodes on
// known tensors), ConvertNodes.cpp (each node as neuron ops),
// ConvertWindows.cpp (convolutional models' ops), ConvertResize.cpp
// (Resize), ConvertRecurrent.cpp
// (LSTM, GRU, RNN) and ConvertEinsum.cpp (Einsum).
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_ONNXTONEURON_IMPORTER_H
#define NEURONC_LIB_CONVERSION_ONNXTONEURON_IMPORTER_H

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <deque>
#include <optional>
#include <string>

namespace neuronc::onnximport {

using namespace mlir;
using namespace mlir::neuron;

/// A tensor whose values the importer knows while importing: a small
/// initializer or Constant, a Shape, or anything computed from known tensors
/// (EvaluateConstants.cpp). Integers and booleans are in `values`; a float
/// tensor keeps its exact values in `reals` and their truncations in
/// `values` (shape arithmetic reads them as integers).
struct Known {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> values;
  SmallVector<double> reals; ///< a float tensor's elements (empty otherwise)
  bool isFloat = false;      ///< the element type is a float
  Type elem;                 ///< the element type (null: i64)
  LocationAttr loc;          ///< the node that computed it (null: not computed)

  int64_t size() const { return static_cast<int64_t>(values.size()); }
  /// Element `i` as a double (exact for floats and integers below 2^53).
  double at(int64_t i) const { return isFloat ? reals[i] : static_cast<double>(values[i]); }
};

/// heuristic: integer tensors up to this many elements are folded while
/// importing (shape arithmetic is at most a few dims).
constexpr int64_t kFoldLimit = 4096;

/// heuristic: a node whose inputs are all known is evaluated at import when
/// none of its inputs or results has more elements than this (a Swin
/// attention mask of 64 windows of 49x49 is 153664; weights of millions of
/// elements stay neuron ops, which the compiler folds or runs once).
constexpr int64_t kEvalLimit = int64_t{1} << 20;

/// One import: the model, the function being built, and the values so far.
class Importer {
public:
  Importer(MLIRContext *context, llvm::StringRef path) : ctx(context), b(context), path(path) {
    file = llvm::sys::path::filename(path).str();
  }

  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);

private:
  MLIRContext *ctx;
  OpBuilder b;
  std::string path, file;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  llvm::StringMap<Known> known;
  /// Types from shape inference (graph inputs, value_info, outputs).
  llvm::StringMap<const onnx::TypeProto *> inferred;
  Location loc = UnknownLoc::get(ctx);
  const onnx::NodeProto *node = nullptr;
  bool failed = false;

  InFlightDiagnostic error() {
    failed = true;
    return emitError(loc) << "ONNX node '" << node->name() << "' (" << node->op_type() << ", opset "
                          << opset << "): ";
  }

  // Types.
  std::optional<Type> elementType(int32_t dataType);
  std::optional<RankedTensorType> tensorType(const onnx::TypeProto &t,
                                             SmallVectorImpl<std::string> *dimNames = nullptr);
  std::optional<RankedTensorType> outputType(int i);

  // Values.
  /// The value named `name`: defined, or known and materialized now as a
  /// neuron.constant located at the node that computed it; null if neither.
  Value valueOf(llvm::StringRef name);
  bool defined(llvm::StringRef name) { return values.count(name) || known.count(name); }
  Value input(int i) {
    if (i >= node->input_size() || node->input(i).empty())
      return {};
    return valueOf(node->input(i));
  }
  const Known *knownInput(int i) {
    if (i >= node->input_size() || node->input(i).empty())
      return nullptr;
    auto it = known.find(node->input(i));
    return it == known.end() ? nullptr : &it->second;
  }
  /// Input `i` as a known tensor: known, or a neuron.constant of at most
  /// kEvalLimit elements (an initializer too large to be known eagerly),
  /// converted for this node; null otherwise.
  const Known *constInput(int i);
  std::optional<SmallVector<int64_t>> ints(int i) {
    if (const Known *k = knownInput(i))
      return k->values;
    return std::nullopt;
  }
  /// Whether optional input `i` is given but its value is not known.
  bool givenUnknown(int i) {
    return i < node->input_size() && !node->input(i).empty() && !knownInput(i);
  }
  void define(int i, Value v) { values[node->output(i)] = v; }
  /// The dense attribute holding `k` (its element type, or i64).
  DenseElementsAttr attrOf(const Known &k);
  /// Output `i` is the known tensor `k` of element type `elem`; its
  /// neuron.constant is built when a node that is not folded reads it.
  void defineKnown(int i, Known k, Type elem) {
    k.elem = elem;
    k.isFloat = isa<FloatType>(elem);
    k.loc = loc;
    values.erase(node->output(i));
    known[node->output(i)] = std::move(k);
  }
  std::optional<DenseElementsAttr> tensorAttr(const onnx::TensorProto &t);

  // Attributes.
  const onnx::AttributeProto *attr(llvm::StringRef name) {
    for (const auto &a : node->attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  int64_t intAttr(llvm::StringRef name, int64_t dflt) {
    const auto *a = attr(name);
    return a ? a->i() : dflt;
  }
  float floatAttr(llvm::StringRef name, float dflt) {
    const auto *a = attr(name);
    return a ? a->f() : dflt;
  }
  std::optional<SmallVector<int64_t>> intsAttr(llvm::StringRef name) {
    const auto *a = attr(name);
    if (!a)
      return std::nullopt;
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  }

  // Helpers building ops.
  Value splat(Type elem, double v) {
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({}, elem), floatOrInt(elem, v)));
  }
  Attribute floatOrInt(Type elem, double v) {
    if (isa<FloatType>(elem))
      return FloatAttr::get(elem, v);
    return IntegerAttr::get(elem, static_cast<int64_t>(v));
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == shape)
      return v;
    return ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v);
  }
  RankedTensorType broadcastType(Value x, Value y, Type elem);
  int64_t normAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

  bool importNode(const onnx::NodeProto &n, int index);
  /// Folds the node when every input is known (or it reads only static
  /// shapes: Shape, Size): its results become known; true when it did.
  bool fold();
  /// The node's results computed from `in` (its inputs, null for omitted
  /// optional ones) as numpy would (EvaluateConstants.cpp); nullopt for an
  /// op or form the evaluator does not compute, which is then converted
  /// to neuron ops like any other node.
  std::optional<SmallVector<Known>> evaluate(ArrayRef<const Known *> in);
  bool lowerNode();
  bool reduce(llvm::StringRef op);
  bool patchEmbedding();
  std::optional<RankedTensorType> reshapedType();
  /// The result shape of the node (Reshape, Flatten, Squeeze, Unsqueeze)
  /// for an input of shape `in`, from its attributes and known inputs.
  std::optional<SmallVector<int64_t>> reshapedShape(ArrayRef<int64_t> in);
  std::optional<RankedTensorType> computedType();
  bool binary(llvm::StringRef op);

  // Convolutional models (ConvertWindows.cpp; resize in ConvertResize.cpp).
  /// A convolution's or pooling's window attributes, resolved.
  struct WindowAttrs {
    SmallVector<int64_t> kernel, strides, dilations, pads; ///< pads: leading, then trailing
  };
  /// strides, dilations and pads (from auto_pad or pads) of the node over
  /// the spatial dims of `input` for `kernel`; nullopt after an error.
  std::optional<WindowAttrs> windowAttrs(RankedTensorType input, ArrayRef<int64_t> kernel);
  /// The value of `v` when it is a constant (initializer, Constant node).
  std::optional<DenseElementsAttr> constantOf(Value v);
  /// The elements of constant `v` as doubles, if it is a constant.
  std::optional<SmallVector<double>> floatsOf(Value v);
  /// A block of `type` filled with the run-time scalar `fill`, or with
  /// `value` when `fill` is null.
  Value fillBlock(RankedTensorType type, Value fill, double value);
  /// `x` padded by `lo`/`hi` per dim (negative amounts crop) with `fill`
  /// or `value` (see fillBlock): a slice, then a concat per padded dim.
  Value padConstant(Value x, ArrayRef<int64_t> lo, ArrayRef<int64_t> hi, Value fill,
                    double value);
  /// `x` at `positions` along `axis` (a gather; `x` itself for 0..n-1).
  Value gatherAxis(Value x, int64_t axis, ArrayRef<int32_t> positions);
  /// Conv as neuron.conv (or a patch embedding's matmul).
  bool conv();
  /// ConvTranspose as a convolution of the zero-upsampled input.
  bool convTranspose();
  /// MaxPool/AveragePool as neuron.pool (ceil_mode as trailing padding).
  bool pool(llvm::StringRef op);
  /// GlobalAveragePool/GlobalMaxPool as keepdims spatial reductions.
  bool globalPool(llvm::StringRef op);
  /// BatchNormalization as elementwise ops (x * a + b on constant statistics).
  bool batchNorm();
  /// Pad as concats of fill blocks, slices, or gathers of the positions read.
  bool pad();
  /// Resize: the last two axes of a float tensor as two products with
  /// interpolation matrices; otherwise a gather per axis, or weighted sums
  /// of gathers.
  bool resize();

  // Ops on run-time values whose constant forms the evaluator folds
  // (ConvertNodes.cpp).
  /// Mod as a - trunc(a / b) * b, adjusted to the divisor's sign unless fmod.
  bool mod();
  /// ScatterND with constant indices: one gather of the data's and the
  /// updates' rows.
  bool scatterND();
  /// Tile as a broadcast over a new axis before each tiled one, reshaped.
  bool tile();
  /// InstanceNormalization as neuron.layernorm over the spatial axes with
  /// the per-channel scale and bias applied after.
  bool instanceNorm();

  // Recurrent layers (ConvertRecurrent.cpp).
  /// LSTM, GRU or RNN unrolled over its static sequence: one input
  /// projection of all steps, one recurrent matmul per step.
  bool recurrent(llvm::StringRef op);

  // Einsum (ConvertEinsum.cpp).
  /// Einsum as transposes, reshapes, batched matmuls and reduce_sums.
  bool einsum();

  /// Storage for constInput's conversions, cleared at every node.
  std::deque<Known> scratch;
};

/// The elements of a dense attribute as a known tensor, if it has at most
/// `limit` elements.
std::optional<Known> knownOf(DenseElementsAttr attr, int64_t limit = kFoldLimit);
/// Rounds every element of `k` to its element type (floats to f32/f16/bf16,
/// integers wrapped to their width, booleans to 0/1) and refreshes the
/// truncated integers of a float tensor.
void roundToElem(Known &k);
/// numpy broadcasting of two known shapes, or nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> c);
/// The number of elements of `shape`.
int64_t product(ArrayRef<int64_t> shape);
/// ONNX Slice's axes and steps for `count` starts: as given, else every axis
/// from 0 and steps of 1.
void sliceAxesAndSteps(size_t count, std::optional<SmallVector<int64_t>> axes,
                       std::optional<SmallVector<int64_t>> steps, SmallVector<int64_t> &outAxes,
                       SmallVector<int64_t> &outSteps);
/// The positions ONNX Slice reads along an axis of size `n`: start, start +
/// step, ... before end, negative bounds counted from the end and clamped as
/// the operator specifies (a negative step walks backwards; step != 0).
SmallVector<int64_t> slicePositions(int64_t start, int64_t end, int64_t step, int64_t n);

} // namespace neuronc::onnximport

#endif // NEURONC_LIB_CONVERSION_ONNXTONEURON_IMPORTER_H
