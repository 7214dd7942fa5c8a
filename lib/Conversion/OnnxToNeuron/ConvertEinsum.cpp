//===- ConvertEinsum.cpp - ONNX Einsum as matmuls ---------------------------===//
//
// Importer::einsum: the equations exporters write (torchvision MaxViT's
// "B G H I D, B G H J D -> B G H I J", bilinear forms, batched outer and
// inner products) as neuron ops. Labels only one operand has and the result
// does not are summed first (reduce_sum); then two operands at a time, left
// to right: the labels both have and the result keeps are batch dims, those
// both have and the result drops are contracted, the rest are each side's
// own; each side is transposed to [batch, own, contracted] (or read
// transposed by the matmul), reshaped to [batch, M, K] and [batch, K, N],
// multiplied, and the product reshaped and transposed to the result's
// order. `...` stands for the same dims in every operand; a label repeated
// in one operand reads the diagonal (a gather). Refused, with the reason: a
// label whose sizes differ between operands (Einsum's broadcasting of
// size-1 dims).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringExtras.h"

#include <variant>

using namespace neuronc::onnximport;

namespace {

/// An operand during the lowering: its value and the label of each dim
/// (letters; ellipsis dims are 256 + their position from the right).
struct Term {
  Value value;
  SmallVector<int> labels;
};

/// The labels of one subscript of an equation for an operand of `rank`
/// dims, or an error message.
std::variant<SmallVector<int>, std::string> parseTerm(llvm::StringRef s, int64_t rank,
                                                      int64_t *ellipsisRank) {
  SmallVector<int> labels;
  size_t dots = s.find("...");
  int64_t letters = 0;
  for (char ch : s)
    letters += llvm::isAlpha(ch);
  if (dots != llvm::StringRef::npos) {
    if (s.find("...", dots + 3) != llvm::StringRef::npos)
      return std::string("'...' appears twice in one subscript");
    // The result's subscript (rank -1): its "..." is placed by the caller.
    int64_t e = rank < 0 ? 0 : rank - letters;
    if (e < 0)
      return "subscript '" + s.str() + "' has more labels than its operand's " +
             std::to_string(rank) + " dims";
    if (ellipsisRank)
      *ellipsisRank = std::max(*ellipsisRank, e);
    for (char ch : s.take_front(dots))
      labels.push_back(static_cast<unsigned char>(ch));
    for (int64_t i = e - 1; i >= 0; --i)
      labels.push_back(256 + static_cast<int>(i));
    for (char ch : s.drop_front(dots + 3))
      labels.push_back(static_cast<unsigned char>(ch));
  } else {
    for (char ch : s)
      labels.push_back(static_cast<unsigned char>(ch));
  }
  for (int l : labels)
    if (l < 256 && !llvm::isAlpha(static_cast<char>(l)))
      return "subscript '" + s.str() + "' holds '" + std::string(1, static_cast<char>(l)) +
             "', not a letter";
  if (rank >= 0 && static_cast<int64_t>(labels.size()) != rank)
    return "subscript '" + s.str() + "' names " + std::to_string(labels.size()) +
           " dims of an operand of rank " + std::to_string(rank);
  return labels;
}

std::string labelName(int l) {
  return l < 256 ? std::string(1, static_cast<char>(l)) : "... dim " + std::to_string(l - 256);
}

} // namespace

bool Importer::einsum() {
  const auto *eq = attr("equation");
  if (!eq) {
    error() << "has no equation";
    return false;
  }
  std::string equation;
  for (char ch : eq->s())
    if (ch != ' ')
      equation.push_back(ch);
  llvm::StringRef lhs = equation, rhs;
  bool explicitOut = false;
  if (size_t arrow = lhs.find("->"); arrow != llvm::StringRef::npos) {
    rhs = lhs.drop_front(arrow + 2);
    lhs = lhs.take_front(arrow);
    explicitOut = true;
  }
  SmallVector<llvm::StringRef> subs;
  lhs.split(subs, ',');
  if (static_cast<int>(subs.size()) != node->input_size()) {
    error() << "equation '" << eq->s() << "' has " << subs.size() << " operand subscripts for "
            << node->input_size() << " inputs";
    return false;
  }
  // Labels per operand, and every label's size.
  SmallVector<Term> terms;
  llvm::DenseMap<int, int64_t> sizes;
  int64_t ellipsis = 0;
  for (int i = 0; i < node->input_size(); ++i) {
    Value v = input(i);
    auto t = cast<RankedTensorType>(v.getType());
    if (!t.hasStaticShape()) {
      error() << "needs operands of static shapes";
      return false;
    }
    auto parsed = parseTerm(subs[i], t.getRank(), &ellipsis);
    if (auto *msg = std::get_if<std::string>(&parsed)) {
      error() << "equation '" << eq->s() << "': " << *msg;
      return false;
    }
    Term term{v, std::get<SmallVector<int>>(parsed)};
    for (size_t d = 0; d < term.labels.size(); ++d) {
      int l = term.labels[d];
      auto [it, inserted] = sizes.try_emplace(l, t.getDimSize(d));
      if (!inserted && it->second != t.getDimSize(d)) {
        error() << "equation '" << eq->s() << "': label '" << labelName(l) << "' has size "
                << it->second << " in one operand and " << t.getDimSize(d)
                << " in another; broadcasting in Einsum is not supported: Expand the operand "
                   "to the other's size before the Einsum";
        return false;
      }
    }
    // A label repeated in one operand reads its diagonal: its dims moved
    // last, merged into one of n^k, gathered at i * (n^(k-1) + ... + 1).
    while (true) {
      auto repeated =
          llvm::find_if(term.labels, [&](int l) { return llvm::count(term.labels, l) > 1; });
      if (repeated == term.labels.end())
        break;
      int l = *repeated;
      SmallVector<int64_t> perm, shape;
      SmallVector<int> labels;
      for (size_t e = 0; e < term.labels.size(); ++e)
        if (term.labels[e] != l) {
          perm.push_back(static_cast<int64_t>(e));
          shape.push_back(sizes[term.labels[e]]);
          labels.push_back(term.labels[e]);
        }
      int64_t n = sizes[l], merged = 1, step = 0;
      for (size_t e = 0; e < term.labels.size(); ++e)
        if (term.labels[e] == l) {
          perm.push_back(static_cast<int64_t>(e));
          step += merged;
          merged *= n;
        }
      SmallVector<int64_t> permuted(shape);
      for (size_t e = shape.size(); e < perm.size(); ++e)
        permuted.push_back(n);
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
        term.value =
            TransposeOp::create(b, loc, RankedTensorType::get(permuted, t.getElementType()),
                                term.value, b.getDenseI64ArrayAttr(perm));
      shape.push_back(merged);
      term.value = reshape(term.value, shape);
      SmallVector<int32_t> ids;
      for (int64_t j = 0; j < n; ++j)
        ids.push_back(static_cast<int32_t>(j * step));
      auto idxType = RankedTensorType::get({n}, b.getI32Type());
      shape.back() = n;
      term.value = GatherOp::create(
          b, loc, RankedTensorType::get(shape, t.getElementType()), term.value,
          ConstantOp::create(b, loc, idxType, DenseElementsAttr::get(idxType, ArrayRef(ids))),
          b.getI64IntegerAttr(static_cast<int64_t>(shape.size()) - 1));
      labels.push_back(l);
      term.labels = labels;
    }
    terms.push_back(std::move(term));
  }
  // The result's labels: as written, else (implicit form) the ellipsis dims
  // then the letters used once, alphabetically.
  SmallVector<int> out;
  if (explicitOut) {
    auto parsed = parseTerm(rhs, -1, nullptr);
    if (auto *msg = std::get_if<std::string>(&parsed)) {
      error() << "equation '" << eq->s() << "': " << *msg;
      return false;
    }
    // In the result, "..." stands for the widest operand's ellipsis dims.
    SmallVector<int> raw = std::get<SmallVector<int>>(parsed);
    for (int l : raw) {
      if (l >= 256)
        continue;
      out.push_back(l);
    }
    if (size_t dots = rhs.find("..."); dots != llvm::StringRef::npos) {
      SmallVector<int> withDots;
      int64_t before = 0;
      for (char ch : rhs.take_front(dots))
        before += llvm::isAlpha(ch);
      withDots.append(out.begin(), out.begin() + before);
      for (int64_t i = ellipsis - 1; i >= 0; --i)
        withDots.push_back(256 + static_cast<int>(i));
      withDots.append(out.begin() + before, out.end());
      out = withDots;
    }
    for (int l : out) {
      if (llvm::count(out, l) > 1) {
        error() << "equation '" << eq->s() << "': label '" << labelName(l)
                << "' repeats in the result";
        return false;
      }
      if (!sizes.count(l)) {
        error() << "equation '" << eq->s() << "': the result's label '" << labelName(l)
                << "' is in no operand";
        return false;
      }
    }
  } else {
    for (int64_t i = ellipsis - 1; i >= 0; --i)
      out.push_back(256 + static_cast<int>(i));
    SmallVector<int> once;
    for (const Term &t : terms)
      for (int l : t.labels) {
        int uses = 0;
        for (const Term &u : terms)
          uses += llvm::count(u.labels, l);
        if (l < 256 && uses == 1)
          once.push_back(l);
      }
    llvm::sort(once);
    out.append(once.begin(), once.end());
  }

  Type elem = cast<RankedTensorType>(terms[0].value.getType()).getElementType();
  auto typeOf = [&](ArrayRef<int> labels) {
    SmallVector<int64_t> shape;
    for (int l : labels)
      shape.push_back(sizes[l]);
    return RankedTensorType::get(shape, elem);
  };
  // `t` with its dims in the order of `labels` (a subset of its own).
  auto permute = [&](Term &t, ArrayRef<int> labels) {
    if (ArrayRef<int>(t.labels) == labels)
      return;
    SmallVector<int64_t> perm;
    for (int l : labels)
      perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
    t.value = TransposeOp::create(b, loc, typeOf(labels), t.value, b.getDenseI64ArrayAttr(perm));
    t.labels.assign(labels.begin(), labels.end());
  };
  // Sums away the labels of `t` that no other term and not the result has.
  auto sumUnused = [&](Term &t, size_t self, ArrayRef<Term> others) {
    SmallVector<int64_t> axes;
    SmallVector<int> kept;
    for (size_t d = 0; d < t.labels.size(); ++d) {
      int l = t.labels[d];
      bool used = llvm::is_contained(out, l);
      for (size_t j = 0; j < others.size() && !used; ++j)
        used = j != self && llvm::is_contained(others[j].labels, l);
      if (used)
        kept.push_back(l);
      else
        axes.push_back(static_cast<int64_t>(d));
    }
    if (axes.empty())
      return;
    t.value = ReduceSumOp::create(b, loc, typeOf(kept), t.value, b.getDenseI64ArrayAttr(axes),
                                  UnitAttr());
    t.labels = kept;
  };

  Term acc = terms[0];
  sumUnused(acc, 0, terms);
  for (size_t i = 1; i < terms.size(); ++i) {
    Term rhsTerm = terms[i];
    sumUnused(rhsTerm, i, terms);
    // Labels still needed after this product: the result's and later terms'.
    auto later = [&](int l) {
      if (llvm::is_contained(out, l))
        return true;
      for (size_t j = i + 1; j < terms.size(); ++j)
        if (llvm::is_contained(terms[j].labels, l))
          return true;
      return false;
    };
    SmallVector<int> batch, own, theirs, contract;
    for (int l : acc.labels) {
      bool both = llvm::is_contained(rhsTerm.labels, l);
      if (both && later(l))
        batch.push_back(l);
      else if (both)
        contract.push_back(l);
      else
        own.push_back(l);
    }
    for (int l : rhsTerm.labels)
      if (!llvm::is_contained(acc.labels, l))
        theirs.push_back(l);
    // Labels only one side has but nothing later needs were summed above;
    // a label both have that nothing later needs is contracted.
    auto count = [&](ArrayRef<int> ls) {
      int64_t n = 1;
      for (int l : ls)
        n *= sizes[l];
      return n;
    };
    int64_t nb = count(batch), m = count(own), n = count(theirs), k = count(contract);
    // The lhs as [batch, own, contract] or, read transposed, [batch,
    // contract, own]; the rhs as [batch, contract, theirs] or [batch,
    // theirs, contract]: whichever is already its order.
    auto concat = [](std::initializer_list<ArrayRef<int>> parts) {
      SmallVector<int> r;
      for (ArrayRef<int> p : parts)
        r.append(p.begin(), p.end());
      return r;
    };
    SmallVector<int> lhsPlain = concat({batch, own, contract}),
                     lhsTransposed = concat({batch, contract, own});
    SmallVector<int> rhsPlain = concat({batch, contract, theirs}),
                     rhsTransposed = concat({batch, theirs, contract});
    bool tl = ArrayRef<int>(acc.labels) != ArrayRef<int>(lhsPlain) &&
              ArrayRef<int>(acc.labels) == ArrayRef<int>(lhsTransposed);
    bool tr = ArrayRef<int>(rhsTerm.labels) != ArrayRef<int>(rhsPlain) &&
              ArrayRef<int>(rhsTerm.labels) == ArrayRef<int>(rhsTransposed);
    permute(acc, tl ? lhsTransposed : lhsPlain);
    permute(rhsTerm, tr ? rhsTransposed : rhsPlain);
    Value a =
        reshape(acc.value, tl ? SmallVector<int64_t>{nb, k, m} : SmallVector<int64_t>{nb, m, k});
    Value c = reshape(rhsTerm.value,
                      tr ? SmallVector<int64_t>{nb, n, k} : SmallVector<int64_t>{nb, k, n});
    auto productType = RankedTensorType::get({nb, m, n}, elem);
    // Nothing contracted (k = 1): an outer product per batch, elementwise.
    Value p =
        contract.empty()
            ? Value(MulOp::create(b, loc, productType, a, c))
            : Value(MatmulOp::create(b, loc, productType, a, c, tl ? b.getUnitAttr() : UnitAttr(),
                                     tr ? b.getUnitAttr() : UnitAttr()));
    SmallVector<int> labels = concat({batch, own, theirs});
    acc.value = reshape(p, typeOf(labels).getShape());
    acc.labels = labels;
  }
  // Labels the result drops that the last product kept (one operand).
  sumUnused(acc, terms.size(), {});
  permute(acc, out);
  define(0, reshape(acc.value, typeOf(out).getShape()));
  return true;
}
