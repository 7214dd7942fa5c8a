//===- RowKernelSchedule.cpp - The row kernel step schedule ------------===//
//
// Rows are tiled by 128 partitions. Tiles per step and slot, loads through
// each input's view, stores of outputs, and the schedule: loads of the next
// step are issued before the current step computes when there are two
// buffers (double buffering); with one they follow it. Standalone kernels and
// matmul epilogues share it.
//
//===----------------------------------------------------------------------===//

#include "RowKernelImpl.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace mlir::neuron::lowering {

HbmView RowKernelImpl::viewOf(const HbmBuffer &buf, ArrayRef<int64_t> strides, bool withCols) {
  HbmView v;
  v.sym = buf.sym;
  v.elementType = buf.elementType;
  for (size_t i = 0; i < pdims.size(); ++i) {
    v.rowSizes.push_back(pdims[i].size);
    v.rowStrides.push_back(strides[i]);
  }
  if (withCols)
    for (size_t i = 0; i < fdims.size(); ++i) {
      v.colSizes.push_back(fdims[i].size);
      v.colStrides.push_back(strides[pdims.size() + i]);
    }
  return v;
}

FlatSymbolRefAttr RowKernelImpl::tileFor(int n, bool full, int slot) {
  auto key = std::make_pair(n, slot);
  auto it = tiles.find(key);
  if (it != tiles.end())
    return it->second;
  int64_t parts = tileParts();
  FlatSymbolRefAttr sym =
      kb->alloc(MemorySpace::sbuf, parts, full ? chunk * groups : groups, nodes[n].type,
                full ? "t" : "r");
  tiles[key] = sym;
  return sym;
}

Val RowKernelImpl::fullVal(int n, int slot) {
  Val v;
  v.sym = tileFor(n, true, slot);
  v.ap = fullAP();
  v.type = nodes[n].type;
  v.full = true;
  return v;
}

Val RowKernelImpl::rowVal(int n) {
  Val v;
  v.sym = tileFor(n, false, rowTile % rowSlots);
  v.ap = rowAP();
  v.type = nodes[n].type;
  return v;
}

Val RowKernelImpl::destFor(int n) {
  if (!isFull(n))
    return rowVal(n);
  auto it = stepSlot.find(n);
  int slot;
  if (it != stepSlot.end()) {
    slot = it->second;
  } else {
    slot = useCount[n]++ % nbuf;
    stepSlot[n] = slot;
  }
  return fullVal(n, slot);
}


/// Loads input node `n` into `dst` for the current box.
void RowKernelImpl::loadInput(int n, Val dst) {
  const InputInfo &in = inputs[nodes[n].input];
  bool full = isFull(n);
  HbmView view = viewOf(in.buf, in.strides, full);
  // The load is the work of the op that reads the input (not of a constant
  // that happens to come first in the group).
  Operation *reader = nullptr;
  for (int u : nodes[n].users)
    if ((reader = nodes[u].source))
      break;
  if (!reader)
    for (Operation *op : spec.ops)
      if (!isa<ConstantOp, ReshapeOp>(op) && (reader = op))
        break;
  kb->setSource(reader ? reader : spec.ops.front());
  transferBox(/*toTile=*/true, dst.sym, nodes[n].type, view, full);
}

void RowKernelImpl::transferBox(bool toTile, FlatSymbolRefAttr tile, Type type,
                                const HbmView &view, bool full, int64_t tileOffset) {
  if (groups > 1) {
    // Row tile g of the step: rows p0 + g·P.., at free element g·cols.
    for (int64_t g = 0; g < groups; ++g)
      kb->transfer(toTile, tile, type, 0, tileOffset + g * (full ? nc : 1), view, p0 + g * P,
                   np, full ? c0 : 0, full ? nc : 1);
    return;
  }
  for (int64_t s = 0; s < segments; ++s)
    kb->transfer(toTile, tile, type, s * rowsPerSegment, tileOffset, view, p0, rowsPerSegment,
                 full ? c0 + s * segmentCols : 0, elemsOf(full));
}

Val RowKernelImpl::asTile(Val v, Type type) {
  if (!v.isImm)
    return v;
  // An immediate where an instruction needs a tile: a [P, 1] constant,
  // written once for the whole kernel.
  auto key = std::make_pair(v.imm, type.getAsOpaquePointer());
  auto it = constTiles.find(key);
  if (it == constTiles.end()) {
    int64_t parts = tileParts();
    Val t;
    t.sym = kb->alloc(MemorySpace::sbuf, parts, groups, type, "c");
    t.type = type;
    Engine e = kb->pick(Opcode::Memset, {Engine::vector, Engine::gpsimd}, parts, groups);
    kb->emit<nisa::MemsetOp>(e, t.sym, kb->tileAP(0, parts, 0, groups),
                             kb->builder().getF32FloatAttr(v.imm), DenseI64ArrayAttr(),
                             UnitAttr());
    it = constTiles.try_emplace(key, t).first;
  }
  Val t = it->second;
  t.ap = rowAP();
  return t;
}

Val RowKernelImpl::negate(int rowNode) {
  auto it = negated.find(rowNode);
  if (it != negated.end())
    return it->second;
  Val src = materialize(rowNode);
  auto key = std::make_pair(rowNode, -3 - rowTile % 2);
  FlatSymbolRefAttr sym = tiles.lookup(key);
  if (!sym) {
    sym = kb->alloc(MemorySpace::sbuf, tileParts(), groups, nodes[rowNode].type, "n");
    tiles[key] = sym;
  }
  Val dst;
  dst.sym = sym;
  dst.ap = rowAP();
  dst.type = nodes[rowNode].type;
  Engine e = kb->pick(Opcode::TensorScalar,
                      src.inPsum ? ArrayRef<Engine>{Engine::vector}
                                 : ArrayRef<Engine>{Engine::vector, Engine::gpsimd},
                      np, groups);
  Builder &b = kb->builder();
  kb->emit<nisa::TensorScalarOp>(e, dst.sym, dst.ap, src.sym, src.ap, AluOp::multiply,
                                 b.getF32FloatAttr(-1.0f), FlatSymbolRefAttr(),
                                 nisa::AccessPatternAttr(), UnitAttr(), nisa::AluOpAttr(),
                                 FloatAttr(), FlatSymbolRefAttr(), nisa::AccessPatternAttr(),
                                 UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
  return negated[rowNode] = dst;
}

Val RowKernelImpl::materialize(int n) {
  const Node &node = nodes[n];
  if (node.kind == NodeKind::Imm) {
    Val v;
    v.isImm = true;
    v.imm = node.imm;
    v.type = node.type;
    return v;
  }
  if (node.kind == NodeKind::Psum) {
    Val v;
    v.sym = psumTile;
    v.ap = kb->tileAP(0, np, psumOffset, nc);
    v.type = node.type;
    v.full = true;
    v.inPsum = true;
    return v;
  }
  if (isFull(n)) {
    auto it = stepVals.find(n);
    if (it != stepVals.end())
      return it->second;
    auto h = hoisted.find(n);
    if (h != hoisted.end()) {
      Val v = h->second;
      v.ap = fullAP();
      return v;
    }
  } else {
    auto it = rowVals.find(n);
    if (it != rowVals.end())
      return it->second;
    if (spec.psum && node.kind == NodeKind::Input)
      if (std::optional<Val> cached = cachedRowInput(n))
        return rowVals[n] = *cached;
  }
  Val v = computeNode(n);
  if (isFull(n))
    stepVals[n] = v;
  else
    rowVals[n] = v;
  // Row outputs are stored as soon as they exist.
  storeRowOutput(n, v);
  return v;
}

std::optional<Val> RowKernelImpl::cachedRowInput(int n) {
  const InputInfo &in = inputs[nodes[n].input];
  std::vector<int64_t> offsets;
  offsets.reserve(np);
  for (int64_t q = 0; q < np; ++q) {
    int64_t rest = p0 + q % rowsPerSegment, offset = 0;
    for (int i = static_cast<int>(pdims.size()) - 1; i >= 0; --i) {
      offset += rest % pdims[i].size * in.strides[i];
      rest /= pdims[i].size;
    }
    offsets.push_back(offset);
  }
  auto key = std::make_pair(n, std::move(offsets));
  if (auto it = rowInputTiles.find(key); it != rowInputTiles.end())
    return it->second;
  // A bound on what the kernel keeps: SBUF plans leave a quarter of each
  // partition to small tiles like these.
  int64_t bytes = nisa::elementBytes(nodes[n].type);
  if (rowInputTileBytes + bytes > hw.sbufPartitionBytes / 64)
    return std::nullopt;
  rowInputTileBytes += bytes;
  Val v;
  v.sym = kb->alloc(MemorySpace::sbuf, tileParts(), 1, nodes[n].type, "r");
  v.ap = kb->tileAP(0, np, 0, 1);
  v.type = nodes[n].type;
  loadInput(n, v);
  rowInputTiles.emplace(std::move(key), v);
  return v;
}

void RowKernelImpl::storeRowOutput(int n, const Val &v) {
  if (isFull(n) || !nodes[n].outputs || spec.psum || !storedRows.insert(n).second)
    return;
  for (const OutputInfo &o : outputs)
    if (o.node == n) {
      HbmView view = viewOf(o.buf, o.strides, false);
      transferBox(false, v.sym, nodes[n].type, view, /*full=*/false);
    }
}

/// The nodes a step must compute to produce `targets`: streamed passes stop
/// at row values (they exist from earlier passes) and at the finished
/// reductions of earlier passes.
llvm::SetVector<int> RowKernelImpl::neededNodes(ArrayRef<int> targets) {
  llvm::SetVector<int> seen;
  SmallVector<int> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    int n = stack.pop_back_val();
    bool accumulates = nodes[n].kind == NodeKind::Reduce || nodes[n].kind == NodeKind::Stats;
    if (!resident && !isFull(n) && !accumulates)
      continue;
    if (!resident && accumulates && !llvm::is_contained(targets, n))
      continue;
    if (!seen.insert(n))
      continue;
    for (int a : nodes[n].args)
      stack.push_back(a);
  }
  return seen;
}

/// The full inputs a step must load to produce `targets`.
SmallVector<int> RowKernelImpl::neededFull(ArrayRef<int> targets) {
  SmallVector<int> out;
  for (int n : neededNodes(targets))
    if (nodes[n].kind == NodeKind::Input && isFull(n) && !hoisted.count(n))
      out.push_back(n);
  llvm::sort(out);
  return out;
}

void RowKernel::emit(KernelBuilder &kb) { impl->emit(kb); }

void RowKernelImpl::emit(KernelBuilder &builder) {
  kb = &builder;
  // Inputs that do not change from one row tile to the next are loaded once.
  uint64_t pmask = (uint64_t(1) << pdims.size()) - 1;
  int64_t rowTiles = llvm::divideCeil(rows, P * groups);
  struct Step {
    int rowTile;
    int phase;
    int64_t c0, nc;
    SmallVector<int> targets;
    SmallVector<int> loads;
  };
  SmallVector<Step> steps;
  SmallVector<int> fullOutputs, rowOutputs;
  for (const OutputInfo &o : outputs)
    (isFull(o.node) ? fullOutputs : rowOutputs).push_back(o.node);
  p0 = 0;
  np = rowsPerSegment = tileParts();
  c0 = 0;
  nc = chunk;
  if (resident && rowTiles > 1) {
    for (const InputInfo &in : inputs) {
      int n = in.node;
      if (isFull(n) && !(nodes[n].mask & pmask)) {
        Val v;
        v.sym = kb->alloc(MemorySpace::sbuf, np, chunk * groups, nodes[n].type, "w");
        v.ap = kb->tileAP(0, np, 0, chunk * groups);
        v.type = nodes[n].type;
        v.full = true;
        loadInput(n, v);
        hoisted[n] = v;
      }
    }
  }
  for (int64_t rt = 0; rt < rowTiles; ++rt) {
    if (resident) {
      Step s{static_cast<int>(rt), phases - 1, 0, cols, {}, {}};
      for (int o : fullOutputs)
        s.targets.push_back(o);
      for (int o : rowOutputs)
        s.targets.push_back(o);
      steps.push_back(s);
      continue;
    }
    // One pass per level of reductions, then one computing the outputs.
    int reducePasses = 0;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].kind == NodeKind::Reduce || nodes[i].kind == NodeKind::Stats)
        reducePasses = std::max(reducePasses, ready[i]);
    int passes = reducePasses + (fullOutputs.empty() ? 0 : 1);
    for (int ph = 0; ph < passes; ++ph)
      for (int64_t c = 0; c < cols; c += chunk) {
        Step s{static_cast<int>(rt), ph, c, std::min(chunk, cols - c), {}, {}};
        if (ph < reducePasses) {
          for (size_t i = 0; i < nodes.size(); ++i)
            if ((nodes[i].kind == NodeKind::Reduce || nodes[i].kind == NodeKind::Stats) &&
                ready[i] == ph + 1)
              s.targets.push_back(i);
        } else {
          for (int o : fullOutputs)
            s.targets.push_back(o);
        }
        steps.push_back(s);
      }
  }
  for (Step &s : steps)
    s.loads = neededFull(s.targets);
  // Row values (loaded ahead, or stored after their row tile) need as many
  // slots as row tiles in flight.
  rowSlots = resident ? std::max(nbuf, 2) : 2;

  // Inputs with one value per row, loaded with the first step of each row
  // tile (into the row tile's parity slot).
  SmallVector<int> rowInputs;
  for (const InputInfo &in : inputs)
    if (!isFull(in.node) && nodes[in.node].kind == NodeKind::Input)
      rowInputs.push_back(in.node);

  SmallVector<DenseMap<int, Val>> loaded(steps.size()), loadedRows(steps.size());
  auto issueLoads = [&](size_t i) {
    Step &s = steps[i];
    p0 = s.rowTile * P * groups;
    np = rowsPerSegment = std::min<int64_t>(P, rows - p0);
    c0 = s.c0;
    nc = s.nc;
    if (i == 0 || steps[i - 1].rowTile != s.rowTile)
      for (int n : rowInputs) {
        Val v;
        v.sym = tileFor(n, false, s.rowTile % rowSlots);
        v.ap = rowAP();
        v.type = nodes[n].type;
        loadInput(n, v);
        loadedRows[i][n] = v;
      }
    for (int n : s.loads) {
      int slot = useCount[n]++ % nbuf;
      Val v = fullVal(n, slot);
      loadInput(n, v);
      loaded[i][n] = v;
    }
  };
  // With B buffers the loads of steps i+1 .. i+B-1 go to the other ones and
  // are issued before step i computes. With one they would overwrite what
  // step i still reads, so they wait for it.
  size_t ahead = nbuf >= 2 ? nbuf - 1 : 0, issued = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    while (issued <= i + ahead && issued < steps.size())
      issueLoads(issued++);
    Step &s = steps[i];
    p0 = s.rowTile * P * groups;
    np = rowsPerSegment = std::min<int64_t>(P, rows - p0);
    c0 = s.c0;
    nc = s.nc;
    if (i == 0 || steps[i - 1].rowTile != s.rowTile) {
      rowTile = s.rowTile;
      rowVals.clear();
      negated.clear();
      storedRows.clear();
      for (auto &[n, v] : loadedRows[i]) {
        rowVals[n] = v;
        storeRowOutput(n, v); // an input that is also an output
      }
    }
    stepVals = loaded[i];
    stepSlot.clear();
    stepNeeds.clear();
    for (int n : neededNodes(s.targets))
      stepNeeds.insert(n);
    bool lastChunk = s.c0 + s.nc == cols;
    bool firstChunk = s.c0 == 0;
    for (int t : s.targets) {
      if (nodes[t].kind == NodeKind::Reduce && !resident) {
        accumulateReduce(t, firstChunk, lastChunk);
        continue;
      }
      if (nodes[t].kind == NodeKind::Stats && !resident) {
        accumulateStats(t, firstChunk, lastChunk);
        continue;
      }
      Val v = materialize(t);
      if (isFull(t))
        for (const OutputInfo &o : outputs)
          if (o.node == t) {
            Val src = v;
            if (src.isImm)
              src = asTile(src, nodes[t].type);
            HbmView view = viewOf(o.buf, o.strides, true);
            kb->setSource(nodes[t].source ? nodes[t].source : spec.ops.back());
            transferBox(false, src.sym, nodes[t].type, view, /*full=*/true);
          }
    }
    // Row outputs of a streamed kernel exist once its reductions are done.
    bool lastOfRowTile = i + 1 == steps.size() || steps[i + 1].rowTile != s.rowTile;
    if (!resident && lastOfRowTile)
      for (int o : rowOutputs)
        storeRowOutput(o, materialize(o));
  }
}

void RowKernel::emitEpilogue(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                             FlatSymbolRefAttr psum, int64_t psumOffset) {
  impl->emitEpilogue(kb, r0, nr, c0, nc, psum, psumOffset);
}

void RowKernel::emitEpilogueInto(KernelBuilder &kb, int64_t r0, int64_t nr, int64_t c0,
                                 int64_t nc, FlatSymbolRefAttr psum, int64_t psumOffset,
                                 FlatSymbolRefAttr dst, nisa::AccessPatternAttr dstAp) {
  impl->sinkTile = dst;
  impl->sinkAp = dstAp;
  impl->emitEpilogue(kb, r0, nr, c0, nc, psum, psumOffset);
  impl->sinkTile = {};
  impl->sinkAp = {};
}

void RowKernelImpl::emitEpilogue(KernelBuilder &builder, int64_t r0, int64_t nr, int64_t cs,
                                 int64_t ncols, FlatSymbolRefAttr psum, int64_t off) {
  kb = &builder;
  p0 = r0;
  rowsPerSegment = nr;
  np = nr * segments;
  c0 = cs;
  nc = ncols;
  chunk = std::max(chunk, ncols);
  nbuf = epilogueBuffers;
  psumTile = psum;
  psumOffset = off;
  ++rowTile;
  rowVals.clear();
  negated.clear();
  stepVals.clear();
  stepSlot.clear();
  // Inputs first, so their DMA starts before the engines need them.
  SmallVector<int> targets;
  for (const OutputInfo &o : outputs)
    targets.push_back(o.node);
  stepNeeds.clear();
  for (int n : neededNodes(targets))
    stepNeeds.insert(n);
  for (int n : neededFull(targets)) {
    Val v = destFor(n);
    loadInput(n, v);
    stepVals[n] = v;
  }
  // Outputs left on chip (no HBM buffer) first: a value both left on chip
  // and stored is computed into the destination and stored from there (at
  // the destination's offset: the second image of a convolution's tile).
  SmallVector<const OutputInfo *> order;
  for (const OutputInfo &o : outputs)
    if (sinkTile && !o.buf.sym)
      order.push_back(&o);
  for (const OutputInfo &o : outputs)
    if (!sinkTile || o.buf.sym)
      order.push_back(&o);
  for (const OutputInfo *out : order) {
    const OutputInfo &o = *out;
    if (sinkTile && !o.buf.sym) {
      Val dst;
      dst.sym = sinkTile;
      dst.ap = sinkAp;
      dst.type = nodes[o.node].type;
      dst.full = true;
      // Computed straight into the destination when nothing else reads it;
      // else copied there.
      if (nodes[o.node].users.empty() && !stepVals.count(o.node)) {
        stepVals[o.node] = computeNode(o.node, dst);
        continue;
      }
      Val v = materialize(o.node);
      Engine e = kb->pick(Opcode::TensorCopy, {Engine::vector, Engine::gpsimd}, np, nc);
      kb->emit<nisa::TensorCopyOp>(e, dst.sym, dst.ap, v.sym, v.ap, DenseI64ArrayAttr(),
                                   UnitAttr());
      continue;
    }
    Val v = materialize(o.node);
    HbmView view = viewOf(o.buf, o.strides, true);
    // (The destinations that are also stored are contiguous: a conv-chain's
    // blocks; a conv-pool's strided planes store nothing.)
    int64_t at = sinkTile && v.sym == sinkTile ? sinkAp.getOffset() : 0;
    transferBox(false, v.sym, nodes[o.node].type, view, /*full=*/true, at);
  }
}

} // namespace mlir::neuron::lowering
