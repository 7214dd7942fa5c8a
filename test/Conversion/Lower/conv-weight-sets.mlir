// A convolution whose weights come in several sets (groups, or chunks of
// output channels) keeps up to 4 of them in SBUF at once, so the next set
// loads while this one multiplies; with one, each set's load waited for the
// last multiply of the set before, a DMA latency and a transfer per set
// with TensorE idle (RegNetY-400MF at 64x64: its grouped 3x3 convolutions
// at 2x2 pixels, 5 sets of 88 channels; the model 479.3 -> 408.0 us in
// f32, 406.7 -> 356.5 in bf16, on trn1). @grouped has 5 sets (4 in
// flight), @three 3, @one 1 (nothing to say). Each is checked on the
// simulator against the interpreter on both targets, and in bf16.
//
// RUN: neuronc --no-cache %s --entry=grouped --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUPED
// GROUPED: remark: lowered as one convolution kernel: 5 group(s) x 1 channel tile(s) x 9 taps {{.*}}, 4 weight sets in flight
// RUN: neuronc --no-cache %s --entry=three --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// THREE: remark: lowered as one convolution kernel: 3 group(s) {{.*}}, 3 weight sets in flight
// RUN: neuronc --no-cache %s --entry=one --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: remark: lowered as one convolution kernel: 1 group(s)
// ONE-NOT: weight sets in flight
// ONE-SAME: ; stores on
// RUN: neuron-run %s --entry=grouped --check --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=grouped --check --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=grouped --check --random-inputs --auto-cast=matmult | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=three --check --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=three --check --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @grouped(%x: tensor<1x440x2x2xf32>) -> tensor<1x440x2x2xf32> {
  %w = neuron.constant dense<0.03125> : tensor<440x88x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 5 : (tensor<1x440x2x2xf32>, tensor<440x88x3x3xf32>) -> tensor<1x440x2x2xf32>
  %z = neuron.relu %y : tensor<1x440x2x2xf32>
  return %z : tensor<1x440x2x2xf32>
}
func.func @three(%x: tensor<2x192x4x4xf32>) -> tensor<2x192x4x4xf32> {
  %w = neuron.constant dense<0.03125> : tensor<192x64x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 3 : (tensor<2x192x4x4xf32>, tensor<192x64x3x3xf32>) -> tensor<2x192x4x4xf32>
  return %y : tensor<2x192x4x4xf32>
}
func.func @one(%x: tensor<2x64x4x4xf32>) -> tensor<2x64x4x4xf32> {
  %w = neuron.constant dense<0.03125> : tensor<64x64x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<2x64x4x4xf32>, tensor<64x64x3x3xf32>) -> tensor<2x64x4x4xf32>
  return %y : tensor<2x64x4x4xf32>
}
