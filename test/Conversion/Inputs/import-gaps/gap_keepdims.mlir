// Keepdims reductions whose output map pins the reduced dim to 0
// (`1x12x1` results), as exporters write them (written for neuronc's tests).
func.func @keepdims(%x: tensor<1x12x8xf32>) -> (tensor<1x12x1xf32>, tensor<1x1x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x12x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x12x1xf32>) -> tensor<1x12x1xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x12x8xf32>) outs(%f : tensor<1x12x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x12x1xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<1x1x8xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, 0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x12x8xf32>) outs(%f2 : tensor<1x1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<1x1x8xf32>
  return %sum, %max : tensor<1x12x1xf32>, tensor<1x1x8xf32>
}
