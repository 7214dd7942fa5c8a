// What the reference interpreter refuses in a program that imports and
// verifies: an argument it cannot hold, a constant it cannot read, an op it
// cannot run, and the kernels' run-time shape checks, which dynamic dims
// leave to the inputs. Each message is located at the op (or names the
// argument), the exit code is 1 and no output file is left behind.
// RUN: rm -rf %t && split-file %s %t
// RUN: neuron-run %t/make.mlir --output %t/v3.npy --output %t/v4.npy --output %t/v5.npy --output %t/m23.npy --output %t/m44.npy --output %t/b4.npy --output %t/i3.npy --output %t/m43.npy > /dev/null

// Arguments: only ranked tensors of a device element type.
// RUN: not neuron-run %t/scalar.mlir --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=NOTENSOR
// NOTENSOR: neuron-run: error: argument #1: only ranked tensors can be executed, got a non-tensor
// RUN: not neuron-run %t/f8.mlir --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=ELTYPE
// ELTYPE: neuron-run: error: argument #0: element type is not one the device has (f32, bf16, f16, i32, i1)

// A constant whose values are not inline (dense_resource).
// RUN: not neuron-run %t/resource.mlir --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=CONST
// CONST: resource.mlir:2:8: error: cannot read the constant's values: they are a dense_resource blob (write them inline as dense<...>)

// A non-neuron op inside a neuron.kernel body passes import.
// RUN: not neuron-run %t/kernel.mlir --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: kernel.mlir:4:10: error: the interpreter cannot execute 'math.atan'; only neuron ops run (a neuron.kernel body may hold only neuron ops)

// Result types with dynamic dims the interpreter cannot pick.
// RUN: not neuron-run %t/reshape.mlir --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=RESHAPE2
// RESHAPE2: reshape.mlir:2:8: error: reshape to a shape with more than one dynamic dim is ambiguous
// RUN: not neuron-run %t/bcast.mlir --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=BCASTDYN
// BCASTDYN: bcast.mlir:2:8: error: broadcast_to a dynamic shape is not executable

// reduce_max and reduce_min over a static 0-size dim have no identity.
// RUN: not neuron-run %t/empty.mlir --entry max --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not neuron-run %t/empty.mlir --entry min --random-inputs --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: empty.mlir:{{[0-9]+}}:8: error: reduce_max/reduce_min over an empty axis has no identity

// Dynamic operands whose run-time shapes do not fit together.
// RUN: not neuron-run %t/dyn.mlir --entry add --input %t/v3.npy --input %t/v4.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: dyn.mlir:2:8: error: binary op: shapes 3 and 4 do not broadcast
// RUN: not neuron-run %t/dyn.mlir --entry declared --input %t/v3.npy --input %t/v3.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=DECLARED
// DECLARED: dyn.mlir:6:8: error: computed tensor<3xf32> but the op declares 'tensor<4xf32>'
// RUN: not neuron-run %t/dyn.mlir --entry gather --input %t/m43.npy --input %t/i3.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: dyn.mlir:10:8: error: computed tensor<3x3xf32> but the op declares 'tensor<2x3xf32>'
// RUN: not neuron-run %t/dyn.mlir --entry select --input %t/b4.npy --input %t/v3.npy --input %t/v3.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=SELECT
// SELECT: dyn.mlir:14:8: error: select: condition shape 4 does not broadcast with 3
// RUN: not neuron-run %t/dyn.mlir --entry broadcast --input %t/v5.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=BCAST
// BCAST: dyn.mlir:18:8: error: broadcast_to: shape 5 does not broadcast to 4x3
// RUN: not neuron-run %t/dyn.mlir --entry concat --input %t/m44.npy --input %t/m43.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=CONCAT
// CONCAT: dyn.mlir:22:8: error: concat: inputs differ in dim 1
// RUN: not neuron-run %t/dyn.mlir --entry matmul --input %t/m23.npy --input %t/m44.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: dyn.mlir:26:8: error: matmul: contraction sizes differ: lhs has K=3 but rhs has K=4
// RUN: not neuron-run %t/dyn.mlir --entry rmsnorm --input %t/m23.npy --input %t/v4.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=RMSNORM
// RMSNORM: dyn.mlir:30:8: error: rmsnorm weight of shape 4 does not broadcast to 2x3
// RUN: not neuron-run %t/dyn.mlir --entry layernorm --input %t/m23.npy --input %t/v3.npy --input %t/v4.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=LAYERNORM
// LAYERNORM: dyn.mlir:34:8: error: layernorm bias of shape 4 does not broadcast to 2x3
// RUN: not neuron-run %t/dyn.mlir --entry slice --input %t/v3.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=SLICE
// SLICE: dyn.mlir:38:8: error: slice: dim 0 reads outside [0, 3)
// RUN: not neuron-run %t/dyn.mlir --entry reshape --input %t/v5.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=VIEW
// VIEW: dyn.mlir:42:8: error: reshape: cannot view 5 elements (5) as 2x2

// A bucketed call whose callee is a symbol but not a function (the
// dispatch verifier lets non-functions through: lowered callees are programs).
// RUN: not neuron-run %t/dispatch.mlir --input %t/m43.npy --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=CALLEE
// CALLEE: dispatch.mlir:2:8: error: bucket callee @g is not a function

// RUN: not test -e %t/out.npy

//--- make.mlir
func.func @make() -> (tensor<3xf32>, tensor<4xf32>, tensor<5xf32>, tensor<2x3xf32>, tensor<4x4xf32>, tensor<4xi1>, tensor<3xi32>, tensor<4x3xf32>) {
  %v3 = neuron.constant dense<1.0> : tensor<3xf32>
  %v4 = neuron.constant dense<1.0> : tensor<4xf32>
  %v5 = neuron.constant dense<1.0> : tensor<5xf32>
  %m23 = neuron.constant dense<1.0> : tensor<2x3xf32>
  %m44 = neuron.constant dense<1.0> : tensor<4x4xf32>
  %b4 = neuron.constant dense<true> : tensor<4xi1>
  %i3 = neuron.constant dense<0> : tensor<3xi32>
  %m43 = neuron.constant dense<1.0> : tensor<4x3xf32>
  return %v3, %v4, %v5, %m23, %m44, %b4, %i3, %m43 : tensor<3xf32>, tensor<4xf32>, tensor<5xf32>, tensor<2x3xf32>, tensor<4x4xf32>, tensor<4xi1>, tensor<3xi32>, tensor<4x3xf32>
}
//--- scalar.mlir
func.func @f(%a: tensor<3xf32>, %s: f32) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
//--- f8.mlir
func.func @f(%a: tensor<3xf8E4M3FN>) -> tensor<3xf8E4M3FN> {
  return %a : tensor<3xf8E4M3FN>
}
//--- resource.mlir
func.func @f() -> tensor<2xf32> {
  %0 = neuron.constant dense_resource<blob1> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
//--- kernel.mlir
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = neuron.kernel "k" (%a) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%x: tensor<3xf32>):
    %1 = math.atan %x : tensor<3xf32>
    neuron.yield %1 : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}
//--- reshape.mlir
func.func @f(%a: tensor<2x3xf32>) -> tensor<?x?x1xf32> {
  %0 = neuron.reshape %a : tensor<2x3xf32> -> tensor<?x?x1xf32>
  return %0 : tensor<?x?x1xf32>
}
//--- bcast.mlir
func.func @f(%a: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = neuron.broadcast_to %a : tensor<3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
//--- empty.mlir
func.func @max(%a: tensor<0x3xf32>) -> tensor<3xf32> {
  %0 = neuron.reduce_max %a axes = [0] : tensor<0x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @min(%a: tensor<3x0xf32>) -> tensor<3xf32> {
  %0 = neuron.reduce_min %a axes = [1] : tensor<3x0xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
//--- dyn.mlir
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = neuron.add %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @declared(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %0 = neuron.add %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @gather(%t: tensor<4x3xf32>, %i: tensor<?xi32>) -> tensor<2x3xf32> {
  %0 = neuron.gather %t[%i] axis = 0 : tensor<4x3xf32>, tensor<?xi32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @select(%c: tensor<?xi1>, %a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = neuron.select %c, %a, %b : tensor<?xi1>, tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @broadcast(%a: tensor<?xf32>) -> tensor<4x3xf32> {
  %0 = neuron.broadcast_to %a : tensor<?xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func @concat(%a: tensor<4x?xf32>, %b: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %0 = neuron.concat %a, %b axis = 0 : tensor<4x?xf32>, tensor<?x3xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @matmul(%a: tensor<2x?xf32>, %b: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = neuron.matmul %a, %b : tensor<2x?xf32>, tensor<?x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func @rmsnorm(%a: tensor<2x?xf32>, %w: tensor<?xf32>) -> tensor<2x?xf32> {
  %0 = neuron.rmsnorm %a weight %w axes = [1] epsilon = 1.0e-5 : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
func.func @layernorm(%a: tensor<2x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<2x?xf32> {
  %0 = neuron.layernorm %a weight %w bias %b axes = [1] epsilon = 1.0e-5 : (tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
func.func @slice(%a: tensor<?xf32>) -> tensor<4xf32> {
  %0 = neuron.slice %a offsets = [0] sizes = [4] strides = [1] : tensor<?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @reshape(%a: tensor<?xf32>) -> tensor<2x2xf32> {
  %0 = neuron.reshape %a : tensor<?xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
//--- dispatch.mlir
func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 3>], output_dims = [array<i64: -1, 3>], masks = array<i64>, callees = [@g], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
module @g {
}
