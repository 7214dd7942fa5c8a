//===- LowerConvColumns.cpp - Convolutions too wide for SBUF --------------===//
//
// A convolution one of whose input row blocks does not fit SBUF (a 1-D
// convolution over 16000 audio samples) runs as convolutions over column
// pieces of its output, each over the input columns its windows read,
// joined along the last dim.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

LogicalResult mlir::neuron::lowering::lowerConvInColumnHalves(FunctionLowering &fl, Operation *anchor, ConvOp conv,
                                      ArrayRef<Operation *> epilogueOps,
                                      ArrayRef<std::pair<Value, Value>> outputs, StringRef kind) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto xt = conv.getInput().getType();
  auto yt = conv.getType();
  int64_t rank = xt.getRank(), k = rank - 2;
  int64_t W = xt.getDimSize(rank - 1), OW = yt.getDimSize(rank - 1);
  int64_t KW = conv.getWeight().getType().getDimSize(rank - 1);
  int64_t sw = conv.getStrides().back(), dw = conv.getDilations().back();
  int64_t pl = conv.getPadding()[k - 1];
  SmallVector<Operation *> temps;
  SmallVector<Value> parts;
  LogicalResult ok = success();
  int64_t half = llvm::divideCeil(OW, 2);
  for (int64_t o0 = 0; o0 < OW && succeeded(ok); o0 += half) {
    int64_t o1 = std::min(OW, o0 + half);
    int64_t lo = o0 * sw - pl, hi = (o1 - 1) * sw - pl + (KW - 1) * dw + 1;
    int64_t s0 = std::clamp<int64_t>(lo, 0, W), s1 = std::clamp<int64_t>(hi, 0, W);
    SmallVector<int64_t> offsets(rank, 0), sizes(xt.getShape()), strides(rank, 1);
    offsets[rank - 1] = s0;
    sizes[rank - 1] = s1 - s0;
    auto slice = SliceOp::create(b, loc, xt.clone(sizes), conv.getInput(),
                                 b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                                 b.getDenseI64ArrayAttr(strides));
    temps.push_back(slice);
    SmallVector<int64_t> padding(conv.getPadding());
    padding[k - 1] = s0 - lo;
    padding[2 * k - 1] = hi - s1;
    SmallVector<int64_t> partShape(yt.getShape());
    partShape[rank - 1] = o1 - o0;
    auto part = cast<ConvOp>(b.clone(*conv));
    part.getInputMutable().assign(slice);
    part.setPaddingAttr(b.getDenseI64ArrayAttr(padding));
    part.getResult().setType(yt.clone(partShape));
    temps.push_back(part);
    parts.push_back(part);
    ok = lowerDataMovement(fl, slice);
    if (succeeded(ok))
      ok = lowerConv(fl, part, part, {}, {{part.getResult(), part.getResult()}}, "conv");
  }
  if (succeeded(ok)) {
    auto concat = ConcatOp::create(b, loc, yt, parts, b.getI64IntegerAttr(rank - 1));
    temps.push_back(concat);
    Value result = conv.getResult();
    fl.outputDestinations[concat] =
        epilogueOps.empty() ? fl.resultBuffer(outputs.front().second) : fl.resultBuffer(result);
    ok = lowerDataMovement(fl, concat);
    fl.setBuffer(result, fl.bufferOf(concat));
    if (!epilogueOps.empty()) {
      recordSplit(anchor, kind, "the convolution's epilogue is a separate kernel: its input "
                                "rows are lowered in column pieces");
      if (succeeded(ok))
        ok = lowerRowGroup(fl, anchor, epilogueOps, outputs, kind);
    } else if (outputs.front().second != result) {
      fl.setBuffer(outputs.front().second, fl.bufferOf(concat));
    }
  }
  fl.eraseTemporaries(temps);
  if (succeeded(ok) && fl.remarks)
    conv.emitRemark("lowered as ")
        << parts.size() << " convolutions over column halves of its " << OW
        << " output columns: one block of its input rows does not fit SBUF";
  return ok;
}
