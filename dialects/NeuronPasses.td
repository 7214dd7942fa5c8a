//===- NeuronPasses.td - Passes over the neuron dialect ---*- tablegen -*-===//

#ifndef NEURON_PASSES_TD
#define NEURON_PASSES_TD

include "mlir/Pass/PassBase.td"

def NeuronCostReportPass : Pass<"neuron-cost-report", "::mlir::func::FuncOp"> {
  let summary = "Reports each op's FLOPs, bytes moved and arithmetic intensity";
  let description = [{
    Asks every op that implements `CostOpInterface` for its cost and emits a
    remark on it, then one remark on the function with the totals:

    ```
    remark: cost: flops=512 transcendentals=0 read=4096B written=2048B intensity=0.0833 flop/B
    ```

    Ops with dynamic shapes report `cost: unknown (dynamic shape)`. With
    `target=trn1` (or trn2) each remark also gives the op's static roofline on
    that target from the hardware table: the lower-bound time of the engine
    or memory that limits it and the verdict, e.g. `trn1: 7.68 us,
    memory-bound (HBM)`. The IR is not changed. This is the static view that the profiler's measured numbers
    are later compared to.
  }];
  let options = [
    Option<"totalsOnly", "totals-only", "bool", /*default=*/"false",
           "Emit only the per-function totals, not a remark per op">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Also give each op's static roofline on this target (trn1 or trn2): its lower-bound "
           "time and what bounds it">
  ];
}

def NeuronLegalizeTypesPass : Pass<"neuron-legalize-types", "::mlir::ModuleOp"> {
  let summary = "Converts f64 to f32 and i64 to i32, and optionally casts compute to bf16/f16";
  let description = [{
    The device has no fp64 and computes indices in 32 bits. Every f64 value
    (arguments, results, constants) becomes f32 and every i64 becomes i32;
    integer constants are range-checked (out of range is an error). One
    warning per function says what was converted, e.g. "3 values of type f64
    were converted to f32: the device has no fp64".

    `auto-cast=matmult` casts matmul operands to `auto-cast-type` (bf16 or
    f16) and keeps an f32 result, i.e. f32 accumulation; `auto-cast=all`
    computes every float op in that type, casting at the function boundary.
  }];
  let options = [
    Option<"autoCast", "auto-cast", "std::string", /*default=*/"\"none\"",
           "What to compute in a 16-bit float type: none, matmult or all">,
    Option<"autoCastType", "auto-cast-type", "std::string", /*default=*/"\"bf16\"",
           "The 16-bit float type for auto-cast: bf16 or f16">
  ];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronDecomposeNamedKernelsPass : Pass<"neuron-decompose-named-kernels",
                                            "::mlir::func::FuncOp"> {
  let summary = "Rewrites neuron.rmsnorm, neuron.layernorm and neuron.softmax into primitive ops";
  let description = [{
    The one definition of the named row kernels
    (`include/neuronc/Dialect/Neuron/NamedKernels.h`) written out as neuron
    ops: f32 casts of 16-bit inputs, squares, keepdims reductions, scalar
    constants and broadcasting arithmetic, a cast back to the result type.
    The row-kernel lowering builds its instructions from the same
    definition, so this pass shows what a fused kernel computes, step by
    step, and the interpreter checks that definition against its own
    reference kernels (`test/unit/NamedKernelsTest.cpp`).

    ```
    %y = neuron.softmax %x axis = 1 : tensor<4x8xf32>
    // becomes
    %m = neuron.reduce_max %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    %d = neuron.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    %e = neuron.exp %d : tensor<4x8xf32>
    %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    %r = neuron.reciprocal %s : tensor<4x1xf32>
    %y = neuron.mul %e, %r : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronDecomposeWindowsPass : Pass<"neuron-decompose-windows", "::mlir::func::FuncOp"> {
  let summary = "Splits convolutions and poolings over three or more spatial dims into 2-D ones";
  let description = [{
    The device lowering tiles 1-D and 2-D windows; a window over k > 2
    spatial dims becomes windows over k - 1 dims until two are left (exact
    in real arithmetic; the sums are only reassociated).

    A convolution `[N, C, D, S...]` with weight `[F, C/g, KD, K...]` moves
    the first spatial dim next to the batch (a transpose), pads it with
    zero planes, and for every depth tap `kd` convolves the planes
    `kd * dilation + od * stride` (a strided slice, folded into the batch by
    a reshape) with the weight's slice `kd`; the KD partial results are
    added (the bias goes to the first) and the depth dim is moved back.

    A pooling is separable: max and sum are associative, and the count of
    in-bounds positions (or the window size with `count_include_pad`) is a
    product over the dims, so it pools the last k - 1 dims of
    `[N, C*D, S...]` (a reshape) and then the first dim of `[N, C, D, R]`
    with a `[KD, 1]` window.
    ```mlir
    %y = neuron.pool max %x kernel = [3, 3, 3] strides = [2, 2, 2] padding = [1, 1, 1, 1, 1, 1]
        : tensor<1x4x8x8x8xf32> -> tensor<1x4x4x4x4xf32>
    // becomes
    %a = neuron.reshape %x : tensor<1x4x8x8x8xf32> -> tensor<1x32x8x8xf32>
    %b = neuron.pool max %a kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1]
        : tensor<1x32x8x8xf32> -> tensor<1x32x4x4xf32>
    %c = neuron.reshape %b : tensor<1x32x4x4xf32> -> tensor<1x4x8x16xf32>
    %d = neuron.pool max %c kernel = [3, 1] strides = [2, 1] padding = [1, 0, 1, 0]
        : tensor<1x4x8x16xf32> -> tensor<1x4x4x16xf32>
    %y = neuron.reshape %d : tensor<1x4x4x16xf32> -> tensor<1x4x4x4x4xf32>
    ```
    Windows with a dynamic dim are left alone (bucketing makes them static
    before this pass runs in the compile pipeline).
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronHoistCastsPass : Pass<"neuron-hoist-casts", "::mlir::func::FuncOp"> {
  let summary = "Moves narrowing float casts above the data movement and max pools they follow";
  let description = [{
    `--auto-cast` narrows a matmul or convolution operand right before its
    user, after whatever moved the value there. `cast(op(x))` becomes
    `op(cast(x))` when the cast is the op's only user and the op is a
    reshape, transpose, broadcast, slice, concat (every input cast), a max
    pool, or a gather from a constant table (the table's cast folds):
    rounding to nearest commutes with moving elements and with max, so the
    result is bit-identical, the op moves half the bytes, and the cast
    lands next to the op that computes the value, whose kernel writes the
    narrow type (general fusion takes it in). Each move is a fusion-report
    entry (`hoist-cast`); a cast left after such an op because the op has
    other users is recorded with that reason. A cast of an attention's
    result, its only user, becomes the attention's result type: the
    attention rounds only its result, so the kernel stores narrow.
  }];
}

def NeuronFoldTransposesPass : Pass<"neuron-fold-transposes", "::mlir::func::FuncOp"> {
  let summary = "Folds transposes of a matmul operand's two matrix dims into the matmul";
  let description = [{
    TensorE takes either orientation of a matmul operand (the lowering loads
    an operand whose contraction dim is innermost row-wise and transposes its
    tiles on TensorE in SBUF), so `matmul(transpose(x))` with a transpose of
    the last two dims becomes `matmul(x)` with `transpose_lhs` or
    `transpose_rhs` toggled, and the transpose never round-trips HBM. A
    reshape that keeps the last two dims (a leading unit dim dropped, batch
    dims merged) is moved above such a transpose first, as exporters put one
    between the transposed weight and the matmul. Each fold is recorded in
    the fusion report; a transpose that feeds a matmul but stays (it has other
    users) is recorded with the reason.
  }];
}

def NeuronPrepackWeightsPass : Pass<"neuron-prepack-weights", "::mlir::ModuleOp"> {
  let summary = "Takes entry arguments only read transposed in the device's layout, swapped at load";
  let description = [{
    An argument of an entry function whose every reader wants it with its
    last two dims swapped (a transpose of those dims, or a matmul operand
    with its transpose flag; through casts and reshapes of the batch dims)
    is declared in the swapped layout and marked `neuron.host_transposed`:
    the executable records it, and the runtime swaps the dims of the tensor
    it is given when it loads it. Exporters write `nn.Linear` as
    `matmul(x, transpose(W))` with W `[out, in]`, so the matmul then streams
    W with its contraction dim on partitions and no TensorE transposes.
    Weight prepacking is right for weights loaded once and called many times;
    the pass runs only when asked (`neuronc --prepack-weights`). Each
    argument is a fusion-report entry (`prepack-weight`), or a why-not when
    some reader takes it as declared.
  }];
}

def NeuronFoldBroadcastOperandsPass : Pass<"neuron-fold-broadcast-operands",
                                            "::mlir::func::FuncOp"> {
  let summary = "Reads a matmul operand broadcast along batch dims without materializing it";
  let description = [{
    Grouped-query attention repeats each K/V head for its group of query
    heads (`repeat_kv`: reshape to [.., KV, 1, T, D], broadcast to
    [.., KV, R, T, D] by `broadcast_to` or by adding a splat zero, reshape to
    [.., KV*R, T, D]) before the attention matmuls. When the query rows of a
    group fit one row tile (decode), `matmul(Q, repeat(kv))` becomes
    `reshape(matmul(reshape(Q) [.., KV, R*M, K], kv [.., KV, T, D]))`: the R
    heads of a group are rows of one matmul, each K/V tile loads once, and
    the repeated copy (R times the cache) never goes to HBM. Each fold is a
    fusion-report entry (`broadcast-into-matmul`). Prefill keeps the copy:
    there the merged matmul would block differently and the reshape after
    it would keep its epilogue out of its kernel.
  }];
}

def NeuronFuseRmsNormPass : Pass<"neuron-fuse-rmsnorm", "::mlir::func::FuncOp"> {
  let summary = "Collapses x * rsqrt(mean(x^2) + eps) [* w] chains into neuron.rmsnorm";
  let description = [{
    Recognizes RMSNorm in the forms exporters produce: x² as mul(x, x),
    pow(x, 2) or square(x); the mean as reduce_mean, reduce_sum times 1/N or
    divided by N, over one axis or a chain of trailing-axis reductions, with
    or without keepdims + reshape; ε added before rsqrt, or inside a sqrt
    followed by reciprocal or a division; the weight on either side of the
    normalization product, or absent.

    ```mlir
    %sq = neuron.mul %x, %x ...        %y = neuron.rmsnorm %x weight %w
    %s  = neuron.reduce_sum %sq ...  →      axes = [2] epsilon = 1.0e-06 ...
    ... rsqrt, mul, mul %w
    ```

    It does not fuse, and records why, when the meaning differs: N is not
    the number of reduced elements, ε is not a scalar constant, the reduced
    axes are not the ones the product normalizes, the axes are not
    contiguous, or an intermediate is used outside the chain. Decisions are
    recorded for `--fusion-report` and `--neuron-fusion-remarks`.
  }];
}

def NeuronFuseLayerNormPass : Pass<"neuron-fuse-layernorm", "::mlir::func::FuncOp"> {
  let summary = "Turns rmsnorm(x - mean(x)) [+ b] into neuron.layernorm";
  let description = [{
    Runs after --neuron-fuse-rmsnorm, which collapses the variance chain of a
    layernorm into an rmsnorm of the centred input. The mean may be
    reduce_mean or reduce_sum times 1/N or divided by N over exactly the
    normalized axes; an add after the normalization becomes the bias.
  }];
}

def NeuronFuseAttentionPass : Pass<"neuron-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Collapses matmul / scale / mask / softmax / matmul chains into neuron.attention";
  let description = [{
    Scaled dot-product attention in the forms exporters emit: the scale as a
    multiply or divide of the scores, or of q (and k) before the first
    matmul; an additive mask of any broadcastable shape, or none; softmax
    already collapsed by `--neuron-fuse-softmax` (so through a reciprocal or
    a division); kᵀ as the first matmul's `transpose_rhs`; f32 or bf16 with
    `--auto-cast` casts on the way; grouped-query attention's repeated K/V
    (reshape, broadcast or add of a zero, reshape) read from the
    unrepeated heads. A constant mask that is 0 for keys `j <= i + c` and at
    most -1e4 beyond becomes `causal_offset = c`. Every softmax next to a
    matmul gets a fusion-report entry (`attention`), fused or with the
    reason it was not.
  }];
}

def NeuronOrderMatmulRowsPass : Pass<"neuron-order-matmul-rows", "::mlir::func::FuncOp"> {
  let summary = "Runs a shared-weight matmul's rows in the order its attention reads them";
  let description = [{
    A matmul by a rank-2 weight computes each result row from the same lhs
    row, so its leading dims may be permuted: `matmul(x)` becomes
    `transpose⁻¹(matmul(transpose(x)))`. When every reader of the result
    (after its row-wise ops: casts, adds of a bias broadcast along the rows,
    activations) reaches an attention's query, key or value through slices,
    reshapes and transposes that keep one leading dim whole, and that dim is
    the attention's rows but not the matmul's innermost leading dim (the
    sequence-first `[L, B, E]` in-projection of `nn.MultiheadAttention`),
    the pass moves it innermost, row-wise ops included. The transposes fold
    into the kernels' DMAs, and each attention row tile is then one of the
    matmul's output tiles, partition for partition: `nisa-forward-stores`
    reads it from SBUF. Each rewrite is a fusion-report entry
    (`matmul-row-order`); a matmul whose result reaches an attention but not
    as its rows is recorded with the reason.
  }];
}

def NeuronFuseSoftmaxPass : Pass<"neuron-fuse-softmax", "::mlir::func::FuncOp"> {
  let summary = "Collapses max/sub/exp/sum/div chains into neuron.softmax (and log-softmax)";
  let description = [{
    Softmax along one axis in its stable form, exp(x - max(x)) / sum(...),
    with the division written as a div or as a multiply by a reciprocal;
    log-softmax as x - max - log(sum(exp(x - max))) (also with max + log(...)
    subtracted in one step); and exp of a log-softmax as a softmax.
  }];
}

def NeuronFoldBatchNormPass : Pass<"neuron-fold-batchnorm", "::mlir::func::FuncOp"> {
  let summary = "Folds per-channel multiplies and adds after a convolution into its weights and bias";
  let description = [{
    Batch normalization in inference form (and any per-channel scale or
    shift by constants) after a convolution with a constant weight becomes
    part of the convolution at compile time: `conv(x, W, c) * s` is
    `conv(x, W * s, c * s)`, `conv(x, W, c) + t` is `conv(x, W, c + t)`
    (likewise divide and subtract). The convolution must have no other user.
  }];
}

def NeuronMergeConvGroupsPass : Pass<"neuron-merge-conv-groups", "::mlir::func::FuncOp"> {
  let summary = "Runs k groups of a grouped convolution as one group with block-diagonal weights";
  let description = [{
    A grouped convolution with few channels per group (RegNet's group width
    8, ResNeXt's 4) lowers to one TensorE pass per group, each a handful of
    partitions, each with its own weight load and output stores. A
    multiply costs TensorE the same for 8 contraction rows as for 128, so k
    adjacent groups run as one: the constant weight becomes block-diagonal
    (`[F, k*Cg, KH, KW]`, zero where an input channel belongs to another
    group) and `groups` becomes G / k. k is the divisor of G that saves the
    most, with k*Cg and k*F/G at most the partitions, when the per-group
    overhead saved (a DMA latency per group) exceeds the time to load the
    larger weight. The weight may be a constant or a cast of one
    (--auto-cast). Depthwise convolutions (one channel per group) keep their
    own lowering. The zeros add nothing to finite inputs; an infinite input
    makes its merged neighbours NaN where the grouped convolution left them
    finite.
  }];
}

def NeuronMergeSiblingMatmulsPass : Pass<"neuron-merge-sibling-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Runs matmuls of one lhs by different constant weights as one matmul";
  let description = [{
    Matmuls that multiply the same lhs (not transposed) by different
    constant `[K, N]` weights (BERT's, T5's or Llama's separate query, key
    and value projections) become one matmul whose weight is theirs
    concatenated along N, followed by one slice per sibling: the lhs is
    loaded and transposed once, and one kernel replaces several (the
    slices fold into their readers' loads, as a fused projection's do).
    Siblings must agree on K, the weight type and the result's shape but
    its last dim. Siblings whose results meet within three elementwise ops
    (a SwiGLU's gate and up projections, which general fusion runs as one
    matmul-swiglu kernel) stay apart, and so do groups whose merged weight
    would exceed 256 MiB. Each merge is a fusion-report entry
    (`sibling matmuls`).
  }];
}

def NeuronFuseActivationsPass : Pass<"neuron-fuse-activations", "::mlir::func::FuncOp"> {
  let summary = "Recognizes SiLU (x * sigmoid(x), x / (1 + exp(-x))) and GELU forms";
  let description = [{
    x * sigmoid(x) in either order and x / (1 + exp(-x)) become neuron.silu;
    0.5 * x * (1 + erf(x / sqrt 2)) and the tanh approximation become
    neuron.gelu. Each op of the chain must have no other users.
  }];
}

def NeuronFuseElementwisePass : Pass<"neuron-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuses producer→consumer chains into neuron.kernel regions";
  let description = [{
    What the named-kernel passes leave: starting from each consumer, walks up
    to its producers and pulls in elementwise, broadcast, reshape and
    reduction ops, and at most one "hero" (matmul, rmsnorm, softmax,
    layernorm) whose epilogue the kernel then is. A producer joins when all
    its users are in the kernel, or, when its other users all come after the
    kernel, as an extra result if the cost model says returning it saves HBM
    traffic; nothing is recomputed and no cycle can form. The kernel's
    working set per row tile must fit the SBUF budget. Splat and small constants are copied into the body. Each kernel
    and each rejected producer is recorded with its reason.
  }];
  let options = [
    Option<"sbufBytes", "sbuf-bytes", "int64_t",
           /*default=*/"::neuronc::hardwareModels().front().sbufBytes()",
           "SBUF bytes a kernel's working set per row tile may use (default: the default "
           "target's SBUF, trn1: 24 MiB)">
  ];
}

def NeuronFusePoolPass : Pass<"neuron-fuse-pool", "::mlir::func::FuncOp"> {
  let summary = "Fuses a pooling into the convolution kernel that produces its input";
  let description = [{
    A `neuron.pool` whose input is a `neuron.conv` or a `conv-epilogue`
    kernel (the convolution with its bias, activation, residual add) with
    no other user becomes the last op of that kernel, of kind `conv-pool`:
    the lowering keeps each output channel tile's convolution planes in SBUF
    and pools them there, so the convolution's output never goes to HBM.
    Refused (and recorded with the reason) when the convolution has other
    users, is depthwise, or one padded plane of its output would take more
    than half an SBUF partition.
  }];
}

def NeuronFuseConvSumsPass : Pass<"neuron-fuse-conv-sums", "::mlir::func::FuncOp"> {
  let summary = "Sums a bare pointwise convolution into the convolution kernel that adds it";
  let description = [{
    A bare 1x1 `neuron.conv` (any stride, no padding, one group, no bias)
    whose one reader is a `conv-epilogue` kernel adding its value to the
    kernel's own convolution (each side possibly plus a per-channel
    constant, as folded batch norms leave them) joins that kernel, of kind
    `conv-sum`: the body becomes `add(conv_a, conv_b)` plus the constants'
    sum (folded), and the lowering accumulates both convolutions into the
    same PSUM tiles, so the bare convolution's output is never stored or
    read back (ResNet's downsample projection). Refused, with the reason
    recorded, for windows, padding, groups, biases, other shapes or element
    types, or a value read in more than one place.
  }];
}

def NeuronFuseConvChainsPass : Pass<"neuron-fuse-conv-chains", "::mlir::func::FuncOp"> {
  let summary = "Chains a pointwise convolution to the convolution kernel that produces its input";
  let description = [{
    A 1x1 `neuron.conv` (stride 1, no padding, one group, no bias) whose
    input is the output of a `conv-epilogue` or `conv-sum` kernel (or of a
    convolution through an --auto-cast narrowing) joins that kernel as its
    tail, in a
    kernel of kind `conv-chain`: per output tile, the lowering computes all
    of the first convolution's channels and its epilogue, leaves them in
    SBUF and multiplies them into the second convolution's accumulators, so
    the value between them is never read back from HBM (it is still stored
    when other ops read it). Each kernel joins one chain; the pairs that save
    the most bytes go first. Refused, with the reason recorded, for grouped
    or strided tails, biases, a first convolution without an epilogue, rows
    wider than a PSUM bank, or a reader of the first value before the tail.
  }];
}

def NeuronFusionRemarksPass : Pass<"neuron-fusion-remarks", "::mlir::ModuleOp"> {
  let summary = "Emits every recorded fusion decision as a remark and removes the records";
  let description = [{
    For tests and for reading decisions next to the IR: `fused rmsnorm
    (absorbed 7 ops, saves N bytes)` or `not fused rmsnorm: <reason>` at the
    anchor op of each candidate.
  }];
}

def NeuronRefineShapesPass : Pass<"neuron-refine-shapes", "::mlir::func::FuncOp"> {
  let summary = "Gives results the static shapes their static operands imply";
  let description = [{
    Exporters relax types (`tensor.cast` to `tensor<?x?xf32>`) that import
    keeps as reshapes. When an op's operands are static, its result shape is
    known from the shape rules (broadcasting, reductions, matmul, transpose,
    norms and softmax keep their input's shape; a reshape that only relaxes
    dims keeps them, and one dynamic dim of a reshape follows from the
    element count). Such results get their static type, in program order,
    so that static programs stay static for the device:

    ```mlir
    %1 = neuron.reshape %0 : tensor<10x256xf32> -> tensor<?x?xf32>
    %2 = neuron.softmax %1 axis = 1 : tensor<?x?xf32>
    // becomes
    %1 = neuron.reshape %0 : tensor<10x256xf32> -> tensor<10x256xf32>
    %2 = neuron.softmax %1 axis = 1 : tensor<10x256xf32>
    ```

    Function signatures are not changed; a refined value returned where the
    signature says dynamic keeps its dynamic type through a final reshape.
  }];
}

def NeuronBucketShapesPass : Pass<"neuron-bucket-shapes", "::mlir::ModuleOp"> {
  let summary = "Turns dynamic dims into static buckets with padding, masks and a dispatcher";
  let description = [{
    For every function with dynamically shaped arguments: finds which
    dynamic dims are the same size (tied through the ops: a `?` added to a
    `?`, a matmul's contraction dims, ...) and names each class a symbol
    (`neuron.dim_names` on an argument, e.g. `["seq", ""]`, else `argI.D`);
    then, for every bucket of `buckets` (a size per symbol; a grid when
    several symbols vary), clones the function with those static sizes as
    `@f.seq_128`, and replaces the body of `@f` by a `neuron.dispatch` that
    picks the smallest bucket holding the actual sizes, pads the inputs with
    zeros and slices the results back.

    Padding must not change the real elements. Along a padded dim, each
    reduction (sum, max, min, product; the softmax's max and sum; a matmul's
    contraction) gets its input masked to the reduction's identity unless
    the padded elements are already known to be that identity (a pad-value
    analysis follows zeros and infinities through the ops); a mean divides
    by the true count. The masks are `i1` vectors the host passes after the
    inputs. Norms over a padded dim, slices and concatenations along one,
    and reshapes that merge a dynamic dim with others are refused with the
    op and the dim named.

    `buckets` syntax: `seq:128,256,512` (explicit sizes), `seq:auto:128:4096`
    (powers of two from 128 up to 4096), entries separated by `;`.
  }];
  let options = [
    Option<"buckets", "buckets", "std::string", /*default=*/"\"\"",
           "The buckets per dynamic dim, e.g. 'seq:128,256;batch:auto:1:8'">,
    Option<"maxBuckets", "max-buckets", "unsigned", /*default=*/"64",
           "Refuse a bucket grid with more buckets than this">
  ];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronShardTensorParallelPass : Pass<"neuron-shard-tp", "::mlir::ModuleOp"> {
  let summary = "Rewrites each entry function into the program one core of a tensor-parallel group runs";
  let description = [{
    Megatron-style tensor parallelism over `parts` NeuronCores (`neuronc
    --tp=N`). A sharding state (replicated, split along a dim into P parts,
    partial sum) is propagated forward from the arguments through the
    program in order. A matmul reading a weight argument (`[out, in]`, read
    transposed as nn.Linear does) is column-parallel when its activation is
    replicated (the weight's `out` dim is split; Q/K/V, gate and up) and
    row-parallel when the activation is split along the contraction (the
    weight's `in` dim is split, the product is a partial sum followed by a
    `neuron.all_reduce`; the output and down projections). Elementwise ops,
    reshapes that split the features into heads, transposes, slices and
    concatenations off the split dim (RoPE), reductions and softmax off it,
    attention's batched matmuls and grouped-query attention's `repeat_kv`
    keep a split; a K/V projection with fewer heads than cores is split
    into as many parts as it has heads, each part held by consecutive cores.

    The function is rewritten in place: split arguments take their local
    type and `neuron.shard = array<i64: DIM, PARTS>` (core r reads part
    r / (N / PARTS) along DIM), the function gets `neuron.tp = N`, every
    result is replicated (a result split over all N cores is gathered with
    `neuron.all_gather` before the return). An op the rules do not cover on
    a split value, a dim N does not divide, or a program with nothing to
    split is an error naming the op and the reason. `report` (a file, `-`
    for stderr) lists each argument's role, each all-reduce and all-gather
    with its bytes per core, and the ops every core computes whole.
  }];
  let options = [
    Option<"parts", "parts", "int64_t", /*default=*/"1",
           "Cores of the tensor-parallel group (1: nothing to do)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write every sharding decision to this file ('-' for stderr)">
  ];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronSequenceParallelPass : Pass<"neuron-sequence-parallel", "::mlir::ModuleOp"> {
  let summary = "Splits a tensor-parallel program's norms and residual adds along the sequence";
  let description = [{
    Megatron's sequence parallelism, on the program `--neuron-shard-tp`
    made (functions with `neuron.tp = N`): each `neuron.all_reduce` of a
    tensor whose second-to-last dim (the sequence) N divides becomes a
    `neuron.reduce_scatter` along it, and the layer input of the same type
    arrives split along it (`neuron.shard = [dim, N]`). The split follows
    the ops that compute each row from the same row of their operands
    (elementwise ops with operands that broadcast along the sequence,
    casts, reductions and norms over later dims): every core normalizes and
    adds 1/N of the rows. Before any other use (the column-parallel
    projections, a returned value of another type) a `neuron.all_gather`
    along the sequence restores the whole tensor; the returned value of the
    residual stream's type stays split as the input arrived (the result's
    `neuron.shard = [dim, N]`; the runtime joins the cores' parts). The ring moves the same bytes as the
    all-reduce did (a reduce-scatter and an all-gather are its two halves).
    A program where no all-reduce qualifies is an error.
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

#endif // NEURON_PASSES_TD
