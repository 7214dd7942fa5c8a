//===- LinalgImport.h - Shared pieces of the linalg import -----*- C++ -*-===//
//
// What ConvertLinalg.cpp (generics, named elementwise ops, the pass) and
// ConvertContraction.cpp (matmul-like ops) share. Private to
// lib/Conversion/LinalgToNeuron.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_CONVERSION_LINALGTONEURON_LINALGIMPORT_H
#define NEURONC_LIB_CONVERSION_LINALGTONEURON_LINALGIMPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::neuron::linalg_import {

/// The splat value an output init holds (`linalg.fill` of a constant or a
/// splat constant), if any.
std::optional<double> initSplat(Value init);

/// `init + value`, skipping the add when the init is a splat zero.
Value accumulateInto(OpBuilder &b, Location loc, Value value, Value init);

/// How a LinalgOp's indexing maps describe a (batched) matmul
/// `C[b..., m, n] += A[b..., m|k, k|m] * B[b..., k|n, n|k]`, where either of
/// m and n may be absent (matvec `[m, k] x [k]`, vecmat, dot): the operand
/// without it is viewed with a unit dim there.
struct ContractionPlan {
  bool transposeLhs = false, transposeRhs = false;
  bool hasM = true, hasN = true;
};

/// Recognizes a contraction from the indexing maps alone; on failure `why`
/// says what does not match.
FailureOr<ContractionPlan> analyzeContraction(linalg::LinalgOp op, std::string &why);

/// Emits `init + matmul(a, b)` for a recognized contraction; operands of
/// another element type than the accumulator are converted to it first
/// (linalg's signed cast), except bf16/f16 into f32, which neuron.matmul
/// accumulates itself.
Value emitContraction(PatternRewriter &rewriter, linalg::LinalgOp op, const ContractionPlan &plan);

/// Why the operand element types of a contraction cannot be imported (an
/// unsigned extension, mixed int and float), or empty.
std::string whyContractionTypesFail(linalg::LinalgOp op);

/// Folds the scalar code and shape ops of a function with dynamic tensor
/// types whose sizes are constants, so its slices and generics become
/// static (FoldConstantShapes.cpp). Does nothing to a static function.
void foldConstantShapes(func::FuncOp fn);

/// Resolves the `cf.assert`s in linalg bodies (torch-mlir's index checks,
/// ResolveBodyAsserts.cpp): one whose condition folds at compile time is
/// checked (false: an error at the assertion, naming its message) and
/// dropped when it holds; any other is dropped, with one warning per
/// function counting them. Fails when an assertion fails.
LogicalResult resolveBodyAsserts(func::FuncOp fn);

/// The named contraction patterns: matmul, batch_matmul, matvec,
/// batch_matvec, vecmat, batch_vecmat, dot.
void populateContractionPatterns(RewritePatternSet &patterns, PatternBenefit benefit);

/// The named convolution and pooling patterns (ConvertWindows.cpp):
/// conv_1d/2d/3d in channels-first and channels-last layouts, depthwise,
/// grouped, pooling max and sum.
void populateWindowPatterns(RewritePatternSet &patterns, PatternBenefit benefit);

} // namespace mlir::neuron::linalg_import

#endif // NEURONC_LIB_CONVERSION_LINALGTONEURON_LINALGIMPORT_H
