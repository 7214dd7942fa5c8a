// neuron-inspect shows what an executable holds and what bounds each kernel,
// without running it.
// RUN: neuronc %s -o %t.neff
// RUN: neuron-inspect %t.neff | FileCheck %s
// RUN: neuron-inspect %t.neff --disassemble | FileCheck %s --check-prefix=DIS
// RUN: neuron-inspect %t.neff --json > %t.json
// RUN: %python %S/Inputs/check_json.py %t.json | FileCheck %s --check-prefix=JSON

// CHECK: executable: format 1.2, target trn1 (NeuronCore-v2), neuronc {{[0-9.]+}}
// CHECK: sections (
// CHECK: meta
// CHECK: p0.scalar
// CHECK: p0.dma
// CHECK: p0.debug
// CHECK: p0.cost
// CHECK: entry points (2):
// CHECK-NEXT: @norm: 1 bucket(s)
// CHECK-NEXT: program 0 (norm) static shapes
// CHECK: @project: 1 bucket(s)
// CHECK: program @norm on trn1: 2 input(s), 1 output(s), scratch 0 B
// CHECK-NEXT: in0 input tensor<4096x4096xf32> 64.0 MiB
// CHECK: instructions: tensor 0, scalar {{[0-9]+}}, vector {{[0-9]+}}, gpsimd {{[0-9]+}}, dma {{[0-9]+}} on 16 queue(s)
// The normalization moves 128 MiB for almost no arithmetic. (Each row tile
// is loaded over all 16 queues, so the first instruction on it waits for 16.)
// CHECK: k0 rmsnorm neuron.rmsnorm {{.*}} 130.0 MiB {{.*}} memory-bound (HBM)
// CHECK: program @project on trn1
// A 2048x4096x2048 bf16 matmul is far right of the ridge point.
// CHECK: k0 matmul neuron.matmul {{.*}} 34359.74 {{.*}} compute-bound (TensorE)
// A tiny kernel is bound by the fixed DMA latency.
// CHECK: k1 exp neuron.exp {{.*}} latency-bound (too small to fill the machine)

// DIS: == program @norm, stream scalar
// DIS: activation square sbuf[0:128]+{{[0-9]+}}{{\[\[}}1,4096]] f32, sbuf[0:128]+{{[0-9]+}}{{\[\[}}1,4096]] f32, sbuf[0:128]+{{[0-9]+}}{{\[\[}}1,1]] f32 scale 1.000000e+00 bias 0.000000e+00 wait(q0 >= 1, {{.*}}, q15 >= 1) ; k0 neuron.rmsnorm {{.*}}inspect.mlir:{{[0-9]+}}:8
// DIS: == program @norm, stream q0
// DIS: dma_copy sbuf[0:8]+{{[0-9]+}}{{\[\[}}1,4096]] f32, @in0[0, [4096,8], [1,4096]] f32
// DIS: == program @project, stream tensor
// DIS: load_stationary sbuf[0:128]+{{[0-9]+}}{{\[\[}}1,128]] bf16 ; k0 neuron.matmul
// DIS-NEXT: multiply_moving psum[0:128]+{{[0-9]+}}{{\[\[}}1,512]] f32, sbuf[0:128]+{{[0-9]+}}{{\[\[}}1,512]] bf16 start

// JSON: format 1.2 target trn1 programs 2
// JSON: norm rmsnorm memory-bound (HBM)
// JSON: project matmul compute-bound (TensorE) intensity 512.0
func.func @norm(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06 : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

func.func @project(%a: tensor<2048x4096xbf16>, %b: tensor<4096x2048xbf16>, %c: tensor<4x4xf32>) -> (tensor<2048x2048xf32>, tensor<4x4xf32>) {
  %0 = neuron.matmul %a, %b : tensor<2048x4096xbf16>, tensor<4096x2048xbf16> -> tensor<2048x2048xf32>
  %1 = neuron.exp %c : tensor<4x4xf32>
  return %0, %1 : tensor<2048x2048xf32>, tensor<4x4xf32>
}
