// The program's last kernel stores its last row tile on all 16 DMA queues
// (nothing runs behind those stores); its other tiles, and every other
// kernel's, stay on the store queues so the next kernels' loads are not
// held back behind them.
// RUN: neuron-opt %s --neuron-lower --nisa-fold-copy-kernels -split-input-file | FileCheck %s

// Two row tiles of 128: the first on the store queues (q7-q15), the last in
// 16 pieces of 8 rows, one per queue, q0 first.
// CHECK-LABEL: nisa.program @last
// CHECK: nisa.dma_copy q7 @out0[0, [512,8], [1,512]] = @[[T0:t[0-9]+]][0:8, 0, [1,512]]
// CHECK-NOT: nisa.dma_copy q{{[0-6]}} @out0{{.*}} = @[[T0]]
// CHECK: nisa.dma_copy q0 @out0[65536, [512,8], [1,512]] = @[[T1:t[0-9]+]][0:8, 0, [1,512]]
// CHECK-NEXT: nisa.dma_copy q1 @out0[69632, [512,8], [1,512]] = @[[T1]][8:16, 0, [1,512]]
// CHECK-COUNT-13: nisa.dma_copy q{{[0-9]+}} @out0
// CHECK-NEXT: nisa.dma_copy q15 @out0[126976, [512,8], [1,512]] = @[[T1]][120:128, 0, [1,512]]
func.func @last(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<256x512xf32> {
  %0 = neuron.matmul %a, %b : tensor<256x128xf32>, tensor<128x512xf32> -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// A head split after the matmul folds into its stores (runs of 64): the
// matmul is still the program's last kernel.
// CHECK-LABEL: nisa.program @last_then_permute
// CHECK-NOT: nisa.kernel @{{.*}}transpose
// CHECK: nisa.dma_copy q0 @out0[8192, [64,8], [16384,8], [1,64]] = @[[T1:t[0-9]+]][0:8, 0, [1,512]]
// CHECK: nisa.dma_copy q15 @out0[15872, [64,8], [16384,8], [1,64]] = @[[T1]][120:128, 0, [1,512]]
func.func @last_then_permute(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<8x256x64xf32> {
  %0 = neuron.matmul %a, %b : tensor<256x128xf32>, tensor<128x512xf32> -> tensor<256x512xf32>
  %1 = neuron.reshape %0 : tensor<256x512xf32> -> tensor<256x8x64xf32>
  %2 = neuron.transpose %1 perm = [1, 0, 2] : tensor<256x8x64xf32> -> tensor<8x256x64xf32>
  return %2 : tensor<8x256x64xf32>
}

// -----

// A matmul feeding another keeps its last tile on the store queues; the
// second one, the program's last, takes every queue.
// CHECK-LABEL: nisa.program @not_last
// CHECK-NOT: nisa.dma_copy q{{[0-6]}} @tmp0
// CHECK: nisa.dma_copy q11 @tmp0[126976, [512,8], [1,512]]
// CHECK: nisa.dma_copy q0 @out0[8192, [64,8], [1,64]]
// CHECK: nisa.dma_copy q15 @out0[15872, [64,8], [1,64]]
func.func @not_last(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>, %c: tensor<512x64xf32>) -> tensor<256x64xf32> {
  %0 = neuron.matmul %a, %b : tensor<256x128xf32>, tensor<128x512xf32> -> tensor<256x512xf32>
  %1 = neuron.matmul %0, %c : tensor<256x512xf32>, tensor<512x64xf32> -> tensor<256x64xf32>
  return %1 : tensor<256x64xf32>
}
