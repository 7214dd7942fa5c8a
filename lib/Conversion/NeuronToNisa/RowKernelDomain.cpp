//===- RowKernelDomain.cpp - Rows, columns and strides of a row kernel ---===//
//
// The dims of every value are unified into classes (numpy broadcasting lines
// dims up from the right; reshapes that only add or drop unit dims keep them;
// reductions keep their kept dims). The classes a reduction reduces become the
// columns, the others the rows. Every input is read through its strides over
// the domain.
//
//===----------------------------------------------------------------------===//

#include "RowKernelImpl.h"

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::neuron::lowering;

namespace mlir::neuron::lowering {

SmallVector<int> RowKernelImpl::dimsOf(Value v) {
  auto it = dims.find(v);
  if (it != dims.end())
    return it->second;
  SmallVector<int> d;
  for (int64_t s : cast<RankedTensorType>(v.getType()).getShape())
    d.push_back(s > 1 ? classes.make(s) : -1);
  return dims[v] = d;
}

LogicalResult RowKernelImpl::unify(std::string &why) {
  auto alignRight = [&](Value operand, Value result) {
    SmallVector<int> o = dimsOf(operand);
    SmallVector<int> r = dimsOf(result);
    int shift = static_cast<int>(r.size()) - static_cast<int>(o.size());
    for (size_t i = 0; i < o.size(); ++i)
      if (o[i] >= 0 && static_cast<int>(i) + shift >= 0 && r[i + shift] >= 0)
        classes.unite(r[i + shift], o[i]);
  };
  auto nonUnit = [&](Value v) {
    SmallVector<int> out;
    for (int c : dimsOf(v))
      if (c >= 0)
        out.push_back(c);
    return out;
  };
  for (Operation *op : spec.ops) {
    if (isa<ConstantOp>(op))
      continue;
    if (isa<MatmulOp, ConvOp>(op)) {
      if (op->getResult(0) != spec.psum) {
        why = "a matmul or convolution inside the kernel is not its hero";
        return failure();
      }
      (void)dimsOf(op->getResult(0));
      continue;
    }
    if (aluOf(op) || unaryOf(op) || isa<SelectOp, CastOp, BroadcastToOp>(op)) {
      for (Value v : op->getOperands())
        alignRight(v, op->getResult(0));
      continue;
    }
    if (auto r = dyn_cast<ReshapeOp>(op)) {
      SmallVector<int> a = nonUnit(r.getInput()), b = nonUnit(r.getResult());
      if (a.size() != b.size() || llvm::any_of(llvm::zip(a, b), [&](auto p) {
            return classes.size[std::get<0>(p)] != classes.size[std::get<1>(p)];
          })) {
        why = "a reshape inside the kernel merges or splits dims";
        return failure();
      }
      for (auto [x, y] : llvm::zip(a, b))
        classes.unite(x, y);
      continue;
    }
    auto markReduced = [&](Value input, ArrayRef<int64_t> axes, Value result, bool keep) {
      SmallVector<int> in = dimsOf(input);
      SmallVector<int> red;
      for (int64_t a : axes)
        if (in[a] >= 0)
          red.push_back(in[a]);
      reductions.push_back({op, red});
      if (!result)
        return;
      SmallVector<int> out = dimsOf(result);
      size_t k = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        bool reduced = llvm::is_contained(axes, static_cast<int64_t>(i));
        if (keep) {
          if (!reduced && in[i] >= 0 && out[i] >= 0)
            classes.unite(out[i], in[i]);
        } else if (!reduced) {
          if (in[i] >= 0 && out[k] >= 0)
            classes.unite(out[k], in[i]);
          ++k;
        }
      }
    };
    if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op)) {
      auto axes = cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
      markReduced(op->getOperand(0), axes, op->getResult(0), op->hasAttr("keepdims"));
      continue;
    }
    if (isa<RmsNormOp, LayerNormOp, SoftmaxOp>(op)) {
      Value x = op->getOperand(0);
      for (Value v : op->getOperands())
        alignRight(v, op->getResult(0));
      alignRight(x, op->getResult(0));
      SmallVector<int64_t> axes;
      if (auto s = dyn_cast<SoftmaxOp>(op))
        axes.push_back(s.getAxis());
      else
        llvm::append_range(axes, cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef());
      markReduced(x, axes, Value(), false);
      continue;
    }
    why = "'" + op->getName().getStringRef().str() + "' cannot be part of a row kernel";
    return failure();
  }
  return success();
}

SmallVector<int64_t> RowKernelImpl::stridesOver(Value v, ArrayRef<int64_t> shape) {
  // Row-major strides of `shape`, keyed by the class of each dim of `v`.
  SmallVector<int> d = dimsOf(v);
  SmallVector<int64_t> rowMajor(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    rowMajor[i] = rowMajor[i + 1] * shape[i + 1];
  auto strideOfClass = [&](int cls) -> int64_t {
    for (size_t i = 0; i < d.size(); ++i)
      if (d[i] >= 0 && classes.find(d[i]) == cls)
        return rowMajor[i];
    return 0;
  };
  SmallVector<int64_t> out;
  for (const DomainDim &dd : pdims)
    out.push_back(strideOfClass(dd.cls) * dd.mult);
  for (const DomainDim &dd : fdims)
    out.push_back(strideOfClass(dd.cls) * dd.mult);
  return out;
}

uint64_t RowKernelImpl::maskOf(Value v) {
  uint64_t m = 0;
  for (int c : dimsOf(v)) {
    if (c < 0)
      continue;
    int root = classes.find(c);
    for (size_t i = 0; i < pdims.size(); ++i)
      if (pdims[i].cls == root)
        m |= uint64_t(1) << i;
    for (size_t i = 0; i < fdims.size(); ++i)
      if (fdims[i].cls == root)
        m |= uint64_t(1) << (pdims.size() + i);
  }
  return m;
}

} // namespace mlir::neuron::lowering
