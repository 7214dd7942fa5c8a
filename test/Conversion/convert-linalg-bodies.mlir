// RUN: neuron-opt %s --split-input-file --neuron-convert-linalg --neuron-convert-tensor | FileCheck %s
// RUN: neuron-run %s --entry values | FileCheck %s --check-prefix=VALUES

// A reduction whose body computes before it accumulates ((x - c)^2 summed,
// iree_regression_associative_reordering): the computation over the whole
// loop domain, then the reduction.
#v = affine_map<(d0) -> (d0)>
#s = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @computed_reduction
// CHECK: %[[D:.*]] = neuron.sub %arg0, %{{.*}} : tensor<8xf32>, tensor<1xf32> -> tensor<8xf32>
// CHECK: %[[SQ:.*]] = neuron.mul %[[D]], %[[D]]
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[SQ]] axes = [0] : tensor<8xf32> -> tensor<f32>
// CHECK: return %[[R]]
func.func @computed_reduction(%x: tensor<8xf32>, %c: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %0 = linalg.generic {indexing_maps = [#v, #s, #s], iterator_types = ["reduction"]} ins(%x, %c : tensor<8xf32>, tensor<f32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %sq = arith.mulf %d, %d : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A max reduction of a sum with an input broadcast along the reduced dim, and a sum of
// positions converted with uitofp: positions are >= 0, so one conversion.
#idb = affine_map<(d0, d1) -> (d0, d1)>
#rowb = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @broadcast_and_positions
// CHECK: neuron.add %arg0, %{{.*}} : tensor<3x4xf32>, tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK: neuron.reduce_max %{{.*}} axes = [0] : tensor<3x4xf32> -> tensor<4xf32>
// CHECK: %[[P:.*]] = neuron.add %{{.*}}, %{{.*}} : tensor<3x1xi32>, tensor<1x4xi32> -> tensor<3x4xi32>
// CHECK-NEXT: %[[F:.*]] = neuron.cast %[[P]] : tensor<3x4xi32> -> tensor<3x4xf32>
// CHECK: neuron.reduce_sum %{{.*}} axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
func.func @broadcast_and_positions(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#idb, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%m, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<3xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %1 = linalg.generic {indexing_maps = [#idb, #rowb], iterator_types = ["parallel", "reduction"]} ins(%m : tensor<3x4xf32>) outs(%s0 : tensor<3xf32>) {
  ^bb0(%unused: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %p = arith.addi %i, %j : index
    %pi = arith.index_cast %p : index to i32
    %f = arith.uitofp %pi : i32 to f32
    %r = arith.addf %f, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  return %0, %1 : tensor<4xf32>, tensor<3xf32>
}

// -----

// Two outputs computed from the inputs alone are two values
// (iree_regression_linalg_ops @multi_result).
#idc = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @two_outputs
// CHECK: %[[A:.*]] = neuron.add %arg0, %arg1
// CHECK: %[[M:.*]] = neuron.mul %arg0, %arg1
// CHECK: return %[[A]], %[[M]]
func.func @two_outputs(%x: tensor<3x4xi32>, %y: tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>) {
  %e = tensor.empty() : tensor<3x4xi32>
  %0:2 = linalg.generic {indexing_maps = [#idc, #idc, #idc, #idc], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<3x4xi32>, tensor<3x4xi32>) outs(%e, %e : tensor<3x4xi32>, tensor<3x4xi32>) {
  ^bb0(%a: i32, %b: i32, %o1: i32, %o2: i32):
    %s = arith.addi %a, %b : i32
    %p = arith.muli %a, %b : i32
    linalg.yield %s, %p : i32, i32
  } -> (tensor<3x4xi32>, tensor<3x4xi32>)
  return %0#0, %0#1 : tensor<3x4xi32>, tensor<3x4xi32>
}

// -----

// math.exp2 is exp(x ln 2), in a body and on a tensor; uitofp of an i1 is
// a conversion (true is 1), of any i32 the exact two-halves form.
#v4 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @exp2_uitofp
// CHECK: %[[LN2:.*]] = neuron.constant dense<0.693147{{[0-9]*}}> : tensor<f32>
// CHECK: %[[S:.*]] = neuron.mul %arg0, %[[LN2]]
// CHECK: %[[E:.*]] = neuron.exp %[[S]] : tensor<4xf32>
// CHECK: neuron.cast %arg1 : tensor<4xi1> -> tensor<4xf32>
// CHECK: neuron.div %arg2, %{{.*}} : tensor<4xi32>, tensor<i32> -> tensor<4xi32>
// CHECK: %[[T:.*]] = neuron.mul %arg0, %{{.*}} : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK: neuron.exp %[[T]]
func.func @exp2_uitofp(%x: tensor<4xf32>, %b: tensor<4xi1>, %u: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#v4, #v4], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp2 %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#v4, #v4], iterator_types = ["parallel"]} ins(%b : tensor<4xi1>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: i1, %o: f32):
    %r = arith.uitofp %a : i1 to f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %2 = arith.uitofp %u : tensor<4xi32> to tensor<4xf32>
  %3 = math.exp2 %x : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// tensor.extract at per-element indices in a body is a gather from the
// flattened table (iree_linalg_gather_like_ops).
#colg = affine_map<(d0, d1) -> (d1)>
#idg = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gather_like
// CHECK: %[[ROW:.*]] = neuron.cast %{{.*}} : tensor<1x4xi64> -> tensor<1x4xi32>
// CHECK: %[[SCALED:.*]] = neuron.mul %[[ROW]], %{{.*}} : tensor<1x4xi32>, tensor<i32> -> tensor<1x4xi32>
// CHECK: %[[LIN:.*]] = neuron.add %{{.*}}, %[[SCALED]] : tensor<1x4xi32>, tensor<1x4xi32> -> tensor<1x4xi32>
// CHECK: %[[FLAT:.*]] = neuron.reshape %arg0 : tensor<2x4xi64> -> tensor<8xi64>
// CHECK: %[[G:.*]] = neuron.gather %[[FLAT]][%[[LIN]]] axis = 0 : tensor<8xi64>, tensor<1x4xi32> -> tensor<1x4xi64>
// CHECK: neuron.broadcast_to %[[G]] : tensor<1x4xi64> -> tensor<4x4xi64>
func.func @gather_like(%table: tensor<2x4xi64>, %rows: tensor<4xi64>) -> tensor<4x4xi64> {
  %e = tensor.empty() : tensor<4x4xi64>
  %0 = linalg.generic {indexing_maps = [#colg, #idg], iterator_types = ["parallel", "parallel"]} ins(%rows : tensor<4xi64>) outs(%e : tensor<4x4xi64>) {
  ^bb0(%in: i64, %out: i64):
    %j = linalg.index 1 : index
    %i = arith.index_cast %in : i64 to index
    %x = tensor.extract %table[%i, %j] : tensor<2x4xi64>
    linalg.yield %x : i64
  } -> tensor<4x4xi64>
  return %0 : tensor<4x4xi64>
}

// -----

// An argmax (iree_linalg_argmax): the max, and the first position holding
// it as a min-reduction of positions; the initial index stays where the max
// does not beat the initial value.
#ida = affine_map<(d0, d1) -> (d0, d1)>
#rowa = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax
// CHECK: %[[POS:.*]] = neuron.constant dense<{{\[\[}}0, 1, 2, 3, 4]]> : tensor<1x5xi32>
// CHECK: %[[M:.*]] = neuron.reduce_max %arg0 axes = [1] : tensor<2x5xf32> -> tensor<2xf32>
// CHECK: %[[MK:.*]] = neuron.reshape %[[M]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[EQ:.*]] = neuron.compare eq, %arg0, %[[MK]]
// CHECK: %[[C:.*]] = neuron.select %[[EQ]], %[[POS]], %{{.*}} : tensor<2x5xi1>, tensor<1x5xi32>, tensor<i32> -> tensor<2x5xi32>
// CHECK: %[[FIRST:.*]] = neuron.reduce_min %[[C]] axes = [1] : tensor<2x5xi32> -> tensor<2xi32>
// CHECK: %[[BEATS:.*]] = neuron.compare gt, %[[M]], %{{.*}}
// CHECK: %[[I:.*]] = neuron.select %[[BEATS]], %[[FIRST]], %{{.*}}
// CHECK: return %[[M]], %[[I]]
func.func @argmax(%x: tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<2xf32>
  %ei = tensor.empty() : tensor<2xi32>
  %v0 = linalg.fill ins(%ninf : f32) outs(%ev : tensor<2xf32>) -> tensor<2xf32>
  %i0 = linalg.fill ins(%c0 : i32) outs(%ei : tensor<2xi32>) -> tensor<2xi32>
  %0:2 = linalg.generic {indexing_maps = [#ida, #rowa, #rowa], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x5xf32>) outs(%v0, %i0 : tensor<2xf32>, tensor<2xi32>) {
  ^bb0(%in: f32, %val: f32, %idx: i32):
    %i = linalg.index 1 : index
    %ic = arith.index_cast %i : index to i32
    %m = arith.maximumf %in, %val : f32
    %c = arith.cmpf ogt, %in, %val : f32
    %s = arith.select %c, %ic, %idx : i32
    linalg.yield %m, %s : f32, i32
  } -> (tensor<2xf32>, tensor<2xi32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// The values the forms above compute, on constants.
// VALUES: output #0: tensor<f32>
// VALUES-NEXT: first: [14]
// VALUES: output #1: tensor<4xf32>
// VALUES-NEXT: first: [0, 4.29497e+09, 5, 2.14748e+09]
// VALUES: output #2: tensor<3x4xi32>
// VALUES-NEXT: first: [13, 28, 45, 64, 85, 108, ...]
// VALUES: output #3: tensor<2xi32>
// VALUES-NEXT: first: [1, 0]
#vv = affine_map<(d0) -> (d0)>
#sv = affine_map<(d0) -> ()>
#idv = affine_map<(d0, d1) -> (d0, d1)>
func.func @values() -> (tensor<f32>, tensor<4xf32>, tensor<3x4xi32>, tensor<2xi32>) {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = arith.constant dense<1.0> : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %0 = linalg.generic {indexing_maps = [#vv, #sv, #sv], iterator_types = ["reduction"]} ins(%x, %c : tensor<4xf32>, tensor<f32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %sq = arith.mulf %d, %d : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %u = arith.constant dense<[0, -1, 5, -2147483648]> : tensor<4xi32>
  %1 = arith.uitofp %u : tensor<4xi32> to tensor<4xf32>
  %in1 = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
  %in2 = arith.constant dense<[[13, 14, 15, 16], [17, 18, 19, 20], [21, 22, 23, 24]]> : tensor<3x4xi32>
  %e2 = tensor.empty() : tensor<3x4xi32>
  %2:2 = linalg.generic {indexing_maps = [#idv, #idv, #idv, #idv], iterator_types = ["parallel", "parallel"]} ins(%in1, %in2 : tensor<3x4xi32>, tensor<3x4xi32>) outs(%e2, %e2 : tensor<3x4xi32>, tensor<3x4xi32>) {
  ^bb0(%a: i32, %b: i32, %o1: i32, %o2: i32):
    %s = arith.addi %a, %b : i32
    %p = arith.muli %a, %b : i32
    linalg.yield %s, %p : i32, i32
  } -> (tensor<3x4xi32>, tensor<3x4xi32>)
  %ax = arith.constant dense<[[1.0, 5.0, 5.0, 2.0, 0.0], [3.0, 1.0, 3.0, 0.0, 2.0]]> : tensor<2x5xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zi = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<2xf32>
  %ei = tensor.empty() : tensor<2xi32>
  %v0 = linalg.fill ins(%ninf : f32) outs(%ev : tensor<2xf32>) -> tensor<2xf32>
  %i0 = linalg.fill ins(%zi : i32) outs(%ei : tensor<2xi32>) -> tensor<2xi32>
  %3:2 = linalg.generic {indexing_maps = [#idv, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ax : tensor<2x5xf32>) outs(%v0, %i0 : tensor<2xf32>, tensor<2xi32>) {
  ^bb0(%in: f32, %val: f32, %idx: i32):
    %i = linalg.index 1 : index
    %ic = arith.index_cast %i : index to i32
    %m = arith.maximumf %in, %val : f32
    %cmp = arith.cmpf ogt, %in, %val : f32
    %sel = arith.select %cmp, %ic, %idx : i32
    linalg.yield %m, %sel : f32, i32
  } -> (tensor<2xf32>, tensor<2xi32>)
  return %0, %1, %2#1, %3#1 : tensor<f32>, tensor<4xf32>, tensor<3x4xi32>, tensor<2xi32>
}
