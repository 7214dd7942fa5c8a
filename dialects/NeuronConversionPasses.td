//===- NeuronConversionPasses.td - Import into neuron -----*- tablegen -*-===//
//
// Passes that bring exporter output (TOSA 1.0, linalg, tensor, arith, math)
// into the neuron dialect. `--neuron-import` runs them all in order.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_CONVERSION_PASSES_TD
#define NEURON_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def NeuronConvertTosaPass : Pass<"neuron-convert-tosa", "::mlir::func::FuncOp"> {
  let summary = "Converts TOSA 1.0 ops to neuron ops";
  let description = [{
    Elementwise ops, reductions, matmul and data movement become neuron ops;
    TOSA's rank-matched broadcasting maps onto neuron's numpy broadcasting.
    `tosa.mul` with a non-zero shift on floats and non-zero zero points are
    errors. Ops without a pattern are left for `--neuron-check-import`.

    ```mlir
    %0 = tosa.add %a, %b : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    // becomes
    %0 = neuron.add %a, %b : tensor<1x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronConvertLinalgPass : Pass<"neuron-convert-linalg", "::mlir::func::FuncOp"> {
  let summary = "Raises linalg named ops and linalg.generic to neuron ops";
  let description = [{
    matmul/batch_matmul (including transposed indexing maps), fill,
    transpose and softmax map to neuron ops. A `linalg.generic` is raised
    when its body is elementwise scalar arithmetic (arith/math ops, compares,
    selects, casts, `math.fpowi` by a constant) over projected-permutation
    indexing maps, or a simple sum/max/min reduction; each operand becomes a
    transpose/reshape feeding neuron's broadcasting ops. A `cf.assert` in a
    body (torch-mlir's index checks) is checked when its condition folds at
    compile time and dropped, with one warning per function, when it depends
    on run-time values.
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronConvertTensorPass : Pass<"neuron-convert-tensor", "::mlir::func::FuncOp"> {
  let summary = "Converts tensor reshapes/slices/concat and arith tensor constants to neuron ops";
  let description = [{
    tensor.expand_shape/collapse_shape/reshape/cast become neuron.reshape,
    extract_slice becomes neuron.slice (+ reshape when rank-reducing),
    insert_slice becomes slices and concats, tensor.concat neuron.concat,
    and `arith.constant` of tensor type neuron.constant.
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
}

def NeuronDropHostCallsPass : Pass<"neuron-drop-host-calls", "::mlir::ModuleOp"> {
  let summary = "Removes host-side code (external calls, vector.print) with a warning each";
  let description = [{
    Exported programs often time their kernel with `func.call @rtclock` and
    print with `vector.print` or `@printMemrefF32`, and test suites assert
    with IREE's `check.expect_*` ops. The device cannot run them. This pass
    removes every call to an external function, every `vector.print` and
    every `check.expect_*` whose results feed only other host-side code,
    warning once per removed op, and then the arithmetic that only fed them.

    With `return-printed`, a tensor the program printed (or asserted on) is
    not lost with its printer: unless it is a constant, it becomes an extra result of the function that printed it (and
    every call of that function is updated), so an example that prints its
    answer and returns nothing still compiles to something observable.
  }];
  let options = [
    Option<"returnPrinted", "return-printed", "bool", /*default=*/"false",
           "Make every printed or asserted tensor an extra result of its function">
  ];
}

def NeuronCheckImportPass : Pass<"neuron-check-import", "::mlir::ModuleOp"> {
  let summary = "Reports every op that import could not convert to neuron";
  let description = [{
    After the conversions, every op inside a function body must be a neuron
    op or `func.return`. Each one that is not is reported (all of them, not
    just the first) as `neuronc cannot import 'dialect.op'`, with the nearest
    supported alternative where there is one; host calls get a hint to use
    `--drop-host-calls`. A constant whose values were elided when the file
    was printed (`dense_resource<__elided__>`) is an error, or, with
    `random-elided-weights=SEED`, gets seeded random values (normal, standard
    deviation 0.02) with a warning.
  }];
  let options = [
    Option<"randomElidedWeights", "random-elided-weights", "int64_t", "-1",
           "Seed for random values in place of elided weights (-1: an error)">,
  ];
}

def NeuronLowerPass : Pass<"neuron-lower", "::mlir::ModuleOp"> {
  let summary = "Lowers neuron functions to nisa programs: tiles, engines, DMA";
  let description = [{
    Every function becomes a `nisa.program` of the same name: its arguments
    and results become HBM input/output tensors, every other value that
    crosses kernels an internal HBM tensor, and each neuron op or fused
    `neuron.kernel` one `nisa.kernel`. Inside a kernel the work is tiled
    onto 128 partitions with free-axis columns:

    - elementwise ops, reductions, rmsnorm/layernorm/softmax and fused
      kernels share one iteration domain whose reduced dims are the columns;
      a row tile stays in SBUF when it fits, else the columns are streamed in
      chunks with one pass per level of reductions;
    - matmuls are blocked so that stationary tiles stay in SBUF for a whole
      block of output rows and each moving tile is loaded once per block;
      K-innermost operands are transposed on TensorE; epilogues run on the
      PSUM tiles;
    - transposes, slices, concats and gathers are DMA (the gather indirect).

    Instructions go to the least loaded engine that can run them and DMA to
    the least loaded queue, transfers are split for bandwidth, and loads of
    the next tile are issued before the current one computes. Unfused ops
    (`-O0`) become one kernel each and round-trip HBM. Tiles are not yet
    placed (`--nisa-allocate-memory`) nor synchronized
    (`--nisa-insert-semaphores`).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"trn1\"",
           "The target profile: trn1 or trn2">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per kernel saying how it was lowered (and why not fused)">
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

#endif // NEURON_CONVERSION_PASSES_TD
