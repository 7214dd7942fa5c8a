// A convolution splits the DMA queues between its loads and its stores in
// proportion to the bytes each moves, and the loads include what its fused
// epilogue reads: ResNet's residual add reads a tensor as large as the
// output. Counted without it, @residual's stores took 12 of 16 queues and its
// loads (the input and the residual, twice the stores) queued on 4: ResNet-50
// at batch 8 in bf16 spent 7.1 ms of 9.5 on those 4 queues. Here the loads
// get 11 queues and the stores 5 (a third of the bytes; without the
// residual counted, 7); @plain (no residual, the same input, weights and
// output) stores on 7. Checked on the simulator against the interpreter.
//
// RUN: neuronc --no-cache %s --entry=residual --emit=nisa --lowering-remarks -o %t.res.nisa 2>&1 | FileCheck %s --check-prefix=RES
// RES: remark: lowered as one convolution kernel: {{.*}}; stores on 5 of 16 DMA queues
// The residual's loads (@in1) and the stores (@out0) never share a queue:
// loads on q0..q10, stores on q11..q15.
// RUN: FileCheck %s --check-prefix=RES-IR < %t.res.nisa
// RUN: FileCheck %s --check-prefix=RES-LOADS < %t.res.nisa
// RUN: FileCheck %s --check-prefix=RES-STORES < %t.res.nisa
// RES-IR: nisa.dma_copy q{{[0-9]+}} @t{{[0-9]+}}[{{.*}}] = @in1[
// RES-IR: nisa.dma_copy q1{{[1-5]}} @out0[
// RES-LOADS-NOT: nisa.dma_copy q1{{[1-5]}} @{{[a-z0-9]+}}[{{.*}}] = @in1[
// RES-STORES-NOT: nisa.dma_copy q{{([0-9]|10)}} @out0[
// RUN: neuronc --no-cache %s --entry=plain --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: remark: lowered as one convolution kernel: {{.*}}; stores on 7 of 16 DMA queues
// @cast (--auto-cast=matmult): the first convolution's epilogue stores bf16
// for the next one; its stores count two bytes per element, not the f32
// accumulation's four: 7 queues (10 when counted at four bytes).
// RUN: neuronc --no-cache %s --entry=cast --auto-cast=matmult --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAST
// CAST: conv-store-queues.mlir:[[#@LINE+22]]:8: remark: lowered as one convolution kernel: {{.*}}; stores on 7 of 16 DMA queues
// RUN: neuron-run %s --entry=cast --check --fuse --auto-cast=matmult --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=cast --check --fuse --auto-cast=matmult --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=residual --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=residual --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @residual(%x: tensor<2x256x28x28xf32>, %r: tensor<2x256x28x28xf32>) -> tensor<2x256x28x28xf32> {
  %w = neuron.constant dense<0.015625> : tensor<256x256x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<2x256x28x28xf32>, tensor<256x256x1x1xf32>) -> tensor<2x256x28x28xf32>
  %a = neuron.add %y, %r : tensor<2x256x28x28xf32>, tensor<2x256x28x28xf32> -> tensor<2x256x28x28xf32>
  %z = neuron.relu %a : tensor<2x256x28x28xf32>
  return %z : tensor<2x256x28x28xf32>
}
func.func @plain(%x: tensor<2x256x28x28xf32>) -> tensor<2x256x28x28xf32> {
  %w = neuron.constant dense<0.015625> : tensor<256x256x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<2x256x28x28xf32>, tensor<256x256x1x1xf32>) -> tensor<2x256x28x28xf32>
  %z = neuron.relu %y : tensor<2x256x28x28xf32>
  return %z : tensor<2x256x28x28xf32>
}
func.func @cast(%x: tensor<2x256x28x28xf32>) -> tensor<2x64x28x28xf32> {
  %w = neuron.constant dense<0.015625> : tensor<256x256x1x1xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<2x256x28x28xf32>, tensor<256x256x1x1xf32>) -> tensor<2x256x28x28xf32>
  %z = neuron.relu %y : tensor<2x256x28x28xf32>
  %w2 = neuron.constant dense<0.0625> : tensor<64x256x3x3xf32>
  %o = neuron.conv %z, %w2 strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 1 : (tensor<2x256x28x28xf32>, tensor<64x256x3x3xf32>) -> tensor<2x64x28x28xf32>
  return %o : tensor<2x64x28x28xf32>
}
