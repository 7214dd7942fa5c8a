// The import gaps closed this round still refuse some forms, each with its
// reason: unsigned 32-bit contraction operands, a tensor.extract gather from
// a dynamic table, an insert_slice at a dynamic offset. No output is written.
// RUN: rm -rf %t && split-file %s %t
// RUN: not neuronc %t/unsigned_matmul.mlir -o %t/unsigned_matmul.neff 2>&1 | FileCheck %s --check-prefix=UNSIGNED_MATMUL
// RUN: test ! -e %t/unsigned_matmul.neff
// RUN: not neuronc %t/extract_dynamic.mlir -o %t/extract_dynamic.neff 2>&1 | FileCheck %s --check-prefix=EXTRACT_DYNAMIC
// RUN: test ! -e %t/extract_dynamic.neff
// RUN: not neuronc %t/insert_dynamic.mlir -o %t/insert_dynamic.neff 2>&1 | FileCheck %s --check-prefix=INSERT_DYNAMIC
// RUN: test ! -e %t/insert_dynamic.neff
// UNSIGNED_MATMUL: unsigned_matmul.mlir:2:8: error: neuronc cannot import 'linalg.matmul': its 32-bit operands are extended as unsigned integers (cast_unsigned); neuronc reads only narrower operands as unsigned
// EXTRACT_DYNAMIC: extract_dynamic.mlir:2:8: error: neuronc cannot import 'linalg.generic': its body reads with 'tensor.extract' from a tensor of dynamic shape, of an element type the device does not have, or computed in the body
// INSERT_DYNAMIC: insert_dynamic.mlir:2:8: error: neuronc cannot import 'tensor.insert_slice': it needs static shapes, offsets, sizes and strides

//--- unsigned_matmul.mlir
func.func @unsigned_matmul(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x4xi32>, tensor<4x4xi32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
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
