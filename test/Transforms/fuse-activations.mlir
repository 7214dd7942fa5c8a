// RUN: neuron-opt %s --split-input-file --neuron-fuse-activations --neuron-fusion-remarks --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @silu_forms
// CHECK-NEXT: %[[A:.*]] = neuron.silu %arg0 : tensor<8xf32>
// CHECK-NEXT: %[[B:.*]] = neuron.silu %arg0 : tensor<8xf32>
// CHECK-NEXT: %[[C:.*]] = neuron.silu %arg0 : tensor<8xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @silu_forms(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %s1 = neuron.sigmoid %x : tensor<8xf32>
  // expected-remark @+1 {{fused silu (absorbed 2 ops}}
  %a = neuron.mul %x, %s1 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %s2 = neuron.sigmoid %x : tensor<8xf32>
  // expected-remark @+1 {{fused silu (absorbed 2 ops}}
  %b = neuron.mul %s2, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %n = neuron.neg %x : tensor<8xf32>
  %e = neuron.exp %n : tensor<8xf32>
  %one = neuron.constant dense<1.0> : tensor<f32>
  %d = neuron.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  // expected-remark @+1 {{fused silu (absorbed 4 ops}}
  %c = neuron.div %x, %d : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A sigmoid that is used elsewhere stays.
// CHECK-LABEL: func.func @silu_shared_sigmoid
// CHECK: neuron.sigmoid
// CHECK: neuron.mul
func.func @silu_shared_sigmoid(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = neuron.sigmoid %x : tensor<8xf32>
  %a = neuron.mul %x, %s : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %a, %s : tensor<8xf32>, tensor<8xf32>
}

// -----

// GELU: 0.5 * x * (1 + erf(x * 1/sqrt 2)), in two associations.
// CHECK-LABEL: func.func @gelu_erf
// CHECK-NEXT: %[[A:.*]] = neuron.gelu %arg0 approximate = erf : tensor<8xf32>
// CHECK-NEXT: %[[B:.*]] = neuron.gelu %arg0 approximate = erf : tensor<8xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @gelu_erf(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %k = neuron.constant dense<0.707106769> : tensor<f32>
  %half = neuron.constant dense<0.5> : tensor<f32>
  %one = neuron.constant dense<1.0> : tensor<f32>
  %t = neuron.mul %x, %k : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e = neuron.erf %t : tensor<8xf32>
  %p = neuron.add %e, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %q = neuron.mul %p, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  // expected-remark @+1 {{fused gelu (absorbed 5 ops}}
  %a = neuron.mul %q, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %t2 = neuron.mul %x, %k : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %e2 = neuron.erf %t2 : tensor<8xf32>
  %p2 = neuron.add %one, %e2 : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
  %hx = neuron.mul %half, %x : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
  // expected-remark @+1 {{fused gelu (absorbed 5 ops}}
  %b = neuron.mul %hx, %p2 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// GELU, tanh approximation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT: %[[G:.*]] = neuron.gelu %arg0 approximate = tanh : tensor<8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = neuron.constant dense<0.044715> : tensor<f32>
  %k = neuron.constant dense<0.797884583> : tensor<f32>
  %half = neuron.constant dense<0.5> : tensor<f32>
  %one = neuron.constant dense<1.0> : tensor<f32>
  %x2 = neuron.mul %x, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %x3 = neuron.mul %x2, %x : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %cx3 = neuron.mul %c, %x3 : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
  %u = neuron.add %x, %cx3 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %ku = neuron.mul %u, %k : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  %t = neuron.tanh %ku : tensor<8xf32>
  %p = neuron.add %one, %t : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
  %hx = neuron.mul %x, %half : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  // expected-remark @+1 {{fused gelu (absorbed 9 ops}}
  %y = neuron.mul %hx, %p : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}
