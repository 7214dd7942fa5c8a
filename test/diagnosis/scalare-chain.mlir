// Ten transcendental activations of one 2048x2048 f32 tensor, fused into
// one kernel: ScalarE applies each to every element while the bytes move
// once.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/verdict.py static %t.json | FileCheck %s
// RUN: rm -rf %t.p && neuron-run %t.neff --no-data --profile %t.p > /dev/null
// RUN: %python %S/Inputs/verdict.py measured %t.p/summary.json | FileCheck %s
// CHECK: act/k0 elementwise: engine-bound (ScalarE)
// CHECK-NEXT: evidence: ScalarE active {{(9[0-9])\.[0-9]}} %

func.func @act(%a: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = neuron.exp %a : tensor<2048x2048xf32>
  %1 = neuron.tanh %0 : tensor<2048x2048xf32>
  %2 = neuron.sigmoid %1 : tensor<2048x2048xf32>
  %3 = neuron.erf %2 : tensor<2048x2048xf32>
  %4 = neuron.exp %3 : tensor<2048x2048xf32>
  %5 = neuron.tanh %4 : tensor<2048x2048xf32>
  %6 = neuron.sigmoid %5 : tensor<2048x2048xf32>
  %7 = neuron.erf %6 : tensor<2048x2048xf32>
  %8 = neuron.exp %7 : tensor<2048x2048xf32>
  %9 = neuron.tanh %8 : tensor<2048x2048xf32>
  return %9 : tensor<2048x2048xf32>
}
