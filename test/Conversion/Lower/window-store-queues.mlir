// A pooling or depthwise convolution of more than one block keeps DMA
// queues for its stores, in proportion to the bytes they move against the
// loads', counting a fused epilogue's stores in the types they are stored
// in. With loads and stores on the same queues, a block's loads wait in
// line behind the previous block's store, which waits for that block's
// taps: the blocks ran one after another whatever the slots (MobileNetV2 at
// batch 8, bf16, trn1: the 112x112 stride-2 depthwise kernel 383 -> 232 us,
// the model 3444 -> 2593 us).
// - @dw: 4 row blocks, f32 in and out: 8 of 16 queues; the stores on
//   q8..q15 only; the loads of the first block (nothing is stored before
//   its taps) on every queue, those of the others on q0..q7 only.
// - @cast with --auto-cast=matmult: the depthwise kernel loads f32 and
//   stores bf16 for the next convolution: a third of the bytes, 5 queues
//   (8 if the f32 accumulation's size were counted).
// - @small: one block, nothing to overlap: loads and stores share all.
// - @pool: a max pooling in bands, 4 queues (a quarter, the least kept).
// Each also on the simulator against the interpreter, both targets.
//
// RUN: neuronc --no-cache %s --entry=dw --emit=nisa --lowering-remarks -o %t.dw.nisa 2>&1 | FileCheck %s --check-prefix=DW
// DW: remark: lowered as one depthwise convolution kernel: 1 plane tile(s) x 4 row block(s) of 14, 9 taps each on VectorE/GpSimdE; stores on 8 of 16 DMA queues
// RUN: FileCheck %s --check-prefix=DW-IR < %t.dw.nisa
// RUN: FileCheck %s --check-prefix=DW-LOADS < %t.dw.nisa
// RUN: FileCheck %s --check-prefix=DW-STORES < %t.dw.nisa
// DW-IR: nisa.dma_copy q{{([89]|1[0-5])}} @x{{[0-9]+}}[{{.*}}] = @in0[
// DW-IR: nisa.dma_copy q{{([89]|1[0-5])}} @out0[
// DW-IR: nisa.dma_copy q{{[0-7]}} @x{{[0-9]+}}[{{.*}}] = @in0[
// DW-LOADS: nisa.dma_copy q{{[0-9]+}} @out0[
// DW-LOADS-NOT: nisa.dma_copy q{{([89]|1[0-5])}} @{{[a-z0-9]+}}[{{.*}}] = @in0[
// DW-STORES-NOT: nisa.dma_copy q{{[0-7]}} @out0[
// RUN: neuronc --no-cache %s --entry=cast --auto-cast=matmult --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAST
// CAST: remark: lowered as one depthwise convolution kernel: {{.*}}; stores on 5 of 16 DMA queues, its input converted to bf16 on chip
// RUN: neuronc --no-cache %s --entry=small --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: remark: lowered as one depthwise convolution kernel: 1 plane tile(s) x 1 row block(s) of 8, 9 taps each on VectorE/GpSimdE{{$}}
// RUN: neuronc --no-cache %s --entry=pool --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=POOL
// POOL: remark: lowered as one pooling kernel: {{.*}} row block(s) of {{[0-9]+}}, 9 taps each on VectorE/GpSimdE; stores on 4 of 16 DMA queues
// RUN: neuron-run %s --entry=dw --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=dw --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=cast --check --fuse --auto-cast=matmult --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=cast --check --fuse --auto-cast=matmult --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=pool --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=pool --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @dw(%x: tensor<2x64x56x56xf32>) -> tensor<2x64x56x56xf32> {
  %w = neuron.constant dense<0.125> : tensor<64x1x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 64 : (tensor<2x64x56x56xf32>, tensor<64x1x3x3xf32>) -> tensor<2x64x56x56xf32>
  %z = neuron.relu %y : tensor<2x64x56x56xf32>
  return %z : tensor<2x64x56x56xf32>
}
func.func @cast(%x: tensor<2x64x56x56xf32>) -> tensor<2x32x56x56xf32> {
  %w = neuron.constant dense<0.125> : tensor<64x1x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 64 : (tensor<2x64x56x56xf32>, tensor<64x1x3x3xf32>) -> tensor<2x64x56x56xf32>
  %z = neuron.relu %y : tensor<2x64x56x56xf32>
  %w2 = neuron.constant dense<0.0625> : tensor<32x64x1x1xf32>
  %o = neuron.conv %z, %w2 strides = [1, 1] padding = [0, 0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<2x64x56x56xf32>, tensor<32x64x1x1xf32>) -> tensor<2x32x56x56xf32>
  return %o : tensor<2x32x56x56xf32>
}
func.func @small(%x: tensor<2x64x8x8xf32>) -> tensor<2x64x8x8xf32> {
  %w = neuron.constant dense<0.125> : tensor<64x1x3x3xf32>
  %y = neuron.conv %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilations = [1, 1] groups = 64 : (tensor<2x64x8x8xf32>, tensor<64x1x3x3xf32>) -> tensor<2x64x8x8xf32>
  return %y : tensor<2x64x8x8xf32>
}
func.func @pool(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %m = neuron.pool max %x kernel = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %m : tensor<1x64x56x56xf32>
}
