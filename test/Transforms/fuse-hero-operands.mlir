// A fused kernel's hero (a matmul or convolution) reads its operands from
// memory: an elementwise producer of one stays out of the kernel whichever
// path reaches it. Here the residual add %h feeds both the second
// convolution and that convolution's epilogue; fusion pulled it (and the
// first convolution's epilogue) in through the epilogue's residual operand,
// a "conv-epilogue" kernel with the hero's input computed inside, which the
// lowering could not place (EfficientNetV2-S's FusedMBConv blocks in f32:
// "'nisa.hbm' op const needs a value").
// RUN: neuronc --no-cache %s --emit=fused --fusion-report=- -o /dev/null 2>&1 | FileCheck %s
// CHECK: not fused kernel at {{.*}}:20:8: the producer (neuron.add at {{.*}}:20:8) computes an operand of the hero neuron.conv, which reads its operands from memory
// CHECK: fused kernel (conv-epilogue) at {{.*}}:24:8: absorbed
// CHECK: fused kernel (conv-epilogue) at {{.*}}:20:8: absorbed
// RUN: neuron-run %s --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// SIM: check: ok
func.func @residual_feeds_next_conv(%x: tensor<1x8x16x16xf32>, %w1: tensor<8x8x3x3xf32>, %w2: tensor<8x8x3x3xf32>, %r: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %b = neuron.constant dense<0.5> : tensor<1x8x1x1xf32>
  %c1 = neuron.conv %x, %w1 strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %a1 = neuron.add %c1, %b : tensor<1x8x16x16xf32>, tensor<1x8x1x1xf32> -> tensor<1x8x16x16xf32>
  %s1 = neuron.silu %a1 : tensor<1x8x16x16xf32>
  %h = neuron.add %s1, %r : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  %c2 = neuron.conv %h, %w2 strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %a2 = neuron.add %c2, %b : tensor<1x8x16x16xf32>, tensor<1x8x1x1xf32> -> tensor<1x8x16x16xf32>
  %s2 = neuron.silu %a2 : tensor<1x8x16x16xf32>
  %y = neuron.add %s2, %h : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  return %y : tensor<1x8x16x16xf32>
}
