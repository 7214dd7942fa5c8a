//===- FoldShapes.cpp - ONNX shapes known at import -------------------------===//
//
// Nodes folded while importing (Importer::fold: Shape and Size of static
// shapes, and every node whose inputs are all known, evaluated by
// EvaluateConstants.cpp) and the result types of nodes that ONNX shape
// inference left without a static shape, from their operands and known
// inputs (computedType, reshapedType).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>

using namespace neuronc::onnximport;

bool Importer::fold() {
  llvm::StringRef op = node->op_type();
  // Shape and Size read only the (static) input shape.
  if (op == "Shape" || op == "Size") {
    // A known input's shape, without building its constant.
    SmallVector<int64_t> shape;
    if (const Known *k = knownInput(0)) {
      shape = k->shape;
    } else {
      Value x = input(0);
      if (!x)
        return false;
      auto t = cast<RankedTensorType>(x.getType());
      if (!t.hasStaticShape())
        return false;
      shape.assign(t.getShape().begin(), t.getShape().end());
    }
    Known k;
    if (op == "Size") {
      k.values = {product(shape)};
    } else {
      auto rank = static_cast<int64_t>(shape.size());
      int64_t start = normAxis(intAttr("start", 0), rank);
      int64_t end = attr("end") ? normAxis(intAttr("end", rank), rank) : rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      k.values.assign(shape.begin() + start, shape.begin() + end);
      k.shape = {static_cast<int64_t>(k.values.size())};
    }
    defineKnown(0, std::move(k), b.getI64Type());
    return true;
  }
  if (op == "Constant" || op == "Identity" || op == "Dropout")
    return false; // importNode and lowerNode handle them (and keep known values)
  // Every given input known (omitted optional inputs aside): the node is
  // evaluated at import, unless the evaluator does not compute it.
  SmallVector<const Known *> in;
  for (int i = 0; i < node->input_size(); ++i) {
    if (node->input(i).empty()) {
      in.push_back(nullptr);
      continue;
    }
    const Known *k = constInput(i);
    if (!k)
      return false;
    in.push_back(k);
  }
  std::optional<SmallVector<Known>> results = evaluate(in);
  if (!results)
    return false;
  for (size_t i = 0; i < results->size() && static_cast<int>(i) < node->output_size(); ++i) {
    if (node->output(i).empty())
      continue;
    Type elem = (*results)[i].elem;
    defineKnown(static_cast<int>(i), std::move((*results)[i]), elem);
  }
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
  std::optional<SmallVector<int64_t>> shape = reshapedShape(t.getShape());
  if (!shape)
    return std::nullopt;
  return RankedTensorType::get(*shape, t.getElementType());
}

std::optional<SmallVector<int64_t>> Importer::reshapedShape(ArrayRef<int64_t> in) {
  llvm::StringRef op = node->op_type();
  auto rank = static_cast<int64_t>(in.size());
  int64_t count = product(in);
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
      if (d == -1) {
        if (infer >= 0)
          return std::nullopt;
        infer = static_cast<int64_t>(i);
      } else if (d < 0) {
        return std::nullopt;
      } else {
        known *= d;
      }
      shape.push_back(d);
    }
    if (infer >= 0)
      shape[infer] = known ? count / known : 0;
  } else if (op == "Flatten") {
    int64_t axis = normAxis(intAttr("axis", 1), rank), outer = 1;
    if (axis < 0 || axis > rank)
      return std::nullopt;
    for (int64_t i = 0; i < axis; ++i)
      outer *= in[i];
    shape = {outer, outer ? count / outer : 0};
  } else if (op == "Squeeze" || op == "Unsqueeze") {
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
      for (int64_t i = 0, j = 0; i < outRank; ++i) {
        if (llvm::is_contained(at, i)) {
          shape.push_back(1);
        } else {
          if (j >= rank)
            return std::nullopt;
          shape.push_back(in[j++]);
        }
      }
    }
  } else {
    return std::nullopt;
  }
  if (product(shape) != count)
    return std::nullopt;
  return shape;
}
