// math.sin/cos (in linalg bodies and on whole tensors) and tosa.sin/cos
// import as neuron.sin/cos; constants fold.
// RUN: neuron-opt %s --split-input-file --neuron-import | FileCheck %s
// RUN: neuron-run %s --entry values | FileCheck %s --check-prefix=VALUES

// torch-mlir's aten.cos/aten.sin: one generic per op, the function in the
// body.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @generic_bodies
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[C:.*]] = neuron.cos %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = neuron.sin %[[X]] : tensor<4x8xf32>
// CHECK-NEXT: %[[M:.*]] = neuron.mul %[[C]], %[[S]]
// CHECK-NEXT: return %[[M]]
func.func @generic_bodies(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.cos %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sin %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %s : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// A RoPE angle table in one body: position times inverse frequency, then
// both functions (two outputs).
#col = affine_map<(d0, d1) -> (d1)>
#idr = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @rope_tables
// CHECK: %[[P:.*]] = neuron.constant dense<{{\[}}[0.000000e+00], [1.000000e+00], {{.*}}, [1.500000e+01]]> : tensor<16x1xf32>
// CHECK: %[[A:.*]] = neuron.mul %arg0, %[[P]] : tensor<4xf32>, tensor<16x1xf32> -> tensor<16x4xf32>
// CHECK-DAG: neuron.cos %[[A]] : tensor<16x4xf32>
// CHECK-DAG: neuron.sin %[[A]] : tensor<16x4xf32>
func.func @rope_tables(%inv: tensor<4xf32>) -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %e = tensor.empty() : tensor<16x4xf32>
  %r:2 = linalg.generic {indexing_maps = [#col, #idr, #idr], iterator_types = ["parallel", "parallel"]} ins(%inv : tensor<4xf32>) outs(%e, %e : tensor<16x4xf32>, tensor<16x4xf32>) {
  ^bb0(%f: f32, %o0: f32, %o1: f32):
    %p = linalg.index 0 : index
    %pi = arith.index_cast %p : index to i32
    %pf = arith.sitofp %pi : i32 to f32
    %a = arith.mulf %pf, %f : f32
    %c = math.cos %a : f32
    %s = math.sin %a : f32
    linalg.yield %c, %s : f32, f32
  } -> (tensor<16x4xf32>, tensor<16x4xf32>)
  return %r#0, %r#1 : tensor<16x4xf32>, tensor<16x4xf32>
}

// -----

// On whole tensors (bf16 too).
// CHECK-LABEL: func.func @tensors
// CHECK-NEXT: %[[S:.*]] = neuron.sin %arg0 : tensor<3x5xf32>
// CHECK-NEXT: %[[C:.*]] = neuron.cos %arg1 : tensor<7xbf16>
// CHECK-NEXT: return %[[S]], %[[C]]
func.func @tensors(%x: tensor<3x5xf32>, %y: tensor<7xbf16>) -> (tensor<3x5xf32>, tensor<7xbf16>) {
  %s = math.sin %x : tensor<3x5xf32>
  %c = math.cos %y : tensor<7xbf16>
  return %s, %c : tensor<3x5xf32>, tensor<7xbf16>
}

// -----

// TOSA 1.0's SIN and COS.
// CHECK-LABEL: func.func @tosa_trig
// CHECK-NEXT: %[[S:.*]] = neuron.sin %arg0 : tensor<2x8xf32>
// CHECK-NEXT: %[[C:.*]] = neuron.cos %[[S]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[C]]
func.func @tosa_trig(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = tosa.sin %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = tosa.cos %0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// Constants fold with the interpreter's f32 functions; large arguments too.
// CHECK-LABEL: func.func @values
// CHECK-NEXT: %[[R:.*]] = neuron.constant dense<{{\[}}[0.000000e+00, 0.841470957, 0.82687956, -0.997821211], [1.000000e+00, 0.540302277, 0.562379062, -0.0659759938]]> : tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
// VALUES: output #0: tensor<2x4xf32>
// VALUES: first: [0, 0.841471, 0.82688, -0.997821, 1, 0.540302, ...]
func.func @values() -> tensor<2x4xf32> {
  %x = arith.constant dense<[0.0, 1.0, 1000.0, 4095.0]> : tensor<4xf32>
  %s = math.sin %x : tensor<4xf32>
  %c = math.cos %x : tensor<4xf32>
  %sr = tensor.expand_shape %s [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %cr = tensor.expand_shape %c [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %r = tensor.concat dim(0) %sr, %cr : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
