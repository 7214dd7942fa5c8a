// RUN: neuron-opt %s --neuron-cost-report --split-input-file --verify-diagnostics
// RUN: neuron-opt %s --neuron-cost-report=totals-only --split-input-file 2>&1 | FileCheck %s --check-prefix=TOTALS

// Each op states its own cost; the function gets the totals.
// expected-remark @+1 {{total cost: flops=1536 transcendentals=8 read=8256B written=4160B intensity=0.1237 flop/B}}
func.func @naive_rmsnorm(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark @+1 {{cost: flops=512 transcendentals=0 read=4096B written=2048B intensity=0.08333 flop/B}}
  %sq = neuron.mul %x, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  // expected-remark @+1 {{cost: flops=512 transcendentals=0 read=2048B written=32B intensity=0.2462 flop/B}}
  %ms = neuron.reduce_mean %sq axes = [1] keepdims : tensor<8x64xf32> -> tensor<8x1xf32>
  // expected-remark @+1 {{cost: flops=0 transcendentals=8 read=32B written=32B intensity=0 flop/B}}
  %r = neuron.rsqrt %ms : tensor<8x1xf32>
  // expected-remark @+1 {{cost: flops=512 transcendentals=0 read=2080B written=2048B intensity=0.124 flop/B}}
  %y = neuron.mul %x, %r : tensor<8x64xf32>, tensor<8x1xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// The fused kernel moves a third of the bytes for the same work.
// expected-remark @+1 {{total cost: flops=2048 transcendentals=8 read=2048B written=2048B intensity=0.5 flop/B}}
func.func @fused_rmsnorm(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark @+1 {{cost: flops=2048 transcendentals=8 read=2048B written=2048B intensity=0.5 flop/B}}
  %y = neuron.rmsnorm %x axes = [1] epsilon = 0.0 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// expected-remark @+1 {{total cost: flops=0 transcendentals=0 read=0B written=0B intensity=0 flop/B (1 op(s) with dynamic shapes not counted)}}
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-remark @+1 {{cost: unknown (dynamic shape)}}
  %y = neuron.relu %x : tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// TOTALS: remark: total cost: flops=1536
// TOTALS-NOT: remark: cost:
// TOTALS: remark: total cost: flops=2048

// -----

// With a target, each op also gets its static roofline from the hardware table.
// RUN: neuron-opt %s --split-input-file --neuron-cost-report=target=trn1 2>&1 | FileCheck %s --check-prefix=TRN1
// RUN: not neuron-opt %s --split-input-file --neuron-cost-report=target=trn9 2>&1 | FileCheck %s --check-prefix=BADTARGET
// TRN1: remark: cost: flops=34359738368 {{.*}} | trn1: 374 us, compute-bound (TensorE)
// The DMA engines (16 x 17 B/ns) bound HBM traffic at 272 GB/s on trn1.
// TRN1: remark: cost: flops=67108864 {{.*}} | trn1: 493 us, memory-bound (HBM)
// BADTARGET: error: unknown target 'trn9'; known targets: trn1, trn2
// expected-remark @+1 {{total cost}}
func.func @roofline(%a: tensor<2048x2048xbf16>, %b: tensor<2048x4096xbf16>, %x: tensor<4096x4096xf32>) -> (tensor<2048x4096xbf16>, tensor<4096x4096xf32>) {
  // expected-remark @+1 {{cost}}
  %0 = neuron.matmul %a, %b : tensor<2048x2048xbf16>, tensor<2048x4096xbf16> -> tensor<2048x4096xbf16>
  // expected-remark @+1 {{cost}}
  %1 = neuron.rmsnorm %x axes = [1] epsilon = 1.0e-06 : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0, %1 : tensor<2048x4096xbf16>, tensor<4096x4096xf32>
}
