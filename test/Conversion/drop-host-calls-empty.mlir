// A driver that computes and prints, returning nothing (IREE and buddy-mlir
// samples): dropping its host calls leaves an empty program. neuronc says so
// and what keeps the work (--return-printed); with it, the printed tensor is
// the result.
// RUN: neuronc %s --drop-host-calls --entry main --emit=neuron -o - 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: neuronc %s --return-printed --entry main --emit=neuron -o - 2>&1 | FileCheck %s --check-prefix=KEPT

func.func private @printMemrefF32(tensor<*xf32>)

// EMPTY: drop-host-calls-empty.mlir:[[# @LINE + 4]]:1: warning: @main returns nothing and its work only fed the host calls dropped: it compiles to an empty program; pass --return-printed to return what they printed
// EMPTY: module {
// EMPTY-NEXT: func.func @main() {
// EMPTY-NEXT: return
func.func @main() {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %y : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// KEPT-NOT: compiles to an empty program
// KEPT: func.func @main() -> tensor<4xf32>
// KEPT-NEXT: neuron.constant dense<[2.71828175, 7.3890562, 20.085537, 54.5981483]>
