// A tensor-parallel program's all-reduce is one nisa.all_reduce kernel from
// the partial sums' HBM tensor into the result's; sharded arguments become
// inputs marked with their shard (the runtime hands each core its part).
// RUN: neuron-opt %s --neuron-lower -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: nisa.program @mlp target "trn1"
// CHECK-NEXT: nisa.hbm @in0 input 0 : tensor<4x64xf32>
// CHECK-NEXT: nisa.hbm @in1 input 1 shard [0, 4] : tensor<32x64xf32>
// CHECK-NEXT: nisa.hbm @in2 input 2 shard [1, 4] : tensor<64x32xf32>
// CHECK: nisa.kernel @{{.*}} "all_reduce" from "neuron.all_reduce"
// CHECK-NEXT: nisa.all_reduce q{{[0-9]+}} @[[SUM:tmp[0-9]+]][0, [1,256]] = @[[PART:tmp[0-9]+]][0, [1,256]] group 4
// CHECK-NEXT: }
// CHECK: nisa.kernel @{{.*}} "add" from "neuron.add"
func.func @mlp(%x: tensor<4x64xf32>, %w1: tensor<32x64xf32> {neuron.shard = array<i64: 0, 4>},
               %w2: tensor<64x32xf32> {neuron.shard = array<i64: 1, 4>}) -> tensor<4x64xf32>
    attributes {neuron.tp = 4 : i64} {
  %h = neuron.matmul %x, %w1 transpose_rhs : tensor<4x64xf32>, tensor<32x64xf32> -> tensor<4x32xf32>
  %p = neuron.matmul %h, %w2 transpose_rhs : tensor<4x32xf32>, tensor<64x32xf32> -> tensor<4x64xf32>
  %y = neuron.all_reduce %p group = 4 : tensor<4x64xf32>
  %r = neuron.add %x, %y : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// A returned sum is written straight into the output.
// CHECK-LABEL: nisa.program @returned
// CHECK: nisa.all_reduce q{{[0-9]+}} @out0[0, [1,512]] = @in0[0, [1,512]] group 2
func.func @returned(%p: tensor<2x256xbf16>) -> tensor<2x256xbf16> attributes {neuron.tp = 2 : i64} {
  %y = neuron.all_reduce %p group = 2 : tensor<2x256xbf16>
  return %y : tensor<2x256xbf16>
}

// -----

// A gathered result: each core's 2x32 part, interleaved per row (outer 2).
// CHECK-LABEL: nisa.program @gathered
// CHECK: nisa.kernel @{{.*}} "all_gather" from "neuron.all_gather"
// CHECK-NEXT: nisa.all_gather q{{[0-9]+}} @out0[0, [1,256]] = @{{tmp[0-9]+}}[0, [1,64]] group 4 outer 2
func.func @gathered(%x: tensor<2x64xf32>, %w: tensor<32x64xf32> {neuron.shard = array<i64: 0, 4>}) -> tensor<2x128xf32>
    attributes {neuron.tp = 4 : i64} {
  %h = neuron.matmul %x, %w transpose_rhs : tensor<2x64xf32>, tensor<32x64xf32> -> tensor<2x32xf32>
  %y = neuron.all_gather %h dim = 1 group = 4 : tensor<2x32xf32> -> tensor<2x128xf32>
  return %y : tensor<2x128xf32>
}

// -----

func.func @half(%p: tensor<2x256xf16>) -> tensor<2x256xf16> {
  // expected-error@+1 {{cannot lower 'neuron.all_reduce' of 'tensor<2x256xf16>': the collective engines sum f32 or bf16 (cast the partial sums first)}}
  %y = neuron.all_reduce %p group = 2 : tensor<2x256xf16>
  return %y : tensor<2x256xf16>
}

// -----

func.func @too_many(%p: tensor<256xf32>) -> tensor<256xf32> {
  // expected-error@+1 {{all_reduce over 64 cores, but a trn1 instance has 32 NeuronCores (2 per chip, 16 chips): compile with a smaller --tp}}
  %y = neuron.all_reduce %p group = 64 : tensor<256xf32>
  return %y : tensor<256xf32>
}


// -----

// An all-to-all from sequence-split to head-split: a part is 1x2x4x8 (the
// split dim over 4), read in runs from the split dim (64 elements) and
// written in runs from the concat dim (32).
// CHECK-LABEL: nisa.program @ulysses
// CHECK: nisa.kernel @{{.*}} "all_to_all" from "neuron.all_to_all"
// CHECK-NEXT: nisa.all_to_all q{{[0-9]+}} @out0[0, [1,256]] = @in0[0, [1,256]] group 4 split 64 concat 32
func.func @ulysses(%x: tensor<1x8x4x8xf32>) -> tensor<1x2x16x8xf32> attributes {neuron.tp = 4 : i64} {
  %y = neuron.all_to_all %x split = 1 concat = 2 group = 4 : tensor<1x8x4x8xf32> -> tensor<1x2x16x8xf32>
  return %y : tensor<1x2x16x8xf32>
}

// -----

// Pipeline stages: each passes its activation to the next; a ring wraps.
// CHECK-LABEL: nisa.program @stages
// CHECK: nisa.kernel @{{.*}} "send_recv" from "neuron.send_recv"
// CHECK-NEXT: nisa.send_recv q{{[0-9]+}} @{{tmp[0-9]+}}[0, [1,512]] = @in0[0, [1,512]] group 4 shift 1 cyclic 0
// CHECK: nisa.send_recv q{{[0-9]+}} @out0[0, [1,512]] = @{{tmp[0-9]+}}[0, [1,512]] group 4 shift -1 cyclic 1
func.func @stages(%x: tensor<4x128xbf16>) -> tensor<4x128xbf16> attributes {neuron.tp = 4 : i64} {
  %y = neuron.send_recv %x shift = 1 group = 4 : tensor<4x128xbf16>
  %z = neuron.send_recv %y shift = -1 group = 4 cyclic : tensor<4x128xbf16>
  return %z : tensor<4x128xbf16>
}
