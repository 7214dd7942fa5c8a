// Import refusals of supported ops in a form import cannot take, and of
// linalg.generic ops it cannot raise, each with its reason; nothing is written.
// RUN: rm -f %t.out
// RUN: not neuronc %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

// A call the inliner cannot remove (a recursive one).
func.func @rec(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import the call to @rec; inline it into the entry function
  %0 = func.call @rec(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// Supported ops with an operand import cannot take.
func.func @forms(%x: tensor<4xf32>, %u: tensor<*xf32>, %shift: tensor<1xi8>, %a8: tensor<1x4x4xi8>, %n: tensor<4xi32>, %s: f32, %i: tensor<4xi32>, %dyn: tensor<?xf32>, %m: tensor<4x4xf32>, %b3: tensor<2x4x4xf32>, %i8: tensor<4xi8>, %nzp: tensor<1xi32>) -> (tensor<4xf32>, tensor<*xf32>, tensor<4xi32>, tensor<1x4x4xi32>, tensor<4xi32>) {
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.abs': it produces the unranked type tensor<*xf32>; give the tensor a rank
  %1 = tosa.abs %u : (tensor<*xf32>) -> tensor<*xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.mul': its shift is not a constant
  %2 = tosa.mul %n, %n, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  %azp = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.matmul': its zero points are not 0; dequantize the operands first
  %3 = tosa.matmul %a8, %a8, %azp, %bzp : (tensor<1x4x4xi8>, tensor<1x4x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4xi32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tosa.negate': its zero points are not 0
  %4 = tosa.negate %n, %nzp, %nzp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<*xf32>, tensor<4xi32>, tensor<1x4x4xi32>, tensor<4xi32>
}
// A slice at a dynamic offset.
func.func @slice(%x: tensor<8xf32>, %i: index) -> tensor<4xf32> {
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'tensor.extract_slice': this form of it is not supported
  %0 = tensor.extract_slice %x[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
// linalg.generic ops that cannot be raised, one per reason.
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @memref(%a: memref<4xf32>, %b: memref<4xf32>) {
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:3: error: neuronc cannot import 'linalg.generic': it works on memrefs, not tensors
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
func.func @g(%x: tensor<4xf32>, %e: tensor<4xf32>, %q: tensor<4xf8E4M3FN>, %ei: tensor<4xi32>, %d: tensor<?xf32>, %m: tensor<4x4xf32>, %e2: tensor<4x1xf32>, %b3: tensor<2x4x4xf32>, %e3: tensor<2x4x4xf32>, %v: tensor<4xf32>, %n: tensor<4xi32>, %eb: tensor<4xi1>, %s: f32) -> (tensor<4xf32>, tensor<?xf32>, tensor<4x1xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) {
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': an operand has an element type the device does not have
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%q : tensor<4xf8E4M3FN>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f8E4M3FN, %out: f32):
    %w = arith.extf %in : f8E4M3FN to f32
    linalg.yield %w : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': its loop ranges are dynamic
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, #id1], iterator_types = ["parallel"]} ins(%d : tensor<?xf32>) outs(%d : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %w = math.exp %in : f32
    linalg.yield %w : f32
  } -> tensor<?xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': its output indexing map is not a projected permutation
  %3 = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0, d1 floordiv 4)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e2 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x1xf32>
  %e444 = tensor.empty() : tensor<4x4x4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': it multiplies and accumulates but more than one reduction dim
  %4 = linalg.generic {indexing_maps = [affine_map<(m, n, k, l) -> (m, k, l)>, affine_map<(m, n, k, l) -> (k, l, n)>, affine_map<(m, n, k, l) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%e444, %e444 : tensor<4x4x4xf32>, tensor<4x4x4xf32>) outs(%m : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': it multiplies and accumulates but indexing maps are not those of a (batched) matmul
  %5 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%m, %v : tensor<4x4xf32>, tensor<4xf32>) outs(%m : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': it multiplies and accumulates but batch dims are not leading and in order
  %6 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, b, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%e444, %e444 : tensor<4x4x4xf32>, tensor<4x4x4xf32>) outs(%e444 : tensor<4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4x4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': it multiplies and accumulates but lhs indexing map is not [m, k] or [k, m]
  %7 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (n, k)>, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%m, %m : tensor<4x4xf32>, tensor<4x4xf32>) outs(%m : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': it multiplies and accumulates but rhs indexing map is not [k, n] or [n, k]
  %8 = linalg.generic {indexing_maps = [#mk, #mk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%m, %m : tensor<4x4xf32>, tensor<4x4xf32>) outs(%m : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'linalg.generic': it reduces with a body of 1 input(s) computing 'arith.mulf'; a reduction body must end in a single add, max or min of the output and a value computed from the inputs, which is the output's only use
  %9 = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:11: error: neuronc cannot import 'linalg.generic': it has 2 outputs and reduces, but not as an argmax or argmin (several outputs are imported only when each is computed from the inputs alone)
  %10:2 = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%m : tensor<4x4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32, %out2: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r, %out2 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': its body reads the output value (an accumulation)
  %11 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': loop dim d1 is not an output dim
  %12 = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': an input indexing map has a non-zero constant
  %13 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 1)>, #id1], iterator_types = ["parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': an input indexing map is not a projected permutation
  %14 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, d0)>, #id1], iterator_types = ["parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': math.fpowi has a non-constant exponent
  %15 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%x, %n : tensor<4xf32>, tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: i32, %out: f32):
    %r = math.fpowi %a, %b : f32, i32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': unsigned integer comparisons have no neuron equivalent
  %16 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%n : tensor<4xi32>) outs(%eb : tensor<4xi1>) {
  ^bb0(%a: i32, %out: i1):
    %c0 = arith.constant 0 : i32
    %r = arith.cmpi ult, %a, %c0 : i32
    linalg.yield %r : i1
  } -> tensor<4xi1>
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import 'linalg.generic': its body uses a value defined outside that is not a constant
  %17 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %1, %2, %3, %4, %5, %6, %7, %8, %9, %10#0, %11, %12, %13, %14, %15, %16, %17 : tensor<4xf32>, tensor<?xf32>, tensor<4x1xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>
}
// Two outputs indexed differently.
func.func @two_outputs(%x: tensor<4x4xf32>, %e: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  // CHECK: check-import-forms-errors.mlir:[[# @LINE + 1]]:10: error: neuronc cannot import 'linalg.generic': it has 2 outputs written through different indexing maps (several outputs are imported only when all are indexed alike)
  %0:2 = linalg.generic {indexing_maps = [#id2, #id2, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf32>) outs(%e, %e : tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %n = arith.negf %in : f32
    linalg.yield %in, %n : f32, f32
  } -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
// CHECK-NOT: error:
