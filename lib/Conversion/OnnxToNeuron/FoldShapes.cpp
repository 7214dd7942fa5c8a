//===- FoldShapes.cpp - ONNX shapes known at import -------------------------===//
//
// Shape arithmetic folded while importing (Shape, Gather, Concat, Unsqueeze,
// ... on known integers: Importer::fold) and the result types of nodes
// that ONNX shape inference left without a static shape, from their
// operands and known inputs (computedType, reshapedType).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>

using namespace neuronc::onnximport;

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
  if (op == "Slice" || op == "Transpose") {
    // Slices (any steps, as torch.onnx.export reverses F.pad's pads) and
    // transposes of known tensors: the positions read along each dim, then
    // the values at every result index.
    auto rank = static_cast<int64_t>(x.shape.size());
    SmallVector<int64_t> perm;
    SmallVector<SmallVector<int64_t>> positions(rank);
    for (int64_t d = 0; d < rank; ++d) {
      perm.push_back(d);
      for (int64_t i = 0; i < x.shape[d]; ++i)
        positions[d].push_back(i);
    }
    if (op == "Transpose") {
      if (std::optional<SmallVector<int64_t>> p = intsAttr("perm"))
        perm = *p;
      else
        std::reverse(perm.begin(), perm.end());
      if (static_cast<int64_t>(perm.size()) != rank)
        return false;
    } else {
      std::optional<SmallVector<int64_t>> starts = ints(1), ends = ints(2);
      if (!starts || !ends || starts->size() != ends->size())
        return false;
      SmallVector<int64_t> axes, steps;
      sliceAxesAndSteps(starts->size(), ints(3), ints(4), axes, steps);
      if (axes.size() != starts->size() || steps.size() != starts->size())
        return false;
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t axis = normAxis(axes[i], rank);
        if (axis < 0 || axis >= rank || steps[i] == 0)
          return false;
        positions[axis] = slicePositions((*starts)[i], (*ends)[i], steps[i], x.shape[axis]);
      }
    }
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * x.shape[d + 1];
    for (int64_t d = 0; d < rank; ++d)
      r.shape.push_back(static_cast<int64_t>(positions[perm[d]].size()));
    int64_t count = product(r.shape);
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at += positions[perm[d]][idx[d]] * inStrides[perm[d]];
      r.values.push_back(x.values[at]);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < r.shape[d])
          break;
        idx[d] = 0;
      }
    }
    defineKnown(0, std::move(r), elemOf(0));
    return true;
  }
  return false;
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
