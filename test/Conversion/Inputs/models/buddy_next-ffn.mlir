// From buddy-compiler/buddy-mlir examples/BuddyNext (commit 080e518c), Apache-2.0.
// RUN: buddy-opt %s \
// RUN:     -pass-pipeline "builtin.module(func.func(tosa-to-linalg-named),func.func(tosa-to-linalg),func.func(tosa-to-tensor),func.func(tosa-to-arith))" \
// RUN: | buddy-opt \
// RUN:     -eliminate-empty-tensors \
// RUN:     -empty-tensor-to-alloc-tensor \
// RUN:     -convert-elementwise-to-linalg \
// RUN:     -one-shot-bufferize="unknown-type-conversion=identity-layout-map function-boundary-type-conversion=identity-layout-map bufferize-function-boundaries" \
// RUN:     -expand-strided-metadata \
// RUN:     -ownership-based-buffer-deallocation \
// RUN:     -buffer-deallocation-simplification \
// RUN:     -bufferization-lower-deallocations \
// RUN:     -convert-bufferization-to-memref \
// RUN:     -matmul-parallel-vectorization-optimize \
// RUN:     -batchmatmul-optimize \
// RUN:     -convert-linalg-to-affine-loops \
// RUN:     -affine-loop-fusion \
// RUN:     -affine-parallelize \
// RUN:     -convert-vector-to-scf \
// RUN:     -lower-affine \
// RUN:     -convert-scf-to-openmp \
// RUN:     -cse \
// RUN:     -memref-expand \
// RUN:     -arith-expand \
// RUN:     -convert-vector-to-llvm \
// RUN:     -convert-arith-to-llvm \
// RUN:     -finalize-memref-to-llvm \
// RUN:     -convert-scf-to-cf \
// RUN:     -convert-cf-to-llvm \
// RUN:     -convert-openmp-to-llvm \
// RUN:     -convert-arith-to-llvm \
// RUN:     -convert-math-to-llvm \
// RUN:     -convert-math-to-libm \
// RUN:     -convert-func-to-llvm \
// RUN:     -reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils_dir/libmlir_runner_utils%shlibext \
// RUN:     -shared-libs=%mlir_runner_utils_dir/libmlir_c_runner_utils%shlibext \
// RUN:     -shared-libs=%openmp_runtime_dir/libomp%shlibext \
// RUN: | FileCheck %s

func.func private @rtclock() -> f64
func.func private @printMemrefF32(%ptr : tensor<*xf32>)

#map = affine_map<(d0, d1, d2) -> (d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @kernel(%arg0: tensor<1x1536xf32>, %arg1: tensor<1536x8960xf32>, %arg2: tensor<1x1x1536xf32>, %arg3: tensor<1536x8960xf32>, %arg4: tensor<8960x1536xf32>, %arg5: tensor<1x1x1536xf32>) -> tensor<1x1x1536xf32> {
  %t_start = call @rtclock() : () -> f64

  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %cst_64 = arith.constant dense<0.000000e+00> : tensor<1x8960xf32>
  %273 = linalg.matmul {cast = #linalg.type_fn<cast_signed>} ins(%arg0, %arg1 : tensor<1x1536xf32>, tensor<1536x8960xf32>) outs(%cst_64 : tensor<1x8960xf32>) -> tensor<1x8960xf32>
  %s0 = tosa.const_shape {values = dense<[1, 1, 8960]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %274 = tosa.reshape %273, %s0 : (tensor<1x8960xf32>, !tosa.shape<3>) -> tensor<1x1x8960xf32>
  %275 = tosa.sigmoid %274 : (tensor<1x1x8960xf32>) -> tensor<1x1x8960xf32>
  %276 = tosa.mul %274, %275, %shift : (tensor<1x1x8960xf32>, tensor<1x1x8960xf32>, tensor<1xi8>) -> tensor<1x1x8960xf32>
  %s1 = tosa.const_shape {values = dense<[1, 1536]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %277 = tosa.reshape %arg2, %s1 : (tensor<1x1x1536xf32>, !tosa.shape<2>) -> tensor<1x1536xf32>
  %cst_65 = arith.constant dense<0.000000e+00> : tensor<1x8960xf32>
  %278 = linalg.matmul {cast = #linalg.type_fn<cast_signed>} ins(%277, %arg3 : tensor<1x1536xf32>, tensor<1536x8960xf32>) outs(%cst_65 : tensor<1x8960xf32>) -> tensor<1x8960xf32>
  %279 = tosa.reshape %278, %s0 : (tensor<1x8960xf32>, !tosa.shape<3>) -> tensor<1x1x8960xf32>
  %280 = tosa.mul %276, %279, %shift : (tensor<1x1x8960xf32>, tensor<1x1x8960xf32>, tensor<1xi8>) -> tensor<1x1x8960xf32>
  %s2 = tosa.const_shape {values = dense<[1, 8960]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %281 = tosa.reshape %280, %s2 : (tensor<1x1x8960xf32>, !tosa.shape<2>) -> tensor<1x8960xf32>
  %cst_66 = arith.constant dense<0.000000e+00> : tensor<1x1536xf32>
  %282 = linalg.matmul {cast = #linalg.type_fn<cast_signed>} ins(%281, %arg4 : tensor<1x8960xf32>, tensor<8960x1536xf32>) outs(%cst_66 : tensor<1x1536xf32>) -> tensor<1x1536xf32>
  %s3 = tosa.const_shape {values = dense<[1, 1, 1536]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %283 = tosa.reshape %282, %s3 : (tensor<1x1536xf32>, !tosa.shape<3>) -> tensor<1x1x1536xf32>
  %284 = tosa.add %arg5, %283 : (tensor<1x1x1536xf32>, tensor<1x1x1536xf32>) -> tensor<1x1x1536xf32>

  %t_end = call @rtclock() : () -> f64
  %time = arith.subf %t_end, %t_start : f64

  // Print timings.
  vector.print %time : f64
  // CHECK: {{[0-9]+}}

  return %284 : tensor<1x1x1536xf32>
}

func.func @main() {

  %cst_2 = arith.constant 2.0 : f32
  %empty_0 = tensor.empty() : tensor<1x1536xf32>
  %c0 = linalg.fill ins(%cst_2 : f32) outs(%empty_0 : tensor<1x1536xf32>) -> tensor<1x1536xf32>

  %cst_3 = arith.constant 3.0 : f32
  %empty_1 = tensor.empty() : tensor<1536x8960xf32>
  %c1 = linalg.fill ins(%cst_3 : f32) outs(%empty_1 : tensor<1536x8960xf32>) -> tensor<1536x8960xf32>

  %cst_4 = arith.constant 4.0 : f32
  %empty_2 = tensor.empty() : tensor<1x1x1536xf32>
  %c2 = linalg.fill ins(%cst_4 : f32) outs(%empty_2 : tensor<1x1x1536xf32>) -> tensor<1x1x1536xf32>

  %cst_5 = arith.constant 5.0 : f32
  %empty_3 = tensor.empty() : tensor<1536x8960xf32>
  %c3 = linalg.fill ins(%cst_5 : f32) outs(%empty_3 : tensor<1536x8960xf32>) -> tensor<1536x8960xf32>

  %cst_6 = arith.constant 6.0 : f32
  %empty_4 = tensor.empty() : tensor<8960x1536xf32>
  %c4 = linalg.fill ins(%cst_6 : f32) outs(%empty_4 : tensor<8960x1536xf32>) -> tensor<8960x1536xf32>

  %cst_7 = arith.constant 7.0 : f32
  %empty_5 = tensor.empty() : tensor<1x1x1536xf32>
  %c5 = linalg.fill ins(%cst_7 : f32) outs(%empty_5 : tensor<1x1x1536xf32>) -> tensor<1x1x1536xf32>

  %res = call @kernel(%c0, %c1, %c2, %c3, %c4, %c5) : (tensor<1x1536xf32>, tensor<1536x8960xf32>, tensor<1x1x1536xf32>, tensor<1536x8960xf32>, tensor<8960x1536xf32>, tensor<1x1x1536xf32>) -> tensor<1x1x1536xf32>

  %tensor_unranked = tensor.cast %res : tensor<1x1x1536xf32> to tensor<*xf32>
  // Print results.
  // call @printMemrefF32(%tensor_unranked) : (tensor<*xf32>) -> ()

  return
}
