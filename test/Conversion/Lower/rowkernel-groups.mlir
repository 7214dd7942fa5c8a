// Row kernels of many short rows. A kernel that reduces fewer than 64
// columns over at least four whole row tiles takes several row tiles per
// step (row (t*G + g)*128 + q on partition q, free elements [g*C, (g+1)*C)):
// ResNet-50's residual add, ReLU and global average pool at batch 8 (128 row
// tiles of 128 x 49: 32 per step), a squeeze-excitation's SiLU and average
// over 2x2 pixels (1152 channels: 9 tiles in one step), a softmax over 16,
// and bf16. Reductions reduce the innermost of [G, C]; row values are
// spread over the columns ([1,G], [0,C]) instead of being per-partition
// scalars. At the thresholds: 1153 rows (not whole tiles) and 64 columns
// keep one tile per step and instead load several steps ahead when each
// step's transfers are shorter than a DMA latency; 63 columns group.
// RUN: neuronc --no-cache %s --emit=nisa --lowering-remarks -o %t.nisa 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.nisa
// RUN: neuron-run %s --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok

// REMARK: remark: lowered as one reduction kernel: 16384 rows x 49 columns, resident, 32 rows per partition
// REMARK: remark: lowered as one reduction kernel: 1152 rows x 4 columns, resident, 9 rows per partition
// REMARK: remark: lowered as one softmax kernel: 1024 rows x 16 columns, resident, 8 rows per partition
// REMARK: remark: lowered as one reduce_max kernel: 1153 rows x 4 columns, resident, loads 5 steps ahead
// REMARK: remark: lowered as one reduce_sum kernel: 512 rows x 63 columns, resident, 4 rows per partition
// REMARK: remark: lowered as one reduce_sum kernel: 512 rows x 64 columns, resident, loads 3 steps ahead
// REMARK: remark: lowered as one softmax kernel: 2048 rows x 200 columns, resident, loads 2 steps ahead
// REMARK: remark: lowered as one reduce_mean kernel: 4096 rows x 9 columns, resident, 32 rows per partition
// REMARK: remark: lowered as one reduction kernel: 512 rows x 16 columns, resident, 4 rows per partition

// The pool: 4 steps of [128, 32 x 49]; each step's 32 row tiles of each
// input are loaded at their own free offsets, on the partitions they have
// in one-tile steps.
// CHECK-LABEL: nisa.kernel @k0 "reduction"
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[X:t[0-9]+]][0:{{[0-9]+}}, 0, [1,49]] = @in0[0,
// CHECK: nisa.dma_copy q{{[0-9]+}} @[[X]][0:{{[0-9]+}}, 49, [1,49]] = @in0[6272,
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} add @[[S:r[0-9]+]][0:128, 0, [1,32]] = @{{t[0-9]+}}[0:128, 0, [49,32], [1,49]]
// CHECK-NEXT: nisa.tensor_scalar {{vector|gpsimd}} @{{r[0-9]+}}[0:128, 0, [1,32]] = @[[S]][0:128, 0, [1,32]] multiply 0.0204081628
// CHECK-COUNT-3: nisa.tensor_reduce {{vector|gpsimd}} add @{{r[0-9]+}}[0:128, 0, [1,32]] = @{{t[0-9]+}}[0:128, 0, [49,32], [1,49]]
// CHECK-NOT: nisa.tensor_reduce
// CHECK-LABEL: nisa.kernel @k1 "reduction"
// CHECK: nisa.activation silu @{{t[0-9]+}}[0:128, 0, [1,36]]
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} add @{{r[0-9]+}}[0:128, 0, [1,9]] = @{{t[0-9]+}}[0:128, 0, [4,9], [1,4]]
// The softmax's row max and sum are [128, 8]; they are spread over the
// columns of each row (no bias or accumulate: those are per partition).
// CHECK-LABEL: nisa.kernel @k2 "softmax"
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} max @[[M:r[0-9]+]][0:128, 0, [1,8]] = @[[IN:[a-z0-9.]+]][0:128, 0, [16,8], [1,16]]
// CHECK-NEXT: nisa.tensor_tensor {{vector|gpsimd}} subtract @[[D:t[0-9]+]][0:128, 0, [1,128]] = @[[IN]][0:128, 0, [1,128]], @[[M]][0:128, 0, [1,8], [0,16]]
// CHECK-NEXT: nisa.activation exp @[[E:t[0-9]+]][0:128, 0, [1,128]] = @[[D]][0:128, 0, [1,128]]
// CHECK-NEXT: nisa.tensor_reduce {{vector|gpsimd}} add @{{r[0-9]+}}[0:128, 0, [1,8]] = @[[E]][0:128, 0, [16,8], [1,16]]
// CHECK-LABEL: nisa.kernel @k3 "reduce_max"
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} max @{{r[0-9]+}}[0:128, 0, [1,1]] = @{{[a-z0-9.]+}}[0:128, 0, [1,4]]
// CHECK-LABEL: nisa.kernel @k4 "reduce_sum"
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} add @{{r[0-9]+}}[0:128, 0, [1,4]] = @{{[a-z0-9.]+}}[0:128, 0, [63,4], [1,63]]
// CHECK-LABEL: nisa.kernel @k5 "reduce_sum"
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} add @{{r[0-9]+}}[0:128, 0, [1,1]] = @{{[a-z0-9.]+}}[0:128, 0, [1,64]]
// CHECK-LABEL: nisa.kernel @k7 "reduce_mean"
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} add @{{r[0-9]+}}[0:128, 0, [1,32]] = @{{[a-z0-9.]+}}[0:128, 0, [9,32], [1,9]]
// (mean + 3) * x: the row value, no longer a per-partition scalar, is
// spread over the columns as scalar_tensor_tensor's first operand.
// CHECK-LABEL: nisa.kernel @k8 "reduction"
// CHECK: nisa.tensor_reduce {{vector|gpsimd}} add @[[SZ:r[0-9]+]][0:128, 0, [1,4]] = @[[Z:[a-z0-9.]+]][0:128, 0, [16,4], [1,16]]
// CHECK-NEXT: nisa.tensor_scalar {{vector|gpsimd}} @[[MZ:r[0-9]+]][0:128, 0, [1,4]] = @[[SZ]][0:128, 0, [1,4]] multiply 6.250000e-02
// CHECK-NEXT: nisa.scalar_tensor_tensor {{vector|gpsimd}} @{{t[0-9]+}}[0:128, 0, [1,64]] = (@[[MZ]][0:128, 0, [1,4], [0,16]] add 3.000000e+00) multiply @[[Z]][0:128, 0, [1,64]]
func.func @groups(%x: tensor<8x2048x7x7xf32>, %r: tensor<8x2048x7x7xf32>,
                  %s: tensor<1x1152x2x2xf32>, %m: tensor<1024x16xf32>,
                  %u: tensor<1153x4xf32>, %w: tensor<512x63xf32>, %y: tensor<512x64xf32>, %v: tensor<2048x200xf32>,
                  %h: tensor<4x1024x3x3xbf16>, %z: tensor<512x16xf32>)
    -> (tensor<8x2048xf32>, tensor<1x1152x2x2xf32>, tensor<1x1152xf32>, tensor<1024x16xf32>,
        tensor<1153xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x200xf32>,
        tensor<4x1024xbf16>, tensor<512x16xf32>) {
  %0 = neuron.add %x, %r : tensor<8x2048x7x7xf32>, tensor<8x2048x7x7xf32> -> tensor<8x2048x7x7xf32>
  %1 = neuron.relu %0 : tensor<8x2048x7x7xf32>
  %2 = neuron.reduce_mean %1 axes = [2, 3] : tensor<8x2048x7x7xf32> -> tensor<8x2048xf32>
  %3 = neuron.silu %s : tensor<1x1152x2x2xf32>
  %4 = neuron.reduce_mean %3 axes = [2, 3] : tensor<1x1152x2x2xf32> -> tensor<1x1152xf32>
  %5 = neuron.softmax %m axis = 1 : tensor<1024x16xf32>
  %6 = neuron.reduce_max %u axes = [1] : tensor<1153x4xf32> -> tensor<1153xf32>
  %7 = neuron.reduce_sum %w axes = [1] : tensor<512x63xf32> -> tensor<512xf32>
  %9 = neuron.reduce_sum %y axes = [1] : tensor<512x64xf32> -> tensor<512xf32>
  %8 = neuron.softmax %v axis = 1 : tensor<2048x200xf32>
  %10 = neuron.reduce_mean %h axes = [2, 3] : tensor<4x1024x3x3xbf16> -> tensor<4x1024xbf16>
  %mz = neuron.reduce_mean %z axes = [1] keepdims : tensor<512x16xf32> -> tensor<512x1xf32>
  %three = neuron.constant dense<3.000000e+00> : tensor<f32>
  %az = neuron.add %mz, %three : tensor<512x1xf32>, tensor<f32> -> tensor<512x1xf32>
  %11 = neuron.mul %az, %z : tensor<512x1xf32>, tensor<512x16xf32> -> tensor<512x16xf32>
  return %2, %3, %4, %5, %6, %7, %9, %8, %10, %11 : tensor<8x2048xf32>, tensor<1x1152x2x2xf32>, tensor<1x1152xf32>, tensor<1024x16xf32>, tensor<1153xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x200xf32>, tensor<4x1024xbf16>, tensor<512x16xf32>
}
