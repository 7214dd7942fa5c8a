//===- ConvPlan.cpp - Shapes, tiles and weights of a convolution ----------===//
//
// ConvLowering's plan: the convolution's shapes, the output tile and weight
// chunk that fit SBUF and PSUM, the depth of its rings, and its constant
// weights packed at compile time. Nothing here emits an instruction.
//
//===----------------------------------------------------------------------===//

#include "ConvLowering.h"

#include "neuronc/ISA/InstructionCost.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

bool ConvLowering::readShapes(std::string &why) {
  auto xt = conv.getInput().getType(), wt = conv.getWeight().getType();
  auto yt = conv.getResult().getType();
  int64_t k = xt.getRank() - 2;
  if (k > 2) {
    why = std::to_string(k) + "-D convolutions are tiled as 2-D ones: run "
                              "--neuron-decompose-windows first (neuronc does)";
    return false;
  }
  auto sp = [&](ShapedType t, int64_t d2) { return k == 2 ? t.getDimSize(d2) : 1; };
  N = xt.getDimSize(0);
  C = xt.getDimSize(1);
  H = sp(xt, 2);
  W = xt.getDimSize(xt.getRank() - 1);
  F = wt.getDimSize(0);
  Cg = wt.getDimSize(1);
  KH = sp(wt, 2);
  KW = wt.getDimSize(wt.getRank() - 1);
  OH = sp(yt, 2);
  OW = yt.getDimSize(yt.getRank() - 1);
  ArrayRef<int64_t> s = conv.getStrides(), d = conv.getDilations(), p = conv.getPadding();
  sh = k == 2 ? s[0] : 1;
  sw = s.back();
  dh = k == 2 ? d[0] : 1;
  dw = d.back();
  pt = k == 2 ? p[0] : 0;
  pl = k == 2 ? p[1] : p[0];
  int64_t pr = p.back();
  groups = conv.getGroups();
  Fg = F / groups;
  T = KH * KW;
  Wp = W + pl + pr;
  // Unpadded rows when some column tap reads no padding at any output
  // column (it starts each accumulation and covers the whole tile).
  if (pl + pr > 0 && OW <= hw.psumBankFp32())
    for (int64_t kw = 0; kw < KW && padCols; ++kw) {
      auto [a, b] = validColumns(kw);
      if (a == 0 && b == OW) {
        padCols = false;
        fullTap = kw;
        Wp = W;
      }
    }
  inT = xt.getElementType();
  outT = yt.getElementType();
  f32 = Builder(conv.getContext()).getF32Type();
  ein = nisa::elementBytes(inT);
  xSrcType = inT;
  if (fl.hasBuffer(conv.getInput()) && fl.bufferOf(conv.getInput()).elementType)
    xSrcType = fl.bufferOf(conv.getInput()).elementType;
  convertIn = xSrcType != inT;
  esrc = nisa::elementBytes(xSrcType);
  eout = nisa::elementBytes(outT);
  ct = llvm::divideCeil(Cg, P);
  // Packing two rows (64 channels) loads the input twice for 1.5x fewer
  // matmuls of a 3x3: measured slower (ResNet-50's 3x3x64 at 56², batch 8:
  // 86 -> 95 us), so at least three.
  if (groups == 1 && ct == 1 && KH > 1 && P / Cg >= 3 && constantWeight()) {
    // Packed copies start at partitions the engines cannot start at, so a
    // wider input (a stem's image under --auto-cast) is converted once,
    // at partition 0 on its C partitions, and the copies are made from it
    // by SBUF-to-SBUF DMA (loadPackedConverted) -- when that costs less
    // than a conversion kernel over all partitions, which moves the image
    // through HBM once more (a 64² image: converted here; a 224² one,
    // 50176 elements on each of 3 partitions: by a kernel of its own).
    if (convertIn) {
      double rate = static_cast<double>(hw.vectorElementsPerCycle) /
                    static_cast<double>(P) * hw.vectorClockGHz; // per partition
      double here = static_cast<double>(N * H * W) / rate;
      // The kernel's load and store, then this one waiting for that store
      // and loading again: four DMA latencies besides the bytes.
      double kernel = static_cast<double>(N * C * H * W * (esrc + ein)) / hw.hbmGBps +
                      4 * hw.dmaLatencyNs;
      if (here > kernel) {
        why = "converting the image on its " + std::to_string(Cg) +
              " partitions for packed kernel rows costs more than a conversion kernel";
        return false;
      }
    }
    khPack = std::min(KH, P / Cg);
    khGroups = llvm::divideCeil(KH, khPack);
    if (khGroups == 1)
      chooseKwPack(pr);
  }
  return true;
}

/// heuristic: packed kernel columns must take the estimate at least this
/// far below the rows alone (SqueezeNet's 3x3 over 16 channels at 55², f32,
/// estimated 7 % faster with two columns, ran 7 % slower; a UNet's 3x3 over
/// 16 channels at 64² on trn2, estimated 32 % faster, 9 % slower; VGG-11's
/// first convolution, estimated 64 % faster, made the model 10 % faster).
constexpr double kKwPackGain = 0.6;

void ConvLowering::chooseKwPack(int64_t pr) {
  // Only at column stride 1: with a wider stride a copy's multiplies read
  // every sw-th of its columns, and the others it loads would be lost. Not
  // for an image converted on chip (a small one, loaded in f32: its copies'
  // bytes outweigh bf16's TensorE time, a quarter of f32's).
  int64_t most = std::min({KW, P / (khPack * Cg), OW / dw});
  if (sw != 1 || convertIn || most < 2)
    return;
  // TensorE: one multiply per group of kernel columns over every output
  // pixel (four passes for f32). DMA: every copy moves the image once, in
  // runs of a row.
  double pixels = static_cast<double>(N * OH * OW);
  double perMultiply = pixels / hw.tensorClockGHz * (inT.isF32() ? 4 : 1);
  // A copy's rows are runs of their own once padded; unpadded, a block of
  // rows is one run.
  double bytes = static_cast<double>(N * Cg * H * W * ein) / hw.memoryGBps();
  double rowNs = bytes / neuronc::dmaRunEfficiency(hw, W * ein);
  double blockNs = padCols ? rowNs : bytes / neuronc::dmaRunEfficiency(hw, H * W * ein);
  // The result moves too, on the same queues (an upper bound: a pooled
  // or reduced result moves less).
  double storeNs = static_cast<double>(N * F * OH * OW * eout) / hw.memoryGBps();
  // Each copy of each block is a transfer that pays its issue (the blocks
  // as plan will cut them: about a PSUM bank of outputs each), and packed
  // columns zero each copy's padding columns once per input slot.
  int64_t bank = hw.psumBankFp32();
  int64_t blocks = OH * OW <= bank ? llvm::divideCeil(N, bank / (OH * OW))
                                   : N * llvm::divideCeil(OH, std::max<int64_t>(1, bank / OW));
  double issueNs = hw.dmaIssueNs / static_cast<double>(hw.dmaEngines);
  auto cost = [&](int64_t kp) {
    double copies = static_cast<double>(khPack * kp);
    double dma = storeNs + (kp == 1 ? blockNs : rowNs) * copies +
                 issueNs * copies * static_cast<double>(blocks + (kp > 1 ? 2 * kMaxInSlots : 0));
    return std::max(perMultiply * static_cast<double>(llvm::divideCeil(KW, kp)), dma);
  };
  int64_t best = 1;
  for (int64_t kp = 2; kp <= most; ++kp)
    if (cost(kp) < cost(best))
      best = kp;
  // The estimate leaves out each copy's DMA latency and how the queues
  // share the transfers: only a clear gain packs.
  if (best == 1 || cost(best) > kKwPackGain * cost(1))
    return;
  kwGroups = llvm::divideCeil(KW, best);
  kwPack = llvm::divideCeil(KW, kwGroups); // groups as even as they go
  // A multiply covers several kernel columns, so every row keeps its
  // padding columns (no tap skips the output columns it would read them at).
  padCols = true;
  fullTap = 0;
  Wp = W + pl + pr;
}

bool ConvLowering::plan(std::string &why) {
  if (!readShapes(why))
    return false;
  int64_t bank = hw.psumBankFp32();
  int64_t budget = hw.sbufPartitionBytes * 85 / 100 - reserved; // room for the allocator
  // Output tile: whole rows of as many images as one bank holds; else
  // as many rows as it holds; else a bank of one row's columns.
  ncw = std::min(OW, bank);
  if (OH * OW <= bank) {
    R = OH;
    nb = std::min(N, bank / (OH * OW));
  } else {
    R = std::max<int64_t>(1, bank / ncw);
    R = llvm::divideCeil(OH, llvm::divideCeil(OH, R)); // even row blocks
    nb = 1;
  }
  accSlots = std::min<int64_t>(4, hw.psumPartitionBytes / hw.psumBankBytes());
  auto inputBytes = [&] {
    rowsIn = (R - 1) * sh + (KH - 1) * dh + 1;
    return inSlots * ct * nb * rowsIn * Wp *
           (ein + (convertIn ? esrc + (khPack > 1 ? ein : 0) : 0));
  };
  auto outBytes = [&] {
    if (pool)
      return pool->bytesPerPartition() + (epilogue ? 0 : 4);
    return outSlots * nb * R * ncw * eout + (epilogue ? 0 : 4);
  };
  // Shrink the tile until the input blocks take at most half of SBUF.
  while (inputBytes() + outBytes() > budget / 2 && (nb > 1 || R > 1)) {
    if (nb > 1)
      nb = llvm::divideCeil(nb, 2);
    else
      R = llvm::divideCeil(R, 2);
  }
  int64_t used = inputBytes() + outBytes();
  if (epilogue)
    used += epilogue->epilogueBytesPerPartition(nb * R * ncw);
  if (used > budget) {
    rowTooWide = OW > 1;
    why = "one input row block of " + std::to_string(rowsIn) + " x " + std::to_string(Wp) +
          " elements per channel does not fit SBUF";
    return false;
  }
  // Weights: as many output channels of the group as fit what is left
  // (with a fused pooling, next to one plane per channel tile and image).
  int64_t perChannel = ct * T * ein;
  auto planeBytes = [&](int64_t fc) {
    return pool ? static_cast<int64_t>(llvm::divideCeil(fc, P)) * nb * pool->planeElements() * eout
                : 0;
  };
  // Chunks after the first start on a tile boundary (whole tiles); all of
  // the group's channels in one chunk need no rounding (160 channels are
  // one chunk, not 128 + 32 with the input loaded twice).
  fChunk = std::min(Fg, (budget - used) / perChannel);
  if (fChunk >= P && fChunk < Fg)
    fChunk = fChunk / P * P;
  while (fChunk >= 1 && fChunk * perChannel + planeBytes(fChunk) > budget - used)
    fChunk = fChunk > P ? fChunk - P : fChunk / 2;
  if (pool && fChunk < 1 && planeBytes(1) + perChannel > budget - used) {
    why = "one plane of the convolution's output (" +
          std::to_string(pool->planeElements() * eout) +
          " bytes per partition) does not fit SBUF next to its tiles";
    return false;
  }
  if (fChunk < 1) {
    why = "the weights of one output channel (" + std::to_string(Cg) + " channels x " +
          std::to_string(T) + " taps) do not fit SBUF next to the input blocks";
    return false;
  }
  deepenRings(budget - fChunk * perChannel - planeBytes(fChunk), inputBytes, outBytes);
  // heuristic: the weights of the next group or chunk load while this one
  // multiplies, up to kMaxWeightSets sets where SBUF allows. With one set
  // each load waits for the last multiply of the one before: RegNetY's
  // grouped 3x3 convolutions at 2x2 pixels (five sets of 88 channels)
  // took a DMA latency and a transfer per set, TensorE idle between.
  int64_t sets = groups * llvm::divideCeil(Fg, fChunk);
  int64_t left = budget - planeBytes(fChunk) - inputBytes() - outBytes() -
                 (epilogue ? epilogue->epilogueBytesPerPartition(nb * R * ncw, epilogueBuffers)
                           : 0);
  wSets = std::clamp<int64_t>(left / std::max<int64_t>(1, fChunk * perChannel), 1,
                              std::min(kMaxWeightSets, sets));
  return true;
}

void ConvLowering::deepenRings(int64_t room, llvm::function_ref<int64_t()> inputBytes,
                               llvm::function_ref<int64_t()> outBytes) {
  if (pool)
    return;
  int64_t blockBytes = ct * std::min(P, Cg) * khPack * nb * rowsIn * W * (convertIn ? esrc : ein);
  int64_t blocks = llvm::divideCeil(N, nb) * llvm::divideCeil(OH, R);
  int64_t tiles = blocks * groups * llvm::divideCeil(Fg, P);
  bool smallBlocks = blockBytes < hw.dmaEfficientBytes && blocks > inSlots;
  int ring = epilogue ? static_cast<int>(std::min<int64_t>(kMaxEpilogueRing, tiles)) : 0;
  auto need = [&](int buffers) {
    return inputBytes() + outBytes() +
           (epilogue ? epilogue->epilogueBytesPerPartition(nb * R * ncw, buffers) : 0);
  };
  // The deepest epilogue ring (at least the current one) that fits.
  auto fitRing = [&] {
    for (int b = ring; b > epilogueBuffers; --b)
      if (need(b) <= room)
        return b;
    return need(epilogueBuffers) <= room ? epilogueBuffers : 0;
  };
  int64_t saved = inSlots;
  if (smallBlocks) {
    inSlots = kMaxInSlots;
    if (int b = fitRing()) {
      epilogueBuffers = b;
      return;
    }
    inSlots = saved;
  }
  if (int b = fitRing())
    epilogueBuffers = b;
}

ConstantOp ConvLowering::constantWeight() {
  Value weight = conv.getWeight();
  if (auto arg = dyn_cast<BlockArgument>(weight))
    if (auto k = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
      weight = k.getInputs()[arg.getArgNumber()];
  auto c = weight.getDefiningOp<ConstantOp>();
  return c && isa<DenseElementsAttr>(c.getValue()) ? c : ConstantOp();
}

std::optional<HbmBuffer> ConvLowering::packWeights() {
  ConstantOp c = constantWeight();
  if (!c)
    return std::nullopt;
  auto dense = cast<DenseElementsAttr>(c.getValue());
  if (khPack > 1) {
    auto packedType = RankedTensorType::get({packedParts(), tapColumns(), Fg}, inT);
    int64_t eb = ein;
    std::vector<char> out(packedType.getNumElements() * eb, 0);
    ArrayRef<char> raw = dense.getRawData();
    for (int64_t f = 0; f < F; ++f)
      for (int64_t ci = 0; ci < Cg; ++ci)
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) {
            int64_t src = dense.isSplat() ? 0 : (((f * Cg + ci) * KH + kh) * KW + kw) * eb;
            // Copy (kh % khPack, kw % kwPack); column: its group of rows,
            // then its group of columns.
            int64_t row = ((kw % kwPack) * khPack + kh % khPack) * Cg + ci;
            int64_t col = (kh / khPack) * kwSteps() + kw / kwPack;
            std::memcpy(&out[((row * tapColumns() + col) * Fg + f) * eb], &raw[src], eb);
          }
    return fl.pb.declare(nisa::HbmKind::constant, packedType, c.getLoc(), std::nullopt, {},
                         DenseElementsAttr::getFromRawBuffer(packedType, out));
  }
  auto packedType = RankedTensorType::get({C, T, Fg}, inT);
  if (dense.isSplat())
    return fl.pb.declare(nisa::HbmKind::constant, packedType, c.getLoc(), std::nullopt, {},
                         DenseElementsAttr::get(packedType, dense.getSplatValue<Attribute>()));
  ArrayRef<char> raw = dense.getRawData();
  int64_t eb = ein;
  std::vector<char> out(raw.size());
  for (int64_t f = 0; f < F; ++f) {
    int64_t g = f / Fg, fo = f % Fg;
    for (int64_t ci = 0; ci < Cg; ++ci)
      for (int64_t t = 0; t < T; ++t) {
        int64_t src = ((f * Cg + ci) * T + t) * eb;
        int64_t dst = (((g * Cg + ci) * T + t) * Fg + fo) * eb;
        std::memcpy(&out[dst], &raw[src], eb);
      }
  }
  return fl.pb.declare(nisa::HbmKind::constant, packedType, c.getLoc(), std::nullopt, {},
                       DenseElementsAttr::getFromRawBuffer(packedType, out));
}

int64_t ConvLowering::chainedBytes(int64_t pixels) const {
  int64_t weights = ct * T * Fg * ein;
  int64_t blocks = inSlots * ct * pixels * ein;
  return weights + blocks +
         (epilogue ? epilogue->epilogueBytesPerPartition(pixels, epilogueBuffers) : 0);
}

bool ConvLowering::planChained(const ConvLowering &head, std::string &why) {
  if (!readShapes(why))
    return false;
  if (T != 1 || sh != 1 || sw != 1 || pt != 0 || pl != 0 || Wp != W || groups != 1 ||
      N != head.N || H != head.OH || W != head.OW || Cg != head.F) {
    why = "it does not read the first convolution's output tiles as they are";
    return false;
  }
  if (!epilogue) {
    why = "it has no epilogue to store its tiles";
    return false;
  }
  nb = head.nb;
  R = head.R;
  ncw = head.ncw;
  rowsIn = R;
  fChunk = Fg;
  wSets = 1;
  // Two blocks: the first convolution's epilogue writes the next tile's
  // while this one multiplies the last (TensorE runs them in that order).
  inSlots = 2;
  if (chainedBytes(nb * R * ncw) > head.reserved) {
    why = "its weights, input blocks and epilogue (" +
          std::to_string(chainedBytes(nb * R * ncw)) +
          " bytes per partition) do not fit next to the first convolution's";
    return false;
  }
  return true;
}

int64_t ConvLowering::summedBytes(int64_t pixels) const {
  // A pointwise convolution's block holds the input rows its output rows
  // read: at most sh x sw input pixels per output pixel, plus one row.
  int64_t block = pixels * sh * sw + Wp;
  return ct * Fg * ein + inSlots * ct * block * (ein + (convertIn ? esrc : 0));
}

bool ConvLowering::planSummed(const ConvLowering &main, int64_t room, std::string &why) {
  if (T != 1 || pt != 0 || pl != 0 || Wp != W || groups != 1 || main.groups != 1 ||
      N != main.N || F != main.F || OH != main.OH || OW != main.OW) {
    why = "it does not tile the kernel's convolution's output as a pointwise one";
    return false;
  }
  nb = main.nb;
  R = main.R;
  ncw = main.ncw;
  rowsIn = (R - 1) * sh + 1;
  fChunk = Fg;
  wSets = 1;
  accSlots = 0;
  summed = true;
  int64_t need = ct * Fg * ein + inSlots * ct * nb * rowsIn * Wp * (ein + (convertIn ? esrc : 0));
  if (need > room) {
    why = "its weights and input blocks (" + std::to_string(need) +
          " bytes per partition) do not fit next to the kernel's convolution";
    return false;
  }
  return true;
}
