//===- BucketSignatureAttrs.h - A bucket signature as attributes -*- C++ -*-===//
//
// `neuron.dispatch` (a graph op) and `nisa.entry` (its engine-level
// successor) carry one bucket signature under the same attribute names:
// symbols, input_dims, output_dims, masks, callees, bucket_sizes,
// work_coefficients, work_exponents. These two templates read and write it
// through the ops' generated accessors, so both ops share one encoding.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_DIALECT_BUCKETSIGNATUREATTRS_H
#define NEURONC_DIALECT_BUCKETSIGNATUREATTRS_H

#include "neuronc/Support/Buckets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace neuronc {

/// The signature `op` carries, as the executable and the runners hold it.
template <typename OpT>
BucketSignature readBucketSignature(OpT op) {
  BucketSignature sig;
  for (mlir::Attribute a : op.getSymbols())
    sig.symbols.push_back(llvm::cast<mlir::StringAttr>(a).str());
  auto dims = [](mlir::ArrayAttr list) {
    std::vector<std::vector<int64_t>> out;
    for (mlir::Attribute a : list) {
      llvm::ArrayRef<int64_t> d = llvm::cast<mlir::DenseI64ArrayAttr>(a).asArrayRef();
      out.emplace_back(d.begin(), d.end());
    }
    return out;
  };
  sig.inputs = dims(op.getInputDims());
  sig.outputs = dims(op.getOutputDims());
  for (int64_t m : op.getMasks())
    sig.masks.push_back(static_cast<uint32_t>(m));
  sig.buckets = dims(op.getBucketSizes());
  for (auto [c, e] : llvm::zip(op.getWorkCoefficients(), op.getWorkExponents())) {
    WorkTerm t;
    t.coefficient = c;
    for (int64_t x : llvm::cast<mlir::DenseI64ArrayAttr>(e).asArrayRef())
      t.exponents.push_back(static_cast<uint32_t>(x));
    sig.work.push_back(std::move(t));
  }
  return sig;
}

/// Sets every signature attribute of `op` from `sig`, with `callees[i]` the
/// bucket of `sig.buckets[i]`.
template <typename OpT>
void writeBucketSignature(OpT op, const BucketSignature &sig,
                          llvm::ArrayRef<llvm::StringRef> callees) {
  mlir::Builder b(op.getContext());
  llvm::SmallVector<llvm::StringRef> names(sig.symbols.begin(), sig.symbols.end());
  op.setSymbolsAttr(b.getStrArrayAttr(names));
  auto dims = [&](const std::vector<std::vector<int64_t>> &list) {
    llvm::SmallVector<mlir::Attribute> out;
    for (const auto &d : list)
      out.push_back(b.getDenseI64ArrayAttr(d));
    return b.getArrayAttr(out);
  };
  op.setInputDimsAttr(dims(sig.inputs));
  op.setOutputDimsAttr(dims(sig.outputs));
  llvm::SmallVector<int64_t> masks(sig.masks.begin(), sig.masks.end());
  op.setMasksAttr(b.getDenseI64ArrayAttr(masks));
  llvm::SmallVector<mlir::Attribute> refs;
  for (llvm::StringRef c : callees)
    refs.push_back(mlir::FlatSymbolRefAttr::get(op.getContext(), c));
  op.setCalleesAttr(b.getArrayAttr(refs));
  op.setBucketSizesAttr(dims(sig.buckets));
  llvm::SmallVector<double> coefficients;
  std::vector<std::vector<int64_t>> exponents;
  for (const WorkTerm &t : sig.work) {
    coefficients.push_back(t.coefficient);
    exponents.emplace_back(t.exponents.begin(), t.exponents.end());
  }
  op.setWorkCoefficientsAttr(b.getDenseF64ArrayAttr(coefficients));
  op.setWorkExponentsAttr(dims(exponents));
}

} // namespace neuronc

#endif // NEURONC_DIALECT_BUCKETSIGNATUREATTRS_H
