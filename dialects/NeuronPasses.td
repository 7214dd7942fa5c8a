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

#endif // NEURON_PASSES_TD
