//===- RowKernelSelect.cpp - Instruction selection for row kernels -----===//
//
// Folds what the engines do in one instruction: func(scale*x + bias) with a
// row sum (activation), two scalar operations (tensor_scalar), (a op s) op b
// (scalar_tensor_tensor); picks engines by the cost formulas.
//
//===----------------------------------------------------------------------===//

#include "RowKernelImpl.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace mlir::neuron::lowering {

Val RowKernelImpl::computeNode(int n, std::optional<Val> dstArg) {
  const Node &node = nodes[n];
  if (node.source)
    kb->setSource(node.source);
  if (node.kind == NodeKind::Stats || node.kind == NodeKind::Part)
    return node.kind == NodeKind::Stats ? accumulateStats(n, true, true)
                                        : computePart(n);
  Val dst = dstArg ? *dstArg : destFor(n);
  switch (node.kind) {
  case NodeKind::Input:
    loadInput(n, dst);
    return dst;
  case NodeKind::Unary:
    return emitUnary(n, dst);
  case NodeKind::Binary:
    return emitBinary(n, dst);
  case NodeKind::Cast: {
    // A float computed only to be rounded: its instruction writes the
    // narrower tile itself (engines convert on the way out), one
    // instruction instead of two.
    int a = node.args[0];
    const Node &p = nodes[a];
    if (onlyFeeds(nodes, a, n) && isa<FloatType>(p.type) && isa<FloatType>(node.type) &&
        isFull(a) == isFull(n) && !stepVals.count(a))
      return p.kind == NodeKind::Unary ? emitUnary(a, dst) : emitBinary(a, dst);
    Val src = materialize(a);
    if (src.isImm) {
      Engine e = kb->pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, np, elemsOf(dst.full));
      kb->emit<nisa::MemsetOp>(e, dst.sym, dst.ap, kb->builder().getF32FloatAttr(src.imm),
                               DenseI64ArrayAttr(), UnitAttr());
      return dst;
    }
    if (dst.full && !src.full)
      src.ap = spreadAP();
    SmallVector<Engine, 3> engines = {Engine::vector, Engine::scalar};
    if (!src.inPsum)
      engines.push_back(Engine::gpsimd);
    Engine e = kb->pick(Opcode::TensorCopy, engines, np, elemsOf(dst.full), src.inPsum);
    kb->emit<nisa::TensorCopyOp>(e, dst.sym, dst.ap, src.sym, src.ap, DenseI64ArrayAttr(),
                                 UnitAttr());
    return dst;
  }
  case NodeKind::Select: {
    Val c = asTile(materialize(node.args[0]), nodes[node.args[0]].type);
    Val a = asTile(materialize(node.args[1]), nodes[node.args[1]].type);
    Val f = asTile(materialize(node.args[2]), nodes[node.args[2]].type);
    auto spread = [&](Val v) {
      if (dst.full && !v.full)
        v.ap = spreadAP();
      return v;
    };
    c = spread(c);
    a = spread(a);
    f = spread(f);
    bool psum = c.inPsum || a.inPsum || f.inPsum;
    Engine e = kb->pick(Opcode::Select,
                        psum ? ArrayRef<Engine>{Engine::vector}
                             : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                        np, elemsOf(dst.full));
    kb->emit<nisa::SelectOp>(e, dst.sym, dst.ap, c.sym, c.ap, a.sym, a.ap, f.sym, f.ap,
                             DenseI64ArrayAttr(), UnitAttr());
    return dst;
  }
  case NodeKind::Reduce:
    return reduceInto(n, dst);
  case NodeKind::Stats:
  case NodeKind::Part:
  case NodeKind::Imm:
  case NodeKind::Psum:
    break;
  }
  llvm_unreachable("not computed by an instruction");
}

/// True when node `a` only feeds `user` and is not stored, so the user's
/// instruction may compute it in passing.
bool onlyFeeds(const SmallVector<Node> &nodes, int a, int user) {
  const Node &n = nodes[a];
  return n.outputs == 0 && n.users.size() == 1 && n.users[0] == user &&
         (n.kind == NodeKind::Binary || n.kind == NodeKind::Unary);
}

Val RowKernelImpl::emitUnary(int n, Val dst) {
  const Node &node = nodes[n];
  Builder &b = kb->builder();
  bool isFloatType = isa<FloatType>(node.type);
  int x = node.args[0];
  // Integers: VectorE/GpSimdE arithmetic.
  if (!isFloatType) {
    Val src = materialize(x);
    Engine e = kb->pick(Opcode::TensorScalar,
                        src.inPsum ? ArrayRef<Engine>{Engine::vector}
                                   : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                        np, elemsOf(dst.full));
    auto ts = [&](Val to, Val from, AluOp op, float k) {
      kb->emit<nisa::TensorScalarOp>(e, to.sym, to.ap, from.sym, from.ap, op,
                                     b.getF32FloatAttr(k), FlatSymbolRefAttr(),
                                     nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(),
                                     FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                     UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    };
    switch (node.unary) {
    case UKind::Neg:
      ts(dst, src, AluOp::multiply, -1.0f);
      return dst;
    case UKind::Relu:
      ts(dst, src, AluOp::max, 0.0f);
      return dst;
    case UKind::Square:
      kb->emit<nisa::TensorTensorOp>(e, AluOp::multiply, dst.sym, dst.ap, src.sym, src.ap,
                                     src.sym, src.ap, DenseI64ArrayAttr(), UnitAttr());
      return dst;
    case UKind::Abs:
      // |x| = max(x, -x)
      ts(dst, src, AluOp::multiply, -1.0f);
      kb->emit<nisa::TensorTensorOp>(e, AluOp::max, dst.sym, dst.ap, dst.sym, dst.ap, src.sym,
                                     src.ap, DenseI64ArrayAttr(), UnitAttr());
      return dst;
    default:
      llvm_unreachable("float-only unary op on integers");
    }
  }
  if (node.unary == UKind::Copy) {
    // A plain copy (out of PSUM, or spreading a row value over the columns).
    Val src = materialize(x);
    if (src.isImm) {
      Engine e = kb->pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, np,
                          elemsOf(dst.full));
      kb->emit<nisa::MemsetOp>(e, dst.sym, dst.ap, b.getF32FloatAttr(src.imm),
                               DenseI64ArrayAttr(), UnitAttr());
      return dst;
    }
    if (dst.full && !src.full)
      src.ap = spreadAP();
    SmallVector<Engine, 3> engines = {Engine::vector, Engine::scalar};
    if (!src.inPsum)
      engines.push_back(Engine::gpsimd);
    Engine e = kb->pick(Opcode::TensorCopy, engines, np, elemsOf(dst.full), src.inPsum);
    kb->emit<nisa::TensorCopyOp>(e, dst.sym, dst.ap, src.sym, src.ap, DenseI64ArrayAttr(),
                                 UnitAttr());
    return dst;
  }
  // func(scale * y + bias): fold a single-use add/sub of a scalar into the
  // bias, and a single-use product by a scalar into the scale.
  ActFunc func = *actFuncOf(node.unary);
  float scaleImm = node.unary == UKind::Neg ? -1.0f : 1.0f;
  std::optional<Val> scale, bias;
  float biasImm = 0.0f;
  int y = x, parent = n;
  // In `t op s`, s is the per-partition (or immediate) operand and t the
  // tile the function is applied to.
  auto split = [&](const Node &bin, bool commutative) -> std::optional<std::pair<int, int>> {
    auto ok = [&](int t, int s) {
      return !isFull(s) && (groups == 1 || nodes[s].kind == NodeKind::Imm) &&
             nodes[t].kind != NodeKind::Imm && (!isFull(n) || isFull(t));
    };
    if (ok(bin.args[0], bin.args[1]))
      return std::make_pair(bin.args[0], bin.args[1]);
    if (commutative && ok(bin.args[1], bin.args[0]))
      return std::make_pair(bin.args[1], bin.args[0]);
    return std::nullopt;
  };
  auto absorbable = [&](int v, AluOp a, AluOp b) {
    return node.unary != UKind::Neg && onlyFeeds(nodes, v, parent) &&
           nodes[v].kind == NodeKind::Binary && (nodes[v].alu == a || nodes[v].alu == b) &&
           isa<FloatType>(nodes[v].type);
  };
  if (absorbable(y, AluOp::add, AluOp::subtract)) {
    const Node &add = nodes[y];
    if (auto ts = split(add, add.alu == AluOp::add)) {
      auto [t, sc] = *ts;
      bool neg = add.alu == AluOp::subtract;
      if (nodes[sc].kind == NodeKind::Imm)
        biasImm = static_cast<float>(neg ? -nodes[sc].imm : nodes[sc].imm);
      else
        bias = neg ? negate(sc) : materialize(sc);
      parent = y;
      y = t;
    }
  }
  if (absorbable(y, AluOp::multiply, AluOp::multiply)) {
    if (auto ts = split(nodes[y], true)) {
      auto [t, sc] = *ts;
      if (nodes[sc].kind == NodeKind::Imm)
        scaleImm = static_cast<float>(nodes[sc].imm);
      else
        scale = materialize(sc);
      y = t;
    }
  }
  Val src = materialize(y);
  if (src.isImm)
    src = asTile(src, nodes[y].type);
  if (dst.full && !src.full)
    src.ap = spreadAP();
  // A row sum of this value that this step also computes rides along.
  FlatSymbolRefAttr accSym;
  nisa::AccessPatternAttr accAp;
  kb->charge(Engine::scalar, kb->estimate(Opcode::Activation, Engine::scalar, np,
                                          elemsOf(dst.full)));
  kb->emit<nisa::ActivationOp>(
      func, dst.sym, dst.ap, src.sym, src.ap,
      scale ? FloatAttr() : (scaleImm != 1.0f ? b.getF32FloatAttr(scaleImm) : FloatAttr()),
      scale ? scale->sym : FlatSymbolRefAttr(),
      scale ? scale->ap : nisa::AccessPatternAttr(),
      bias ? FloatAttr() : (biasImm != 0.0f ? b.getF32FloatAttr(biasImm) : FloatAttr()),
      bias ? bias->sym : FlatSymbolRefAttr(), bias ? bias->ap : nisa::AccessPatternAttr(),
      accSym, accAp, DenseI64ArrayAttr(), UnitAttr());
  return dst;
}

Val RowKernelImpl::emitBinary(int n, Val dst) {
  const Node &node = nodes[n];
  Builder &b = kb->builder();
  AluOp op = node.alu;
  int ia = node.args[0], ib = node.args[1];
  // A row value is a per-partition scalar when a partition holds one row.
  auto isScalarArg = [&](int a) {
    return nodes[a].kind == NodeKind::Imm || (!isFull(a) && groups == 1);
  };
  bool full = isFull(n);
  int64_t elems = elemsOf(full);

  auto scalarAttrs = [&](const Val &s, FloatAttr &imm, FlatSymbolRefAttr &sym,
                         nisa::AccessPatternAttr &ap) {
    if (s.isImm)
      imm = b.getF32FloatAttr(static_cast<float>(s.imm));
    else {
      sym = s.sym;
      ap = s.ap;
    }
  };

  if (full && isScalarArg(ia) != isScalarArg(ib)) {
    // tensor (op) scalar, possibly after another tensor (op) scalar.
    bool reverse0 = isScalarArg(ia);
    int t = reverse0 ? ib : ia, s = reverse0 ? ia : ib;
    // (x op0 s0) op s: one tensor_scalar with two operations.
    std::optional<Val> s0v;
    AluOp op0 = op;
    bool rev0 = reverse0;
    std::optional<AluOp> op1;
    bool rev1 = false;
    Val s1v;
    int x = t;
    if (onlyFeeds(nodes, t, n) && nodes[t].kind == NodeKind::Binary &&
        isScalarArg(nodes[t].args[0]) != isScalarArg(nodes[t].args[1]) &&
        nodes[t].type == node.type) {
      const Node &inner = nodes[t];
      bool innerRev = isScalarArg(inner.args[0]);
      x = innerRev ? inner.args[1] : inner.args[0];
      s0v = materialize(innerRev ? inner.args[0] : inner.args[1]);
      op0 = inner.alu;
      rev0 = innerRev;
      op1 = op;
      rev1 = reverse0;
      s1v = materialize(s);
    } else {
      s0v = materialize(s);
    }
    Val src = materialize(x);
    if (src.isImm)
      src = asTile(src, nodes[x].type);
    bool actOk = isa<FloatType>(node.type) && !src.inPsum;
    for (AluOp o : {op0, op1.value_or(AluOp::add)})
      actOk &= o == AluOp::add || o == AluOp::subtract || o == AluOp::multiply;
    SmallVector<Engine, 3> engines = {Engine::vector};
    if (!src.inPsum)
      engines.push_back(Engine::gpsimd);
    if (actOk)
      engines.push_back(Engine::scalar);
    Engine e = kb->pick(Opcode::TensorScalar, engines, np, elems, src.inPsum);
    FloatAttr imm0, imm1;
    FlatSymbolRefAttr sym0, sym1;
    nisa::AccessPatternAttr ap0, ap1;
    scalarAttrs(*s0v, imm0, sym0, ap0);
    if (op1)
      scalarAttrs(s1v, imm1, sym1, ap1);
    kb->emit<nisa::TensorScalarOp>(
        e, dst.sym, dst.ap, src.sym, src.ap, op0, imm0, sym0, ap0,
        rev0 ? b.getUnitAttr() : UnitAttr(),
        op1 ? nisa::AluOpAttr::get(b.getContext(), *op1) : nisa::AluOpAttr(), imm1, sym1, ap1,
        rev1 ? b.getUnitAttr() : UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    return dst;
  }

  if (full) {
    // (x op0 s) op b in one scalar_tensor_tensor.
    for (int side = 0; side < 2; ++side) {
      int t = side ? ib : ia, other = side ? ia : ib;
      if (side && !isCommutative(op))
        break;
      if (!onlyFeeds(nodes, t, n) || nodes[t].kind != NodeKind::Binary ||
          nodes[t].type != node.type)
        continue;
      const Node &inner = nodes[t];
      if (isScalarArg(inner.args[0]) || !isScalarArg(inner.args[1]))
        continue;
      Val x = materialize(inner.args[0]);
      Val s = materialize(inner.args[1]);
      Val rhs = materialize(other);
      if (x.inPsum && rhs.inPsum)
        continue;
      // Row values that are not per-partition scalars (several rows per
      // partition) are spread over the columns.
      if (!x.full)
        x.ap = spreadAP();
      if (!rhs.full)
        rhs.ap = spreadAP();
      bool psum = x.inPsum || rhs.inPsum;
      Engine e = kb->pick(Opcode::ScalarTensorTensor,
                          psum ? ArrayRef<Engine>{Engine::vector}
                               : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                          np, elems, psum);
      FloatAttr imm0;
      FlatSymbolRefAttr sym0;
      nisa::AccessPatternAttr ap0;
      scalarAttrs(s, imm0, sym0, ap0);
      kb->emit<nisa::ScalarTensorTensorOp>(e, dst.sym, dst.ap, x.sym, x.ap, inner.alu, imm0,
                                           sym0, ap0, op, rhs.sym, rhs.ap, DenseI64ArrayAttr(),
                                           UnitAttr());
      return dst;
    }
  }

  // Two tiles (or two row values, or a row value and an immediate).
  Val a = materialize(ia), c = materialize(ib);
  if (a.isImm && c.isImm)
    a = asTile(a, nodes[ia].type);
  if (a.isImm || c.isImm) {
    bool rev = a.isImm;
    Val t = rev ? c : a, s = rev ? a : c;
    // GpSimdE cannot read PSUM (a matmul epilogue's input).
    Engine e = kb->pick(Opcode::TensorScalar,
                        t.inPsum ? ArrayRef<Engine>{Engine::vector}
                                 : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                        np, elems);
    kb->emit<nisa::TensorScalarOp>(e, dst.sym, dst.ap, t.sym, t.ap, op,
                                   b.getF32FloatAttr(static_cast<float>(s.imm)),
                                   FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                   rev ? b.getUnitAttr() : UnitAttr(), nisa::AluOpAttr(),
                                   FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                   UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    return dst;
  }
  if (full && !a.full)
    a.ap = spreadAP();
  if (full && !c.full)
    c.ap = spreadAP();
  bool psum = a.inPsum || c.inPsum;
  Engine e = kb->pick(Opcode::TensorTensor,
                      psum ? ArrayRef<Engine>{Engine::vector}
                           : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                      np, elems, psum);
  kb->emit<nisa::TensorTensorOp>(e, op, dst.sym, dst.ap, a.sym, a.ap, c.sym, c.ap,
                                 DenseI64ArrayAttr(), UnitAttr());
  return dst;
}

/// Reduces the current chunk of node `r`'s argument into `dst` ([P, 1]).
Val RowKernelImpl::reduceInto(int r, Val dst) {
  const Node &node = nodes[r];
  int x = node.args[0];
  Builder &b = kb->builder();
  const Node &arg = nodes[x];
  // A sum of an activation's result: the activation accumulates it.
  // (Not when a partition holds several rows: the sum is of all its
  // elements.)
  if (node.alu == AluOp::add && arg.kind == NodeKind::Unary && isa<FloatType>(arg.type) &&
      isa<FloatType>(node.type) && !stepVals.count(x) && arg.outputs == 0 && groups == 1) {
    // Users outside this step (a later pass recomputes the value) do not
    // count: a value written for nobody would be a lost write.
    bool othersNeedIt =
        llvm::any_of(arg.users, [&](int u) { return u != r && stepNeeds.contains(u); });
    Val out;
    if (othersNeedIt) {
      out = destFor(x);
    } else {
      if (!junk[1])
        junk[1] = kb->alloc(MemorySpace::sbuf, tileParts(), chunk,
                            b.getF32Type(), "scratch", /*discard=*/true);
      out.sym = junk[1];
      out.ap = kb->tileAP(0, np, 0, nc);
      out.full = true;
      out.type = b.getF32Type();
    }
    // Emit the activation with the accumulator attached.
    Val v = emitUnary(x, out);
    auto act = cast<nisa::ActivationOp>(kb->kernel().getBodyBlock().back());
    act.setAccAttr(dst.sym);
    act.setAccApAttr(dst.ap);
    if (othersNeedIt)
      stepVals[x] = v;
    return dst;
  }
  Val src = materialize(x);
  // Each row's columns: the innermost dim.
  if (groups > 1)
    src.ap = kb->tileAP(0, np, src.ap.getOffset(), {groups, nc}, {nc, 1});
  Engine e = kb->pick(Opcode::TensorReduce,
                      src.inPsum ? ArrayRef<Engine>{Engine::vector}
                                 : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                      np, groups * nc, src.inPsum);
  kb->emit<nisa::TensorReduceOp>(e, node.alu, dst.sym, dst.ap, src.sym, src.ap,
                                 DenseI64ArrayAttr(), UnitAttr());
  return dst;
}

/// One chunk's contribution to reduction `r`: the first chunk writes the
/// accumulator, later ones a partial that is then combined into it.
void RowKernelImpl::accumulateReduce(int r, bool first, bool last) {
  Val acc = rowVal(r);
  if (first) {
    reduceInto(r, acc);
  } else {
    auto key = std::make_pair(r, -1 - rowTile % 2);
    FlatSymbolRefAttr partSym = tiles.lookup(key);
    if (!partSym) {
      partSym = kb->alloc(MemorySpace::sbuf, tileParts(), 1, nodes[r].type, "p");
      tiles[key] = partSym;
    }
    Val part;
    part.sym = partSym;
    part.ap = kb->tileAP(0, np, 0, 1);
    part.type = nodes[r].type;
    reduceInto(r, part);
    Engine e = kb->pick(Opcode::TensorTensor, {Engine::vector, Engine::gpsimd}, np, 1);
    kb->emit<nisa::TensorTensorOp>(e, nodes[r].alu, acc.sym, acc.ap, acc.sym, acc.ap, part.sym,
                                   part.ap, DenseI64ArrayAttr(), UnitAttr());
  }
  if (last)
    rowVals[r] = acc;
}

/// One chunk's bn_stats of Stats node `n` (one triple per bnStatsMaxElements
/// columns),
/// and on the last chunk the bn_aggr that makes (mean, variance).
Val RowKernelImpl::accumulateStats(int n, bool first, bool last) {
  const Node &node = nodes[n];
  kb->setSource(node.source);
  int slot = rowTile % 2;
  int64_t parts = tileParts();
  const int64_t fmax = hw.bnStatsMaxElements;
  int64_t triples = 3 * (llvm::divideCeil(cols, fmax) + llvm::divideCeil(cols, chunk));
  auto key = std::make_pair(n, -5 - slot);
  FlatSymbolRefAttr acc = tiles.lookup(key);
  if (!acc) {
    acc = kb->alloc(MemorySpace::sbuf, parts, triples, node.type, "stats");
    tiles[key] = acc;
  }
  if (first)
    statsCount[n] = 0;
  Val x = materialize(node.args[0]);
  for (int64_t j = 0; j < nc; j += fmax) {
    int64_t len = std::min<int64_t>(fmax, nc - j);
    kb->charge(Engine::vector, kb->estimate(Opcode::BnStats, Engine::vector, np, len));
    kb->emit<nisa::BnStatsOp>(acc, kb->tileAP(0, np, 3 * statsCount[n]++, 3), x.sym,
                              kb->tileAP(0, np, x.ap.getOffset() + j, len), DenseI64ArrayAttr(),
                              UnitAttr());
  }
  Val v;
  v.type = node.type;
  if (!last)
    return v;
  auto rkey = std::make_pair(n, -7 - slot);
  FlatSymbolRefAttr result = tiles.lookup(rkey);
  if (!result) {
    result = kb->alloc(MemorySpace::sbuf, parts, 2, node.type, "meanvar");
    tiles[rkey] = result;
  }
  kb->charge(Engine::vector,
             kb->estimate(Opcode::BnAggr, Engine::vector, np, 3 * statsCount[n]));
  kb->emit<nisa::BnAggrOp>(result, kb->tileAP(0, np, 0, 2), acc,
                           kb->tileAP(0, np, 0, 3 * statsCount[n]), DenseI64ArrayAttr(),
                           UnitAttr());
  v.sym = result;
  v.ap = kb->tileAP(0, np, 0, 2);
  rowVals[n] = v;
  return v;
}

/// The mean (0) or variance (1) column of a Stats node's result.
Val RowKernelImpl::computePart(int n) {
  Val stats = materialize(nodes[n].args[0]);
  stats.ap = kb->tileAP(0, np, static_cast<int64_t>(nodes[n].imm), 1);
  return stats;
}

} // namespace mlir::neuron::lowering
