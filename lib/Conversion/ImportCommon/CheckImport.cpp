//===- CheckImport.cpp - neuron-check-import --------------------------------===//
//
// The last step of import: every op left in a function body that is not a
// neuron op is reported, all of them, each with the reason and the nearest
// supported alternative.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Conversion/ImportUtils.h"

#include "neuronc/Conversion/Passes.h"
#include "neuronc/Dialect/Neuron/NeuronDialect.h"
#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"

#include <random>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCHECKIMPORTPASS
#include "neuronc/Dialect/Neuron/NeuronConversionPasses.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron::import;

namespace {

/// The two ways past host code, ending the errors that reject it.
constexpr llvm::StringLiteral kDropOrReturn =
    "--drop-host-calls (or --return-printed, which keeps the printed values' work as outputs)";

/// Every op the import converts, for "did you mean" suggestions.
constexpr llvm::StringLiteral kSupported[] = {
    "tosa.add", "tosa.sub", "tosa.mul", "tosa.negate", "tosa.abs", "tosa.exp", "tosa.log",
    "tosa.rsqrt", "tosa.reciprocal", "tosa.pow", "tosa.tanh", "tosa.sigmoid", "tosa.erf",
    "tosa.sin", "tosa.cos",
    "tosa.clamp", "tosa.maximum", "tosa.minimum", "tosa.greater", "tosa.greater_equal",
    "tosa.equal", "tosa.select", "tosa.cast", "tosa.reduce_sum", "tosa.reduce_max",
    "tosa.reduce_min", "tosa.reduce_product", "tosa.matmul", "tosa.transpose", "tosa.reshape",
    "tosa.const", "tosa.const_shape", "tosa.concat", "tosa.slice", "tosa.gather",
    "tosa.identity", "tosa.conv2d", "tosa.conv3d", "tosa.depthwise_conv2d",
    "tosa.transpose_conv2d", "tosa.avg_pool2d", "tosa.max_pool2d", "tosa.pad", "tosa.table",
    "linalg.conv_1d_ncw_fcw", "linalg.conv_1d_nwc_wcf", "linalg.conv_2d_nchw_fchw",
    "linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwc_fhwc", "linalg.conv_3d_ncdhw_fcdhw",
    "linalg.conv_3d_ndhwc_dhwcf", "linalg.depthwise_conv_2d_nhwc_hwc",
    "linalg.depthwise_conv_2d_nchw_chw", "linalg.conv_2d_ngchw_fgchw",
    "linalg.conv_2d_ngchw_gfchw", "linalg.pooling_nchw_max", "linalg.pooling_nhwc_max",
    "linalg.pooling_nchw_sum", "linalg.pooling_nhwc_sum", "tensor.pad", "linalg.matmul", "linalg.batch_matmul", "linalg.matvec",
    "linalg.batch_matvec", "linalg.vecmat", "linalg.batch_vecmat", "linalg.dot", "linalg.fill",
    "linalg.transpose", "linalg.softmax", "linalg.generic", "linalg.copy", "linalg.exp", "linalg.log",
    "linalg.abs", "linalg.negf", "linalg.reciprocal", "linalg.sqrt", "linalg.rsqrt",
    "linalg.square", "linalg.tanh", "linalg.erf", "linalg.add", "linalg.sub", "linalg.mul",
    "linalg.div", "linalg.max", "linalg.min", "linalg.powf", "linalg.select",
    "linalg.elementwise", "linalg.broadcast", "tensor.empty", "tensor.expand_shape",
    "tensor.collapse_shape", "tensor.reshape", "tensor.extract_slice", "tensor.insert_slice",
    "tensor.concat", "tensor.cast", "tensor.splat", "arith.constant"};

/// Ops whose nearest supported alternative is not the closest spelling.
const llvm::StringMap<llvm::StringRef> &curatedAlternatives() {
  static const llvm::StringMap<llvm::StringRef> map = {
      {"tosa.argmax", "tosa.reduce_max"},
      {"tosa.fully_connected", "tosa.matmul"},
      {"tosa.tile", "tosa.concat"},
      {"tosa.reduce_all", "tosa.reduce_min"},
      {"tosa.reduce_any", "tosa.reduce_max"},
      {"tosa.rescale", "tosa.cast"},
      {"tosa.floor", "tosa.cast"},
      {"tosa.ceil", "tosa.cast"},
      {"tosa.intdiv", "tosa.mul with tosa.reciprocal"},
      {"tosa.logical_not", "tosa.select"},
      {"tosa.logical_and", "tosa.select"},
      {"tosa.logical_or", "tosa.select"},
      {"linalg.batch_matmul_transpose_b", "linalg.batch_matmul with indexing_maps"},
      {"linalg.matmul_transpose_b", "linalg.matmul with indexing_maps"},
      {"linalg.reduce", "linalg.generic with a reduction body"},
      {"linalg.map", "linalg.generic"},
      {"linalg.conv_2d_nhwc_hwcf_q", "linalg.conv_2d_nhwc_hwcf on dequantized f32 operands"},
      {"linalg.conv_2d_nchw_fchw_q", "linalg.conv_2d_nchw_fchw on dequantized f32 operands"},
      {"linalg.depthwise_conv_2d_nhwc_hwc_q",
       "linalg.depthwise_conv_2d_nhwc_hwc on dequantized f32 operands"},
      {"linalg.depthwise_conv_2d_nhwc_hwcm", "tosa.depthwise_conv2d"},
      {"linalg.pooling_nhwc_min", "linalg.pooling_nhwc_max of the negated input"},
      {"tensor.gather", "tosa.gather"},
  };
  return map;
}

/// The nearest supported op for an unsupported one, or empty.
std::string nearestAlternative(llvm::StringRef name) {
  auto curated = curatedAlternatives().find(name);
  if (curated != curatedAlternatives().end())
    return curated->second.str();
  if (llvm::is_contained(kSupported, name))
    return {}; // a supported kind in an unsupported form: the reason says why
  llvm::StringRef best;
  unsigned bestDistance = 4; // suggest only close spellings
  for (llvm::StringRef candidate : kSupported) {
    unsigned d = name.edit_distance(candidate, /*AllowReplacements=*/true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best.str();
}

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The specific reason an op of a supported kind was left unconverted, if any.
std::string specificReason(Operation *op) {
  // Results carry the data type (operands may be i8 shifts or zero points).
  for (Type t : op->getResultTypes()) {
    auto tensor = dyn_cast<TensorType>(t);
    if (!tensor)
      continue;
    if (!isa<RankedTensorType>(tensor))
      return "it produces the unranked type " + typeName(t) + "; give the tensor a rank";
    if (!isSupportedElementType(tensor.getElementType()))
      return "element type " + typeName(tensor.getElementType()) +
             " is not one the device has (f32, bf16, f16, i32, i1; f64, i64, i2, i4, i8 and i16 are "
             "converted)";
  }
  if (auto mul = dyn_cast<tosa::MulOp>(op)) {
    std::optional<double> shift = getSplatValue(mul.getShift());
    if (!shift)
      return "its shift is not a constant";
    if (*shift != 0)
      return "its shift is " + std::to_string(static_cast<int>(*shift)) +
             " (a fixed-point rescale neuronc does not implement); use a shift of 0";
  }
  if (auto mm = dyn_cast<tosa::MatMulOp>(op))
    if (getSplatValue(mm.getAZp()) != 0.0 || getSplatValue(mm.getBZp()) != 0.0)
      return "its zero points are not 0; dequantize the operands first";
  if (auto neg = dyn_cast<tosa::NegateOp>(op))
    if (getSplatValue(neg.getInput1Zp()) != 0.0 || getSplatValue(neg.getOutputZp()) != 0.0)
      return "its zero points are not 0";
  if (std::string why = mlir::neuron::whyTosaWindowOpFails(op); !why.empty())
    return why;
  if (std::string why = mlir::neuron::whyLinalgWindowOpFails(op); !why.empty())
    return why;
  if (std::string why = mlir::neuron::whyGenericIsNotRaisable(op); !why.empty())
    return why;
  if (std::string why = mlir::neuron::whyInsertSliceIsNotRaisable(op); !why.empty())
    return why;
  return {};
}

/// Why an op is host code rather than part of a graph (loops, branches,
/// buffers), or empty.
std::string hostCodeReason(Operation *op) {
  llvm::StringRef dialect = op->getName().getDialectNamespace();
  llvm::StringRef name = op->getName().stripDialect();
  constexpr llvm::StringLiteral kOtherEntry =
      "; pick the function that holds the graph with --entry NAME";
  if ((dialect == "scf" &&
       (name == "for" || name == "while" || name == "parallel" || name == "forall")) ||
      (dialect == "affine" && (name == "for" || name == "parallel")))
    return ("hand-written loops: not a graph; neuronc compiles whole-tensor programs "
            "(tosa, linalg, tensor ops), so write the loop body as tensor ops over the "
            "iterated dim" +
            kOtherEntry)
        .str();
  if (dialect == "cf" || (dialect == "scf" && (name == "if" || name == "index_switch")) ||
      (dialect == "affine" && name == "if"))
    return ("hand-written control flow: not a graph; neuronc compiles straight-line "
            "tensor programs, so compute both sides and choose with a select (arith.select, "
            "tosa.select)" +
            kOtherEntry)
        .str();
  if (dialect == "memref" || dialect == "bufferization")
    return ("it works on buffers (memref), which is host-side (or already bufferized) "
            "code; import the tensor program before bufferization" +
            kOtherEntry)
        .str();
  if (dialect == "llvm" && !isa<LLVM::CallOp>(op))
    return ("LLVM-dialect code is host-side code; import the program before it is lowered to "
            "LLVM" +
            kOtherEntry)
        .str();
  return {};
}

/// True for a constant whose values were elided when the file was printed
/// (`dense_resource<__elided__>`): a resource handle without a blob.
bool hasMissingWeights(neuron::ConstantOp c) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(c.getValue());
  return resource && !resource.getRawHandle().getBlob();
}

/// Replaces the elided values of `c` with seeded random ones (normal,
/// standard deviation 0.02, as models initialize weights; integers 0), with
/// a warning: the program compiles and profiles, its results are not the
/// model's.
void substituteRandomWeights(neuron::ConstantOp c, uint64_t seed) {
  auto type = cast<RankedTensorType>(c.getType());
  // The constant's position keys the stream, so each weight differs.
  uint64_t key = seed;
  if (auto file = dyn_cast<FileLineColLoc>(c.getLoc()))
    key = seed * 1000003u + file.getLine() * 131u + file.getColumn();
  std::mt19937_64 rng(key);
  std::normal_distribution<double> normal(0.0, 0.02); // heuristic: typical weight init
  Type elem = type.getElementType();
  SmallVector<Attribute> values;
  values.reserve(type.getNumElements());
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    values.push_back(isa<FloatType>(elem) ? Attribute(FloatAttr::get(elem, normal(rng)))
                                          : Attribute(IntegerAttr::get(elem, 0)));
  c.emitWarning("elided weights of type ")
      << type << " replaced by seeded random values (--random-elided-weights=" << seed
      << "); the results are not the model's";
  c.setValueAttr(DenseElementsAttr::get(type, values));
}

/// Neuron ops and returns are what import should leave.
bool isConverted(Operation *op) {
  return isa<func::ReturnOp>(op) || isa_and_present<neuron::NeuronDialect>(op->getDialect());
}

struct CheckImportPass : mlir::neuron::impl::NeuronCheckImportPassBase<CheckImportPass> {
  using Base::Base;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    bool ok = true;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      llvm::SmallPtrSet<Operation *, 8> reported;
      for (Block &block : fn.getBody()) {
        for (Operation &op : block) {
          if (auto c = dyn_cast<neuron::ConstantOp>(op); c && hasMissingWeights(c)) {
            if (randomElidedWeights >= 0) {
              substituteRandomWeights(c, static_cast<uint64_t>(randomElidedWeights));
              continue;
            }
            c.emitError("neuronc cannot import this constant of type ")
                << c.getType()
                << ": its values are missing (dense_resource<__elided__>: the file was printed "
                   "with large constants elided); export the model again with its weights "
                   "(without --mlir-elide-resource-strings-if-larger or "
                   "--mlir-elide-elementsattrs-if-larger)";
            ok = false;
            continue;
          }
          if (isConverted(&op))
            continue;
          // An operand-maker (a shift constant, an init tensor.empty) used
          // only by ops that are reported anyway adds nothing to the report.
          bool makesOperands = llvm::none_of(
              op.getOperandTypes(), [](Type t) { return isa<TensorType>(t); });
          if (makesOperands && isMemoryEffectFree(&op) && !op.use_empty() &&
              llvm::all_of(op.getUsers(), [&](Operation *u) { return !isConverted(u); }))
            continue;
          // Scalar code computing only from already reported ops (a timer
          // difference) adds nothing to the report.
          bool scalar = llvm::none_of(op.getResultTypes(),
                                      [](Type t) { return isa<ShapedType>(t); });
          if (scalar && op.getNumOperands() > 0 && llvm::all_of(op.getOperands(), [&](Value v) {
                return v.getDefiningOp() && reported.contains(v.getDefiningOp());
              })) {
            reported.insert(&op);
            continue;
          }
          reported.insert(&op);
          ok = false;
          report(&op, symbols);
        }
      }
    }
    if (!ok)
      signalPassFailure();
  }

  void report(Operation *op, SymbolTableCollection &symbols) {
    llvm::StringRef name = op->getName().getStringRef();
    if (std::string why = hostCodeReason(op); !why.empty()) {
      op->emitError("neuronc cannot import '") << name << "': " << why;
      return;
    }
    if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      InFlightDiagnostic d = op->emitError("neuronc cannot import the call to host function ");
      if (std::optional<StringRef> callee = call.getCallee())
        d << "@" << *callee;
      else
        d << "(indirect)";
      d << ": device code cannot call the host; remove it or pass " << kDropOrReturn;
      return;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      if (callee && callee.isExternal()) {
        op->emitError("neuronc cannot import the call to host function @")
            << call.getCallee() << ": device code cannot call the host; remove it or pass "
            << kDropOrReturn;
        return;
      }
      op->emitError("neuronc cannot import the call to @")
          << call.getCallee() << "; inline it into the entry function";
      return;
    }
    if (name == "vector.print") {
      op->emitError("neuronc cannot import 'vector.print': printing is host-side code; "
                    "remove it or pass ")
          << kDropOrReturn;
      return;
    }
    if (name.starts_with("check.expect_")) {
      op->emitError("neuronc cannot import '")
          << name << "': it is a test assertion that runs on the host; remove it or pass "
          << kDropOrReturn;
      return;
    }
    InFlightDiagnostic d = op->emitError("neuronc cannot import '") << name << "'";
    if (std::string why = specificReason(op); !why.empty()) {
      d << ": " << why;
      return;
    }
    if (llvm::is_contained(kSupported, name)) {
      d << ": this form of it is not supported";
      return;
    }
    d << ": it has no neuron equivalent";
    if (std::string alt = nearestAlternative(name); !alt.empty())
      d << "; the nearest supported op is '" << alt << "'";
  }
};

} // namespace
