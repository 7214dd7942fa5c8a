//===- NeuronInterfaces.td - Interfaces of the neuron dialect -*- tablegen -*-===//
//
// The cost interface: every neuron op reports its own arithmetic and memory
// cost. The interpreter's statistics, the fusion cost model and the static
// roofline all ask the op through this interface, never a side table.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_INTERFACES_TD
#define NEURON_INTERFACES_TD

include "mlir/IR/OpBase.td"

def NeuronCostOpInterface : OpInterface<"CostOpInterface"> {
  let description = [{
    An op that can state its cost for its (static) operand and result shapes:
    floating-point operations, transcendental evaluations (exp, log, tanh, ...
    which run on a lookup/ALU path of their own on the device), and bytes read
    from and written to memory if every operand and result lives in memory.
    The cost is `std::nullopt` when a shape is dynamic.
  }];
  let cppNamespace = "::mlir::neuron";
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the cost of one execution of this op, or nullopt if a shape is dynamic.",
      /*retTy=*/"std::optional<::mlir::neuron::OpCost>",
      /*methodName=*/"getCost",
      /*args=*/(ins)>
  ];
}

#endif // NEURON_INTERFACES_TD
