//===- LowerMatmul.cpp - Matmuls on TensorE, blocked for SBUF reuse -------===//
//
// C[M, N] = A[M, K] · B[K, N] per batch. TensorE contracts over partitions:
// the stationary matrix is a [K ≤ 128, M ≤ 128] tile of Aᵀ and the moving
// one a [K ≤ 128, N ≤ 512] tile of B, accumulated in fp32 in one PSUM bank
// over the K tiles.
//
// Blocking: a block of up to G row tiles of C keeps its Aᵀ tiles (all of K)
// in SBUF; for each column tile of C the K moving tiles are loaded once and
// used by all G row tiles. HBM traffic is A once, B once per block, C once.
// G is the largest block whose working set fits SBUF. An operand whose K is
// its innermost (contiguous) dim is loaded row-wise and transposed on
// TensorE (through PSUM) instead of with element-strided DMA. The epilogue
// (the rest of a fused kernel, or the copy out) runs on each PSUM tile as
// soon as its accumulation ends, while TensorE goes on with the next.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RowKernel.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace {

/// The batch offsets (elements) of an operand of rank `rank` (two matrix
/// dims last) broadcast against the result batch dims `batch`.
SmallVector<int64_t> batchOffsets(ArrayRef<int64_t> shape, ArrayRef<int64_t> batch) {
  SmallVector<int64_t> strides = rowMajorStrides(shape);
  int64_t opBatchRank = static_cast<int64_t>(shape.size()) - 2;
  int64_t n = 1;
  for (int64_t s : batch)
    n *= s;
  SmallVector<int64_t> out;
  SmallVector<int64_t> idx(batch.size(), 0);
  for (int64_t b = 0; b < n; ++b) {
    int64_t off = 0;
    for (int64_t d = 0; d < opBatchRank; ++d) {
      int64_t rd = static_cast<int64_t>(batch.size()) - opBatchRank + d;
      if (shape[d] != 1)
        off += idx[rd] * strides[d];
    }
    out.push_back(off);
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      if (++idx[d] < batch[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

struct MatmulLowering {
  FunctionLowering &fl;
  KernelBuilder &kb;
  MatmulOp mm;
  RowKernel &epilogue;
  const neuronc::HardwareModel &hw;
  const int64_t P; ///< partitions: rows of a tile, K rows of one matmul step

  int64_t M, N, K, kt;
  bool transA, transB;
  /// Batches folded into M: B batches of an lhs [B.., M, K] that every batch
  /// multiplies by the same rhs are one [B·M, K] operand (the rows are
  /// contiguous), so the shared rhs is loaded once, not once per batch (1
  /// when nothing was folded).
  int64_t foldedBatches = 1;
  /// Whether this is the program's last kernel (set by run()).
  bool lastKernel = false;
  Type aType, bType, f32;
  /// B's element type in HBM: bType, or a wider float when an --auto-cast
  /// cast was folded into this matmul (the transposed tiles are converted
  /// as they are copied out of PSUM).
  Type bSrcType;
  /// A's element type in HBM (the same for A as bSrcType is for B): its
  /// staged rows are transposed in that type and converted to aType as they
  /// leave PSUM.
  Type aSrcType;
  HbmBuffer a, b;
  int64_t G = 1; ///< row tiles per block
  int64_t nsz = 0;
  bool needAT, needBT;

  // Tiles.
  FlatSymbolRefAttr aT, stageA[2];
  SmallVector<FlatSymbolRefAttr, 4> tp;  ///< PSUM tiles of the TensorE transposes
  SmallVector<FlatSymbolRefAttr, 4> mov; ///< moving tile sets (three when K streams)
  SmallVector<FlatSymbolRefAttr> acc, stageB, aTs;
  int64_t movBase = 0; ///< non-streamed column tiles so far (their mov ring slot)
  int stageSlot = 0, stageBSlot = 0, tpSlot = 0, accSlot = 0;

  MatmulLowering(FunctionLowering &fl, KernelBuilder &kb, MatmulOp mm, RowKernel &epilogue)
      : fl(fl), kb(kb), mm(mm), epilogue(epilogue), hw(fl.pb.hw()), P(hw.partitions) {}

  /// Folds the batches into M when the rhs is shared by every batch and the
  /// lhs is not transposed: [B, M, K] @ [K, N] is [B·M, K] @ [K, N] (the
  /// in-projection of a sequence-first MultiheadAttention: 128 batches of 2
  /// rows read a 3 MiB weight 128 times otherwise).
  void foldSharedRhsBatches() {
    ArrayRef<int64_t> batch = mm.getType().getShape().drop_back(2);
    SmallVector<int64_t> aOffs = batchOffsets(mm.getLhs().getType().getShape(), batch);
    SmallVector<int64_t> bOffs = batchOffsets(mm.getRhs().getType().getShape(), batch);
    if (transA || aOffs.size() < 2)
      return;
    for (size_t i = 0; i < aOffs.size(); ++i)
      if (bOffs[i] != bOffs[0] || aOffs[i] != static_cast<int64_t>(i) * M * K)
        return;
    // Folded, the batches share row blocks: the rhs is read once per block
    // of P rows instead of once per batch, and a batch of a few rows no
    // longer costs a chain of its own loads, transposes and stores (16
    // batches of 2 rows by a 48 KiB weight took 25 us unfolded, MHA's and
    // BERT-tiny's projections 40 % of their programs).
    int64_t batches = static_cast<int64_t>(aOffs.size());
    foldedBatches = batches;
    M *= foldedBatches;
  }

  /// Picks the block size; false when even one row tile does not fit.
  bool plan(std::string &why) {
    auto lt = mm.getLhs().getType(), rt = mm.getRhs().getType();
    transA = mm.getTransposeLhs();
    transB = mm.getTransposeRhs();
    int64_t lr = lt.getRank(), rr = rt.getRank();
    M = transA ? lt.getShape()[lr - 1] : lt.getShape()[lr - 2];
    K = transA ? lt.getShape()[lr - 2] : lt.getShape()[lr - 1];
    N = transB ? rt.getShape()[rr - 2] : rt.getShape()[rr - 1];
    foldSharedRhsBatches();
    kt = llvm::divideCeil(K, P);
    aType = lt.getElementType();
    bType = rt.getElementType();
    f32 = Builder(mm.getContext()).getF32Type();
    needAT = !transA; // A is [M, K]: K innermost, transpose on TensorE
    needBT = transB;  // B is [N, K]
    nsz = std::min<int64_t>(N, hw.psumBankFp32());
    bSrcType = bType;
    if (fl.hasBuffer(mm.getRhs()) && fl.bufferOf(mm.getRhs()).elementType)
      bSrcType = fl.bufferOf(mm.getRhs()).elementType;
    aSrcType = aType;
    if (fl.hasBuffer(mm.getLhs()) && fl.bufferOf(mm.getLhs()).elementType)
      aSrcType = fl.bufferOf(mm.getLhs()).elementType;
    if (aSrcType != aType && !needAT) {
      why = "a folded cast feeds an lhs that is not transposed on TensorE";
      return false;
    }
    convertB = bSrcType != bType && !needBT;
    int64_t ebSrc = nisa::elementBytes(bSrcType);
    // A transposed B loads kg K tiles per DMA, so that its rows are long
    // enough for the DMA to reach its bandwidth, into one of 2 x (row
    // groups of a column tile) stages: a K group loads while the one
    // before it is transposed.
    // A streamed B that is not transposed loads kStreamGroup K tiles per
    // ring slot, so that enough of them are in flight to hide the DMA's
    // latency behind the multiplies.
    kg = needBT ? std::clamp<int64_t>(kMinRunBytes / (P * ebSrc), 1, kt)
                : std::clamp<int64_t>(kStreamGroup, 1, kt);
    // One row tile (decode) streams B and nothing else: its rows are read
    // nsz columns at a time, so column tiles of several PSUM banks (each
    // multiply still fills one bank) make the DMA runs long enough for the
    // queues' bandwidth (512 bf16 columns are 1 KiB runs: 80 % of it).
    if (!needBT && M <= P && N > nsz) {
      int64_t bank = hw.psumBankFp32();
      nsz = std::min<int64_t>(N, llvm::alignTo(kMinRunBytes * 2 / ebSrc, bank));
      std::string wideWhy;
      if (search(wideWhy))
        return true;
      nsz = bank;
    }
    if (!search(why))
      return false;
    // Streaming K, B is read once per row block and each row tile of a
    // block needs its own accumulator: narrower column tiles leave room
    // (PSUM and SBUF) for a larger block, fewer blocks and fewer reads of B
    // (Llama-7B's down projection: 6 blocks of 384 rows at 512 columns).
    int64_t mt = llvm::divideCeil(M, P);
    if (streamK && G < mt && nsz > P) {
      int64_t wideG = G, wideNsz = nsz;
      nsz = std::max<int64_t>(P, nsz / 2);
      std::string narrowWhy;
      if (!search(narrowWhy, /*streamOnly=*/true) || !streamK ||
          llvm::divideCeil(mt, G) >= llvm::divideCeil(mt, wideG)) {
        nsz = wideNsz;
        return search(why); // the wide plan again
      }
    }
    return true;
  }

  /// The block size G and K mode (K streamed only, with `streamOnly`) for
  /// the current column tile width nsz, with the buffers they allow; false
  /// (with `why`) when even one row tile does not fit.
  bool search(std::string &why, bool streamOnly = false) {
    int64_t ea = nisa::elementBytes(aType), eb = nisa::elementBytes(bType);
    int64_t ebSrc = nisa::elementBytes(bSrcType);
    nStageB = needBT ? 2 * llvm::divideCeil(nsz, P) : 0;
    int64_t budget = hw.sbufPartitionBytes * 85 / 100;
    int64_t mt = llvm::divideCeil(M, P);
    // PSUM: two banks for TensorE transposes, the rest for accumulators,
    // counted in whole banks (an accumulator wider than a bank starts one).
    int64_t freeBanks = hw.psumBanks - ((needAT || needBT) ? 2 : 0);
    int64_t slots = hw.psumTilesIn(freeBanks, nsz * 4);
    auto bytes = [&](int64_t g, bool streamK) {
      int64_t mb = std::min<int64_t>(g * P, M);
      int64_t total = kt * mb * ea;                    // Aᵀ block
      total += (streamK ? 3 * kg : 2 * kt) * nsz * eb; // moving tiles
      if (needAT)
        total += 2 * std::min<int64_t>(K, kStage) * nisa::elementBytes(aSrcType); // staged rows of A
      if (needBT)
        total += nStageB * std::min(K, kg * P) * ebSrc; // staged K groups of B
      if (convertB)
        total += 2 * nsz * ebSrc; // a K tile of B as loaded, before its conversion
      total += epilogue.epilogueBytesPerPartition(nsz);
      return total;
    };
    // Prefer all K moving tiles of a column tile in SBUF (each used by the
    // whole block); else stream them one K tile at a time with an
    // accumulator per row tile of the block.
    G = 0;
    aTCopies = 1;
    movCount = 2;
    for (int64_t g = mt; g >= 1 && !G && !streamOnly; --g)
      if (bytes(g, false) <= budget) {
        G = g;
        streamK = false;
        accSlots = std::min<int64_t>(4, slots);
      }
    // Streaming, each row tile of the block needs an accumulator: half the
    // slots double-buffers them, all but two lets a larger block (fewer
    // reads of B) overlap the epilogues of two row tiles with the next
    // column tile's first multiplies.
    int64_t maxStreamG = std::max<int64_t>({1, slots / 2, slots - 2});
    for (int64_t g = std::min<int64_t>(mt, maxStreamG); g >= 1; --g) {
      if (bytes(g, true) > budget)
        continue;
      // Streaming also wins over resident K when its block is larger: B
      // is read once per block (a 1000-row bf16 matmul on trn2 kept K
      // resident in blocks of 128 rows and read B eight times).
      if (!G || llvm::divideCeil(mt, g) < llvm::divideCeil(mt, G)) {
        G = g;
        streamK = true;
        accSlots = std::min<int64_t>(slots, 2 * g);
      }
      break;
    }
    // As many blocks, of equal size: 32 row tiles in blocks of 10 are four
    // blocks with a last one of 2, which drains TensorE's pipeline for a
    // fraction of a block's work; blocks of 8 are four as well.
    if (G) {
      G = llvm::divideCeil(mt, llvm::divideCeil(mt, G));
      if (streamK)
        accSlots = std::min<int64_t>(slots, 2 * G);
    }
    if (!G) {
      // Everything but the stationary block barely depends on K: the K
      // tiles that would fit beside it, with a tenth to spare.
      int64_t perKTile = std::min<int64_t>(P, M) * ea;
      int64_t others = bytes(1, true) - kt * perKTile;
      fitKTiles = std::max<int64_t>(0, (budget - others) / perKTile * 9 / 10);
      tooLong = kt > 1 && fitKTiles >= 1;
      int64_t stationary = kt * std::min<int64_t>(P, M) * ea;
      why = "one block of " + std::to_string(P) + " rows needs " + std::to_string(bytes(1, true)) +
            " bytes per partition of SBUF (the " + std::to_string(kt) +
            " K tiles of its stationary matrix alone take " + std::to_string(stationary) +
            "), over the budget of " + std::to_string(budget) + " of " +
            std::to_string(hw.sbufPartitionBytes) + " on " + hw.name.str() +
            "; split the contraction (K = " + std::to_string(K) + ") in the model";
      return false;
    }
    if (accSlots < 1 || (streamK && accSlots < G)) {
      why = "the matmul's accumulators do not fit PSUM";
      return false;
    }
    if (needAT || needBT)
      tpSlots = std::min<int64_t>(kMaxRing,
                                  2 + freeBanks - hw.psumBanksFor(nsz * 4, accSlots));
    // With several blocks (batches, row blocks), more Aᵀ buffers and moving
    // tiles let the next blocks' operands load while this one multiplies:
    // small blocks (attention heads) are each too short to hide a DMA's
    // start latency, so up to kMaxRing are in flight where SBUF allows.
    int64_t blocks = llvm::divideCeil(M, G * P) * mm.getType().getNumElements() / (M * N);
    int64_t aTBytes = kt * std::min<int64_t>(G * P, M) * ea;
    int64_t movBytes = (streamK ? kg : kt) * nsz * eb;
    while (blocks > aTCopies && aTCopies < kMaxRing &&
           bytes(G, streamK) + aTCopies * aTBytes + (streamK ? 0 : (movCount - 1) * movBytes) <=
               budget) {
      ++aTCopies;
      if (!streamK && movCount < kMaxRing)
        ++movCount;
    }
    // A K-resident B of up to kMaxRing column tiles loads as fast as the
    // queues deliver it when each column tile has a buffer of its own: with
    // two, the third waits for the first one's multiplies, and those for
    // Aᵀ (an attention's 512x1536 in-projection took 4 us more). Not for a
    // wider B: its extra buffers' loads, all movable, went into the kernels
    // before (nisa-prefetch-loads) and held their stores back (BERT-base
    // on trn2, +24 %).
    int64_t nts = llvm::divideCeil(N, nsz);
    if (!streamK && nts > movCount && nts <= kMaxRing &&
        bytes(G, streamK) + (aTCopies - 1) * aTBytes + (nts - 2) * movBytes <= budget)
      movCount = std::max(movCount, nts);
    // The epilogue's tiles: kMaxRing of each where SBUF allows, so that a
    // store-heavy epilogue (one multiply per output tile) keeps that many
    // stores in flight, not two.
    int64_t used = bytes(G, streamK) + (aTCopies - 1) * aTBytes +
                   (streamK ? 0 : (movCount - 2) * movBytes);
    int64_t more = epilogue.epilogueBytesPerPartition(nsz, kMaxRing) -
                   epilogue.epilogueBytesPerPartition(nsz);
    epilogueBuffers = used + more <= budget ? kMaxRing : 2;
    // A result of a few tiles keeps each in its own buffer: none is
    // overwritten before the kernel ends, so the kernels after it can read
    // them from SBUF (nisa-forward-stores; an in-projection's q, k and v
    // tiles, which its attention reads partition for partition).
    int64_t outTiles = llvm::divideCeil(M, P) * llvm::divideCeil(N, nsz) *
                       (mm.getType().getNumElements() / (M * N));
    if (internalResult && epilogueBuffers == kMaxRing && outTiles > kMaxRing &&
        outTiles <= kMaxResultTiles &&
        used + epilogue.epilogueBytesPerPartition(nsz, static_cast<int>(outTiles)) -
                epilogue.epilogueBytesPerPartition(nsz) <=
            budget)
      epilogueBuffers = static_cast<int>(outTiles);
    return true;
  }

  int epilogueBuffers = 2; ///< tiles per epilogue value (RowKernel::setEpilogueBuffers)
  /// Every result goes to an internal tensor a later kernel reads (none is
  /// a program output).
  bool internalResult = false;
  /// The plan failed for want of SBUF with K longer than one tile: halving
  /// the contraction would help.
  bool tooLong = false;
  int64_t fitKTiles = 0; ///< with tooLong: the K tiles one piece may have

  bool streamK = false;
  int64_t accSlots = 4;
  /// PSUM banks for transposes: two, and the banks the accumulators leave
  /// free up to four, so TensorE can transpose ahead of the copies out.
  int64_t tpSlots = 2;
  int64_t aTCopies = 1; ///< Aᵀ buffers, used by blocks in turn
  int64_t movCount = 2; ///< K-resident moving tile sets, used by column tiles in turn
  /// heuristic: the deepest ring of Aᵀ, moving and transpose buffers.
  static constexpr int64_t kMaxRing = 4;
  /// heuristic: a result of up to this many output tiles keeps them all.
  static constexpr int64_t kMaxResultTiles = 16;
  int64_t kg = 1;      ///< K tiles per streamed load of a transposed B
  int64_t nStageB = 0; ///< stages of a transposed B
  /// B is not transposed and a cast was folded into it: each K tile loads
  /// into one of two stageB tiles of bSrcType and is converted into place.
  bool convertB = false;

  /// K tiles per load of a streamed B that is not transposed.
  static constexpr int64_t kStreamGroup = 4; // heuristic: DMA latency / multiply time
  /// Rows of A (or B) staged per transfer when they are transposed.
  static constexpr int64_t kStage = 2048; // heuristic: SBUF left for the Aᵀ block
  /// Contiguous bytes per partition row from which a transposed operand's
  /// staged loads count as long (the DMA guide's "2 KiB minimum").
  static constexpr int64_t kMinRunBytes = 2048; // heuristic: DMA run length

  void allocate() {
    int64_t mb = std::min<int64_t>(G * P, M);
    for (int64_t i = 0; i < aTCopies; ++i)
      aTs.push_back(
          kb.alloc(nisa::MemorySpace::sbuf, std::min<int64_t>(K, P), kt * mb, aType, "aT"));
    for (int64_t i = 0; i < (streamK ? 3 : movCount); ++i)
      mov.push_back(kb.alloc(nisa::MemorySpace::sbuf, std::min<int64_t>(K, P),
                             (streamK ? kg : kt) * nsz, bType, "mov"));
    for (int i = 0; i < 2; ++i) {
      if (needAT)
        stageA[i] = kb.alloc(nisa::MemorySpace::sbuf, std::min<int64_t>(M, P),
                             std::min<int64_t>(K, kStage), aSrcType, "stA");
    }
    for (int64_t i = 0; (needAT || needBT) && i < tpSlots; ++i)
      tp.push_back(kb.alloc(nisa::MemorySpace::psum, P, hw.psumBankFp32(), f32, "tp"));
    for (int i = 0; convertB && i < 2; ++i)
      stageB.push_back(kb.alloc(nisa::MemorySpace::sbuf, std::min<int64_t>(K, P), nsz, bSrcType,
                                "stB"));
    for (int64_t i = 0; needBT && i < nStageB; ++i)
      stageB.push_back(kb.alloc(nisa::MemorySpace::sbuf, std::min<int64_t>(N, P),
                                std::min(K, kg * P), bSrcType, "stB"));
    for (int64_t i = 0; i < accSlots; ++i)
      acc.push_back(kb.alloc(nisa::MemorySpace::psum, std::min<int64_t>(M, P), nsz, f32, "acc"));
  }

  /// Multiplies the loaded stationary rows (msz of them, ksz deep) by
  /// columns [movOffset, movOffset + ns) of `moving` into `accum`, one PSUM
  /// bank of columns per instruction.
  void multiply(FlatSymbolRefAttr accum, int64_t msz, FlatSymbolRefAttr moving, int64_t ksz,
                int64_t movOffset, int64_t ns, bool first, bool fp32) {
    int64_t bank = hw.psumBankFp32();
    for (int64_t c = 0; c < ns; c += bank) {
      int64_t cs = std::min(bank, ns - c);
      kb.charge(Engine::tensor, kb.estimate(Opcode::MultiplyMoving, Engine::tensor, ksz, cs, fp32));
      kb.emit<nisa::MultiplyMovingOp>(accum, kb.tileAP(0, msz, c, cs), moving,
                                      kb.tileAP(0, ksz, movOffset + c, cs),
                                      first ? kb.builder().getUnitAttr() : UnitAttr(),
                                      DenseI64ArrayAttr(), UnitAttr());
    }
  }

  Engine copyEngine(int64_t parts, int64_t elems) {
    return kb.pick(Opcode::TensorCopy, {Engine::vector, Engine::scalar}, parts, elems, true);
  }

  /// Transposes `rows` x `cols` of `stage` (rows on partitions, starting at
  /// column `c`) on TensorE into PSUM and copies it to `dst` at `dstOffset`:
  /// cols on partitions, rows along the free axis.
  void transposeInto(FlatSymbolRefAttr stage, int64_t rows, int64_t c, int64_t cols,
                     FlatSymbolRefAttr dst, int64_t dstOffset) {
    FlatSymbolRefAttr t = tp[tpSlot++ % tp.size()];
    kb.charge(Engine::tensor, kb.estimate(Opcode::Transpose, Engine::tensor, rows, cols));
    kb.emit<nisa::TransposeOp>(Engine::tensor, t, kb.tileAP(0, cols, 0, rows), stage,
                               kb.tileAP(0, rows, c, cols), DenseI64ArrayAttr(), UnitAttr());
    Engine e = copyEngine(cols, rows);
    kb.emit<nisa::TensorCopyOp>(e, dst, kb.tileAP(0, cols, dstOffset, rows), t,
                                kb.tileAP(0, cols, 0, rows), DenseI64ArrayAttr(), UnitAttr());
  }

  /// Fills Aᵀ for rows [m0, m0 + mb) of batch `b` (A at element `aOff`).
  /// With `onlyRows` >= 0 (A is [M, K]) only the row tile starting at row
  /// onlyRows of the block: the first column tile multiplies each row tile
  /// as soon as its Aᵀ is in, while the next row tile's rows load, instead
  /// of TensorE transposing the whole block first.
  void loadStationary(int64_t aOff, int64_t m0, int64_t mb, int64_t onlyRows = -1) {
    int64_t lastDim = transA ? M : K;
    HbmView view;
    view.sym = a.sym;
    view.elementType = aSrcType;
    view.offset = aOff;
    if (!needAT) {
      // A is [K, M]: rows k on partitions, columns m.
      for (int64_t k = 0; k < kt; ++k) {
        int64_t k0 = k * P, ksz = std::min<int64_t>(P, K - k0);
        view.rowSizes = {K};
        view.rowStrides = {lastDim};
        view.colSizes = {M};
        view.colStrides = {1};
        kb.transfer(true, aT, aType, 0, k * mb, view, k0, ksz, m0, mb);
      }
      return;
    }
    // A is [M, K]: load 128 rows at a time and transpose each [m, k] block.
    view.rowSizes = {M};
    view.rowStrides = {K};
    view.colSizes = {K};
    view.colStrides = {1};
    for (int64_t j = 0; j < mb; j += P) {
      if (onlyRows >= 0 && j != onlyRows)
        continue;
      int64_t msz = std::min<int64_t>(P, mb - j);
      for (int64_t ks = 0; ks < K; ks += kStage) {
        int64_t kc = std::min<int64_t>(kStage, K - ks);
        FlatSymbolRefAttr st = stageA[stageSlot++ % 2];
        kb.fineLoads = !kb.coarsePieces;
        kb.transfer(true, st, aSrcType, 0, 0, view, m0 + j, msz, ks, kc);
        kb.fineLoads = false;
        for (int64_t k0 = ks; k0 < ks + kc; k0 += P) {
          int64_t ksz = std::min<int64_t>(P, K - k0);
          transposeInto(st, msz, k0 - ks, ksz, aT, (k0 / P) * mb + j);
        }
      }
    }
  }

  /// Loads the moving tile(s) of columns [n0, n0 + ns) into `tile`: all K
  /// tiles, or only K group `only` (kg tiles from K tile only * kg), at the
  /// start of `tile` when `streamed`, else at their place among all K tiles.
  void loadMoving(FlatSymbolRefAttr tile, int64_t bOff, int64_t n0, int64_t ns, int64_t only = -1,
                  bool streamed = true) {
    kb.weightPieces = true;
    auto done = llvm::make_scope_exit([&] { kb.weightPieces = false; });
    HbmView view;
    view.sym = b.sym;
    view.elementType = bSrcType;
    view.offset = bOff;
    if (!needBT) {
      // B is [K, N].
      view.rowSizes = {K};
      view.rowStrides = {N};
      view.colSizes = {N};
      view.colStrides = {1};
      for (int64_t k = 0; k < kt; ++k) {
        if (only >= 0 && k / kg != only)
          continue;
        int64_t k0 = k * P, ksz = std::min<int64_t>(P, K - k0);
        int64_t at = (only >= 0 ? k % kg : k) * nsz;
        if (!convertB) {
          kb.transfer(true, tile, bType, 0, at, view, k0, ksz, n0, ns);
          continue;
        }
        // A folded cast: the K tile loads wide and is converted into place.
        FlatSymbolRefAttr st = stageB[stageBSlot++ % stageB.size()];
        kb.transfer(true, st, bSrcType, 0, 0, view, k0, ksz, n0, ns);
        kb.emit<nisa::TensorCopyOp>(
            kb.pick(Opcode::TensorCopy, {Engine::vector, Engine::gpsimd}, ksz, ns), tile,
            kb.tileAP(0, ksz, at, ns), st, kb.tileAP(0, ksz, 0, ns), DenseI64ArrayAttr(),
            UnitAttr());
      }
      return;
    }
    // B is [N, K]: load its rows and transpose.
    view.rowSizes = {N};
    view.rowStrides = {K};
    view.colSizes = {K};
    view.colStrides = {1};
    // Per K group of kg tiles: its rows of every row group of the column
    // tile (2 KiB or more per row), then per K tile all row groups' blocks
    // into one PSUM tile and out in one contiguous copy, so the copy
    // engine's fixed costs are paid per K tile, not per 128 x 128 block.
    // Streamed, the group's tiles go to the start of `tile`; else to their
    // place among all K tiles.
    int64_t groups = llvm::divideCeil(kt, kg);
    for (int64_t g = only >= 0 ? only : 0; g < (only >= 0 ? only + 1 : groups); ++g) {
      int64_t g0 = g * kg * P, gsz = std::min<int64_t>(kg * P, K - g0);
      int64_t dstK = only >= 0 && streamed ? 0 : g * kg;
      SmallVector<FlatSymbolRefAttr> stages;
      for (int64_t j = 0; j < ns; j += P) {
        stages.push_back(stageB[stageBSlot++ % stageB.size()]);
        kb.transfer(true, stages.back(), bSrcType, 0, 0, view, n0 + j, std::min<int64_t>(P, ns - j),
                    g0, gsz);
      }
      for (int64_t k0 = 0; k0 < gsz; k0 += P) {
        int64_t ksz = std::min<int64_t>(P, gsz - k0);
        FlatSymbolRefAttr t = tp[tpSlot++ % tp.size()];
        for (int64_t j = 0; j < ns; j += P) {
          int64_t rows = std::min<int64_t>(P, ns - j);
          kb.charge(Engine::tensor, kb.estimate(Opcode::Transpose, Engine::tensor, rows, ksz));
          kb.emit<nisa::TransposeOp>(Engine::tensor, t, kb.tileAP(0, ksz, j, rows), stages[j / P],
                                     kb.tileAP(0, rows, k0, ksz), DenseI64ArrayAttr(), UnitAttr());
        }
        kb.emit<nisa::TensorCopyOp>(copyEngine(ksz, ns), tile,
                                    kb.tileAP(0, ksz, (dstK + k0 / P) * nsz, ns), t,
                                    kb.tileAP(0, ksz, 0, ns), DenseI64ArrayAttr(), UnitAttr());
      }
    }
  }

  /// One block with K streamed: for each column tile, K tiles one at a
  /// time (the next ones loading while this one multiplies), each used by
  /// every row tile of the block, which all accumulate at once.
  /// `lastBlock`: the program's last kernel's last row block.
  void runStreamed(size_t bi, int64_t bOff, int64_t m0, int64_t mb, int64_t nts, bool fp32,
                   bool lastBlock) {
    // K in groups of kg tiles, numbered across the column tiles (group q
    // uses ring slot q). A B that is only loaded runs `ahead` groups ahead
    // of the multiplies, across column tiles too, so the DMA's latency
    // never reaches TensorE; a transposed B also puts its transposes in
    // TensorE's in-order stream, so it loads one group ahead only.
    int64_t groups = llvm::divideCeil(kt, kg);
    int64_t total = nts * groups;
    int64_t ahead = needBT ? 1 : static_cast<int64_t>(mov.size()) - 1;
    int64_t issued = 0;
    auto loadUpTo = [&](int64_t q) {
      for (; issued <= std::min(q, total - 1); ++issued) {
        int64_t t = issued / groups, n0 = t * nsz;
        kb.setSource(mm);
        loadMoving(mov[issued % mov.size()], bOff, n0, std::min(nsz, N - n0), issued % groups);
      }
    };
    for (int64_t t = 0; t < nts; ++t) {
      int64_t n0 = t * nsz, ns = std::min(nsz, N - n0);
      SmallVector<FlatSymbolRefAttr> accs;
      for (int64_t j = 0; j < mb; j += P)
        accs.push_back(acc[accSlot++ % accSlots]);
      for (int64_t k = 0; k < kt; ++k) {
        int64_t q = t * groups + k / kg;
        if (k % kg == 0)
          loadUpTo(q + ahead);
        FlatSymbolRefAttr moving = mov[q % mov.size()];
        int64_t movOffset = (k % kg) * nsz;
        int64_t ksz = std::min<int64_t>(P, K - k * P);
        kb.setSource(mm);
        for (int64_t j = 0; j < mb; j += P) {
          int64_t msz = std::min<int64_t>(P, mb - j);
          kb.emit<nisa::LoadStationaryOp>(aT, kb.tileAP(0, ksz, k * mb + j, msz),
                                          DenseI64ArrayAttr(), UnitAttr());
          multiply(accs[j / P], msz, moving, ksz, movOffset, ns, k == 0, fp32);
        }
      }
      kb.tailStores = lastBlock && t + 1 == nts;
      for (int64_t j = 0; j < mb; j += P)
        epilogue.emitEpilogue(kb, static_cast<int64_t>(bi) * M + m0 + j,
                              std::min<int64_t>(P, mb - j), n0, ns, accs[j / P], 0);
      kb.tailStores = false;
    }
  }

  /// Bytes the kernel stores (its outputs), set before run().
  double storeBytes = 0;

  void run() {
    auto rt = mm.getType();
    ArrayRef<int64_t> batch = rt.getShape().drop_back(2);
    SmallVector<int64_t> aOffs = batchOffsets(mm.getLhs().getType().getShape(), batch);
    SmallVector<int64_t> bOffs = batchOffsets(mm.getRhs().getType().getShape(), batch);
    if (foldedBatches > 1) {
      aOffs.assign(1, 0);
      bOffs.resize(1);
    }
    lastKernel = FunctionLowering::endsProgram(mm);
    a = fl.bufferOf(mm.getLhs());
    b = fl.bufferOf(mm.getRhs());
    allocate();
    epilogue.setEpilogueBuffers(epilogueBuffers);
    // Staged operands prefetch through the queues while TensorE works; with
    // several row tiles (TensorE-heavy, many result stores) the stores,
    // each waiting for its epilogue, get queues of their own so that they
    // never stall a prefetch: their share of the kernel's bytes, at least a
    // quarter and at most three quarters of the queues (a 4096x128x4096
    // product stores 16x what it loads: on a quarter of the queues its
    // stores took 5.6x its bound). A single row tile streams B and needs
    // every queue for it.
    int64_t batches = mm.getType().getNumElements() / (M * N);
    double loads = static_cast<double>(batches) *
                   (M * K * nisa::elementBytes(aSrcType) +
                    llvm::divideCeil(M, G * P) * K * N * nisa::elementBytes(bSrcType));
    loads += static_cast<double>(epilogue.inputBytes()); // e.g. a residual
    // A big stream is throughput-bound: finer pieces would only add issue
    // time (the 4096^3 bf16 product, 160 MiB, lost 0.6 % with them; a
    // 40 KiB MLP gained 22 %; a 1 x 1536 x 262144 LM head streaming its
    // weight in 256 KiB groups lost 4.6 % in 16 pieces each).
    kb.coarsePieces = loads + storeBytes >= 32.0 * hw.dmaEngines * hw.dmaEfficientBytes;
    if ((needAT || needBT) && M > P) {
      double share = storeBytes / std::max(1.0, storeBytes + loads);
      kb.shareQueues(loads, storeBytes);
      // Mostly stores: each output tile's store in pieces of half the
      // efficient size, over more queues, frees its buffer sooner (the
      // 4096x128x4096 product: 522 -> see docs/lowering.md).
      if (share > 0.5)
        kb.storePieceBytes = hw.dmaEfficientBytes / 2;
    }
    bool fp32 = aType.isF32() || bType.isF32();
    int64_t nts = (N + nsz - 1) / nsz;
    int64_t block = 0;
    for (size_t bi = 0; bi < aOffs.size(); ++bi) {
      for (int64_t m0 = 0; m0 < M; m0 += G * P) {
        int64_t mb = std::min<int64_t>(G * P, M - m0);
        aT = aTs[block++ % aTs.size()];
        kb.setSource(mm);
        // Resident K with A transposed on TensorE: each row tile's Aᵀ is
        // made just before its first multiplies (below).
        bool perRowTile = needAT && !streamK;
        if (!perRowTile)
          loadStationary(aOffs[bi], m0, mb);
        bool lastBlock = lastKernel && bi + 1 == aOffs.size() && m0 + mb >= M;
        if (streamK) {
          runStreamed(bi, bOffs[bi], m0, mb, nts, fp32, lastBlock);
          continue;
        }
        // Moving tiles of column tile t+1 load while column tile t
        // multiplies. A transposed B loads (and transposes on TensorE) one
        // K group at a time, spread over the multiplies of column tile t,
        // so TensorE, in program order, never waits for a whole column
        // tile's loads before it multiplies.
        int64_t groups = needBT ? llvm::divideCeil(kt, kg) : 1;
        auto load = [&](int64_t t, int64_t g) {
          kb.setSource(mm);
          loadMoving(mov[(movBase + t) % mov.size()], bOffs[bi], t * nsz,
                     std::min(nsz, N - t * nsz), needBT ? g : -1, /*streamed=*/false);
        };
        for (int64_t g = 0; g < groups; ++g)
          load(0, g);
        int64_t steps = llvm::divideCeil(mb, P) * kt;
        for (int64_t t = 0; t < nts; ++t) {
          int64_t next = 0, step = 0;
          auto loadAhead = [&](int64_t upTo) {
            while (t + 1 < nts && next < groups && next * steps <= upTo * groups)
              load(t + 1, next++);
          };
          int64_t n0 = t * nsz, ns = std::min(nsz, N - n0);
          FlatSymbolRefAttr moving = mov[(movBase + t) % mov.size()];
          for (int64_t j = 0; j < mb; j += P) {
            int64_t msz = std::min<int64_t>(P, mb - j);
            FlatSymbolRefAttr accum = acc[accSlot++ % accSlots];
            kb.setSource(mm);
            if (perRowTile && t == 0)
              loadStationary(aOffs[bi], m0, mb, j);
            for (int64_t k = 0; k < kt; ++k) {
              loadAhead(step++);
              kb.setSource(mm);
              int64_t ksz = std::min<int64_t>(P, K - k * P);
              kb.emit<nisa::LoadStationaryOp>(aT, kb.tileAP(0, ksz, k * mb + j, msz),
                                              DenseI64ArrayAttr(), UnitAttr());
              multiply(accum, msz, moving, ksz, k * nsz, ns, k == 0, fp32);
            }
            kb.tailStores = lastBlock && t + 1 == nts && j + P >= mb;
            epilogue.emitEpilogue(kb, static_cast<int64_t>(bi) * M + m0 + j, msz, n0, ns, accum, 0);
            kb.tailStores = false;
          }
          loadAhead(steps);
        }
        movBase += nts;
      }
    }
    if (kb.storeQueues)
      kb.program().levelQueues();
  }
};

/// A matmul whose stationary block does not fit SBUF even for one row tile
/// (a contraction of tens of thousands) as matmuls over pieces of K of
/// `chunk` (a multiple of the partition tile) with f32 results, summed in one
/// row kernel, then cast to the result's type: every legal contraction
/// lowers, for one copy of the operands' pieces and one pass over the
/// partial sums. The pieces are built next to `mm`, lowered, and erased;
/// `mm`'s result is where the sum was written.
LogicalResult lowerSplitContraction(FunctionLowering &fl, MatmulOp mm, int64_t K,
                                    int64_t chunk) {
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  auto lt = mm.getLhs().getType(), rt = mm.getRhs().getType();
  auto resultType = mm.getType();
  Type f32 = b.getF32Type();
  int64_t lk = mm.getTransposeLhs() ? lt.getRank() - 2 : lt.getRank() - 1;
  int64_t rk = mm.getTransposeRhs() ? rt.getRank() - 1 : rt.getRank() - 2;
  // Pieces of equal whole K tiles.
  int64_t P = fl.pb.hw().partitions;
  int64_t pieces = llvm::divideCeil(K, chunk);
  int64_t half = llvm::alignTo(llvm::divideCeil(K, pieces), P);
  SmallVector<Operation *> temps;
  auto slice = [&](Value v, RankedTensorType t, int64_t dim, int64_t k0, int64_t ks) -> Value {
    SmallVector<int64_t> offsets(t.getRank(), 0), sizes(t.getShape()), strides(t.getRank(), 1);
    offsets[dim] = k0;
    sizes[dim] = ks;
    auto op = SliceOp::create(b, loc, t.clone(sizes), v, b.getDenseI64ArrayAttr(offsets),
                              b.getDenseI64ArrayAttr(sizes), b.getDenseI64ArrayAttr(strides));
    temps.push_back(op);
    return op;
  };
  auto partType = resultType.clone(f32);
  SmallVector<Value> parts;
  LogicalResult ok = success();
  for (int64_t k0 = 0; k0 < K && succeeded(ok); k0 += half) {
    int64_t ks = std::min(half, K - k0);
    Value l = slice(mm.getLhs(), lt, lk, k0, ks), r = slice(mm.getRhs(), rt, rk, k0, ks);
    auto part = MatmulOp::create(b, loc, partType, l, r, mm.getTransposeLhsAttr(),
                                 mm.getTransposeRhsAttr());
    temps.push_back(part);
    parts.push_back(part);
    for (Value v : {l, r})
      if (succeeded(ok))
        ok = lowerDataMovement(fl, v.getDefiningOp());
    if (succeeded(ok))
      ok = lowerMatmul(fl, part, part, {}, {{part.getResult(), part.getResult()}}, "matmul");
  }
  Value sum;
  SmallVector<Operation *> tail;
  if (succeeded(ok)) {
    sum = parts[0];
    for (Value part : ArrayRef<Value>(parts).drop_front()) {
      auto add = AddOp::create(b, loc, partType, sum, part);
      temps.push_back(add);
      tail.push_back(add);
      sum = add;
    }
    if (resultType.getElementType() != f32) {
      auto cast = CastOp::create(b, loc, resultType, sum);
      temps.push_back(cast);
      tail.push_back(cast);
      sum = cast;
    }
    ok = lowerRowGroup(fl, mm, tail, {{sum, mm.getResult()}}, "matmul-sum");
  }
  fl.eraseTemporaries(temps);
  if (succeeded(ok) && fl.remarks)
    mm.emitRemark("lowered as ")
        << parts.size() << " matmuls over pieces of K = " << half
        << ", summed: the stationary block of K = " << K << " does not fit SBUF";
  return ok;
}

/// lhs [.., M, K] and rhs [.., K, N] as reshape(lhs) [.., M, K, 1] times
/// reshape(rhs) [.., 1, K, N], summed over K: built next to the matmul,
/// lowered as one row kernel writing the matmul's result, then removed.
LogicalResult lowerIntMatmul(FunctionLowering &fl, MatmulOp mm) {
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  SmallVector<Operation *> temps;
  auto transposeLast = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < t.getRank(); ++i)
      perm.push_back(i);
    std::swap(perm[t.getRank() - 1], perm[t.getRank() - 2]);
    SmallVector<int64_t> shape(t.getShape());
    std::swap(shape[t.getRank() - 1], shape[t.getRank() - 2]);
    auto op = TransposeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v,
                                  b.getDenseI64ArrayAttr(perm));
    temps.push_back(op);
    return op;
  };
  Value lhs = mm.getLhs(), rhs = mm.getRhs();
  // Transposed operands are transposed first (a DMA kernel each).
  SmallVector<Operation *> movement;
  if (mm.getTransposeLhs()) {
    lhs = transposeLast(lhs);
    movement.push_back(lhs.getDefiningOp());
  }
  if (mm.getTransposeRhs()) {
    rhs = transposeLast(rhs);
    movement.push_back(rhs.getDefiningOp());
  }
  auto withUnit = [&](Value v, int64_t at) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin() + (at < 0 ? shape.size() + 1 + at : at), 1);
    auto op = ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v);
    temps.push_back(op);
    return op;
  };
  Value a = withUnit(lhs, -1); // [.., M, K, 1]
  auto rt = cast<RankedTensorType>(rhs.getType());
  Value c = withUnit(rhs, rt.getRank() - 2); // [.., 1, K, N]
  auto resultType = mm.getType();
  SmallVector<int64_t> productShape(resultType.getShape());
  int64_t k = cast<RankedTensorType>(lhs.getType()).getShape().back();
  productShape.insert(productShape.end() - 1, k);
  auto product =
      MulOp::create(b, loc, RankedTensorType::get(productShape, resultType.getElementType()), a, c);
  temps.push_back(product);
  auto sum = ReduceSumOp::create(
      b, loc, resultType, product,
      b.getDenseI64ArrayAttr({static_cast<int64_t>(productShape.size()) - 2}), UnitAttr());
  temps.push_back(sum);
  LogicalResult ok = success();
  for (Operation *op : movement)
    if (failed(ok = lowerDataMovement(fl, op)))
      break;
  if (succeeded(ok)) {
    SmallVector<Operation *> group = {a.getDefiningOp(), c.getDefiningOp(), product, sum};
    ok = lowerRowGroup(fl, mm, group, {{sum.getResult(), mm.getResult()}}, "matmul-int");
  }
  fl.eraseTemporaries(temps);
  return ok;
}

} // namespace

LogicalResult mlir::neuron::lowering::lowerMatmul(FunctionLowering &fl, Operation *anchor,
                                                  MatmulOp mm, ArrayRef<Operation *> epilogueOps,
                                                  ArrayRef<std::pair<Value, Value>> outputs,
                                                  StringRef kind) {
  auto fail = [&](StringRef why) { return anchor->emitError("cannot lower the matmul: ") << why; };
  bool isInt = !isa<FloatType>(mm.getLhs().getType().getElementType()) ||
               !isa<FloatType>(mm.getRhs().getType().getElementType());
  if (isInt) {
    // TensorE multiplies floats: an integer matmul is a product broadcast
    // over [M, K, N] and summed over K on VectorE, one row kernel.
    if (failed(lowerIntMatmul(fl, mm)))
      return failure();
    if (epilogueOps.empty())
      return success();
    return lowerRowGroup(fl, anchor, epilogueOps, outputs, kind);
  }
  RowKernelSpec spec;
  spec.ops.push_back(mm);
  spec.ops.append(epilogueOps.begin(), epilogueOps.end());
  spec.bufferOf = [&](Value v) { return fl.bufferOf(v); };
  spec.constantBuffer = [&](ConstantOp c) { return fl.constantBuffer(c); };
  spec.psum = mm.getResult();
  for (auto [inner, outer] : outputs)
    spec.outputs.push_back({inner, fl.resultBuffer(outer)});
  std::string why;
  std::optional<RowKernel> epilogue = RowKernel::plan(spec, fl.pb.hw(), why);
  if (!epilogue) {
    if (epilogueOps.empty())
      return fail(why);
    // The epilogue cannot run on the output tiles: write the product to HBM
    // and run the rest as its own kernel.
    recordSplit(anchor, kind, "the matmul's epilogue is a separate kernel: " + why);
    if (fl.remarks)
      anchor->emitRemark("the matmul's epilogue is a separate kernel: ") << why;
    if (failed(lowerMatmul(fl, mm, mm, {}, {{mm.getResult(), mm.getResult()}}, "matmul")))
      return failure();
    return lowerRowGroup(fl, anchor, epilogueOps, outputs, kind);
  }
  KernelBuilder kb(fl.pb, kind, anchor);
  MatmulLowering lowering(fl, kb, mm, *epilogue);
  lowering.internalResult = llvm::none_of(
      outputs, [&](auto io) { return fl.outputDestinations.count(io.second) != 0; });
  if (!lowering.plan(why)) {
    if (lowering.convertB || lowering.aSrcType != lowering.aType) {
      // No room for the staging tiles that convert a folded cast's wide
      // operand (or a contraction to split, whose slices read the operands
      // from HBM): convert it in a kernel of its own, and plan again.
      kb.kernel()->erase();
      if (failed(materializeFoldedCast(fl, mm.getLhs())) ||
          failed(materializeFoldedCast(fl, mm.getRhs())))
        return failure();
      return lowerMatmul(fl, anchor, mm, epilogueOps, outputs, kind);
    }
    if (!lowering.tooLong)
      return fail(why);
    // Too long a contraction for one row tile's stationary block: the
    // matmul as halves of K, summed, then the epilogue as its own kernel.
    kb.kernel()->erase();
    if (!epilogueOps.empty())
      recordSplit(anchor, kind, "the matmul's epilogue is a separate kernel: the contraction is split");
    if (failed(lowerSplitContraction(fl, mm, lowering.K, lowering.fitKTiles * lowering.P)))
      return failure();
    return epilogueOps.empty() ? success() : lowerRowGroup(fl, anchor, epilogueOps, outputs, kind);
  }
  for (auto [inner, outer] : outputs) {
    auto type = cast<RankedTensorType>(outer.getType());
    lowering.storeBytes += static_cast<double>(type.getNumElements()) *
                           nisa::elementBytes(type.getElementType());
  }
  lowering.run();
  if (fl.remarks)
    anchor->emitRemark("lowered as one ")
        << kind << " kernel: " << lowering.M << "x" << lowering.K << "x" << lowering.N
        << (lowering.foldedBatches > 1
                ? " (" + std::to_string(lowering.foldedBatches) +
                      " batches as rows: the rhs is shared)"
                : "")
        << " in blocks of " << std::min<int64_t>(lowering.G * lowering.P, lowering.M)
        << " rows, column tiles of " << lowering.nsz
        << (lowering.needAT ? ", lhs transposed on TensorE" : "")
        << (lowering.needBT ? ", rhs transposed on TensorE" : "") << "; "
        << lowering.epilogueBuffers << " epilogue buffers"
        << (kb.storeQueues ? ", stores on " + std::to_string(kb.storeQueues) + " queues" : "")
        << (kb.storePieceBytes ? " in pieces of " + std::to_string(kb.storePieceBytes) + " bytes"
                               : "");
  return success();
}
