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

    Ops with dynamic shapes report `cost: unknown (dynamic shape)`. The IR is
    not changed. This is the static view that the profiler's measured numbers
    are later compared to.
  }];
  let options = [
    Option<"totalsOnly", "totals-only", "bool", /*default=*/"false",
           "Emit only the per-function totals, not a remark per op">
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

#endif // NEURON_PASSES_TD
