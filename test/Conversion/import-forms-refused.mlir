// The import gaps closed this round still refuse some forms, each with its
// reason: unsigned and i1 contraction operands, a tensor.extract gather from a
// dynamic table, an insert_slice at a dynamic offset. No output is written.
// RUN: rm -rf %t && split-file %s %t
// RUN: not neuronc %t/unsigned_matmul.mlir -o %t/unsigned_matmul.neff 2>&1 | FileCheck %s --check-prefix=UNSIGNED_MATMUL
// RUN: test ! -e %t/unsigned_matmul.neff
// RUN: not neuronc %t/i1_matmul.mlir -o %t/i1_matmul.neff 2>&1 | FileCheck %s --check-prefix=I1_MATMUL
// RUN: test ! -e %t/i1_matmul.neff
// RUN: not neuronc %t/extract_dynamic.mlir -o %t/extract_dynamic.neff 2>&1 | FileCheck %s --check-prefix=EXTRACT_DYNAMIC
// RUN: test ! -e %t/extract_dynamic.neff
// RUN: not neuronc %t/insert_dynamic.mlir -o %t/insert_dynamic.neff 2>&1 | FileCheck %s --check-prefix=INSERT_DYNAMIC
// RUN: test ! -e %t/insert_dynamic.neff
// UNSIGNED_MATMUL: unsigned_matmul.mlir:2:8: error: neuronc cannot import 'linalg.matmul': its operands are extended as unsigned integers ('arith.extui', cast_unsigned); neuronc converts operands as signed values only
// I1_MATMUL: i1_matmul.mlir:2:8: error: neuronc cannot import 'linalg.matmul': its i1 operands are sign-extended to the accumulator type (true is -1); select the values explicitly first
// EXTRACT_DYNAMIC: extract_dynamic.mlir:2:8: error: neuronc cannot import 'linalg.generic': its body reads with 'tensor.extract' from a tensor of dynamic shape, of an element type the device does not have, or computed in the body
// INSERT_DYNAMIC: insert_dynamic.mlir:2:8: error: neuronc cannot import 'tensor.insert_slice': it needs static shapes, offsets, sizes and strides

//--- unsigned_matmul.mlir
func.func @unsigned_matmul(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %c: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%c : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

//--- i1_matmul.mlir
func.func @i1_matmul(%a: tensor<4x4xi1>, %b: tensor<4x4xi1>, %c: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xi1>, tensor<4x4xi1>) outs(%c : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

//--- extract_dynamic.mlir
func.func @extract_dynamic(%t: tensor<?xf32>, %i: tensor<4xi32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: i32, %o: f32):
    %k = arith.index_cast %x : i32 to index
    %v = tensor.extract %t[%k] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- insert_dynamic.mlir
func.func @insert_dynamic(%s: tensor<2xf32>, %d: tensor<8xf32>, %i: index) -> tensor<8xf32> {
  %0 = tensor.insert_slice %s into %d[%i] [2] [1] : tensor<2xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}
