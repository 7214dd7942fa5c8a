// linalg.index in elementwise generic bodies: a position table and a causal
// mask built from positions (written for neuronc's tests).
func.func @positions(%x: tensor<3x5xf32>) -> (tensor<3x5xi32>, tensor<3x5xf32>) {
  %e = tensor.empty() : tensor<3x5xi32>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x5xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %c5 = arith.constant 5 : i32
    %r = arith.muli %ii, %c5 : i32
    %jj = arith.index_cast %j : index to i32
    %s = arith.addi %r, %jj : i32
    linalg.yield %s : i32
  } -> tensor<3x5xi32>
  %ef = tensor.empty() : tensor<3x5xf32>
  %masked = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x5xf32>) outs(%ef : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant -1.0e+09 : f32
    %m = arith.select %future, %ninf, %in : f32
    linalg.yield %m : f32
  } -> tensor<3x5xf32>
  return %pos, %masked : tensor<3x5xi32>, tensor<3x5xf32>
}
