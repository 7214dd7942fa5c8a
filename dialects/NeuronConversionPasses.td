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
    transpose/reshape feeding neuron's broadcasting ops.
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
  }];
}

def NeuronCheckImportPass : Pass<"neuron-check-import", "::mlir::ModuleOp"> {
  let summary = "Reports every op that import could not convert to neuron";
  let description = [{
    After the conversions, every op inside a function body must be a neuron
    op or `func.return`. Each one that is not is reported (all of them, not
    just the first) as `neuronc cannot import 'dialect.op'`, with the nearest
    supported alternative where there is one; host calls get a hint to use
    `--drop-host-calls`.
  }];
}

#endif // NEURON_CONVERSION_PASSES_TD
