//===- NeuronOps.td - The neuron graph dialect ------------*- tablegen -*-===//
//
// Graph-level ops on ranked tensors with value semantics. This is what the
// importer produces from TOSA/linalg, what the fusion passes rewrite and what
// the reference interpreter executes. Binary ops broadcast numpy-style.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_OPS_TD
#define NEURON_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "NeuronInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Neuron_Dialect : Dialect {
  let name = "neuron";
  let summary = "Graph-level tensor ops for the neuronc accelerator compiler";
  let description = [{
    Ops on ranked tensors with value semantics: elementwise math with numpy
    broadcasting, reductions, matmul, data movement and named kernels
    (rmsnorm, layernorm, softmax). Every op states its cost through
    `CostOpInterface`.
  }];
  let cppNamespace = "::mlir::neuron";
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Types and enums
//===----------------------------------------------------------------------===//

/// Element types the dialect accepts. f64/i64 are accepted at the input so
/// that type legalization can warn about them and convert them.
def Neuron_ElementType : AnyTypeOf<[F32, BF16, F16, F64, I1, I<2>, I<4>, I8, I16, I32, I64]>;
def Neuron_FloatElementType : AnyTypeOf<[F32, BF16, F16, F64]>;
def Neuron_Tensor : RankedTensorOf<[F32, BF16, F16, F64, I1, I<2>, I<4>, I8, I16, I32, I64]>;
def Neuron_FloatTensor : RankedTensorOf<[F32, BF16, F16, F64]>;
def Neuron_IntTensor : RankedTensorOf<[I<2>, I<4>, I8, I16, I32, I64]>;

def Neuron_CmpEQ : I32EnumAttrCase<"eq", 0>;
def Neuron_CmpLT : I32EnumAttrCase<"lt", 1>;
def Neuron_CmpLE : I32EnumAttrCase<"le", 2>;
def Neuron_CmpGT : I32EnumAttrCase<"gt", 3>;
def Neuron_CmpGE : I32EnumAttrCase<"ge", 4>;
def Neuron_ComparePredicateAttr : I32EnumAttr<"ComparePredicate",
    "comparison predicate",
    [Neuron_CmpEQ, Neuron_CmpLT, Neuron_CmpLE, Neuron_CmpGT, Neuron_CmpGE]> {
  let cppNamespace = "::mlir::neuron";
}

def Neuron_GeluErf : I32EnumAttrCase<"erf", 0>;
def Neuron_GeluTanh : I32EnumAttrCase<"tanh", 1>;
def Neuron_GeluApproximationAttr : I32EnumAttr<"GeluApproximation",
    "GELU formula", [Neuron_GeluErf, Neuron_GeluTanh]> {
  let cppNamespace = "::mlir::neuron";
}

def Neuron_PoolKind : I32EnumAttr<"PoolKind", "pooling reduction", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::mlir::neuron";
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Neuron_Op<string mnemonic, list<Trait> traits = []>
    : Op<Neuron_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<NeuronCostOpInterface>])>;

/// Elementwise op whose cost is `flops` arithmetic ops and `trans`
/// transcendental evaluations per result element.
class Neuron_ElementwiseCost<int flops, int trans> {
  code costDefinition = [{
    std::optional<::mlir::neuron::OpCost> $cppClass::getCost() {
      return ::mlir::neuron::detail::elementwiseCost(getOperation(), }] # flops # [{, }] # trans # [{);
    }
  }];
}

/// Binary elementwise op with numpy broadcasting: `%r = neuron.add %a, %b :
/// tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>`.
class Neuron_BinaryOp<string mnemonic, int flops = 1, int trans = 0,
                      list<Trait> traits = []>
    : Neuron_Op<mnemonic, traits>, Neuron_ElementwiseCost<flops, trans> {
  let arguments = (ins Neuron_Tensor:$lhs, Neuron_Tensor:$rhs);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = costDefinition # [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::neuron::detail::verifyBroadcastBinary(getOperation(),
                                                           /*resultIsBool=*/false);
    }
  }];
}

/// Unary elementwise op; the result has the operand's type.
class Neuron_UnaryOp<string mnemonic, TypeConstraint operandType, int flops = 1,
                     int trans = 0, list<Trait> traits = []>
    : Neuron_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType])>,
      Neuron_ElementwiseCost<flops, trans> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
  let extraClassDefinition = costDefinition;
}

/// Reduction over a list of axes, keeping them as size-1 dims with `keepdims`.
class Neuron_ReduceOp<string mnemonic, string what>
    : Neuron_Op<mnemonic> {
  let summary = what # " over axes";
  let arguments = (ins Neuron_Tensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keepdims` $keepdims^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::neuron::detail::verifyReduction(getOperation(), getAxes(),
                                                     getKeepdims());
    }
    std::optional<::mlir::neuron::OpCost> $cppClass::getCost() {
      return ::mlir::neuron::detail::reductionCost(getOperation());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def Neuron_ConstantOp : Neuron_Op<"constant",
    [ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor constant";
  let description = [{
    ```mlir
    %c = neuron.constant dense<1.0> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary, compare, select
//===----------------------------------------------------------------------===//

def Neuron_AddOp : Neuron_BinaryOp<"add", 1, 0, [Commutative]> {
  let summary = "elementwise addition with broadcasting";
}
def Neuron_SubOp : Neuron_BinaryOp<"sub"> {
  let summary = "elementwise subtraction with broadcasting";
}
def Neuron_MulOp : Neuron_BinaryOp<"mul", 1, 0, [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
}
def Neuron_DivOp : Neuron_BinaryOp<"div"> {
  let summary = "elementwise division with broadcasting (integers truncate toward zero)";
}
def Neuron_MaxOp : Neuron_BinaryOp<"max", 1, 0, [Commutative]> {
  let summary = "elementwise maximum with broadcasting";
}
def Neuron_MinOp : Neuron_BinaryOp<"min", 1, 0, [Commutative]> {
  let summary = "elementwise minimum with broadcasting";
}
def Neuron_PowOp : Neuron_BinaryOp<"pow", 1, 2> {
  let summary = "elementwise power (float only) with broadcasting";
}

def Neuron_BitwiseAndOp : Neuron_BinaryOp<"bitwise_and", 1, 0, [Commutative]> {
  let summary = "elementwise bitwise and of integers (i1: logical and), with broadcasting";
}
def Neuron_BitwiseOrOp : Neuron_BinaryOp<"bitwise_or", 1, 0, [Commutative]> {
  let summary = "elementwise bitwise or of integers (i1: logical or), with broadcasting";
}
def Neuron_BitwiseXorOp : Neuron_BinaryOp<"bitwise_xor", 1, 0, [Commutative]> {
  let summary = "elementwise bitwise exclusive or of integers, with broadcasting";
}
def Neuron_ShiftLeftOp : Neuron_BinaryOp<"shift_left"> {
  let summary = "elementwise `lhs << rhs` of i32 (shift amounts outside [0, 31] give 0)";
}
def Neuron_ShiftRightOp : Neuron_BinaryOp<"shift_right"> {
  let summary = "elementwise arithmetic `lhs >> rhs` of i32, sign filling (amounts above 31 "
                "shift by 31)";
}
def Neuron_ShiftRightLogicalOp : Neuron_BinaryOp<"shift_right_logical"> {
  let summary = "elementwise logical `lhs >> rhs` of i32, zero filling (amounts outside "
                "[0, 31] give 0)";
}

def Neuron_CompareOp : Neuron_Op<"compare">, Neuron_ElementwiseCost<1, 0> {
  let summary = "elementwise comparison producing i1, with broadcasting";
  let description = [{
    ```mlir
    %m = neuron.compare lt, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Neuron_ComparePredicateAttr:$predicate, Neuron_Tensor:$lhs,
                       Neuron_Tensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = costDefinition # [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::neuron::detail::verifyBroadcastBinary(getOperation(),
                                                           /*resultIsBool=*/true);
    }
  }];
}

def Neuron_SelectOp : Neuron_Op<"select">, Neuron_ElementwiseCost<1, 0> {
  let summary = "elementwise choice `cond ? a : b`, with broadcasting of all three";
  let arguments = (ins RankedTensorOf<[I1]>:$condition, Neuron_Tensor:$on_true,
                       Neuron_Tensor:$on_false);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,`
    type($on_true) `,` type($on_false) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = costDefinition;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def Neuron_NegOp : Neuron_UnaryOp<"neg", Neuron_Tensor> { let summary = "-x"; }
def Neuron_AbsOp : Neuron_UnaryOp<"abs", Neuron_Tensor> { let summary = "|x|"; }
def Neuron_ExpOp : Neuron_UnaryOp<"exp", Neuron_FloatTensor, 0, 1> { let summary = "e^x"; }
def Neuron_LogOp : Neuron_UnaryOp<"log", Neuron_FloatTensor, 0, 1> { let summary = "ln x"; }
def Neuron_SqrtOp : Neuron_UnaryOp<"sqrt", Neuron_FloatTensor, 0, 1> { let summary = "√x"; }
def Neuron_RsqrtOp : Neuron_UnaryOp<"rsqrt", Neuron_FloatTensor, 0, 1> { let summary = "1/√x"; }
def Neuron_ReciprocalOp : Neuron_UnaryOp<"reciprocal", Neuron_FloatTensor> {
  let summary = "1/x";
}
def Neuron_SquareOp : Neuron_UnaryOp<"square", Neuron_Tensor> { let summary = "x*x"; }
def Neuron_TanhOp : Neuron_UnaryOp<"tanh", Neuron_FloatTensor, 0, 1> { let summary = "tanh x"; }
def Neuron_SigmoidOp : Neuron_UnaryOp<"sigmoid", Neuron_FloatTensor, 2, 1> {
  let summary = "1/(1+e^-x)";
}
def Neuron_ErfOp : Neuron_UnaryOp<"erf", Neuron_FloatTensor, 0, 1> { let summary = "erf x"; }
// sin and cos cost one function evaluation and the six operations of the
// range reduction to [-π, π] (x/2π, round, two multiply-adds) the device does
// first.
def Neuron_SinOp : Neuron_UnaryOp<"sin", Neuron_FloatTensor, 6, 1> {
  let summary = "sin x (radians)";
}
def Neuron_CosOp : Neuron_UnaryOp<"cos", Neuron_FloatTensor, 6, 1> {
  let summary = "cos x (radians)";
}
def Neuron_SiluOp : Neuron_UnaryOp<"silu", Neuron_FloatTensor, 3, 1> {
  let summary = "x * sigmoid(x)";
}
def Neuron_ReluOp : Neuron_UnaryOp<"relu", Neuron_Tensor> { let summary = "max(x, 0)"; }
def Neuron_RoundOp : Neuron_UnaryOp<"round", Neuron_FloatTensor> {
  let summary = "rounds to the nearest integer, ties to even (TOSA's float-to-int rounding)";
}

def Neuron_FloorOp : Neuron_UnaryOp<"floor", Neuron_FloatTensor> {
  let summary = "the largest integer not above x";
}
def Neuron_CeilOp : Neuron_UnaryOp<"ceil", Neuron_FloatTensor> {
  let summary = "the smallest integer not below x";
}

def Neuron_GeluOp : Neuron_Op<"gelu", [SameOperandsAndResultType]>,
                    Neuron_ElementwiseCost<8, 1> {
  let summary = "GELU, exact (erf) or tanh approximation";
  let description = [{
    `erf`: `0.5 x (1 + erf(x/√2))`; `tanh`: `0.5 x (1 + tanh(√(2/π)(x + 0.044715 x³)))`.
    ```mlir
    %y = neuron.gelu %x approximate = tanh : tensor<4xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input,
                       Neuron_GeluApproximationAttr:$approximate);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = "$input `approximate` `=` $approximate attr-dict `:` type($input)";
  let hasFolder = 1;
  let extraClassDefinition = costDefinition;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Neuron_ReduceSumOp : Neuron_ReduceOp<"reduce_sum", "sum">;
def Neuron_ReduceMeanOp : Neuron_ReduceOp<"reduce_mean", "mean">;
def Neuron_ReduceMaxOp : Neuron_ReduceOp<"reduce_max", "maximum">;
def Neuron_ReduceMinOp : Neuron_ReduceOp<"reduce_min", "minimum">;
def Neuron_ReduceProdOp : Neuron_ReduceOp<"reduce_prod", "product">;

//===----------------------------------------------------------------------===//
// Matmul and data movement
//===----------------------------------------------------------------------===//

def Neuron_MatmulOp : Neuron_Op<"matmul"> {
  let summary = "batched matrix product with optional transposed operands";
  let description = [{
    `lhs: [..., M, K]` (or `[..., K, M]` with `transpose_lhs`), `rhs: [..., K, N]`
    (or `[..., N, K]` with `transpose_rhs`), result `[..., M, N]`. Batch dims
    broadcast numpy-style; a rank-2 operand is shared by every batch. bf16/f16
    operands may produce an f32 result: products are accumulated in f32, as
    the device's PSUM does.
    ```mlir
    %c = neuron.matmul %a, %b transpose_rhs : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$lhs, Neuron_Tensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_TransposeOp : Neuron_Op<"transpose"> {
  let summary = "permutes dimensions: result dim i is input dim perm[i]";
  let arguments = (ins Neuron_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_ReshapeOp : Neuron_Op<"reshape"> {
  let summary = "reinterprets the row-major elements under a new shape";
  let arguments = (ins Neuron_Tensor:$input);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_BroadcastToOp : Neuron_Op<"broadcast_to"> {
  let summary = "numpy-style broadcast of the input to the result shape";
  let arguments = (ins Neuron_Tensor:$input);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_SliceOp : Neuron_Op<"slice"> {
  let summary = "strided slice: result[i] = input[offsets + i * strides]";
  let arguments = (ins Neuron_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets `sizes` `=` $sizes `strides` `=` $strides attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_ConcatOp : Neuron_Op<"concat"> {
  let summary = "joins tensors along an axis";
  let arguments = (ins Variadic<Neuron_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_GatherOp : Neuron_Op<"gather"> {
  let summary = "numpy.take: picks slices of `table` along `axis` by index";
  let description = [{
    Result shape is `table.shape[:axis] + indices.shape + table.shape[axis+1:]`.
    The embedding lookup is `axis = 0` on a `[vocab, dim]` table. An index out
    of range is an error at run time.
    ```mlir
    %e = neuron.gather %table[%ids] axis = 0 : tensor<100x16xf32>, tensor<1x7xi32> -> tensor<1x7x16xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$table, Neuron_IntTensor:$indices, I64Attr:$axis);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` `axis` `=` $axis attr-dict `:` type($table) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_CastOp : Neuron_Op<"cast">, Neuron_ElementwiseCost<1, 0> {
  let summary = "converts the element type";
  let description = [{
    float → float rounds to nearest even; float → int truncates toward zero and
    saturates; int → float rounds to nearest; anything → i1 is `x != 0`.
  }];
  let arguments = (ins Neuron_Tensor:$input);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = costDefinition;
}

//===----------------------------------------------------------------------===//
// Collectives (tensor-parallel programs)
//===----------------------------------------------------------------------===//

def Neuron_AllReduceOp : Neuron_Op<"all_reduce", [SameOperandsAndResultType]> {
  let summary = "the elementwise sum of `input` over the `group` cores running this program";
  let description = [{
    In a program sharded over `group` NeuronCores (`neuronc --tp=N`, the
    function's `neuron.tp` attribute), every core holds a partial `input`
    (the product of its slice of a row-parallel matmul's contraction) and
    receives the sum of all of them. The executable runs it on the cores'
    collective engines as a ring all-reduce; the interpreter, which runs
    one core's program, cannot evaluate it.
    ```mlir
    %y = neuron.all_reduce %x group = 8 : tensor<128x4096xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input, I64Attr:$group);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = "$input `group` `=` $group attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Neuron_AllGatherOp : Neuron_Op<"all_gather"> {
  let summary = "the `group` cores' parts of a tensor, concatenated along `dim`";
  let description = [{
    In a program sharded over `group` NeuronCores, core r holds part r of a
    tensor split along `dim`; every core receives the whole tensor, the
    parts concatenated in core order. `neuronc --tp=N` gathers a result that
    is still split (a column-parallel projection returned as it is). The
    executable runs it on the collective engines as a ring all-gather; the
    interpreter, which runs one core's program, cannot evaluate it.
    ```mlir
    %y = neuron.all_gather %x dim = 1 group = 8 : tensor<4x512xf32> -> tensor<4x4096xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, I64Attr:$dim, I64Attr:$group);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim `group` `=` $group attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_ReduceScatterOp : Neuron_Op<"reduce_scatter"> {
  let summary = "the sum of `input` over the `group` cores, of which core r keeps part r along `dim`";
  let description = [{
    The first half of an all-reduce: every core holds a partial sum of the
    whole tensor and receives its own part (along `dim`, in core order) of
    the sum. Sequence parallelism (`neuronc --tp=N --tp-sequence-parallel`)
    puts it after a row-parallel projection, so that the norms and residual
    adds that follow work on 1/N of the sequence. The interpreter cannot
    evaluate it.
    ```mlir
    %y = neuron.reduce_scatter %x dim = 1 group = 8 : tensor<1x2048x4096xf32> -> tensor<1x256x4096xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input, I64Attr:$dim, I64Attr:$group);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim `group` `=` $group attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_AllToAllOp : Neuron_Op<"all_to_all"> {
  let summary = "splits `input` along `split` over the `group` cores and concatenates what each receives along `concat`";
  let description = [{
    Core r's part j along `split` goes to core j, which concatenates the
    parts it receives in core order along `concat`: the exchange that turns
    a tensor split by sequence into one split by heads (Ulysses sequence
    parallelism) or routes tokens to experts. The executable runs it on the
    collective engines as pairwise exchanges; the interpreter, which runs
    one core's program, cannot evaluate it.
    ```mlir
    %y = neuron.all_to_all %x split = 1 concat = 2 group = 4 : tensor<1x32x512x128xf32> -> tensor<1x8x2048x128xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, I64Attr:$split, I64Attr:$concat, I64Attr:$group);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `split` `=` $split `concat` `=` $concat `group` `=` $group attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_SendRecvOp : Neuron_Op<"send_recv", [SameOperandsAndResultType]> {
  let summary = "sends `input` to the core `shift` places on and receives the one `shift` places back";
  let description = [{
    Core r's `input` becomes the result of core r + shift (modulo `group`
    with `cyclic`); a core nothing sends to receives zeros. With shift 1
    and no wrap, pipeline stages pass their activations on; cyclic, a ring
    exchange (ring attention's key/value blocks). The interpreter cannot
    evaluate it.
    ```mlir
    %y = neuron.send_recv %x shift = 1 group = 4 : tensor<128x4096xbf16>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, I64Attr:$shift, I64Attr:$group, UnitAttr:$cyclic);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `shift` `=` $shift `group` `=` $group (`cyclic` $cyclic^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named kernels
//===----------------------------------------------------------------------===//

def Neuron_RmsNormOp : Neuron_Op<"rmsnorm"> {
  let summary = "x * rsqrt(mean(x², axes) + epsilon) * weight";
  let description = [{
    Normalizes over `axes` (usually the last one). `weight` is optional and
    broadcasts against the input.
    ```mlir
    %y = neuron.rmsnorm %x weight %w axes = [2] epsilon = 1.0e-06
        : (tensor<1x4x64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input, Optional<Neuron_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$axes, F32Attr:$epsilon);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? `axes` `=` $axes `epsilon` `=` $epsilon attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Neuron_LayerNormOp : Neuron_Op<"layernorm", [AttrSizedOperandSegments]> {
  let summary = "(x - mean) * rsqrt(var + epsilon) * weight + bias over axes";
  let arguments = (ins Neuron_FloatTensor:$input, Optional<Neuron_FloatTensor>:$weight,
                       Optional<Neuron_FloatTensor>:$bias, DenseI64ArrayAttr:$axes,
                       F32Attr:$epsilon);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `axes` `=` $axes `epsilon` `=` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Neuron_SoftmaxOp : Neuron_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax (or log-softmax with `log`) along one axis";
  let arguments = (ins Neuron_FloatTensor:$input, I64Attr:$axis, UnitAttr:$log);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`log` $log^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Neuron_AttentionOp : Neuron_Op<"attention"> {
  let summary = "scaled dot-product attention: softmax(q·kᵀ·scale + mask)·v";
  let description = [{
    `query: [..., H, M, D]`, `key: [..., G, N, D]`, `value: [..., G, N, Dv]`,
    result `[..., H, M, Dv]`; leading dims are equal. Grouped-query attention
    is `G < H` (`H` a multiple of `G`): query head `h` reads key/value head
    `h / (H / G)`, without a repeated copy. `mask` is added to the scores and
    broadcasts numpy-style against `[..., H, M, N]`. With `causal_offset = c`,
    query row `i` sees only keys `j <= i + c` (0: a square causal mask;
    `N - M`: queries at the end of an `N`-token cache). With `key_transposed`
    the key is given as kᵀ, `[..., G, D, N]`. Scores, softmax and
    the weighted sum are computed in f32; only the result is rounded to its
    element type. What `--neuron-fuse-attention` forms from the exporters'
    matmul / scale / mask / softmax / matmul chains.
    ```mlir
    %o = neuron.attention %q, %k, %v mask %m scale = 0.125
        : (tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16>,
           tensor<128x128xf32>) -> tensor<1x32x128x128xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$query, Neuron_FloatTensor:$key,
                       Neuron_FloatTensor:$value, Optional<Neuron_FloatTensor>:$mask,
                       F32Attr:$scale, OptionalAttr<I64Attr>:$causal_offset,
                       UnitAttr:$key_transposed);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `scale` `=` $scale
    (`causal_offset` `=` $causal_offset^)? (`key_transposed` $key_transposed^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Neuron_ConvOp : Neuron_Op<"conv"> {
  let summary = "N-D convolution (cross-correlation), channels first, with groups and bias";
  let description = [{
    `input: [N, C, D1, ..., Dk]`, `weight: [F, C / groups, K1, ..., Kk]`,
    optional `bias: [F]`, result `[N, F, O1, ..., Ok]` with
    `Oi = (Di + pad_lo_i + pad_hi_i - dilation_i * (Ki - 1) - 1) / stride_i + 1`.
    `padding` lists the k leading pads, then the k trailing ones (ONNX's
    `pads`); padded positions read 0. Output channel `f` reads the input
    channels of its group `f / (F / groups)`: `groups = C` with `F = C` is a
    depthwise convolution. bf16/f16 operands may produce an f32 result
    (products accumulated in f32, as the device's PSUM does).
    ```mlir
    %y = neuron.conv %x, %w bias %b strides = [1, 1] padding = [1, 1, 1, 1]
        dilations = [1, 1] groups = 1
        : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input, Neuron_FloatTensor:$weight,
                       Optional<Neuron_FloatTensor>:$bias, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilations,
                       I64Attr:$groups);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? `strides` `=` $strides `padding` `=` $padding
    `dilations` `=` $dilations `groups` `=` $groups attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Neuron_PoolOp : Neuron_Op<"pool"> {
  let summary = "N-D max or average pooling over windows, channels first";
  let description = [{
    `input: [N, C, D1, ..., Dk]`, result `[N, C, O1, ..., Ok]` with the
    window sizes `kernel` and `Oi` as for `neuron.conv`. Max pooling ignores
    padded positions (they read -inf); average pooling divides by the
    window's positions inside the input, or by the whole window size with
    `count_include_pad` (padded positions read 0).
    ```mlir
    %y = neuron.pool max %x kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1]
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input, Neuron_PoolKind:$kind,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$padding, UnitAttr:$count_include_pad);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input `kernel` `=` $kernel `strides` `=` $strides `padding` `=` $padding
    (`count_include_pad` $count_include_pad^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused kernels
//===----------------------------------------------------------------------===//

def Neuron_KernelOp : Neuron_Op<"kernel", [IsolatedFromAbove]> {
  let summary = "a fused kernel: a region of neuron ops that runs as one device kernel";
  let description = [{
    What `--neuron-fuse-elementwise` forms: producer→consumer chains of
    elementwise, broadcast and reduction ops, and matmul epilogues. The
    inputs are read from memory once and only the results are written back;
    values inside the body stay on chip. `kind` names the fusion rule.

    ```mlir
    %r = neuron.kernel "elementwise" (%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
      %0 = neuron.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
      %1 = neuron.tanh %0 : tensor<4x8xf32>
      neuron.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kind, Variadic<Neuron_Tensor>:$inputs);
  let results = (outs Variadic<Neuron_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Hand-written engine kernels
//===----------------------------------------------------------------------===//

def Neuron_CustomKernelOp : Neuron_Op<"custom_kernel",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "calls an engine kernel written by hand: a nisa.program of the module";
  let description = [{
    The callee is a `nisa.program` in the same module, written as engine
    instructions (like an NKI kernel). Its `input k` HBM tensors take the
    operands and its `output k` tensors become the results; the types must
    match exactly (checked here, at the call). The lowering inlines its
    kernels into the calling program (tiles renamed, semaphores and
    addresses recomputed with the rest of the program), so the profile shows
    them beside the compiler's kernels, attributed to this op. The reference
    interpreter cannot run it: compile the program and run the executable.

    ```mlir
    %y = neuron.custom_kernel @rmsnorm_hand(%x, %w)
        : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Neuron_Tensor>:$inputs);
  let results = (outs Variadic<Neuron_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}

//===----------------------------------------------------------------------===//
// Shape buckets
//===----------------------------------------------------------------------===//

def Neuron_DispatchOp : Op<Neuron_Dialect, "dispatch",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs the smallest static bucket that holds the actual input sizes";
  let description = [{
    What `--neuron-bucket-shapes` leaves in place of a function with dynamic
    dims. `symbols` names the dynamic dims; `input_dims` and `output_dims`
    give every dim of every input and output as a static size (>= 0) or a
    symbol (`-1 - k` for symbol k). `callees[i]` is the static function
    compiled for `bucket_sizes[i]` (a size per symbol); it takes the inputs
    padded with zeros to those sizes, then one `i1` mask per entry of
    `masks` (a symbol index; the mask is true for the real elements), and its
    results are sliced back to the true sizes. `work_coefficients` and
    `work_exponents` model the FLOPs as a polynomial of the sizes: the
    fraction of a bucket's work that is padding.
    ```mlir
    %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 64>],
        output_dims = [array<i64: -1, 64>], masks = array<i64>,
        callees = [@f.seq128, @f.seq256], bucket_sizes = [array<i64: 128>, array<i64: 256>],
        work_coefficients = array<f64: 192.0>, work_exponents = [array<i64: 1>]}
        : (tensor<?x64xf32>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Neuron_Tensor>:$inputs, StrArrayAttr:$symbols,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "dims">:$input_dims,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "dims">:$output_dims,
                       DenseI64ArrayAttr:$masks, SymbolRefArrayAttr:$callees,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "sizes">:$bucket_sizes,
                       DenseF64ArrayAttr:$work_coefficients,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "exponents">:$work_exponents);
  let results = (outs Variadic<Neuron_Tensor>:$results);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The signature as the executable and the runners hold it.
    ::neuronc::BucketSignature getSignature();
    /// Sets every signature attribute from `sig` and the bucket callees.
    void setSignature(const ::neuronc::BucketSignature &sig,
                      ::llvm::ArrayRef<::mlir::StringRef> callees);
  }];
}

def Neuron_YieldOp : Op<Neuron_Dialect, "yield",
    [Pure, Terminator, ReturnLike, HasParent<"KernelOp">]> {
  let summary = "the results of a neuron.kernel";
  let arguments = (ins Variadic<Neuron_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // NEURON_OPS_TD
