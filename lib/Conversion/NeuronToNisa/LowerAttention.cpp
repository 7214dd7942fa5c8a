//===- LowerAttention.cpp - neuron.attention, flash-attention style --------===//
//
// softmax(q·kᵀ·scale + mask)·v without the scores or probabilities ever in
// HBM. Per batch and key/value head g, the query rows of g's R heads
// ([R·M, D], contiguous) are cut into row tiles of up to 128; each tile
// walks the keys in blocks of one PSUM bank (512 columns) with an online
// softmax: per block
//   S   = Qᵀ_tileᵀ · Kᵀ_block                      TensorE, PSUM
//   m'  = max(m, rowmax(S)·scale [+ mask])          VectorE
//   P   = exp(S·scale - m') with row sums rs        ScalarE (one activation)
//   l   = l·exp(m - m') + rs
//   O   = O·exp(m - m') + Pᵀᵀ · V_block             TensorE transposes P, then
//                                                   accumulates Pᵀ·V in PSUM
// and at the end O / l is stored. Qᵀ and Kᵀ come from row loads transposed
// on TensorE (never element-strided DMA). K and V of a head group stay in
// SBUF for all its row tiles when they fit (read from HBM once); else each
// block is loaded where it is used. A causal offset skips blocks no row of
// the tile sees and masks the diagonal blocks with GpSimdE's affine_select,
// reading no mask; an additive mask is loaded per block, except a mask that
// is one row per head (a key-padding bias, the same for every query): that
// row rides the QKᵀ contraction as one more partition of Kᵀ (against 1 /
// scale in Qᵀ), loaded once per head with its keys. The scores of the
// next block are computed before the softmax of this one, so TensorE works
// while ScalarE and VectorE do.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "neuronc/Support/Shape.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace {

/// The running max starts here rather than at -inf, so that exp(x - max)
/// of a masked (-inf) score is 0 even while a row has seen only masked keys.
constexpr float kLowestMax = -1.0e30f;

/// Whether every value of `mask` divided by `scale` is exact in `type`, so
/// that TensorE may add it as a row of the contraction in that type: 0 and
/// infinities always are; the values must be known, from constants reached
/// through views, broadcasts and selects between them.
bool biasExactIn(Value mask, Type type, float scale) {
  Operation *def = mask.getDefiningOp();
  if (!def || !isa<FloatType>(type))
    return false;
  if (isa<ReshapeOp, BroadcastToOp>(def))
    return biasExactIn(def->getOperand(0), type, scale);
  if (auto select = dyn_cast<SelectOp>(def))
    return biasExactIn(select.getOnTrue(), type, scale) &&
           biasExactIn(select.getOnFalse(), type, scale);
  auto constant = dyn_cast<ConstantOp>(def);
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : DenseElementsAttr();
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return false;
  const llvm::fltSemantics &sem = cast<FloatType>(type).getFloatSemantics();
  for (APFloat v : dense.getValues<APFloat>()) {
    if (v.isZero() || v.isInfinity())
      continue;
    // Exact in `type` (a subset of f32 here) is exact in the f32 the
    // engine divides in.
    bool lost = false;
    APFloat scaled(v.convertToDouble() / static_cast<double>(scale));
    scaled.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    if (lost)
      return false;
  }
  return true;
}

/// One step of the kernel: the key block `block` of row tile `tile` of head
/// group `group`.
struct Step {
  int64_t group, tile, block;
  bool firstOfGroup, firstOfTile, lastOfTile, full;
  int64_t nth = 0;       ///< its place among its tile's steps (state column parity)
  int64_t ordinal = 0;   ///< its tile's place in the order tiles start (buffer slot)
  bool loadsMask = true; ///< loads its mask block (else it shares the step before's)
  int64_t diag = -1;     ///< the causal pattern a diagonal block adds (-1: selects)
  int64_t maskSlot = 0;  ///< the mask buffer it reads
};

/// A row tile: rows [r0, r0 + rows) of a head group's [R·M] query rows.
struct RowTile {
  int64_t r0, rows;
};

struct AttentionLowering {
  FunctionLowering &fl;
  KernelBuilder &kb;
  AttentionOp op;
  const neuronc::HardwareModel &hw;
  const int64_t P;

  int64_t batches = 1, H = 0, G = 0, R = 0, M = 0, N = 0, D = 0, Dv = 0;
  int64_t dt = 0;  ///< head-dim tiles of the contraction
  int64_t nkt = 0; ///< 128-row tiles of the keys
  int64_t bn = 0;  ///< key columns per block (one PSUM bank)
  int64_t nb = 0;  ///< key blocks
  float scale = 1;
  std::optional<int64_t> causal;
  Type et, f32, outType, maskType;
  HbmBuffer q, k, v, mask, out;
  SmallVector<int64_t> maskStrides; ///< per dim of [batch..., H, M, N]
  bool resident = false;
  bool keyTransposed = false; ///< K given as Kᵀ [D, N]: loaded as is
  int64_t kvCopies = 1;
  SmallVector<RowTile> tiles;
  SmallVector<Step> steps;

  /// Buffers per step (scores, probabilities, streamed K/V) and per row
  /// tile: a step's scores are computed two steps ahead of its output.
  /// The software pipeline: a step's scores are computed kScoresAhead steps,
  /// its softmax kSoftmaxAhead steps and its Pᵀ kTransposeAhead steps before
  /// its output, so that no engine waits on the chain reduce → exp →
  /// transpose → Pᵀ·V of the step it is about to finish.
  static constexpr int64_t kScoresAhead = 3;  // heuristic: pipeline depth
  static constexpr int64_t kSoftmaxAhead = 2; // heuristic: pipeline depth
  static constexpr int64_t kTransposeAhead = 1;
  static constexpr int64_t kRing = kScoresAhead + 1;
  /// State columns per running quantity: one per step in flight in a tile.
  static constexpr int64_t kPhases = kSoftmaxAhead + 1;

  // Tiles.
  SmallVector<FlatSymbolRefAttr> kT, vT, qT, stQ, stK, sPs, tp, oPs, sSb, maskSb, maskScaled, pSb,
      pT, oSb, state, outSb, biasSb;

  /// The mask is divided by the scale once per block (shared by a group's
  /// heads in lockstep), so each head adds it to the raw scores with a
  /// plain add straight from PSUM (VectorE's fast path) and the exp applies
  /// the scale: exp(scale · (S + mask / scale) - max).
  bool prescaleMask() { return maskBlocks() && scale > 0; }
  /// The mask is loaded and added per block (it is not a key bias).
  bool maskBlocks() { return op.getMask() && !keyBias; }
  /// The mask is one row of N per head group (the same for every query row
  /// and every head sharing the group's keys) and the last head-dim tile
  /// has a spare partition at a quadrant start: the row is partition
  /// D % 128 of Kᵀ and Qᵀ's partition there multiplies it by 1 / scale, so
  /// TensorE adds it while it computes the scores (no mask tile per block,
  /// no add, no rescale).
  bool keyBias = false;
  /// Partitions of the last head-dim tile (the bias row sits after them).
  int64_t lastDimRows() const { return D - (dt - 1) * P; }
  int64_t biasSlot = 0;
  int64_t tpSlot = 0;
  /// The next staging tile resident K rows load into: a ring over all
  /// groups, so that a group's K load does not wait for the previous
  /// group's transposes to free the one tile they used.
  int64_t stageSlot = 0;

  AttentionLowering(FunctionLowering &fl, KernelBuilder &kb, AttentionOp op)
      : fl(fl), kb(kb), op(op), hw(fl.pb.hw()), P(hw.partitions) {}

  int64_t e() const { return nisa::elementBytes(et); }

  /// Shapes, the row tiles, K/V residency; false with `why` when it cannot.
  bool plan(std::string &why) {
    auto qType = op.getQuery().getType();
    int64_t rank = qType.getRank();
    for (int64_t d = 0; d + 3 < rank; ++d)
      batches *= qType.getDimSize(d);
    H = qType.getDimSize(rank - 3);
    M = qType.getDimSize(rank - 2);
    D = qType.getDimSize(rank - 1);
    G = op.getKey().getType().getDimSize(rank - 3);
    N = op.getValue().getType().getDimSize(rank - 2);
    keyTransposed = op.getKeyTransposed();
    Dv = op.getValue().getType().getDimSize(rank - 1);
    R = H / G;
    et = qType.getElementType();
    f32 = Builder(op.getContext()).getF32Type();
    outType = op.getType().getElementType();
    scale = op.getScale().convertToFloat();
    causal = op.getCausalOffset();
    if (causal && *causal >= N - 1)
      causal.reset(); // every row sees every key
    if (Dv > hw.psumBankFp32()) {
      why = "the value head dim " + std::to_string(Dv) + " exceeds one PSUM bank (" +
            std::to_string(hw.psumBankFp32()) + " f32)";
      return false;
    }
    dt = llvm::divideCeil(D, P);
    nkt = llvm::divideCeil(N, P);
    bn = std::min<int64_t>(N, hw.psumBankFp32());
    nb = llvm::divideCeil(N, bn);
    if (op.getMask()) {
      auto mt = op.getMask().getType();
      maskType = mt.getElementType();
      SmallVector<int64_t> strides = rowMajorStrides(mt.getShape());
      maskStrides.assign(rank, 0);
      for (int64_t d = 0; d < mt.getRank(); ++d) {
        int64_t sd = rank - mt.getRank() + d;
        maskStrides[sd] = mt.getDimSize(d) == 1 ? 0 : strides[d];
      }
    }
    // One bias row per group's keys: the mask must not vary along the
    // queries, nor between the heads sharing those keys.
    keyBias = op.getMask() && scale > 0 && maskStrides[rank - 2] == 0 &&
              (R == 1 || maskStrides[rank - 3] == 0) && D % P != 0 &&
              (D % P) % hw.partitionQuadrant == 0 &&
              (et.isF32() || biasExactIn(op.getMask(), et, scale));
    planTiles();
    // SBUF per partition: everything but K/V, then K/V resident or streamed.
    int64_t eb = e(), mb = maskBlocks() ? nisa::elementBytes(maskType) : 0;
    int64_t ob = nisa::elementBytes(outType);
    int64_t fixed = tileRing * (dt * P * eb + D * eb + Dv * 4 + kStateColumns * 4 + Dv * ob) +
                    kRing * (bn * 4 + bn * mb + (prescaleMask() ? bn * 4 : 0) + 2 * bn * eb) +
                    static_cast<int64_t>(patterns.size()) * bn * 4 +
                    (keyBias && !biasDirect() ? kRing * bn * nisa::elementBytes(maskType) : 0);
    int64_t budget = hw.sbufPartitionBytes * 85 / 100; // heuristic: room for the allocator
    int64_t kv = dt * N * eb + nkt * Dv * eb;
    int64_t stageK = kRing * kStageTiles() * D * eb;
    int64_t streamed = kRing * (dt * bn * eb + llvm::divideCeil(bn, P) * (Dv + D) * eb);
    // Resident K/V of a group are loaded when its first scores are: up to
    // kScoresAhead steps before the outputs of the previous steps, whose
    // groups' K/V must still be there. kRing copies always keep them apart;
    // two do when every group has kScoresAhead steps or more.
    int64_t groupSteps = static_cast<int64_t>(steps.size()) / std::max<int64_t>(1, batches * G);
    if (fixed + stageK + kRing * kv <= budget) {
      resident = true;
      kvCopies = kRing;
    } else if (groupSteps >= kScoresAhead && fixed + stageK + 2 * kv <= budget) {
      resident = true;
      kvCopies = 2;
    } else if (fixed + streamed > budget) {
      why = "one row tile needs " + std::to_string(fixed + streamed) +
            " bytes per partition of SBUF, over the budget of " + std::to_string(budget) +
            "; the head dims (" + std::to_string(D) + ", " + std::to_string(Dv) + ") are too large";
      return false;
    }
    return true;
  }

  /// 128-row tiles of K loaded by one DMA while K/V are made resident.
  int64_t kStageTiles() const {
    int64_t perBank = hw.psumBankFp32() / P; // the transposes share one PSUM bank
    return std::clamp<int64_t>(kMinRunBytes / std::max<int64_t>(1, D * e()), 1,
                               std::max<int64_t>(1, std::min(perBank, N / P)));
  }
  /// Bytes per partition row from which a load counts as long.
  static constexpr int64_t kMinRunBytes = 2048; // heuristic: DMA run length

  /// Row tiles: the R·M query rows of a group packed 128 at a time; with a
  /// causal offset, a tile holds whole heads starting at quadrant
  /// boundaries (or one head's rows), so each head's rows are an affine
  /// range of partitions for affine_select.
  void planTiles() {
    int64_t rows = R * M;
    int64_t rank = op.getQuery().getType().getRank();
    // The R heads of a group walk the keys in lockstep when they share one
    // mask (it does not vary by head) and each row tile is one head's: a
    // mask block is then loaded once for all R of them.
    lockstep = maskBlocks() && R > 1 && M % P == 0 && maskStrides[rank - 3] == 0;
    if (!causal && !lockstep) {
      for (int64_t r0 = 0; r0 < rows; r0 += P)
        tiles.push_back({r0, std::min(P, rows - r0)});
    } else if (M >= P || M % hw.partitionQuadrant != 0) {
      for (int64_t h = 0; h < R; ++h)
        for (int64_t i0 = 0; i0 < M; i0 += P)
          tiles.push_back({h * M + i0, std::min(P, M - i0)});
    } else {
      int64_t per = P / M;
      for (int64_t h = 0; h < R; h += per)
        tiles.push_back({h * M, std::min(per, R - h) * M});
    }
    // The visible blocks of a tile.
    auto blocksOf = [&](const RowTile &t) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (int64_t r = t.r0; r < t.r0 + t.rows; ++r) {
        lo = std::min(lo, r % M);
        hi = std::max(hi, r % M);
      }
      SmallVector<std::pair<int64_t, bool>> blocks; // (block, full)
      for (int64_t c = 0; c < nb; ++c) {
        int64_t c0 = c * bn, cols = std::min(bn, N - c0);
        if (causal && c0 > hi + *causal)
          break; // no row of the tile sees these keys
        blocks.push_back({c, !causal || c0 + cols - 1 <= lo + *causal});
      }
      return blocks;
    };
    // Sets of tiles that walk the keys together: one head's tile alone, or
    // the same rows of all R heads in lockstep.
    SmallVector<SmallVector<int64_t>> sets;
    int64_t perHead = llvm::divideCeil(M, P);
    if (lockstep) {
      for (int64_t ib = 0; ib < perHead; ++ib) {
        sets.emplace_back();
        for (int64_t h = 0; h < R; ++h)
          sets.back().push_back(h * perHead + ib);
      }
    } else {
      for (int64_t ti = 0; ti < static_cast<int64_t>(tiles.size()); ++ti)
        sets.push_back({ti});
    }
    int64_t masks = 0, started = 0; // mask blocks and row tiles so far
    for (int64_t grp = 0; grp < batches * G; ++grp) {
      bool groupStart = true;
      for (const SmallVector<int64_t> &set : sets) {
        auto blocks = blocksOf(tiles[set.front()]);
        for (auto [bi, block] : llvm::enumerate(blocks))
          for (auto [hi, ti] : llvm::enumerate(set)) {
            Step st{grp,         ti, block.first, groupStart, bi == 0, bi + 1 == blocks.size(),
                    block.second};
            groupStart = false;
            st.nth = static_cast<int64_t>(bi);
            st.ordinal = started + static_cast<int64_t>(hi);
            st.loadsMask = hi == 0;
            st.maskSlot = (st.loadsMask ? masks++ : masks - 1) % kRing;
            steps.push_back(st);
          }
        started += static_cast<int64_t>(set.size());
      }
    }
    tileRing = lockstep ? R + kScoresAhead : kRing;
    // The causal patterns of the diagonal blocks: per head of the tile, its
    // partitions keep key f while constant + p - f >= 0.
    std::map<SmallVector<int64_t>, int64_t> known;
    for (Step &st : steps) {
      if (st.full)
        continue;
      SmallVector<int64_t> key = {std::min(bn, N - st.block * bn)};
      const RowTile &t = tiles[st.tile];
      for (int64_t r = t.r0; r < t.r0 + t.rows;) {
        int64_t head = r / M, end = std::min(t.r0 + t.rows, (head + 1) * M);
        key.append({r - t.r0, end - r, t.r0 - head * M + *causal - st.block * bn});
        r = end;
      }
      auto [it, added] = known.try_emplace(key, static_cast<int64_t>(patterns.size()));
      if (added) {
        if (static_cast<int64_t>(patterns.size()) >= kMaxDiagPatterns) {
          known.erase(it);
          continue; // selects per step
        }
        patterns.push_back(key);
      }
      st.diag = it->second;
    }
  }

  /// Diagonal-block patterns kept in SBUF; blocks beyond select per step.
  static constexpr int64_t kMaxDiagPatterns = 8; // heuristic: SBUF they may take
  /// Each pattern: columns, then (first partition, partitions, constant) per head.
  SmallVector<SmallVector<int64_t>> patterns;
  SmallVector<FlatSymbolRefAttr> diagPatterns;

  /// Builds the causal patterns once, at the start of the kernel (GpSimdE).
  void buildPatterns() {
    OpBuilder &b = kb.builder();
    for (const SmallVector<int64_t> &key : patterns) {
      int64_t cols = key[0];
      FlatSymbolRefAttr tile = kb.alloc(nisa::MemorySpace::sbuf, P, bn, f32, "diag");
      diagPatterns.push_back(tile);
      kb.charge(Engine::gpsimd, kb.estimate(Opcode::Memset, Engine::gpsimd, P, cols));
      kb.emit<nisa::MemsetOp>(Engine::gpsimd, tile, kb.tileAP(0, P, 0, cols),
                              b.getF32FloatAttr(0.0f), DenseI64ArrayAttr(), UnitAttr());
      for (size_t i = 1; i + 2 < key.size() + 1; i += 3) {
        auto ap = kb.tileAP(key[i], key[i + 1], 0, cols);
        kb.charge(Engine::gpsimd,
                  kb.estimate(Opcode::AffineSelect, Engine::gpsimd, key[i + 1], cols));
        kb.emit<nisa::AffineSelectOp>(
            tile, ap, tile, ap, nisa::CmpOpAttr::get(b.getContext(), nisa::CmpOp::ge),
            b.getI64IntegerAttr(key[i + 2]), b.getI64IntegerAttr(1), b.getDenseI64ArrayAttr({-1}),
            b.getF32FloatAttr(-INFINITY), DenseI64ArrayAttr(), UnitAttr());
      }
    }
  }

  bool lockstep = false;
  /// Buffers per row tile (Qᵀ, state, output): the tiles in flight.
  int64_t tileRing = kRing;

  void allocate() {
    auto sb = nisa::MemorySpace::sbuf;
    auto ps = nisa::MemorySpace::psum;
    int64_t dp = std::min(D + (keyBias ? 1 : 0), P);
    for (int64_t i = 0; i < (resident ? kvCopies : kRing); ++i) {
      kT.push_back(kb.alloc(sb, dp, dt * (resident ? N : bn), et, "kT"));
      vT.push_back(
          kb.alloc(sb, std::min(N, P), (resident ? nkt : llvm::divideCeil(bn, P)) * Dv, et, "v"));
    }
    for (int64_t i = 0; i < tileRing; ++i) {
      qT.push_back(kb.alloc(sb, dp, dt * P, et, "qT"));
      stQ.push_back(kb.alloc(sb, P, D, et, "stQ"));
      oSb.push_back(kb.alloc(sb, P, Dv, f32, "oacc"));
      state.push_back(kb.alloc(sb, P, kStateColumns, f32, "st"));
      outSb.push_back(kb.alloc(sb, P, Dv, outType, "ot"));
    }
    for (int i = 0; i < kRing; ++i) {
      stK.push_back(kb.alloc(sb, std::min(N, P),
                             (resident ? kStageTiles() : llvm::divideCeil(bn, P)) * D, et, "stK"));
      sPs.push_back(kb.alloc(ps, P, bn, f32, "s"));
      if (i < 2) {
        tp.push_back(kb.alloc(ps, P, hw.psumBankFp32(), f32, "tp"));
        oPs.push_back(kb.alloc(ps, P, Dv, f32, "o"));
      }
      sSb.push_back(kb.alloc(sb, P, bn, f32, "ssb"));
      if (maskBlocks()) {
        maskSb.push_back(kb.alloc(sb, P, bn, maskType, "mask"));
        if (prescaleMask())
          maskScaled.push_back(kb.alloc(sb, P, bn, f32, "mscaled"));
      }
      if (keyBias && !biasDirect())
        biasSb.push_back(kb.alloc(sb, P, bn, maskType, "bias"));
      pSb.push_back(kb.alloc(sb, P, bn, et, "p"));
      pT.push_back(kb.alloc(sb, std::min(N, P), llvm::divideCeil(bn, P) * P, et, "pT"));
    }
  }

  Engine copyEngine(int64_t parts, int64_t elems) {
    return kb.pick(Opcode::TensorCopy, {Engine::vector, Engine::scalar}, parts, elems, true);
  }
  /// An engine for a small SBUF-only op.
  Engine smallEngine(Opcode o, int64_t parts, int64_t elems) {
    return kb.pick(o, {Engine::vector, Engine::gpsimd}, parts, elems);
  }

  /// dst = src op0 s0 [op1 s1]; s0/s1 are immediates or [P, 1] columns.
  void tensorScalar(Engine eng, FlatSymbolRefAttr dst, nisa::AccessPatternAttr dstAp,
                    FlatSymbolRefAttr src, nisa::AccessPatternAttr srcAp, nisa::AluOp op0,
                    std::optional<float> imm0, FlatSymbolRefAttr s0Sym,
                    nisa::AccessPatternAttr s0Ap, std::optional<nisa::AluOp> op1 = {},
                    FlatSymbolRefAttr s1Sym = {}, nisa::AccessPatternAttr s1Ap = {}) {
    OpBuilder &b = kb.builder();
    kb.emit<nisa::TensorScalarOp>(
        eng, dst, dstAp, src, srcAp, op0, imm0 ? b.getF32FloatAttr(*imm0) : FloatAttr(), s0Sym,
        s0Ap, UnitAttr(), op1 ? nisa::AluOpAttr::get(b.getContext(), *op1) : nisa::AluOpAttr(),
        FloatAttr(), s1Sym, s1Ap, UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
  }

  /// Transposes [rows, cols] of `src` (at free offset c) on TensorE into
  /// PSUM tile `t` at free offset `at`.
  void transpose(FlatSymbolRefAttr t, int64_t at, FlatSymbolRefAttr src, int64_t rows, int64_t c,
                 int64_t cols) {
    kb.charge(Engine::tensor, kb.estimate(Opcode::Transpose, Engine::tensor, rows, cols));
    kb.emit<nisa::TransposeOp>(Engine::tensor, t, kb.tileAP(0, cols, at, rows), src,
                               kb.tileAP(0, rows, c, cols), DenseI64ArrayAttr(), UnitAttr());
  }

  /// Loads rows [n0, n0 + count·128) of a [N, width] head (at `offset`) into
  /// `tile` with key row n0 + t·128 + p on partition p at free t·width.
  void loadKeyRows(const HbmBuffer &buf, int64_t offset, int64_t width, FlatSymbolRefAttr tile,
                   int64_t freeOffset, int64_t n0, int64_t count) {
    HbmView view;
    view.sym = buf.sym;
    view.elementType = et;
    int64_t full = std::min(count, (N - n0) / P);
    if (full > 0) {
      view.offset = offset + n0 * width;
      view.rowSizes = {P};
      view.rowStrides = {width};
      view.colSizes = {full, width};
      view.colStrides = {P * width, 1};
      kb.transfer(true, tile, et, 0, freeOffset, view, 0, P, 0, full * width);
    }
    if (full < count) {
      int64_t r0 = n0 + full * P, rows = std::min(P, N - r0);
      view.offset = offset + r0 * width;
      view.rowSizes = {rows};
      view.rowStrides = {width};
      view.colSizes = {width};
      view.colStrides = {1};
      kb.transfer(true, tile, et, 0, freeOffset + full * width, view, 0, rows, 0, width);
    }
  }

  /// Kᵀ [D, cols] of keys [n0, n0 + cols) into `dst` at free offset `at`
  /// (head-dim tile d at d * stride), through `stage`.
  void loadKeysTransposed(int64_t kOff, int64_t n0, int64_t cols, FlatSymbolRefAttr stage,
                          FlatSymbolRefAttr dst, int64_t at, int64_t stride) {
    if (keyTransposed) {
      HbmView view = HbmView::matrix(k.sym, et, kOff, D, N);
      for (int64_t d = 0; d < dt; ++d)
        kb.transfer(true, dst, et, 0, at + d * stride, view, d * P, std::min(P, D - d * P), n0,
                    cols);
      return;
    }
    int64_t count = llvm::divideCeil(cols, P);
    loadKeyRows(k, kOff, D, stage, 0, n0, count);
    for (int64_t d = 0; d < dt; ++d) {
      int64_t dsz = std::min(P, D - d * P);
      FlatSymbolRefAttr t = tp[tpSlot++ % tp.size()];
      for (int64_t j = 0; j < count; ++j) {
        int64_t rows = std::min(P, N - n0 - j * P);
        transpose(t, j * P, stage, rows, j * D + d * P, dsz);
      }
      kb.emit<nisa::TensorCopyOp>(copyEngine(dsz, cols), dst,
                                  kb.tileAP(0, dsz, at + d * stride, cols), t,
                                  kb.tileAP(0, dsz, 0, cols), DenseI64ArrayAttr(), UnitAttr());
    }
  }

  int64_t qOffset(int64_t grp) const { return (grp / G * H + grp % G * R) * M * D; }
  int64_t kvOffset(int64_t grp, int64_t width) const { return grp * N * width; }

  /// The element offset of group `grp`'s first mask row: its batch index
  /// over the leading dims, then its first head.
  int64_t maskOffset(int64_t grp) {
    int64_t rank = op.getQuery().getType().getRank();
    int64_t b = grp / G, off = 0;
    for (int64_t d = rank - 4; d >= 0; --d) {
      int64_t size = op.getQuery().getType().getDimSize(d);
      off += (b % size) * maskStrides[d];
      b /= size;
    }
    return off + grp % G * R * maskStrides[rank - 3];
  }

  /// The bias row is loaded straight into Kᵀ and Qᵀ's row holds 1 / scale
  /// (f32 keys and mask: TensorE multiplies them as the prescale did);
  /// otherwise it is staged and divided by the scale into the keys' type on
  /// GpSimdE (ScalarE and VectorE run the softmax in order, and would stall
  /// on the row's load), against ones.
  bool biasDirect() { return et.isF32() && maskType == et; }

  /// The key bias of keys [n0, n0 + cols) of group `grp` into partition
  /// lastDimRows() of Kᵀ tile `dst` at free offset `at`.
  void loadKeyBias(int64_t grp, int64_t n0, int64_t cols, FlatSymbolRefAttr dst, int64_t at) {
    int64_t rank = op.getQuery().getType().getRank(), p = lastDimRows();
    HbmView view;
    view.sym = mask.sym;
    view.elementType = maskType;
    view.offset = maskOffset(grp);
    view.rowSizes = {1};
    view.rowStrides = {0};
    view.colSizes = {N};
    view.colStrides = {maskStrides[rank - 1]};
    if (biasDirect()) {
      kb.transfer(true, dst, et, p, at, view, 0, 1, n0, cols);
      return;
    }
    FlatSymbolRefAttr stage = biasSb[biasSlot++ % kRing];
    kb.transfer(true, stage, maskType, p, 0, view, 0, 1, n0, cols);
    kb.charge(Engine::gpsimd, kb.estimate(Opcode::TensorScalar, Engine::gpsimd, 1, cols));
    tensorScalar(Engine::gpsimd, dst, kb.tileAP(p, 1, at, cols), stage, kb.tileAP(p, 1, 0, cols),
                 nisa::AluOp::multiply, 1.0f / scale, {}, {});
  }

  /// Qᵀ's row against the key bias (1 / scale or ones), in every Qᵀ
  /// buffer (the transposes write the partitions before it, never it).
  void buildBiasOnes() {
    float value = biasDirect() ? 1.0f / scale : 1.0f;
    for (FlatSymbolRefAttr t : qT) {
      kb.charge(Engine::gpsimd, kb.estimate(Opcode::Memset, Engine::gpsimd, 1, P));
      kb.emit<nisa::MemsetOp>(Engine::gpsimd, t, kb.tileAP(lastDimRows(), 1, (dt - 1) * P, P),
                              kb.builder().getF32FloatAttr(value), DenseI64ArrayAttr(),
                              UnitAttr());
    }
  }

  /// Makes K and V of group `grp` resident.
  void loadGroupKV(int64_t grp) {
    int64_t slot = grp % kvCopies;
    int64_t kg = kStageTiles();
    for (int64_t t0 = 0; t0 < nkt; t0 += kg) {
      int64_t n0 = t0 * P, cols = std::min(kg * P, N - n0);
      loadKeysTransposed(kvOffset(grp, D), n0, cols, stK[stageSlot++ % kRing], kT[slot], n0, N);
    }
    loadKeyRows(v, kvOffset(grp, Dv), Dv, vT[slot], 0, 0, nkt);
    for (int64_t c0 = 0; keyBias && c0 < N; c0 += bn)
      loadKeyBias(grp, c0, std::min(bn, N - c0), kT[slot], (dt - 1) * N + c0);
  }

  /// Qᵀ of a row tile into qT[slot].
  void loadQuery(int64_t grp, const RowTile &t, int64_t slot) {
    HbmView view = HbmView::matrix(q.sym, et, qOffset(grp), R * M, D);
    kb.transfer(true, stQ[slot], et, 0, 0, view, t.r0, t.rows, 0, D);
    for (int64_t d = 0; d < dt; ++d) {
      int64_t dsz = std::min(P, D - d * P);
      FlatSymbolRefAttr tt = tp[tpSlot++ % tp.size()];
      transpose(tt, 0, stQ[slot], t.rows, d * P, dsz);
      kb.emit<nisa::TensorCopyOp>(copyEngine(dsz, t.rows), qT[slot],
                                  kb.tileAP(0, dsz, d * P, t.rows), tt,
                                  kb.tileAP(0, dsz, 0, t.rows), DenseI64ArrayAttr(), UnitAttr());
    }
  }

  /// The free offset of key column n0 of head-dim tile d in the Kᵀ tile
  /// step `s` reads, and that tile.
  std::pair<FlatSymbolRefAttr, int64_t> keysOf(size_t s, int64_t d) {
    const Step &st = steps[s];
    if (resident)
      return {kT[st.group % kvCopies], d * N + st.block * bn};
    return {kT[s % kRing], d * bn};
  }
  std::pair<FlatSymbolRefAttr, int64_t> valuesOf(size_t s, int64_t j) {
    const Step &st = steps[s];
    if (resident)
      return {vT[st.group % kvCopies], (st.block * bn / P + j) * Dv};
    return {vT[s % kRing], j * Dv};
  }

  /// The scores of step `s` into sPs[s % kRing] (and what they need loaded).
  void emitScores(size_t s) {
    const Step &st = steps[s];
    const RowTile &t = tiles[st.tile];
    int64_t c0 = st.block * bn, cols = std::min(bn, N - c0);
    int64_t tileSlot = steps[s].ordinal % tileRing;
    kb.setSource(op);
    if (st.firstOfGroup && resident)
      loadGroupKV(st.group);
    if (st.firstOfTile)
      loadQuery(st.group, t, tileSlot);
    if (!resident) {
      loadKeysTransposed(kvOffset(st.group, D), c0, cols, stK[s % kRing], kT[s % kRing], 0, bn);
      loadKeyRows(v, kvOffset(st.group, Dv), Dv, vT[s % kRing], 0, c0, llvm::divideCeil(cols, P));
      if (keyBias)
        loadKeyBias(st.group, c0, cols, kT[s % kRing], (dt - 1) * bn);
    }
    if (maskBlocks() && st.loadsMask) {
      HbmView view;
      view.sym = mask.sym;
      view.elementType = maskType;
      int64_t rank = op.getQuery().getType().getRank();
      view.offset = maskOffset(st.group);
      view.rowSizes = {R, M};
      view.rowStrides = {maskStrides[rank - 3], maskStrides[rank - 2]};
      view.colSizes = {N};
      view.colStrides = {maskStrides[rank - 1]};
      kb.transfer(true, maskSb[st.maskSlot], maskType, 0, 0, view, t.r0, t.rows, c0, cols);
      if (prescaleMask()) {
        Engine eng = kb.pick(Opcode::TensorScalar, {Engine::scalar, Engine::gpsimd}, t.rows, cols);
        auto box = kb.tileAP(0, t.rows, 0, cols);
        tensorScalar(eng, maskScaled[st.maskSlot], box, maskSb[st.maskSlot], box,
                     nisa::AluOp::multiply, 1.0f / scale, {}, {});
      }
    }
    bool fp32 = et.isF32();
    for (int64_t d = 0; d < dt; ++d) {
      // The last tile contracts the key bias too.
      int64_t dsz = std::min(P, D - d * P) + (keyBias && d + 1 == dt ? 1 : 0);
      auto [keys, at] = keysOf(s, d);
      kb.charge(Engine::tensor,
                kb.estimate(Opcode::MultiplyMoving, Engine::tensor, dsz, cols, fp32));
      kb.emit<nisa::LoadStationaryOp>(qT[tileSlot], kb.tileAP(0, dsz, d * P, t.rows),
                                      DenseI64ArrayAttr(), UnitAttr());
      kb.emit<nisa::MultiplyMovingOp>(
          sPs[s % kRing], kb.tileAP(0, t.rows, 0, cols), keys, kb.tileAP(0, dsz, at, cols),
          d == 0 ? kb.builder().getUnitAttr() : UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    }
  }

  /// Columns of a row tile's state: -max, the block max, the correction
  /// exp(max_old - max_new) and the block sum (all but the block max one per
  /// phase, so a step's softmax can run ahead of the outputs of the steps
  /// before it), the running sum and its reciprocal.
  enum StateColumn : int64_t {
    kNegMax = 0,
    kBlockMax = kNegMax + kPhases,
    kCorrection = kBlockMax + 1,
    kBlockSum = kCorrection + kPhases,
    kSum = kBlockSum + kPhases,
    kInvSum = kSum + 1,
    kStateColumns = kInvSum + 1
  };

  /// The softmax of step `s`: P = exp(scores·scale - max) with its row sums,
  /// the new max, the correction of what came before, the running sum.
  void emitSoftmax(size_t s) {
    const Step &st = steps[s];
    const RowTile &t = tiles[st.tile];
    int64_t rows = t.rows, c0 = st.block * bn, cols = std::min(bn, N - c0);
    FlatSymbolRefAttr stt = state[steps[s].ordinal % tileRing];
    auto col = [&](int64_t c) { return kb.tileAP(0, rows, c, 1); };
    int64_t cur = st.nth % kPhases, prev = (st.nth + kPhases - 1) % kPhases;
    bool first = st.firstOfTile;
    int64_t slot = s % kRing;
    kb.setSource(op);
    FlatSymbolRefAttr src = sPs[slot];
    float srcScale = scale;
    auto box = kb.tileAP(0, rows, 0, cols);
    if (prescaleMask()) {
      Engine eng = Engine::vector;
      kb.charge(eng, kb.estimate(Opcode::TensorTensor, eng, rows, cols, false, true));
      kb.emit<nisa::TensorTensorOp>(eng, nisa::AluOp::add, sSb[slot], box, src, box,
                                    maskScaled[st.maskSlot], box, DenseI64ArrayAttr(), UnitAttr());
      src = sSb[slot];
    } else if (maskBlocks()) {
      Engine eng = Engine::vector;
      kb.charge(eng, kb.estimate(Opcode::ScalarTensorTensor, eng, rows, cols, false, true));
      kb.emit<nisa::ScalarTensorTensorOp>(
          eng, sSb[slot], box, src, box, nisa::AluOp::multiply, kb.builder().getF32FloatAttr(scale),
          FlatSymbolRefAttr(), nisa::AccessPatternAttr(), nisa::AluOp::add, maskSb[st.maskSlot],
          box, DenseI64ArrayAttr(), UnitAttr());
      src = sSb[slot];
      srcScale = 1;
    }
    // A diagonal block adds its 0 / -inf pattern (built once per distinct
    // pattern) like a mask: one add on VectorE, no copy and select in the
    // step's chain.
    if (!st.full && scale > 0 && st.diag >= 0) {
      Engine eng = Engine::vector;
      bool fromPsum = src == sPs[slot];
      kb.charge(eng, kb.estimate(Opcode::TensorTensor, eng, rows, cols, false, fromPsum));
      kb.emit<nisa::TensorTensorOp>(eng, nisa::AluOp::add, sSb[slot], box, src, box,
                                    diagPatterns[st.diag], box, DenseI64ArrayAttr(), UnitAttr());
      src = sSb[slot];
    } else if (!st.full || scale <= 0) {
      if (src != sSb[slot]) {
        Engine eng =
            kb.pick(Opcode::TensorScalar, {Engine::vector, Engine::scalar}, rows, cols, true);
        tensorScalar(eng, sSb[slot], box, src, box, nisa::AluOp::multiply, scale, {}, {});
        src = sSb[slot];
        srcScale = 1;
      }
      if (!st.full)
        maskCausal(t, c0, cols, sSb[slot]);
    }
    // Block max and the new -max.
    kb.charge(Engine::vector, kb.estimate(Opcode::TensorReduce, Engine::vector, rows, cols, false,
                                          src == sPs[slot]));
    kb.emit<nisa::TensorReduceOp>(Engine::vector, nisa::AluOp::max, stt, col(kBlockMax), src, box,
                                  DenseI64ArrayAttr(), UnitAttr());
    Engine se = smallEngine(Opcode::TensorScalar, rows, 1);
    if (first)
      tensorScalar(se, stt, col(kNegMax + cur), stt, col(kBlockMax), nisa::AluOp::multiply,
                   -srcScale, {}, {});
    else
      tensorScalar(se, stt, col(kNegMax + cur), stt, col(kBlockMax), nisa::AluOp::multiply,
                   -srcScale, {}, {}, nisa::AluOp::min, stt, col(kNegMax + prev));
    OpBuilder &b = kb.builder();
    if (!first) {
      // exp(max_old - max_new) = exp(-1 · (-max_old) + (-max_new))
      kb.emit<nisa::ActivationOp>(nisa::ActFunc::exp, stt, col(kCorrection + cur), stt,
                                  col(kNegMax + prev), b.getF32FloatAttr(-1.0f),
                                  FlatSymbolRefAttr(), nisa::AccessPatternAttr(), FloatAttr(), stt,
                                  col(kNegMax + cur), FlatSymbolRefAttr(),
                                  nisa::AccessPatternAttr(), DenseI64ArrayAttr(), UnitAttr());
      kb.charge(Engine::scalar, kb.estimate(Opcode::Activation, Engine::scalar, rows, 1));
    }
    // P = exp(src · scale - max); its row sums go to the running sum (first
    // block) or the block sum.
    kb.charge(Engine::scalar,
              kb.estimate(Opcode::Activation, Engine::scalar, rows, cols, false, src == sPs[slot]));
    kb.emit<nisa::ActivationOp>(nisa::ActFunc::exp, pSb[slot], box, src, box,
                                srcScale != 1.0f ? b.getF32FloatAttr(srcScale) : FloatAttr(),
                                FlatSymbolRefAttr(), nisa::AccessPatternAttr(), FloatAttr(), stt,
                                col(kNegMax + cur), stt, col(first ? kSum : kBlockSum + cur),
                                DenseI64ArrayAttr(), UnitAttr());
  }

  /// Pᵀ of step `s`: 128-column pieces of P transposed on TensorE into one
  /// PSUM tile and copied out at once.
  void emitTranspose(size_t s) {
    const Step &st = steps[s];
    int64_t rows = tiles[st.tile].rows, c0 = st.block * bn, cols = std::min(bn, N - c0);
    int64_t slot = s % kRing;
    kb.setSource(op);
    int64_t subs = llvm::divideCeil(cols, P);
    FlatSymbolRefAttr tt = tp[tpSlot++ % tp.size()];
    for (int64_t j = 0; j < subs; ++j)
      transpose(tt, j * rows, pSb[slot], rows, j * P, std::min(P, cols - j * P));
    int64_t fullSubs = cols / P;
    if (fullSubs)
      kb.emit<nisa::TensorCopyOp>(
          copyEngine(P, fullSubs * rows), pT[slot], kb.tileAP(0, P, 0, fullSubs * rows), tt,
          kb.tileAP(0, P, 0, fullSubs * rows), DenseI64ArrayAttr(), UnitAttr());
    if (fullSubs < subs) {
      int64_t part = cols - fullSubs * P;
      kb.emit<nisa::TensorCopyOp>(
          copyEngine(part, rows), pT[slot], kb.tileAP(0, part, fullSubs * rows, rows), tt,
          kb.tileAP(0, part, fullSubs * rows, rows), DenseI64ArrayAttr(), UnitAttr());
    }
  }

  /// Pᵀ·V of step `s` into the tile's output accumulator (rescaled by the
  /// step's correction), and at the tile's last step the output O / l.
  void emitOutput(size_t s) {
    const Step &st = steps[s];
    const RowTile &t = tiles[st.tile];
    int64_t rows = t.rows, c0 = st.block * bn, cols = std::min(bn, N - c0);
    int64_t ts = steps[s].ordinal % tileRing, slot = s % kRing;
    int64_t subs = llvm::divideCeil(cols, P);
    FlatSymbolRefAttr stt = state[ts];
    auto col = [&](int64_t c) { return kb.tileAP(0, rows, c, 1); };
    OpBuilder &b = kb.builder();
    kb.setSource(op);
    // O_block = P · V.
    bool fp32 = et.isF32();
    FlatSymbolRefAttr ops = oPs[s % oPs.size()];
    for (int64_t j = 0; j < subs; ++j) {
      int64_t ksz = std::min(P, cols - j * P);
      auto [vals, at] = valuesOf(s, j);
      kb.charge(Engine::tensor, kb.estimate(Opcode::MultiplyMoving, Engine::tensor, ksz, Dv, fp32));
      kb.emit<nisa::LoadStationaryOp>(pT[slot], kb.tileAP(0, ksz, j * rows, rows),
                                      DenseI64ArrayAttr(), UnitAttr());
      kb.emit<nisa::MultiplyMovingOp>(
          ops, kb.tileAP(0, rows, 0, Dv), vals, kb.tileAP(0, ksz, at, Dv),
          j == 0 ? b.getUnitAttr() : UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    }
    auto oBox = kb.tileAP(0, rows, 0, Dv);
    HbmView view = HbmView::matrix(out.sym, outType, qOffset(st.group) / D * Dv, R * M, Dv);
    if (st.firstOfTile && st.lastOfTile) {
      // One block: out = O / l straight from PSUM, one instruction where a
      // copy, a reciprocal and a multiply would be three.
      Engine oe =
          kb.pick(Opcode::TensorScalar, {Engine::vector, Engine::scalar}, rows, Dv, true);
      tensorScalar(oe, outSb[ts], oBox, ops, oBox, nisa::AluOp::divide, {}, stt, col(kSum));
      kb.transfer(false, outSb[ts], outType, 0, 0, view, t.r0, rows, 0, Dv);
      return;
    }
    if (st.firstOfTile) {
      kb.emit<nisa::TensorCopyOp>(copyEngine(rows, Dv), oSb[ts], oBox, ops, oBox,
                                  DenseI64ArrayAttr(), UnitAttr());
    } else {
      kb.charge(Engine::vector,
                kb.estimate(Opcode::ScalarTensorTensor, Engine::vector, rows, Dv, false, true));
      kb.emit<nisa::ScalarTensorTensorOp>(Engine::vector, oSb[ts], oBox, oSb[ts], oBox,
                                          nisa::AluOp::multiply, FloatAttr(), stt,
                                          col(kCorrection + st.nth % kPhases), nisa::AluOp::add,
                                          ops, oBox, DenseI64ArrayAttr(), UnitAttr());
    }
    if (!st.firstOfTile) {
      // The running sum: l = l · correction + this block's sum. Here rather
      // than with the softmax, so the engine doing it never waits on the
      // exp of the step it just handed to ScalarE.
      Engine eng = smallEngine(Opcode::ScalarTensorTensor, rows, 1);
      kb.emit<nisa::ScalarTensorTensorOp>(
          eng, stt, col(kSum), stt, col(kSum), nisa::AluOp::multiply, FloatAttr(), stt,
          col(kCorrection + st.nth % kPhases), nisa::AluOp::add, stt,
          col(kBlockSum + st.nth % kPhases), DenseI64ArrayAttr(), UnitAttr());
    }
    if (!st.lastOfTile)
      return;
    // out = O / l.
    kb.charge(Engine::vector, kb.estimate(Opcode::Reciprocal, Engine::vector, rows, 1));
    kb.emit<nisa::ReciprocalOp>(stt, col(kInvSum), stt, col(kSum), DenseI64ArrayAttr(), UnitAttr());
    Engine oe =
        kb.pick(Opcode::TensorScalar, {Engine::vector, Engine::gpsimd, Engine::scalar}, rows, Dv);
    tensorScalar(oe, outSb[ts], oBox, oSb[ts], oBox, nisa::AluOp::multiply, {}, stt, col(kInvSum));
    kb.transfer(false, outSb[ts], outType, 0, 0, view, t.r0, rows, 0, Dv);
  }

  /// Scores of keys beyond each row's causal limit become -inf: per head in
  /// the tile, partitions of its rows, key column c0 + f is kept while
  /// i + offset - (c0 + f) >= 0, with i = p + r0 - head·M.
  void maskCausal(const RowTile &t, int64_t c0, int64_t cols, FlatSymbolRefAttr tile) {
    for (int64_t r = t.r0; r < t.r0 + t.rows;) {
      int64_t head = r / M, end = std::min(t.r0 + t.rows, (head + 1) * M);
      int64_t p0 = r - t.r0, np = end - r;
      auto ap = kb.tileAP(p0, np, 0, cols);
      kb.charge(Engine::gpsimd, kb.estimate(Opcode::AffineSelect, Engine::gpsimd, np, cols));
      OpBuilder &b = kb.builder();
      kb.emit<nisa::AffineSelectOp>(tile, ap, tile, ap,
                                    nisa::CmpOpAttr::get(b.getContext(), nisa::CmpOp::ge),
                                    b.getI64IntegerAttr(t.r0 - head * M + *causal - c0),
                                    b.getI64IntegerAttr(1), b.getDenseI64ArrayAttr({-1}),
                                    b.getF32FloatAttr(-INFINITY), DenseI64ArrayAttr(), UnitAttr());
      r = end;
    }
  }

  void run() {
    q = fl.bufferOf(op.getQuery());
    k = fl.bufferOf(op.getKey());
    v = fl.bufferOf(op.getValue());
    if (op.getMask())
      mask = fl.bufferOf(op.getMask());
    out = fl.resultBuffer(op.getResult());
    allocate();
    kb.storeQueues = hw.dmaEngines / 4;
    kb.setSource(op);
    if (scale > 0)
      buildPatterns();
    if (keyBias)
      buildBiasOnes();
    // Software pipeline: scores and softmax run ahead of the outputs, so
    // that TensorE, VectorE and ScalarE each have work while the others
    // finish theirs.
    size_t n = steps.size();
    for (size_t s = 0; s < std::min<size_t>(kScoresAhead, n); ++s)
      emitScores(s);
    for (size_t s = 0; s < std::min<size_t>(kSoftmaxAhead, n); ++s)
      emitSoftmax(s);
    for (size_t s = 0; s < std::min<size_t>(kTransposeAhead, n); ++s)
      emitTranspose(s);
    for (size_t s = 0; s < n; ++s) {
      if (s + kScoresAhead < n)
        emitScores(s + kScoresAhead);
      if (s + kSoftmaxAhead < n)
        emitSoftmax(s + kSoftmaxAhead);
      if (s + kTransposeAhead < n)
        emitTranspose(s + kTransposeAhead);
      emitOutput(s);
    }
    kb.program().levelQueues();
  }
};

} // namespace

namespace {

/// An attention whose value head dim is wider than one PSUM bank, as one
/// attention per bank-wide slice of the values joined along that dim: each
/// part recomputes the scores (twice the QKᵀ work for Dv ≤ 1024), but every
/// legal shape lowers. The parts are built next to `op`, lowered, and erased.
LogicalResult lowerWideValueAttention(FunctionLowering &fl, AttentionOp op, int64_t bank) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto vType = op.getValue().getType();
  auto outType = op.getType();
  int64_t rank = vType.getRank(), Dv = vType.getDimSize(rank - 1);
  SmallVector<Operation *> temps;
  SmallVector<Value> parts;
  LogicalResult ok = success();
  for (int64_t c0 = 0; c0 < Dv && succeeded(ok); c0 += bank) {
    int64_t cs = std::min(bank, Dv - c0);
    SmallVector<int64_t> offsets(rank, 0), sizes(vType.getShape()), strides(rank, 1);
    offsets[rank - 1] = c0;
    sizes[rank - 1] = cs;
    auto slice = SliceOp::create(b, loc, vType.clone(sizes), op.getValue(),
                                 b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                                 b.getDenseI64ArrayAttr(strides));
    temps.push_back(slice);
    SmallVector<int64_t> partShape(outType.getShape());
    partShape[rank - 1] = cs;
    auto part = cast<AttentionOp>(b.clone(*op));
    part.getValueMutable().assign(slice);
    part.getResult().setType(outType.clone(partShape));
    temps.push_back(part);
    parts.push_back(part);
    ok = lowerDataMovement(fl, slice);
    if (succeeded(ok))
      ok = lowerAttention(fl, part);
  }
  if (succeeded(ok)) {
    auto concat = ConcatOp::create(b, loc, outType, parts, b.getI64IntegerAttr(rank - 1));
    temps.push_back(concat);
    fl.outputDestinations[concat] = fl.resultBuffer(op.getResult());
    ok = lowerDataMovement(fl, concat);
    fl.setBuffer(op.getResult(), fl.bufferOf(concat));
  }
  fl.eraseTemporaries(temps);
  if (succeeded(ok) && fl.remarks)
    op.emitRemark("lowered as ") << parts.size() << " attention kernels over slices of "
                                 << bank << " value columns (the value head dim " << Dv
                                 << " exceeds one PSUM bank)";
  return ok;
}

} // namespace

LogicalResult mlir::neuron::lowering::lowerAttention(FunctionLowering &fl, AttentionOp op) {
  int64_t bank = fl.pb.hw().psumBankFp32();
  if (op.getValue().getType().getShape().back() > bank)
    return lowerWideValueAttention(fl, op, bank);
  KernelBuilder kb(fl.pb, "attention", op);
  AttentionLowering lowering(fl, kb, op);
  std::string why;
  if (!lowering.plan(why))
    return op.emitError("cannot lower the attention: ") << why;
  lowering.run();
  if (fl.remarks)
    op.emitRemark("lowered as one attention kernel: ")
        << lowering.batches * lowering.G << " head groups x " << lowering.tiles.size()
        << " row tiles x " << lowering.nb << " key blocks of " << lowering.bn << ", "
        << lowering.steps.size() << " steps"
        << (lowering.resident ? ", K/V resident in SBUF" : ", K/V streamed per block")
        << (lowering.lockstep ? ", the group's heads in lockstep over one mask block" : "")
        << (lowering.causal ? ", causal blocks skipped" : "")
        << (lowering.keyBias ? ", the mask added as a key bias row of the scores' contraction"
                             : "");
  return success();
}
