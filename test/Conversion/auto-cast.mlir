// --auto-cast changes the numbers the interpreter computes: bf16 operands
// lose the low bits of 1 + 2^-9, f32 keeps them.
// RUN: neuron-run %s | FileCheck %s --check-prefix=F32
// RUN: neuron-run %s --auto-cast=matmult | FileCheck %s --check-prefix=BF16
// RUN: neuron-run %s --auto-cast=all --auto-cast-type=f16 | FileCheck %s --check-prefix=F16
// F32: output #0: tensor<1x1xf32>  min=1.00195 max=1.00195
// BF16: output #0: tensor<1x1xf32>  min=1 max=1
// F16: output #0: tensor<1x1xf32>  min=1.00195 max=1.00195
func.func @mm() -> tensor<1x1xf32> {
  %a = "tosa.const"() <{values = dense<1.001953125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %b = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1xf32>
  %s = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.reshape %0, %s : (tensor<1x1x1xf32>, !tosa.shape<2>) -> tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
}
