//===- ImportOnnx.cpp - ONNX models into the neuron dialect ---------------===//
//
// See OnnxImport.h. The graph is walked once in node order (ONNX graphs are
// topologically sorted). A node whose inputs are all known at import
// (initializers, Constant, Shape of static shapes and what is computed from
// them) is evaluated and its results become known tensors
// (FoldShapes.cpp, EvaluateConstants.cpp), materialized as neuron.constant
// only where a node that is not folded reads them; every other node becomes
// neuron ops (ConvertNodes.cpp, ConvertWindows.cpp, ConvertResize.cpp,
// ConvertRecurrent.cpp, ConvertEinsum.cpp) whose result types come from ONNX shape inference.
// This file: element types, tensors (initializers, external data), known
// values and their constants, the graph walk and the entry points.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/OnnxImport.h"

#include "Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/shape_inference/implementation.h>

using namespace neuronc::onnximport;

namespace {

/// What to use instead of an unsupported op type, when there is something.
const llvm::StringMap<const char *> &alternatives() {
  static const llvm::StringMap<const char *> map = {
      {"Gelu", "export at opset <= 17, where GELU is written with Erf (or Tanh)"},
      {"Loop", "a graph without control flow (unroll or trace the loop when exporting)"},
      {"If", "a graph without control flow (export with the branch taken)"},
      {"Scan", "a graph without control flow"},
      {"CumSum", "MatMul with a constant triangular matrix"},
  };
  return map;
}

} // namespace

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
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
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

std::optional<Known> neuronc::onnximport::knownOf(DenseElementsAttr attr, int64_t limit) {
  auto type = cast<RankedTensorType>(attr.getType());
  if (type.getNumElements() > limit)
    return std::nullopt;
  Known k;
  k.shape.assign(type.getShape().begin(), type.getShape().end());
  k.elem = type.getElementType();
  int64_t n = type.getNumElements();
  if (isa<FloatType>(k.elem)) {
    k.isFloat = true;
    k.reals.reserve(n);
    if (k.elem.isF32() && !attr.isSplat())
      for (float f : attr.getValues<float>())
        k.reals.push_back(f);
    else
      for (APFloat f : attr.getValues<APFloat>())
        k.reals.push_back(f.convertToDouble());
  } else {
    k.values.reserve(n);
    for (APInt i : attr.getValues<APInt>())
      k.values.push_back(k.elem.isInteger(1) ? i.getZExtValue() : i.getSExtValue());
  }
  roundToElem(k);
  return k;
}

Value Importer::valueOf(llvm::StringRef name) {
  if (Value v = values.lookup(name))
    return v;
  auto it = known.find(name);
  if (it == known.end())
    return {};
  const Known &k = it->second;
  Location at = k.loc ? Location(k.loc) : loc;
  Value v = ConstantOp::create(b, at, attrOf(k));
  values[name] = v;
  return v;
}

const Known *Importer::constInput(int i) {
  if (const Known *k = knownInput(i))
    return k;
  Value v = input(i);
  std::optional<DenseElementsAttr> attr = v ? constantOf(v) : std::nullopt;
  if (!attr)
    return nullptr;
  std::optional<Known> k = knownOf(*attr, kEvalLimit);
  if (!k)
    return nullptr;
  scratch.push_back(std::move(*k));
  return &scratch.back();
}

DenseElementsAttr Importer::attrOf(const Known &k) {
  Type elem = k.elem ? k.elem : b.getI64Type();
  auto type = RankedTensorType::get(k.shape, elem);
  if (elem.isF32()) {
    SmallVector<float> v(k.reals.begin(), k.reals.end());
    return DenseElementsAttr::get(type, ArrayRef<float>(v));
  }
  if (elem.isF64())
    return DenseElementsAttr::get(type, ArrayRef<double>(k.reals));
  if (auto ft = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> v;
    for (double d : k.reals) {
      APFloat f(d);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    return DenseElementsAttr::get(type, v);
  }
  if (elem.isInteger(1)) {
    SmallVector<bool> v;
    for (int64_t x : k.values)
      v.push_back(x != 0);
    return DenseElementsAttr::get(type, v);
  }
  if (elem.isInteger(64))
    return DenseElementsAttr::get(type, ArrayRef<int64_t>(k.values));
  SmallVector<APInt> v;
  unsigned width = elem.getIntOrFloatBitWidth();
  for (int64_t x : k.values)
    v.push_back(APInt(width, static_cast<uint64_t>(x), /*isSigned=*/true, /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, v);
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

std::optional<SmallVector<int64_t>> neuronc::onnximport::broadcastShapes(ArrayRef<int64_t> a,
                                                                         ArrayRef<int64_t> c) {
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

int64_t neuronc::onnximport::product(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
}

void neuronc::onnximport::sliceAxesAndSteps(size_t count, std::optional<SmallVector<int64_t>> axes,
                                            std::optional<SmallVector<int64_t>> steps,
                                            SmallVector<int64_t> &outAxes,
                                            SmallVector<int64_t> &outSteps) {
  outAxes.clear();
  if (axes)
    outAxes = *axes;
  else
    for (size_t i = 0; i < count; ++i)
      outAxes.push_back(static_cast<int64_t>(i));
  outSteps = steps ? *steps : SmallVector<int64_t>(count, 1);
}

SmallVector<int64_t> neuronc::onnximport::slicePositions(int64_t start, int64_t end, int64_t step,
                                                         int64_t n) {
  SmallVector<int64_t> pos;
  if (step > 0) {
    start = std::clamp<int64_t>(start < 0 ? start + n : start, 0, n);
    end = std::clamp<int64_t>(end < 0 ? end + n : end, 0, n);
    for (int64_t k = start; k < end; k += step)
      pos.push_back(k);
  } else {
    start = std::clamp<int64_t>(start < 0 ? start + n : start, 0, n - 1);
    end = std::clamp<int64_t>(end < 0 ? end + n : end, -1, n - 1);
    for (int64_t k = start; k > end; k += step)
      pos.push_back(k);
  }
  return pos;
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
    if (!n.input(i).empty() && !defined(n.input(i))) {
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
  scratch.clear();
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
  llvm::StringSet<> supported;
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
    Value r = valueOf(v.name());
    if (!r) {
      emitError(fileLoc) << "graph output '" << v.name() << "' is never computed";
      return nullptr;
    }
    results.push_back(r);
  }
  // A graph output the exporter left without static dims (a Pad by computed
  // pads, e.g.) takes the static type the import found.
  SmallVector<Type> refined(resultTypes);
  for (size_t i = 0; i < results.size(); ++i) {
    auto declared = cast<RankedTensorType>(resultTypes[i]);
    auto found = cast<RankedTensorType>(results[i].getType());
    if (declared != found && !declared.hasStaticShape() && found.hasStaticShape() &&
        declared.getElementType() == found.getElementType() &&
        succeeded(verifyCompatibleShape(declared, found)))
      refined[i] = found;
  }
  func.setFunctionType(FunctionType::get(ctx, argTypes, refined));
  func::ReturnOp::create(b, fileLoc, results);
  return module;
}

llvm::ArrayRef<llvm::StringRef> neuronc::supportedOnnxOps() {
  static const llvm::StringRef ops[] = {"Abs",
                                        "Add",
                                        "And",
                                        "AveragePool",
                                        "BatchNormalization",
                                        "Cast",
                                        "Ceil",
                                        "Clip",
                                        "Concat",
                                        "Constant",
                                        "ConstantOfShape",
                                        "Conv",
                                        "ConvTranspose",
                                        "Cos",
                                        "Div",
                                        "Dropout",
                                        "Einsum",
                                        "Equal",
                                        "Erf",
                                        "Exp",
                                        "Expand",
                                        "Flatten",
                                        "Floor",
                                        "GRU",
                                        "Gather",
                                        "Gemm",
                                        "GlobalAveragePool",
                                        "GlobalMaxPool",
                                        "Greater",
                                        "GreaterOrEqual",
                                        "HardSigmoid",
                                        "HardSwish",
                                        "Identity",
                                        "InstanceNormalization",
                                        "LSTM",
                                        "LayerNormalization",
                                        "LeakyRelu",
                                        "Less",
                                        "LessOrEqual",
                                        "Log",
                                        "LogSoftmax",
                                        "MatMul",
                                        "Max",
                                        "MaxPool",
                                        "Min",
                                        "Mod",
                                        "Mul",
                                        "Neg",
                                        "Not",
                                        "Or",
                                        "Pad",
                                        "Pow",
                                        "RNN",
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
                                        "Resize",
                                        "ScatterND",
                                        "Shape",
                                        "Sigmoid",
                                        "Sin",
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
                                        "Tile",
                                        "Transpose",
                                        "Trilu",
                                        "Unsqueeze",
                                        "Where",
                                        "Xor"};
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
