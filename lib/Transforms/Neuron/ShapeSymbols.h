//===- ShapeSymbols.h - Which dynamic dims are the same size -----*- C++ -*-===//
//
// Shape inference over dynamic dims for shape bucketing: every dynamic dim
// of every value in a function is put in a class of dims that must have the
// same size at run time (union-find over the shape rules of the neuron ops).
// A class that holds a dim of an argument is a symbol the user buckets; a
// class tied to a static dim takes that size.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_TRANSFORMS_SHAPESYMBOLS_H
#define NEURONC_LIB_TRANSFORMS_SHAPESYMBOLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::neuron {

/// One bucketable dim: a class of tied dynamic dims that holds argument dims.
struct ShapeSymbol {
  std::string name;                 ///< the first name given, else `argI.D`
  std::vector<std::string> aliases; ///< every name and `argI.D` of the class
  std::vector<std::pair<unsigned, unsigned>> argDims; ///< (argument, dim)
};

/// The classes of a function's dynamic dims.
class ShapeSymbols {
public:
  /// Analyzes `fn`; on an op bucketing cannot follow, emits an error at it
  /// (naming the op, the dim and why) and fails.
  mlir::LogicalResult analyze(mlir::func::FuncOp fn);

  /// The symbol of dim `d` of `v` (dynamic dims only), or -1 when the dim is
  /// static or tied to a static size.
  int symbolOf(mlir::Value v, unsigned d) const;
  /// The static size a dynamic dim is tied to, or -1.
  int64_t staticSizeOf(mlir::Value v, unsigned d) const;
  /// Every dim of `v` as a static size (>= 0) or a symbol (-1 - k).
  std::vector<int64_t> signatureDims(mlir::Value v) const;
  /// The number of dims of class `symbol` in `t` (a value's type), for the
  /// work model's exponents.
  unsigned countIn(mlir::Value v, int symbol) const;

  const std::vector<ShapeSymbol> &symbols() const { return symbols_; }

private:
  int find(int x) const;
  int keyOf(mlir::Value v, unsigned d);
  int lookupKey(mlir::Value v, unsigned d) const;
  /// Records that two dims have the same size. Static dims bind the class.
  void tie(mlir::Value a, unsigned da, mlir::Value b, unsigned db);
  mlir::LogicalResult visit(mlir::Operation *op);

  mutable std::vector<int> parent_;
  std::vector<int64_t> static_; ///< per key (only meaningful at roots)
  llvm::DenseMap<std::pair<mlir::Value, unsigned>, int> keys_;
  llvm::DenseMap<int, int> symbolOfRoot_;
  std::vector<ShapeSymbol> symbols_;
};

} // namespace mlir::neuron

#endif // NEURONC_LIB_TRANSFORMS_SHAPESYMBOLS_H
