// --neuron-check-import on its own, on IR the import pipeline would have
// simplified first: a generic whose body computes on a tensor from outside.
// RUN: neuron-opt %s --neuron-check-import --verify-diagnostics

#id1 = affine_map<(d0) -> (d0)>
func.func @body_tensor(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %cst = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{neuronc cannot import 'linalg.generic': its body uses a tensor defined outside}}
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = arith.addf %cst, %cst : tensor<4xf32>
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
