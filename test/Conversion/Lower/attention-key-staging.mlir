// Untransposed keys are staged in SBUF row-major and transposed on TensorE.
// The staging tiles are a ring over all head groups, so that a group's K
// load does not wait for the previous group's transposes to free the one
// tile they read: four groups of 256 keys (one staging tile each) land in
// four different tiles, and the result agrees with the interpreter.
// RUN: neuronc --no-cache %s --emit=nisa -o - | FileCheck %s
// CHECK-DAG: nisa.alloc @stK0 sbuf 128x128xf32
// CHECK-DAG: nisa.alloc @stK1 sbuf 128x128xf32
// CHECK-DAG: nisa.alloc @stK2 sbuf 128x128xf32
// CHECK-DAG: nisa.alloc @stK3 sbuf 128x128xf32
// CHECK: nisa.dma_copy {{q[0-9]+}} @stK0[0:32, 0, [1,128]] = @in1[0,
// CHECK-NOT: = @in1[16384,
// CHECK: nisa.dma_copy {{q[0-9]+}} @stK1[0:32, 0, [1,128]] = @in1[16384,
// CHECK-NOT: = @in1[32768,
// CHECK: nisa.dma_copy {{q[0-9]+}} @stK2[0:32, 0, [1,128]] = @in1[32768,
// CHECK-NOT: = @in1[49152,
// CHECK: nisa.dma_copy {{q[0-9]+}} @stK3[0:32, 0, [1,128]] = @in1[49152,
// RUN: neuron-run %s --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @attn(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x256x64xf32>, %v: tensor<1x4x256x64xf32>) -> tensor<1x4x128x64xf32> {
  %o = neuron.attention %q, %k, %v scale = 0.125 : (tensor<1x4x128x64xf32>, tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32>) -> tensor<1x4x128x64xf32>
  return %o : tensor<1x4x128x64xf32>
}
