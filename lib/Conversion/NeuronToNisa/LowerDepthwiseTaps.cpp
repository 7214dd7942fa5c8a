//===- LowerDepthwiseTaps.cpp - Depthwise taps on TensorE ------------------===//
//
// A bf16 (or f16) depthwise convolution's taps as matmuls: tap t multiplies
// the block's shifted window (moving) by diag(w[:, t]) (stationary) and the
// taps sum in PSUM; the diagonals are made on chip from the weights (an
// identity, then one broadcast multiply per weight tile). The rest of the
// kernel (blocks, loads, epilogue, stores) is LowerWindow.cpp's.
//
//===----------------------------------------------------------------------===//

#include "WindowLowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;
using neuronc::isa::Opcode;

namespace mlir::neuron::lowering {

void WindowLowering::chooseTensorTaps(llvm::function_ref<int64_t()> bytes, int64_t budget) {
  auto conv = dyn_cast<ConvOp>(op);
  if (kind != WindowKind::Depthwise || fold > 1 || !conv || OW > hw.psumBankFp32())
    return;
  Type wt = conv.getWeight().getType().getElementType();
  if (fl.hasBuffer(conv.getWeight()) && fl.bufferOf(conv.getWeight()).elementType)
    wt = fl.bufferOf(conv.getWeight()).elementType;
  if (!(inT.isBF16() || inT.isF16()) || wt != inT)
    return;
  int64_t taps = KH * KW, np = std::min(P, planes * segs), ptiles = llvm::divideCeil(planes, P);
  int64_t wtiles = planes <= P || P % C == 0 ? 1 : ptiles;
  int64_t diagBytes = (std::min<int64_t>(wtiles, 2) * taps + 1) * np * nisa::elementBytes(inT);
  int64_t rv = R;
  bankRows = hw.psumBankFp32() / OW;
  int64_t rt = std::min(R, kTapBanks * bankRows);
  auto vecNs = [&](Opcode o, int64_t n) {
    return std::min(kb.estimate(o, Engine::vector, np, n), kb.estimate(o, Engine::gpsimd, np, n));
  };
  // Each tap after the first waits for the one before (the same
  // accumulator): the dependent instruction's overhead.
  double dependent = static_cast<double>(hw.dependentOverheadCycles) / hw.gpsimdClockGHz;
  double onVector = static_cast<double>(ptiles * llvm::divideCeil(OHs, rv) * taps) *
                    (vecNs(Opcode::ScalarTensorTensor, rv * OW) + dependent);
  double perTap = kb.estimate(Opcode::MultiplyMoving, Engine::tensor, np, rt * OW) +
                  kb.estimate(Opcode::LoadStationary, Engine::tensor, np, np);
  double onTensorNs =
      static_cast<double>(ptiles * llvm::divideCeil(OHs, rt)) *
          (static_cast<double>(taps) * perTap + vecNs(Opcode::TensorScalar, rt * OW)) +
      static_cast<double>(wtiles) * vecNs(Opcode::TensorTensor, taps * np) +
      kb.estimate(Opcode::AffineSelect, Engine::gpsimd, np, np);
  if (onTensorNs >= onVector)
    return;
  R = rt;
  if (bytes() + diagBytes > budget) {
    R = rv;
    return;
  }
  onTensor = true;
}

void WindowLowering::allocateDiagonals(int64_t np, int64_t copies) {
  Builder b(op->getContext());
  for (int i = 0; i < 2; ++i)
    tapPsum.push_back(kb.alloc(nisa::MemorySpace::psum, np, kTapBanks * hw.psumBankFp32(), f32,
                               "tap"));
  for (int64_t i = 0; i < copies; ++i)
    diags.push_back(kb.alloc(nisa::MemorySpace::sbuf, np, KH * KW * np, inT, "diag"));
  ident = kb.alloc(nisa::MemorySpace::sbuf, np, np, inT, "ident");
  auto box = kb.tileAP(0, np, 0, np);
  kb.emit<nisa::MemsetOp>(Engine::gpsimd, ident, box, b.getF32FloatAttr(1.0f),
                          DenseI64ArrayAttr(), UnitAttr());
  kb.charge(Engine::gpsimd, kb.estimate(Opcode::Memset, Engine::gpsimd, np, np));
  kb.charge(Engine::gpsimd, kb.estimate(Opcode::AffineSelect, Engine::gpsimd, np, np));
  kb.emit<nisa::AffineSelectOp>(ident, box, ident, box,
                                nisa::CmpOpAttr::get(b.getContext(), nisa::CmpOp::eq),
                                b.getI64IntegerAttr(0), b.getI64IntegerAttr(1),
                                b.getDenseI64ArrayAttr({-1}), b.getF32FloatAttr(0.0f),
                                DenseI64ArrayAttr(), UnitAttr());
}

void WindowLowering::buildDiagonals(int64_t i, int64_t wcol, int64_t parts) {
  int64_t taps = KH * KW, np = std::min(P, planes * segs);
  kb.emit<nisa::TensorTensorOp>(
      vecEngine(Opcode::TensorTensor, parts, taps * np), nisa::AluOp::multiply,
      diags[i % diags.size()], kb.tileAP(0, parts, 0, {taps, np}, {np, 1}), ident,
      kb.tileAP(0, parts, 0, {taps, np}, {0, 1}), wts[0],
      kb.tileAP(0, parts, wcol, {taps, np}, {1, 0}), DenseI64ArrayAttr(), UnitAttr());
}

void WindowLowering::emitTensorTaps(FlatSymbolRefAttr tile, int64_t nparts, int64_t rows,
                                    FlatSymbolRefAttr diag, FlatSymbolRefAttr bt, int64_t bcol) {
  Builder b(op->getContext());
  int64_t np = std::min(P, planes * segs), bank = hw.psumBankFp32();
  FlatSymbolRefAttr ps = tapPsum[slot % tapPsum.size()];
  // The rows split evenly over the banks they need (19 rows of 28: 10 and
  // 9, not 18 and 1).
  int64_t per = llvm::divideCeil(rows, llvm::divideCeil(rows, bankRows));
  SmallVector<int64_t> order = tapOrder();
  for (auto [i, t] : llvm::enumerate(order)) {
    int64_t kh = t / KW, kw = t % KW;
    int64_t c0 = 0, c1 = OW, shift = kw * dw;
    if (!padCols) {
      std::tie(c0, c1) = validColumns(kw);
      if (c1 <= c0)
        continue;
      shift = c0 * sw + kw * dw - pl;
    }
    int64_t cols = c1 - c0;
    kb.emit<nisa::LoadStationaryOp>(diag, kb.tileAP(0, nparts, t * np, nparts),
                                    DenseI64ArrayAttr(), UnitAttr());
    for (int64_t r0 = 0; r0 < rows; r0 += per) {
      int64_t rc = std::min(per, rows - r0);
      int64_t off = (r0 * sh + kh * dh) * Wp + shift;
      kb.charge(Engine::tensor,
                kb.estimate(Opcode::MultiplyMoving, Engine::tensor, nparts, rc * cols));
      kb.emit<nisa::MultiplyMovingOp>(
          ps, kb.tileAP(0, nparts, r0 / per * bank + c0, {rc, cols}, {OW, 1}), tile,
          kb.tileAP(0, nparts, off, {rc, cols}, {sh * Wp, sw}),
          i == 0 ? b.getUnitAttr() : UnitAttr(), DenseI64ArrayAttr(), UnitAttr());
    }
  }
  for (int64_t r0 = 0; r0 < rows; r0 += per) {
    int64_t rc = std::min(per, rows - r0), n = rc * OW;
    auto dst = kb.tileAP(0, nparts, r0 * OW, n);
    auto src = kb.tileAP(0, nparts, r0 / per * bank, n);
    Engine e = kb.pick(Opcode::TensorScalar, {Engine::vector, Engine::scalar}, nparts, n);
    if (bias.sym)
      kb.emit<nisa::TensorScalarOp>(
          e, acc[slot], dst, ps, src, nisa::AluOp::add, FloatAttr(), bt,
          kb.tileAP(0, nparts, bcol, 1), UnitAttr(), nisa::AluOpAttr(), FloatAttr(),
          FlatSymbolRefAttr(), nisa::AccessPatternAttr(), UnitAttr(), DenseI64ArrayAttr(),
          UnitAttr());
    else
      kb.emit<nisa::TensorCopyOp>(e, acc[slot], dst, ps, src, DenseI64ArrayAttr(), UnitAttr());
  }
}

} // namespace mlir::neuron::lowering
