// A contraction so long that one 128-row block's stationary matrix does not
// fit SBUF runs as matmuls over pieces of K (whole K tiles, as many as fit)
// with f32 results, summed in one row kernel; with an epilogue, that becomes
// its own kernel. Both agree with the interpreter on trn1 and trn2.
// RUN: neuronc --no-cache %s --entry=long_k --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: lowered as one matmul-sum kernel: 130 rows x 70 columns
// CHECK: remark: lowered as 3 matmuls over pieces of K = 21888, summed: the stationary block of K = 65600 does not fit SBUF
// RUN: neuron-run %s --entry=long_k --check --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=long_k_bf16_relu --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @long_k(%a: tensor<130x65600xf32>, %b: tensor<65600x70xf32>) -> tensor<130x70xf32> {
  %0 = neuron.matmul %a, %b : tensor<130x65600xf32>, tensor<65600x70xf32> -> tensor<130x70xf32>
  return %0 : tensor<130x70xf32>
}
func.func @long_k_bf16_relu(%a: tensor<3x256x90000xbf16>, %b: tensor<40x90000xbf16>) -> tensor<3x256x40xbf16> {
  %0 = neuron.matmul %a, %b transpose_rhs : tensor<3x256x90000xbf16>, tensor<40x90000xbf16> -> tensor<3x256x40xbf16>
  %1 = neuron.relu %0 : tensor<3x256x40xbf16>
  return %1 : tensor<3x256x40xbf16>
}
