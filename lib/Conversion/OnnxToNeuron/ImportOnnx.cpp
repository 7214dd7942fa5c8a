//===- ImportOnnx.cpp - ONNX models into the neuron dialect ---------------===//
//
// See OnnxImport.h. The graph is walked once in node order (ONNX graphs are
// topologically sorted). Each node becomes neuron ops whose result types
// come from ONNX shape inference, or, for the shape-computing nodes whose
// values the importer knows (small integer tensors: initializers, Constant,
// Shape and what is computed from them), from the folded values
// themselves. Known values also feed the attributes that ONNX passes as
// inputs since opset 13 (Reshape's shape, Slice's starts, ReduceSum's axes).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/OnnxImport.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cmath>
#include <numeric>
#include <optional>

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// The integer contents of a small tensor the importer knows while
/// importing: an initializer, a Constant, a Shape, or one computed from them.
struct Known {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> values;
  bool isFloat = false; ///< the tensor's element type is a float (values truncated)
};

/// heuristic: integer tensors up to this many elements are folded while
/// importing (shape arithmetic is at most a few dims).
constexpr int64_t kFoldLimit = 4096;

/// What to use instead of an unsupported op type, when there is something.
const llvm::StringMap<const char *> &alternatives() {
  static const llvm::StringMap<const char *> map = {
      {"Gelu", "export at opset <= 17, where GELU is written with Erf (or Tanh)"},
      {"Einsum", "MatMul with Transpose/Reshape"},
      {"Loop", "a graph without control flow (unroll or trace the loop when exporting)"},
      {"If", "a graph without control flow (export with the branch taken)"},
      {"Scan", "a graph without control flow"},
      {"CumSum", "MatMul with a constant triangular matrix"},
      {"Floor", "Cast to an integer type and back, for non-negative values"},
      {"Ceil", "Cast to an integer type and back"},
  };
  return map;
}

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
  Value input(int i) {
    if (i >= node->input_size() || node->input(i).empty())
      return {};
    return values.lookup(node->input(i));
  }
  const Known *knownInput(int i) {
    if (i >= node->input_size() || node->input(i).empty())
      return nullptr;
    auto it = known.find(node->input(i));
    return it == known.end() ? nullptr : &it->second;
  }
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
  Value constant(const Known &k, Type elem);
  void defineKnown(int i, Known k, Type elem) {
    define(i, constant(k, elem));
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
  bool fold(); ///< folds a node on known integer inputs; true when it did
  bool lowerNode();
  bool reduce(llvm::StringRef op);
  bool patchEmbedding();
  std::optional<RankedTensorType> reshapedType();
  std::optional<RankedTensorType> computedType();
  bool binary(llvm::StringRef op);
};

std::optional<Type> Importer::elementType(int32_t t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return std::nullopt;
  }
}

std::optional<RankedTensorType> Importer::tensorType(const onnx::TypeProto &t,
                                                     SmallVectorImpl<std::string> *dimNames) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape())
    return std::nullopt;
  std::optional<Type> elem = elementType(t.tensor_type().elem_type());
  if (!elem)
    return std::nullopt;
  SmallVector<int64_t> shape;
  for (const auto &d : t.tensor_type().shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      shape.push_back(d.dim_value());
      if (dimNames)
        dimNames->push_back("");
    } else {
      shape.push_back(ShapedType::kDynamic);
      if (dimNames)
        dimNames->push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  return RankedTensorType::get(shape, *elem);
}

std::optional<RankedTensorType> Importer::outputType(int i) {
  auto it = inferred.find(node->output(i));
  if (it == inferred.end() || !it->second)
    return std::nullopt;
  return tensorType(*it->second);
}

std::optional<DenseElementsAttr> Importer::tensorAttr(const onnx::TensorProto &t) {
  std::optional<Type> elem = elementType(t.data_type());
  if (!elem)
    return std::nullopt;
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  auto type = RankedTensorType::get(shape, *elem);
  int64_t n = type.getNumElements();
  std::string raw;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &e : t.external_data()) {
      if (e.key() == "location")
        location = e.value();
      else if (e.key() == "offset")
        offset = std::stoll(e.value());
      else if (e.key() == "length")
        length = std::stoll(e.value());
    }
    llvm::SmallString<256> full(llvm::sys::path::parent_path(path));
    llvm::sys::path::append(full, location);
    auto buffer = llvm::MemoryBuffer::getFile(full, /*IsText=*/false);
    if (!buffer) {
      emitError(loc) << "cannot read the external data of initializer '" << t.name() << "' from "
                     << full << ": " << buffer.getError().message();
      failed = true;
      return std::nullopt;
    }
    llvm::StringRef all = (*buffer)->getBuffer();
    if (offset > static_cast<int64_t>(all.size())) {
      emitError(loc) << "initializer '" << t.name() << "': offset " << offset
                     << " is past the end of " << full;
      failed = true;
      return std::nullopt;
    }
    raw = all.substr(offset, length < 0 ? llvm::StringRef::npos : length).str();
  } else if (t.has_raw_data()) {
    raw = t.raw_data();
  }
  if (!raw.empty() || t.data_location() == onnx::TensorProto::EXTERNAL) {
    int64_t bytes = elem->isInteger(1) ? 1 : elem->getIntOrFloatBitWidth() / 8;
    if (static_cast<int64_t>(raw.size()) != n * bytes) {
      emitError(loc) << "initializer '" << t.name() << "' holds " << raw.size()
                     << " bytes, its type " << type << " needs " << n * bytes;
      failed = true;
      return std::nullopt;
    }
    if (elem->isInteger(1)) {
      SmallVector<bool> v;
      for (char c : raw)
        v.push_back(c != 0);
      return DenseElementsAttr::get(type, v);
    }
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()));
  }
  // Typed fields.
  if (elem->isF32() && t.float_data_size() == n)
    return DenseElementsAttr::get(type, ArrayRef<float>(t.float_data().data(), n));
  if (elem->isF64() && t.double_data_size() == n)
    return DenseElementsAttr::get(type, ArrayRef<double>(t.double_data().data(), n));
  if (elem->isInteger(64) && t.int64_data_size() == n)
    return DenseElementsAttr::get(type, ArrayRef<int64_t>(t.int64_data().data(), n));
  if (elem->isInteger(32) && t.int32_data_size() == n)
    return DenseElementsAttr::get(type, ArrayRef<int32_t>(t.int32_data().data(), n));
  if (elem->isInteger(1) && t.int32_data_size() == n) {
    SmallVector<bool> v;
    for (int32_t x : t.int32_data())
      v.push_back(x != 0);
    return DenseElementsAttr::get(type, v);
  }
  if ((elem->isF16() || elem->isBF16()) && t.int32_data_size() == n) {
    SmallVector<APFloat> v;
    for (int32_t x : t.int32_data())
      v.push_back(
          APFloat(cast<FloatType>(*elem).getFloatSemantics(), APInt(16, static_cast<uint16_t>(x))));
    return DenseElementsAttr::get(type, v);
  }
  if (n == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
  emitError(loc) << "initializer '" << t.name() << "' has no data for its " << n << " elements";
  failed = true;
  return std::nullopt;
}

/// The integers of a dense attribute (floats truncated), if small.
std::optional<Known> knownOf(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  if (type.getNumElements() > kFoldLimit)
    return std::nullopt;
  Known k;
  k.shape.assign(type.getShape().begin(), type.getShape().end());
  if (isa<FloatType>(type.getElementType())) {
    k.isFloat = true;
    for (APFloat f : attr.getValues<APFloat>())
      k.values.push_back(static_cast<int64_t>(f.convertToDouble()));
    return k;
  }
  for (APInt i : attr.getValues<APInt>())
    k.values.push_back(type.getElementType().isInteger(1) ? i.getZExtValue() : i.getSExtValue());
  return k;
}

Value Importer::constant(const Known &k, Type elem) {
  auto type = RankedTensorType::get(k.shape, elem);
  SmallVector<Attribute> attrs;
  for (int64_t v : k.values)
    attrs.push_back(floatOrInt(elem, static_cast<double>(v)));
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, attrs));
}

RankedTensorType Importer::broadcastType(Value x, Value y, Type elem) {
  auto a = cast<RankedTensorType>(x.getType()).getShape();
  auto c = cast<RankedTensorType>(y.getType()).getShape();
  size_t rank = std::max(a.size(), c.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t dc = i < rank - c.size() ? 1 : c[i - (rank - c.size())];
    shape[i] = da == 1 ? dc : da;
  }
  return RankedTensorType::get(shape, elem);
}

/// numpy broadcasting of two known shapes, or nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
  size_t rank = std::max(a.size(), c.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t dc = i < rank - c.size() ? 1 : c[i - (rank - c.size())];
    if (da != dc && da != 1 && dc != 1)
      return std::nullopt;
    shape[i] = da == 1 ? dc : da;
  }
  return shape;
}

int64_t product(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
}

bool Importer::fold() {
  llvm::StringRef op = node->op_type();
  // Every given input known (omitted optional inputs aside).
  auto all = [&](int count) {
    for (int i = 0; i < count; ++i)
      if (!node->input(i).empty() && !knownInput(i))
        return false;
    return true;
  };
  auto elemOf = [&](int i) -> Type {
    if (std::optional<RankedTensorType> t = outputType(i))
      return t->getElementType();
    return b.getI64Type();
  };
  // Shape and Size read only the (static) input shape.
  if (op == "Shape" || op == "Size") {
    Value x = input(0);
    if (!x)
      return false;
    auto t = cast<RankedTensorType>(x.getType());
    if (!t.hasStaticShape())
      return false;
    Known k;
    if (op == "Size") {
      k.values = {t.getNumElements()};
    } else {
      int64_t rank = t.getRank();
      int64_t start = normAxis(intAttr("start", 0), rank);
      int64_t end = attr("end") ? normAxis(intAttr("end", rank), rank) : rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      k.values.assign(t.getShape().begin() + start, t.getShape().begin() + end);
      k.shape = {static_cast<int64_t>(k.values.size())};
    }
    defineKnown(0, std::move(k), b.getI64Type());
    return true;
  }
  if (op == "Constant" || op == "Identity" || op == "Dropout")
    return false; // importNode handles them (and records known values)
  if (node->input_size() == 0 || node->input(0).empty() || !all(node->input_size()))
    return false;
  const Known &x = *knownInput(0);
  if (x.isFloat && op != "Cast" && op != "Shape")
    return false;
  Known r;
  if (op == "Cast") {
    std::optional<Type> to = elementType(static_cast<int32_t>(intAttr("to", 0)));
    if (!to || isa<FloatType>(*to))
      return false;
    r = x;
    r.isFloat = false;
    defineKnown(0, std::move(r), *to);
    return true;
  }
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten") {
    std::optional<RankedTensorType> out = outputType(0);
    if (!out || !out->hasStaticShape())
      return false;
    r = x;
    r.shape.assign(out->getShape().begin(), out->getShape().end());
    defineKnown(0, std::move(r), out->getElementType());
    return true;
  }
  if (op == "Concat") {
    if (x.shape.size() != 1)
      return false;
    r.shape = {0};
    for (int i = 0; i < node->input_size(); ++i) {
      const Known &k = *knownInput(i);
      if (k.shape.size() != 1)
        return false;
      r.values.append(k.values.begin(), k.values.end());
    }
    r.shape = {static_cast<int64_t>(r.values.size())};
    defineKnown(0, std::move(r), elemOf(0));
    return true;
  }
  if (op == "Gather") {
    const Known &idx = *knownInput(1);
    if (x.shape.size() != 1 || normAxis(intAttr("axis", 0), 1) != 0)
      return false;
    for (int64_t i : idx.values) {
      int64_t j = i < 0 ? i + x.shape[0] : i;
      if (j < 0 || j >= x.shape[0])
        return false;
      r.values.push_back(x.values[j]);
    }
    r.shape = idx.shape;
    defineKnown(0, std::move(r), elemOf(0));
    return true;
  }
  if (op == "Where") {
    const Known &a = *knownInput(1), &c = *knownInput(2);
    if (a.isFloat || c.isFloat)
      return false;
    std::optional<SmallVector<int64_t>> shape = broadcastShapes(x.shape, a.shape);
    if (shape)
      shape = broadcastShapes(*shape, c.shape);
    if (!shape)
      return false;
    int64_t n = product(*shape);
    auto at = [n](const Known &k, int64_t i) -> std::optional<int64_t> {
      if (k.values.size() == 1)
        return k.values[0];
      if (static_cast<int64_t>(k.values.size()) == n)
        return k.values[i];
      return std::nullopt;
    };
    for (int64_t i = 0; i < n; ++i) {
      std::optional<int64_t> w = at(x, i), t = at(a, i), f = at(c, i);
      if (!w || !t || !f)
        return false;
      r.values.push_back(*w ? *t : *f);
    }
    r.shape = *shape;
    defineKnown(0, std::move(r), elemOf(0));
    return true;
  }
  if (op == "Neg" || op == "Abs") {
    r = x;
    for (int64_t &v : r.values)
      v = op == "Neg" ? -v : std::abs(v);
    defineKnown(0, std::move(r), elemOf(0));
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal" || op == "Max" ||
      op == "Min") {
    if (node->input_size() != 2)
      return false;
    const Known &y = *knownInput(1);
    if (y.isFloat)
      return false;
    std::optional<SmallVector<int64_t>> shape = broadcastShapes(x.shape, y.shape);
    if (!shape || (x.values.size() != 1 && y.values.size() != 1 && x.shape != y.shape))
      return false;
    int64_t n = product(*shape);
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = x.values[x.values.size() == 1 ? 0 : i];
      int64_t c = y.values[y.values.size() == 1 ? 0 : i];
      if (op == "Div" && c == 0)
        return false;
      r.values.push_back(op == "Add"   ? a + c
                         : op == "Sub" ? a - c
                         : op == "Mul" ? a * c
                         : op == "Div" ? a / c
                         : op == "Max" ? std::max(a, c)
                         : op == "Min" ? std::min(a, c)
                                       : a == c);
    }
    r.shape = *shape;
    defineKnown(0, std::move(r), op == "Equal" ? b.getI1Type() : elemOf(0));
    return true;
  }
  if (op == "Slice" && x.shape.size() == 1) {
    std::optional<SmallVector<int64_t>> starts = ints(1), ends = ints(2);
    if (!starts || !ends || starts->size() != 1)
      return false;
    int64_t step = 1;
    if (std::optional<SmallVector<int64_t>> steps = ints(4))
      step = (*steps)[0];
    if (step != 1)
      return false;
    int64_t n = x.shape[0];
    int64_t s = std::clamp<int64_t>((*starts)[0] < 0 ? (*starts)[0] + n : (*starts)[0], 0, n);
    int64_t e = std::clamp<int64_t>((*ends)[0] < 0 ? (*ends)[0] + n : (*ends)[0], s, n);
    r.values.assign(x.values.begin() + s, x.values.begin() + e);
    r.shape = {e - s};
    defineKnown(0, std::move(r), elemOf(0));
    return true;
  }
  return false;
}

bool Importer::binary(llvm::StringRef op) {
  Value x = input(0), y = input(1);
  auto tx = cast<RankedTensorType>(x.getType()), ty = cast<RankedTensorType>(y.getType());
  if (op == "Pow" && !isa<FloatType>(tx.getElementType())) {
    // neuron.pow is on floats: an integer power in f32, truncated back.
    auto f32 = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType().isF32())
        return v;
      return CastOp::create(b, loc, RankedTensorType::get(t.getShape(), b.getF32Type()), v);
    };
    Value xf = f32(x), yf = f32(y);
    RankedTensorType type = broadcastType(xf, yf, b.getF32Type());
    Value p = PowOp::create(b, loc, type, xf, yf);
    define(0,
           CastOp::create(b, loc, RankedTensorType::get(type.getShape(), tx.getElementType()), p));
    return true;
  }
  if (op == "Pow" && tx.getElementType() != ty.getElementType())
    y = CastOp::create(b, loc, RankedTensorType::get(ty.getShape(), tx.getElementType()), y);
  std::optional<RankedTensorType> out = outputType(0);
  RankedTensorType type =
      out && out->hasStaticShape() ? *out : broadcastType(x, y, tx.getElementType());
  Value r;
  if (op == "Add")
    r = AddOp::create(b, loc, type, x, y);
  else if (op == "Sub")
    r = SubOp::create(b, loc, type, x, y);
  else if (op == "Mul")
    r = MulOp::create(b, loc, type, x, y);
  else if (op == "Div")
    r = DivOp::create(b, loc, type, x, y);
  else if (op == "Pow")
    r = PowOp::create(b, loc, type, x, y);
  else if (op == "Max")
    r = MaxOp::create(b, loc, type, x, y);
  else if (op == "Min")
    r = MinOp::create(b, loc, type, x, y);
  else {
    ComparePredicate p = op == "Equal"         ? ComparePredicate::eq
                         : op == "Less"        ? ComparePredicate::lt
                         : op == "LessOrEqual" ? ComparePredicate::le
                         : op == "Greater"     ? ComparePredicate::gt
                                               : ComparePredicate::ge;
    auto i1 = RankedTensorType::get(type.getShape(), b.getI1Type());
    r = CompareOp::create(b, loc, i1, p, x, y);
  }
  define(0, r);
  return true;
}

bool Importer::reduce(llvm::StringRef op) {
  Value x = input(0);
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  std::optional<SmallVector<int64_t>> axes;
  // ReduceSum takes its axes as an input since opset 13, the others since 18.
  if ((op == "ReduceSum" && opset >= 13) || opset >= 18) {
    if (node->input_size() > 1 && !node->input(1).empty()) {
      axes = ints(1);
      if (!axes) {
        error() << "the axes must be a constant";
        return false;
      }
    }
  } else {
    axes = intsAttr("axes");
  }
  SmallVector<int64_t> list;
  if (!axes || axes->empty()) {
    if (intAttr("noop_with_empty_axes", 0)) {
      define(0, x);
      return true;
    }
    for (int64_t i = 0; i < rank; ++i)
      list.push_back(i);
  } else {
    for (int64_t a : *axes)
      list.push_back(normAxis(a, rank));
    llvm::sort(list);
  }
  bool keep = intAttr("keepdims", 1) != 0;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(list, i))
      shape.push_back(t.getDimSize(i));
    else if (keep)
      shape.push_back(1);
  auto type = RankedTensorType::get(shape, t.getElementType());
  auto axesAttr = b.getDenseI64ArrayAttr(list);
  UnitAttr keepAttr = keep ? b.getUnitAttr() : UnitAttr();
  Value r;
  if (op == "ReduceSum")
    r = ReduceSumOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceMean")
    r = ReduceMeanOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceMax")
    r = ReduceMaxOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceMin")
    r = ReduceMinOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceProd")
    r = ReduceProdOp::create(b, loc, type, x, axesAttr, keepAttr);
  else if (op == "ReduceSumSquare")
    r = ReduceSumOp::create(b, loc, type, MulOp::create(b, loc, t, x, x), axesAttr, keepAttr);
  else if (op == "ReduceL2")
    r = SqrtOp::create(
        b, loc, type,
        ReduceSumOp::create(b, loc, type, MulOp::create(b, loc, t, x, x), axesAttr, keepAttr));
  define(0, r);
  return true;
}

/// The result type of a Where, Cast, MatMul, Gemm, Concat or Gather from its
/// operands' static types, or nullopt.
std::optional<RankedTensorType> Importer::computedType() {
  llvm::StringRef op = node->op_type();
  SmallVector<RankedTensorType> in;
  for (int i = 0; i < node->input_size(); ++i) {
    Value v = input(i);
    if (!v) {
      in.push_back(RankedTensorType());
      continue;
    }
    auto t = cast<RankedTensorType>(v.getType());
    if (!t.hasStaticShape())
      return std::nullopt;
    in.push_back(t);
  }
  if (op == "Where") {
    std::optional<SmallVector<int64_t>> s = broadcastShapes(in[0].getShape(), in[1].getShape());
    if (s)
      s = broadcastShapes(*s, in[2].getShape());
    if (!s)
      return std::nullopt;
    return RankedTensorType::get(*s, in[1].getElementType());
  }
  if (op == "Cast") {
    std::optional<Type> to = elementType(static_cast<int32_t>(intAttr("to", 0)));
    if (!to)
      return std::nullopt;
    return RankedTensorType::get(in[0].getShape(), *to);
  }
  if (op == "MatMul") {
    ArrayRef<int64_t> a = in[0].getShape(), c = in[1].getShape();
    if (a.size() < 2 || c.size() < 2)
      return std::nullopt;
    std::optional<SmallVector<int64_t>> s = broadcastShapes(a.drop_back(2), c.drop_back(2));
    if (!s)
      return std::nullopt;
    s->push_back(a[a.size() - 2]);
    s->push_back(c.back());
    return RankedTensorType::get(*s, in[0].getElementType());
  }
  if (op == "Gemm") {
    int64_t m = intAttr("transA", 0) ? in[0].getDimSize(1) : in[0].getDimSize(0);
    int64_t n = intAttr("transB", 0) ? in[1].getDimSize(0) : in[1].getDimSize(1);
    return RankedTensorType::get({m, n}, in[0].getElementType());
  }
  if (op == "Concat") {
    int64_t axis = normAxis(intAttr("axis", 0), in[0].getRank());
    SmallVector<int64_t> s(in[0].getShape());
    s[axis] = 0;
    for (RankedTensorType t : in)
      s[axis] += t.getDimSize(axis);
    return RankedTensorType::get(s, in[0].getElementType());
  }
  if (op == "Gather") {
    int64_t axis = normAxis(intAttr("axis", 0), in[0].getRank());
    SmallVector<int64_t> s(in[0].getShape().take_front(axis));
    s.append(in[1].getShape().begin(), in[1].getShape().end());
    s.append(in[0].getShape().begin() + axis + 1, in[0].getShape().end());
    return RankedTensorType::get(s, in[0].getElementType());
  }
  return std::nullopt;
}

/// The result type of a Reshape, Flatten, Squeeze or Unsqueeze of a static
/// input, from its attributes and known inputs (when shape inference had
/// no static shape for it).
std::optional<RankedTensorType> Importer::reshapedType() {
  auto t = cast<RankedTensorType>(input(0).getType());
  if (!t.hasStaticShape())
    return std::nullopt;
  llvm::StringRef op = node->op_type();
  ArrayRef<int64_t> in = t.getShape();
  int64_t rank = t.getRank();
  SmallVector<int64_t> shape;
  if (op == "Reshape") {
    std::optional<SmallVector<int64_t>> spec = ints(1);
    if (!spec)
      return std::nullopt;
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < spec->size(); ++i) {
      int64_t d = (*spec)[i];
      if (d == 0 && !intAttr("allowzero", 0))
        d = i < in.size() ? in[i] : 1;
      if (d == -1)
        infer = static_cast<int64_t>(i);
      else
        known *= d;
      shape.push_back(d);
    }
    if (infer >= 0)
      shape[infer] = known ? t.getNumElements() / known : 0;
  } else if (op == "Flatten") {
    int64_t axis = normAxis(intAttr("axis", 1), rank), outer = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= in[i];
    shape = {outer, outer ? t.getNumElements() / outer : 0};
  } else {
    std::optional<SmallVector<int64_t>> axes = opset >= 13 ? ints(1) : intsAttr("axes");
    if (op == "Squeeze") {
      for (int64_t i = 0; i < rank; ++i) {
        bool listed =
            axes && llvm::any_of(*axes, [&](int64_t a) { return normAxis(a, rank) == i; });
        if (!(axes ? listed : in[i] == 1))
          shape.push_back(in[i]);
      }
    } else {
      if (!axes)
        return std::nullopt;
      int64_t outRank = rank + static_cast<int64_t>(axes->size());
      SmallVector<int64_t> at;
      for (int64_t a : *axes)
        at.push_back(normAxis(a, outRank));
      for (int64_t i = 0, j = 0; i < outRank; ++i)
        shape.push_back(llvm::is_contained(at, i) ? 1 : in[j++]);
    }
  }
  if (product(shape) != t.getNumElements())
    return std::nullopt;
  return RankedTensorType::get(shape, t.getElementType());
}

/// A 2-D convolution whose stride equals its kernel, without padding,
/// dilation or groups (a vision transformer's patch embedding): every
/// output pixel is one patch times the kernel, so it is x cut into patches
/// (reshapes and transposes of rank <= 4) times the kernel as a matrix.
bool Importer::patchEmbedding() {
  Value x = input(0), w = input(1);
  auto tx = cast<RankedTensorType>(x.getType()), tw = cast<RankedTensorType>(w.getType());
  std::optional<RankedTensorType> out = outputType(0);
  auto ones = [](std::optional<SmallVector<int64_t>> v) {
    return !v || llvm::all_of(*v, [](int64_t d) { return d == 1; });
  };
  std::optional<SmallVector<int64_t>> pads = intsAttr("pads"), strides = intsAttr("strides");
  const auto *autoPad = attr("auto_pad");
  bool noPad = (!pads || llvm::all_of(*pads, [](int64_t p) { return p == 0; })) &&
               (!autoPad || autoPad->s() == "NOTSET" || autoPad->s() == "VALID");
  if (tx.getRank() != 4 || tw.getRank() != 4 || !tx.hasStaticShape() || !out || !noPad ||
      !ones(intsAttr("dilations")) || intAttr("group", 1) != 1 || !strides ||
      (*strides)[0] != tw.getDimSize(2) || (*strides)[1] != tw.getDimSize(3) ||
      tx.getDimSize(2) % tw.getDimSize(2) || tx.getDimSize(3) % tw.getDimSize(3)) {
    error() << "only the patch-embedding form of Conv is imported (2-D, stride equal to the "
               "kernel, no padding, dilation 1, group 1, the image a whole number of patches); "
               "general convolution is not supported yet";
    return false;
  }
  int64_t n = tx.getDimSize(0), c = tx.getDimSize(1), kh = tw.getDimSize(2), kw = tw.getDimSize(3),
          hp = tx.getDimSize(2) / kh, wp = tx.getDimSize(3) / kw, o = tw.getDimSize(0);
  Type elem = tx.getElementType();
  auto transpose = [&](Value v, ArrayRef<int64_t> perm) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return TransposeOp::create(b, loc, RankedTensorType::get(shape, elem), v,
                               b.getDenseI64ArrayAttr(perm));
  };
  Value v = reshape(x, {n * c * hp, kh, wp, kw});
  v = transpose(v, {0, 2, 1, 3}); // [n c hp, wp, kh, kw]
  v = reshape(v, {n, c, hp * wp, kh * kw});
  v = transpose(v, {0, 2, 1, 3}); // [n, hp wp, c, kh kw]
  v = reshape(v, {n, hp * wp, c * kh * kw});
  Value wm = reshape(w, {o, c * kh * kw});
  Value y = MatmulOp::create(b, loc, RankedTensorType::get({n, hp * wp, o}, elem), v, wm,
                             UnitAttr(), b.getUnitAttr());
  if (Value bias = input(2))
    y = AddOp::create(b, loc, y.getType(), y, bias);
  y = transpose(y, {0, 2, 1}); // [n, o, hp wp]
  define(0, reshape(y, out->getShape()));
  return true;
}

bool Importer::lowerNode() {
  llvm::StringRef op = node->op_type();
  auto needOut = [&]() -> std::optional<RankedTensorType> {
    std::optional<RankedTensorType> t = outputType(0);
    // Shape inference stops at shapes it cannot see through (an Expand by a
    // computed shape); the operands' own static shapes decide then.
    if (!t || !t->hasStaticShape())
      if (std::optional<RankedTensorType> c = computedType())
        t = c;
    if (!t)
      error() << "shape inference gave no type for output '" << node->output(0)
              << "'; give the model's inputs static shapes (or dim_params)";
    return t;
  };
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout" && node->input_size() > 2 && !node->input(2).empty()) {
      const Known *training = knownInput(2);
      if (!training || training->values.empty() || training->values[0]) {
        error() << "training mode (random masks) is not supported; export in eval mode";
        return false;
      }
    }
    define(0, input(0));
    if (const Known *k = knownInput(0))
      known[node->output(0)] = *k;
    // Inference keeps every element: the mask is all true.
    if (op == "Dropout" && node->output_size() > 1 && !node->output(1).empty()) {
      auto t = cast<RankedTensorType>(input(0).getType());
      define(1, ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(
                                       RankedTensorType::get(t.getShape(), b.getI1Type()), true)));
    }
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Equal" ||
      op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual")
    return binary(op);
  if (op == "Max" || op == "Min" || op == "Sum") {
    Value acc = input(0);
    for (int i = 1; i < node->input_size(); ++i) {
      Value y = input(i);
      RankedTensorType type =
          broadcastType(acc, y, cast<RankedTensorType>(acc.getType()).getElementType());
      acc = op == "Max"   ? Value(MaxOp::create(b, loc, type, acc, y))
            : op == "Min" ? Value(MinOp::create(b, loc, type, acc, y))
                          : Value(AddOp::create(b, loc, type, acc, y));
    }
    define(0, acc);
    return true;
  }
  if (op == "Where") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    define(0, SelectOp::create(b, loc, *out, input(0), input(1), input(2)));
    return true;
  }
  static const llvm::StringSet<> unary = {"Abs",  "Neg",     "Exp", "Log",  "Sqrt",
                                          "Tanh", "Sigmoid", "Erf", "Relu", "Reciprocal"};
  if (unary.contains(op)) {
    Value x = input(0);
    Type t = x.getType();
    Value r;
    if (op == "Abs")
      r = AbsOp::create(b, loc, t, x);
    else if (op == "Neg")
      r = NegOp::create(b, loc, t, x);
    else if (op == "Exp")
      r = ExpOp::create(b, loc, t, x);
    else if (op == "Log")
      r = LogOp::create(b, loc, t, x);
    else if (op == "Sqrt")
      r = SqrtOp::create(b, loc, t, x);
    else if (op == "Tanh")
      r = TanhOp::create(b, loc, t, x);
    else if (op == "Sigmoid")
      r = SigmoidOp::create(b, loc, t, x);
    else if (op == "Erf")
      r = ErfOp::create(b, loc, t, x);
    else if (op == "Relu")
      r = ReluOp::create(b, loc, t, x);
    else
      r = ReciprocalOp::create(b, loc, t, x);
    define(0, r);
    return true;
  }
  if (op == "LeakyRelu") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    Value scaled =
        MulOp::create(b, loc, t, x, splat(t.getElementType(), floatAttr("alpha", 0.01f)));
    Value neg = CompareOp::create(b, loc, RankedTensorType::get(t.getShape(), b.getI1Type()),
                                  ComparePredicate::lt, x, splat(t.getElementType(), 0));
    define(0, SelectOp::create(b, loc, t, neg, scaled, x));
    return true;
  }
  if (op == "Softplus") {
    Value x = input(0);
    Type t = x.getType();
    auto elem = cast<RankedTensorType>(t).getElementType();
    define(0, LogOp::create(b, loc, t,
                            AddOp::create(b, loc, t, ExpOp::create(b, loc, t, x), splat(elem, 1))));
    return true;
  }
  if (op == "Clip") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    Value r = x;
    if (Value lo = input(1))
      r = MaxOp::create(b, loc, t, r, lo);
    if (Value hi = input(2))
      r = MinOp::create(b, loc, t, r, hi);
    define(0, r);
    return true;
  }
  if (op == "Cast") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    Value x = input(0);
    define(0, x.getType() == *out ? x : Value(CastOp::create(b, loc, *out, x)));
    return true;
  }
  if (op == "MatMul") {
    Value x = input(0), y = input(1);
    auto tx = cast<RankedTensorType>(x.getType()), ty = cast<RankedTensorType>(y.getType());
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    // 1-D operands are a row (lhs) or a column (rhs), dropped from the result.
    if (tx.getRank() == 1)
      x = reshape(x, {1, tx.getDimSize(0)});
    if (ty.getRank() == 1)
      y = reshape(y, {ty.getDimSize(0), 1});
    auto lx = cast<RankedTensorType>(x.getType()), ly = cast<RankedTensorType>(y.getType());
    SmallVector<int64_t> shape =
        *broadcastShapes(lx.getShape().drop_back(2), ly.getShape().drop_back(2));
    shape.push_back(lx.getDimSize(lx.getRank() - 2));
    shape.push_back(ly.getDimSize(ly.getRank() - 1));
    Value r = MatmulOp::create(b, loc, RankedTensorType::get(shape, out->getElementType()), x, y,
                               UnitAttr(), UnitAttr());
    define(0, reshape(r, out->getShape()));
    return true;
  }
  if (op == "Gemm") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    Value r = MatmulOp::create(b, loc, *out, input(0), input(1),
                               intAttr("transA", 0) ? b.getUnitAttr() : UnitAttr(),
                               intAttr("transB", 0) ? b.getUnitAttr() : UnitAttr());
    Type elem = out->getElementType();
    if (float alpha = floatAttr("alpha", 1.0f); alpha != 1.0f)
      r = MulOp::create(b, loc, *out, r, splat(elem, alpha));
    if (Value c = input(2)) {
      if (float beta = floatAttr("beta", 1.0f); beta != 1.0f)
        c = MulOp::create(b, loc, c.getType(), c, splat(elem, beta));
      r = AddOp::create(b, loc, *out, r, c);
    }
    define(0, r);
    return true;
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    Value x = input(0);
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    int64_t axis = normAxis(intAttr("axis", opset >= 13 ? -1 : 1), rank);
    if (opset < 13 && axis != rank - 1) {
      error() << "before opset 13, " << op << " normalizes the dims from axis " << axis
              << " on as one; export at opset >= 13";
      return false;
    }
    define(0, SoftmaxOp::create(b, loc, x.getType(), x, b.getI64IntegerAttr(axis),
                                op == "LogSoftmax" ? b.getUnitAttr() : UnitAttr()));
    return true;
  }
  if (op == "LayerNormalization") {
    Value x = input(0);
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    int64_t axis = normAxis(intAttr("axis", -1), rank);
    SmallVector<int64_t> axes;
    for (int64_t i = axis; i < rank; ++i)
      axes.push_back(i);
    float eps = floatAttr("epsilon", 1e-5f);
    define(0, LayerNormOp::create(b, loc, x.getType(), x, input(1), input(2),
                                  b.getDenseI64ArrayAttr(axes), b.getF32FloatAttr(eps)));
    // The optional Mean and InvStdDev outputs (kept dims), computed apart.
    bool mean = node->output_size() > 1 && !node->output(1).empty();
    bool inv = node->output_size() > 2 && !node->output(2).empty();
    if (mean || inv) {
      auto t = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(t.getShape());
      for (int64_t a : axes)
        shape[a] = 1;
      auto st = RankedTensorType::get(shape, t.getElementType());
      auto axesAttr = b.getDenseI64ArrayAttr(axes);
      Value m = ReduceMeanOp::create(b, loc, st, x, axesAttr, b.getUnitAttr());
      if (mean)
        define(1, m);
      if (inv) {
        Value d = SubOp::create(b, loc, t, x, m);
        Value var = ReduceMeanOp::create(b, loc, st, MulOp::create(b, loc, t, d, d), axesAttr,
                                         b.getUnitAttr());
        define(2, RsqrtOp::create(b, loc, st,
                                  AddOp::create(b, loc, st, var, splat(t.getElementType(), eps))));
      }
    }
    return true;
  }
  if (op.starts_with("Reduce"))
    return reduce(op);
  if (op == "Transpose") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> perm;
    if (std::optional<SmallVector<int64_t>> p = intsAttr("perm"))
      perm = *p;
    else
      for (int64_t i = t.getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    define(0, TransposeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), x,
                                  b.getDenseI64ArrayAttr(perm)));
    return true;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    std::optional<RankedTensorType> out = outputType(0);
    if (!out || !out->hasStaticShape())
      out = reshapedType();
    if (!out) {
      needOut();
      return false;
    }
    define(0, reshape(input(0), out->getShape()));
    return true;
  }
  if (op == "Expand") {
    Value x = input(0);
    std::optional<RankedTensorType> out = outputType(0);
    // Shape inference may not see through the shape's computation; the
    // folded shape gives the result.
    if (!out || !out->hasStaticShape()) {
      auto t = cast<RankedTensorType>(x.getType());
      std::optional<SmallVector<int64_t>> shape = ints(1);
      std::optional<SmallVector<int64_t>> result;
      if (shape && t.hasStaticShape())
        result = broadcastShapes(t.getShape(), *shape);
      if (result)
        out = RankedTensorType::get(*result, t.getElementType());
    }
    if (!out) {
      needOut();
      return false;
    }
    define(0, x.getType() == *out ? x : Value(BroadcastToOp::create(b, loc, *out, x)));
    return true;
  }
  if (op == "Concat") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    SmallVector<Value> ins;
    for (int i = 0; i < node->input_size(); ++i)
      ins.push_back(input(i));
    define(0, ConcatOp::create(b, loc, *out, ins, normAxis(intAttr("axis", 0), out->getRank())));
    return true;
  }
  if (op == "Slice" || op == "Split") {
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    int64_t rank = t.getRank();
    auto slice = [&](int out, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                     ArrayRef<int64_t> strides) {
      define(out, SliceOp::create(b, loc, RankedTensorType::get(sizes, t.getElementType()), x,
                                  b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                                  b.getDenseI64ArrayAttr(strides)));
    };
    SmallVector<int64_t> offsets(rank, 0), sizes(t.getShape()), strides(rank, 1);
    if (op == "Split") {
      int64_t axis = normAxis(intAttr("axis", 0), rank);
      SmallVector<int64_t> split;
      if (opset >= 13 && givenUnknown(1)) {
        error() << "the split sizes must be a constant";
        return false;
      }
      if (std::optional<SmallVector<int64_t>> s = opset >= 13 ? ints(1) : intsAttr("split"))
        split = *s;
      else {
        int64_t n = node->output_size(), d = t.getDimSize(axis);
        for (int64_t i = 0; i < n; ++i)
          split.push_back(d / n + (i < d % n ? 1 : 0));
      }
      int64_t at = 0;
      for (size_t i = 0; i < split.size() && static_cast<int>(i) < node->output_size(); ++i) {
        offsets[axis] = at;
        sizes[axis] = split[i];
        slice(static_cast<int>(i), offsets, sizes, strides);
        at += split[i];
      }
      return true;
    }
    std::optional<SmallVector<int64_t>> starts = ints(1), ends = ints(2);
    if (!starts || !ends || givenUnknown(3) || givenUnknown(4)) {
      error() << "starts, ends, axes and steps must be constants";
      return false;
    }
    SmallVector<int64_t> axes, steps(starts->size(), 1);
    if (std::optional<SmallVector<int64_t>> a = ints(3))
      axes = *a;
    else
      for (size_t i = 0; i < starts->size(); ++i)
        axes.push_back(static_cast<int64_t>(i));
    if (std::optional<SmallVector<int64_t>> s = ints(4))
      steps = *s;
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t axis = normAxis(axes[i], rank), d = t.getDimSize(axis);
      int64_t step = steps[i];
      if (step <= 0) {
        error() << "negative or zero steps are not supported (axis " << axis << ", step " << step
                << "); reverse with a Gather of constant indices";
        return false;
      }
      int64_t s = (*starts)[i], e = (*ends)[i];
      s = std::clamp<int64_t>(s < 0 ? s + d : s, 0, d);
      e = std::clamp<int64_t>(e < 0 ? e + d : e, 0, d);
      offsets[axis] = s;
      sizes[axis] = e > s ? (e - s + step - 1) / step : 0;
      strides[axis] = step;
    }
    slice(0, offsets, sizes, strides);
    return true;
  }
  if (op == "Gather") {
    std::optional<RankedTensorType> out = needOut();
    if (!out)
      return false;
    Value x = input(0), idx = input(1);
    auto tx = cast<RankedTensorType>(x.getType());
    int64_t axis = normAxis(intAttr("axis", 0), tx.getRank());
    // Negative indices count from the end: idx < 0 ? idx + dim : idx, unless
    // the indices are known not to be negative.
    const Known *k = knownInput(1);
    if (!tx.isDynamicDim(axis) &&
        (!k || llvm::any_of(k->values, [](int64_t v) { return v < 0; }))) {
      auto ti = cast<RankedTensorType>(idx.getType());
      Type ie = ti.getElementType();
      Value neg = CompareOp::create(b, loc, RankedTensorType::get(ti.getShape(), b.getI1Type()),
                                    ComparePredicate::lt, idx, splat(ie, 0));
      Value wrapped =
          AddOp::create(b, loc, ti, idx, splat(ie, static_cast<double>(tx.getDimSize(axis))));
      idx = SelectOp::create(b, loc, ti, neg, wrapped, idx);
    }
    define(0, GatherOp::create(b, loc, *out, x, idx, axis));
    return true;
  }
  if (op == "Conv")
    return patchEmbedding();
  if (op == "Trilu") {
    // x where the (static) triangle holds, else 0: the mask is a constant.
    Value x = input(0);
    auto t = cast<RankedTensorType>(x.getType());
    int64_t k = 0;
    if (node->input_size() > 1 && !node->input(1).empty()) {
      const Known *kk = knownInput(1);
      if (!kk) {
        error() << "the diagonal offset k must be a constant";
        return false;
      }
      k = kk->values[0];
    }
    if (t.getRank() < 2 || !t.hasStaticShape()) {
      error() << "needs a static input of rank 2 or more";
      return false;
    }
    int64_t rows = t.getDimSize(t.getRank() - 2), cols = t.getDimSize(t.getRank() - 1);
    bool upper = intAttr("upper", 1) != 0;
    SmallVector<bool> keep;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        keep.push_back(upper ? j - i >= k : j - i <= k);
    Value mask = ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({rows, cols}, b.getI1Type()), keep));
    define(0, SelectOp::create(b, loc, t, mask, x, splat(t.getElementType(), 0)));
    return true;
  }
  if (op == "ConstantOfShape") {
    std::optional<SmallVector<int64_t>> shape = ints(0);
    if (!shape) {
      error() << "the shape must be a constant";
      return false;
    }
    auto type = RankedTensorType::get(*shape, b.getF32Type());
    DenseElementsAttr value = DenseElementsAttr::get(type, 0.0f);
    if (const auto *a = attr("value")) {
      std::optional<DenseElementsAttr> v = tensorAttr(a->t());
      if (!v)
        return false;
      type = RankedTensorType::get(*shape, v->getElementType());
      value = DenseElementsAttr::get(type, *v->value_begin<Attribute>());
    }
    define(0, ConstantOp::create(b, loc, value));
    if (std::optional<Known> k = knownOf(value))
      known[node->output(0)] = *k;
    return true;
  }
  if (op == "Range") {
    const Known *s = knownInput(0), *l = knownInput(1), *d = knownInput(2);
    std::optional<RankedTensorType> out = outputType(0);
    if (!s || !l || !d || (out && isa<FloatType>(out->getElementType()))) {
      error() << "start, limit and delta must be integer constants";
      return false;
    }
    Known k;
    for (int64_t v = s->values[0]; d->values[0] > 0 ? v < l->values[0] : v > l->values[0];
         v += d->values[0])
      k.values.push_back(v);
    k.shape = {static_cast<int64_t>(k.values.size())};
    defineKnown(0, std::move(k), out ? out->getElementType() : b.getI64Type());
    return true;
  }
  return false;
}

bool Importer::importNode(const onnx::NodeProto &n, int index) {
  node = &n;
  // onnx::<OpType>, then the node's name inside it (tables name an op by its
  // innermost name: torch.onnx.export's "/layers.0/mlp/down_proj/MatMul"
  // carries the module path), at the node's number.
  loc = FileLineColLoc::get(ctx, file, index + 1, 1);
  if (!n.name().empty())
    loc = NameLoc::get(StringAttr::get(ctx, n.name()), loc);
  loc = NameLoc::get(StringAttr::get(ctx, "onnx::" + n.op_type()), loc);
  if (!n.domain().empty() && n.domain() != "ai.onnx") {
    error() << "operators of domain '" << n.domain()
            << "' are not supported (only the default ONNX domain)";
    return false;
  }
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && !values.count(n.input(i))) {
      error() << "input '" << n.input(i) << "' is not defined before the node";
      return false;
    }
  if (n.op_type() == "Constant") {
    DenseElementsAttr value;
    if (const auto *a = attr("value")) {
      std::optional<DenseElementsAttr> v = tensorAttr(a->t());
      if (!v)
        return false;
      value = *v;
    } else if (const auto *f = attr("value_float")) {
      value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), f->f());
    } else if (const auto *fs = attr("value_floats")) {
      SmallVector<float> v(fs->floats().begin(), fs->floats().end());
      value = DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getF32Type()),
          ArrayRef<float>(v));
    } else if (const auto *i = attr("value_int")) {
      value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), i->i());
    } else if (const auto *is = attr("value_ints")) {
      SmallVector<int64_t> v(is->ints().begin(), is->ints().end());
      value = DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getI64Type()),
          ArrayRef<int64_t>(v));
    } else {
      error() << "only tensor, float and int values are supported";
      return false;
    }
    define(0, ConstantOp::create(b, loc, value));
    if (std::optional<Known> k = knownOf(value))
      known[n.output(0)] = *k;
    return true;
  }
  if (fold())
    return true;
  return lowerNode();
}

OwningOpRef<ModuleOp> Importer::run(onnx::ModelProto &model) {
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  Location fileLoc = FileLineColLoc::get(ctx, file, 0, 0);
  if (opset > 17)
    emitWarning(fileLoc) << "opset " << opset
                         << " is newer than the 17 neuronc was written for; ops whose "
                            "semantics changed after 17 may be refused";
  try {
    // Data propagation carries Shape -> Gather -> Concat values into the
    // shapes of Reshape and Expand.
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false, /*strict_mode_val=*/0,
                                        /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception &e) {
    emitError(fileLoc) << "ONNX shape inference failed: " << e.what();
    return nullptr;
  }
  const onnx::GraphProto &g = model.graph();
  for (const auto &v : g.input())
    inferred[v.name()] = &v.type();
  for (const auto &v : g.value_info())
    inferred[v.name()] = &v.type();
  for (const auto &v : g.output())
    inferred[v.name()] = &v.type();

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  llvm::StringSet<> initializers;
  for (const auto &t : g.initializer())
    initializers.insert(t.name());

  // Arguments: graph inputs that no initializer supplies.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<SmallVector<std::string>> argDims;
  for (const auto &v : g.input()) {
    if (initializers.contains(v.name()))
      continue;
    SmallVector<std::string> dims;
    std::optional<RankedTensorType> t = tensorType(v.type(), &dims);
    if (!t) {
      emitError(fileLoc) << "graph input '" << v.name()
                         << "' is not a tensor of a supported element type (f32, f16, bf16, "
                            "f64, i32, i64, bool) with a known rank";
      return nullptr;
    }
    argTypes.push_back(*t);
    argNames.push_back(v.name());
    argDims.push_back(dims);
  }
  SmallVector<Type> resultTypes;
  for (const auto &v : g.output()) {
    std::optional<RankedTensorType> t = tensorType(v.type());
    if (!t) {
      emitError(fileLoc) << "graph output '" << v.name() << "' has no tensor type of known rank";
      return nullptr;
    }
    resultTypes.push_back(*t);
  }
  std::string name = g.name();
  if (name.empty() || !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }) ||
      llvm::isDigit(name[0]))
    name = "main";
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, fileLoc, name, FunctionType::get(ctx, argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  for (size_t i = 0; i < argNames.size(); ++i) {
    values[argNames[i]] = entry->getArgument(i);
    if (llvm::any_of(argDims[i], [](const std::string &s) { return !s.empty(); })) {
      SmallVector<Attribute> names;
      for (const std::string &s : argDims[i])
        names.push_back(b.getStringAttr(s));
      func.setArgAttr(i, "neuron.dim_names", b.getArrayAttr(names));
    }
  }
  b.setInsertionPointToEnd(entry);
  for (const auto &t : g.initializer()) {
    loc = NameLoc::get(StringAttr::get(ctx, "onnx::initializer"), fileLoc);
    std::optional<DenseElementsAttr> value = tensorAttr(t);
    if (!value) {
      if (!failed)
        emitError(fileLoc) << "initializer '" << t.name() << "' has an unsupported element type ("
                           << onnx::TensorProto_DataType_Name(
                                  static_cast<onnx::TensorProto_DataType>(t.data_type()))
                           << ")";
      return nullptr;
    }
    values[t.name()] = ConstantOp::create(b, loc, *value);
    if (std::optional<Known> k = knownOf(*value))
      known[t.name()] = *k;
  }
  // Unsupported op types first, one error each.
  // Conv is taken in its patch-embedding form only (patchEmbedding), so it
  // is not in the claimed list.
  llvm::StringSet<> supported = {"Conv"};
  for (llvm::StringRef op : neuronc::supportedOnnxOps())
    supported.insert(op);
  llvm::StringSet<> reported;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    if (supported.contains(n.op_type()) || !reported.insert(n.op_type()).second)
      continue;
    int count = 0;
    for (const auto &m : g.node())
      count += m.op_type() == n.op_type();
    Location at = NameLoc::get(StringAttr::get(ctx, "onnx::" + n.op_type()),
                               FileLineColLoc::get(ctx, file, i + 1, 1));
    InFlightDiagnostic d = emitError(at) << "ONNX op " << n.op_type() << " (opset " << opset
                                         << ") is not supported: node '" << n.name() << "'";
    if (count > 1)
      d << " and " << count - 1 << " more";
    auto alt = alternatives().find(n.op_type());
    if (alt != alternatives().end())
      d << "; " << alt->second;
    failed = true;
  }
  if (failed)
    return nullptr;
  for (int i = 0; i < g.node_size(); ++i) {
    if (!importNode(g.node(i), i)) {
      if (!failed)
        error() << "cannot import this node";
      return nullptr;
    }
    if (failed)
      return nullptr;
  }
  SmallVector<Value> results;
  for (const auto &v : g.output()) {
    Value r = values.lookup(v.name());
    if (!r) {
      emitError(fileLoc) << "graph output '" << v.name() << "' is never computed";
      return nullptr;
    }
    results.push_back(r);
  }
  func::ReturnOp::create(b, fileLoc, results);
  return module;
}

} // namespace

llvm::ArrayRef<llvm::StringRef> neuronc::supportedOnnxOps() {
  static const llvm::StringRef ops[] = {"Abs",
                                        "Add",
                                        "Cast",
                                        "Clip",
                                        "Concat",
                                        "Constant",
                                        "ConstantOfShape",
                                        "Div",
                                        "Dropout",
                                        "Equal",
                                        "Erf",
                                        "Exp",
                                        "Expand",
                                        "Flatten",
                                        "Gather",
                                        "Gemm",
                                        "Greater",
                                        "GreaterOrEqual",
                                        "Identity",
                                        "LayerNormalization",
                                        "LeakyRelu",
                                        "Less",
                                        "LessOrEqual",
                                        "Log",
                                        "LogSoftmax",
                                        "MatMul",
                                        "Max",
                                        "Min",
                                        "Mul",
                                        "Neg",
                                        "Pow",
                                        "Range",
                                        "Reciprocal",
                                        "ReduceL2",
                                        "ReduceMax",
                                        "ReduceMean",
                                        "ReduceMin",
                                        "ReduceProd",
                                        "ReduceSum",
                                        "ReduceSumSquare",
                                        "Relu",
                                        "Reshape",
                                        "Shape",
                                        "Sigmoid",
                                        "Size",
                                        "Slice",
                                        "Softmax",
                                        "Softplus",
                                        "Split",
                                        "Sqrt",
                                        "Squeeze",
                                        "Sub",
                                        "Sum",
                                        "Tanh",
                                        "Transpose",
                                        "Trilu",
                                        "Unsqueeze",
                                        "Where"};
  return ops;
}

bool neuronc::isOnnxBuffer(const llvm::MemoryBuffer &buffer) {
  return llvm::StringRef(buffer.getBufferIdentifier()).ends_with(".onnx");
}

OwningOpRef<ModuleOp> neuronc::importOnnx(const llvm::MemoryBuffer &buffer, MLIRContext *context) {
  context->loadDialect<NeuronDialect, func::FuncDialect>();
  onnx::ModelProto model;
  Location fileLoc =
      FileLineColLoc::get(context, llvm::sys::path::filename(buffer.getBufferIdentifier()), 0, 0);
  if (buffer.getBufferSize() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(buffer.getBufferStart(), static_cast<int>(buffer.getBufferSize()))) {
    emitError(fileLoc) << "not a valid ONNX model (the protobuf does not parse); a model over 2 "
                          "GiB must keep its weights in external data files";
    return nullptr;
  }
  Importer importer(context, buffer.getBufferIdentifier());
  return importer.run(model);
}
