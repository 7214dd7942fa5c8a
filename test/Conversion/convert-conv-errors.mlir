// Convolutions and poolings the import refuses, each with its reason; no
// output is written.
// RUN: rm -rf %t && split-file %s %t
// RUN: not neuronc %t/tosa_i8.mlir -o %t/a.neff 2>&1 | FileCheck %s --check-prefix=TOSA_I8
// RUN: not neuronc %t/tosa_transpose_weight.mlir -o %t/b.neff 2>&1 | FileCheck %s --check-prefix=TRANSPOSE_WEIGHT
// RUN: not neuronc %t/linalg_int.mlir -o %t/c.neff 2>&1 | FileCheck %s --check-prefix=LINALG_INT
// RUN: not neuronc %t/linalg_dilated_pool.mlir -o %t/d.neff 2>&1 | FileCheck %s --check-prefix=DILATED_POOL
// RUN: not neuronc %t/linalg_mixed.mlir -o %t/e.neff 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: test ! -e %t/a.neff && test ! -e %t/b.neff && test ! -e %t/c.neff && test ! -e %t/d.neff && test ! -e %t/e.neff

// TOSA_I8: tosa_i8.mlir:4:8: error: neuronc cannot import 'tosa.conv2d': its input is i8 (a quantized operation): neuron.conv and neuron.pool compute in floating point; dequantize the operands to f32 first or export the float model
// TRANSPOSE_WEIGHT: tosa_transpose_weight.mlir:4:8: error: neuronc cannot import 'tosa.transpose_conv2d': its weight is not a constant: neuronc computes a transposed convolution as a convolution with the flipped weight, flipped at import (make the weight a tosa.const, or write the convolution as tosa.conv2d)
// LINALG_INT: linalg_int.mlir:5:8: error: neuronc cannot import 'linalg.conv_2d_nchw_fchw': its operands are i32 and its result i32: neuron.conv and neuron.pool compute in floating point; convert the operands to f32 first (or dequantize a quantized model)
// DILATED_POOL: linalg_dilated_pool.mlir:5:8: error: neuronc cannot import 'linalg.pooling_nchw_max': it is a dilated pooling; neuron.pool has no dilations (use dilations of 1)
// MIXED: linalg_mixed.mlir:5:8: error: neuronc cannot import 'linalg.conv_2d_nchw_fchw': its input is f32 and its weight f16; neuron.conv needs one operand type (cast one of them first)

//--- tosa_i8.mlir
func.func @k(%x: tensor<1x8x8x4xi8>, %w: tensor<4x3x3x4xi8>) -> tensor<1x6x6x4xi32> {
  %b = "tosa.const"() <{values = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>
  return %0 : tensor<1x6x6x4xi32>
}

//--- tosa_transpose_weight.mlir
func.func @k(%x: tensor<1x2x2x1xf32>, %w: tensor<1x2x2x1xf32>) -> tensor<1x3x3x1xf32> {
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x1xf32>
  return %y : tensor<1x3x3x1xf32>
}

//--- linalg_int.mlir
func.func @k(%x: tensor<1x1x3x3xi32>, %w: tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x1x2x2xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) outs(%f : tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  return %y : tensor<1x1x2x2xi32>
}

//--- linalg_dilated_pool.mlir
func.func @k(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %w = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x1x3x3xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x1x5x5xf32>, tensor<2x2xf32>) outs(%e : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

//--- linalg_mixed.mlir
func.func @k(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf16>) -> tensor<1x1x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf16>) outs(%f : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}
