// RUN: neuron-opt %s --split-input-file --neuron-order-matmul-rows --neuron-fusion-remarks --verify-diagnostics | FileCheck %s
// On the simulator, against the interpreter, with every fusion rule (the
// transposes fold into the kernels' DMAs, the attention reads the
// projection's tiles in place), f32 and bf16, both targets; 96 rows per
// batch straddle the 128-partition tiles.
// RUN: neuron-run %s --entry seq_first --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry seq_first --check --fuse --random-inputs --auto-cast=matmult --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry seq_first_96 --check --fuse --random-inputs --auto-cast=matmult | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry batch_first --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok

// nn.MultiheadAttention's sequence-first in-projection ([L, B, E] rows
// interleave the batches) with its bias: the rows run batch-major, the
// bias add with them, and the transpose back feeds the slices.
// CHECK-LABEL: func.func @seq_first
// CHECK:      %[[X:.*]] = neuron.transpose %arg0 perm = [1, 0, 2] : tensor<128x2x64xf32> -> tensor<2x128x64xf32>
// CHECK-NEXT: %[[M:.*]] = neuron.matmul %[[X]], %arg1 : tensor<2x128x64xf32>, tensor<64x192xf32> -> tensor<2x128x192xf32>
// CHECK-NEXT: %[[B:.*]] = neuron.add %[[M]], %arg2 : tensor<2x128x192xf32>, tensor<192xf32> -> tensor<2x128x192xf32>
// CHECK-NEXT: %[[T:.*]] = neuron.transpose %[[B]] perm = [1, 0, 2] : tensor<2x128x192xf32> -> tensor<128x2x192xf32>
// CHECK-NEXT: neuron.slice %[[T]]
func.func @seq_first(%x: tensor<128x2x64xf32>, %w: tensor<64x192xf32>, %b: tensor<192xf32>) -> tensor<8x128x16xf32> {
  // expected-remark @+1 {{fused matmul-row-order}}
  %m = neuron.matmul %x, %w : tensor<128x2x64xf32>, tensor<64x192xf32> -> tensor<128x2x192xf32>
  %a = neuron.add %m, %b : tensor<128x2x192xf32>, tensor<192xf32> -> tensor<128x2x192xf32>
  %q = neuron.slice %a offsets = [0, 0, 0] sizes = [128, 2, 64] strides = [1, 1, 1] : tensor<128x2x192xf32> -> tensor<128x2x64xf32>
  %k = neuron.slice %a offsets = [0, 0, 64] sizes = [128, 2, 64] strides = [1, 1, 1] : tensor<128x2x192xf32> -> tensor<128x2x64xf32>
  %v = neuron.slice %a offsets = [0, 0, 128] sizes = [128, 2, 64] strides = [1, 1, 1] : tensor<128x2x192xf32> -> tensor<128x2x64xf32>
  %qr = neuron.reshape %q : tensor<128x2x64xf32> -> tensor<128x8x16xf32>
  %kr = neuron.reshape %k : tensor<128x2x64xf32> -> tensor<128x8x16xf32>
  %vr = neuron.reshape %v : tensor<128x2x64xf32> -> tensor<128x8x16xf32>
  %qt = neuron.transpose %qr perm = [1, 0, 2] : tensor<128x8x16xf32> -> tensor<8x128x16xf32>
  %kt = neuron.transpose %kr perm = [1, 0, 2] : tensor<128x8x16xf32> -> tensor<8x128x16xf32>
  %vt = neuron.transpose %vr perm = [1, 0, 2] : tensor<128x8x16xf32> -> tensor<8x128x16xf32>
  %o = neuron.attention %qt, %kt, %vt scale = 0.25 : (tensor<8x128x16xf32>, tensor<8x128x16xf32>, tensor<8x128x16xf32>) -> tensor<8x128x16xf32>
  return %o : tensor<8x128x16xf32>
}

// -----

// The same at 96 rows per batch and three batches (no tile boundary
// matches a batch's).
// CHECK-LABEL: func.func @seq_first_96
// CHECK: neuron.matmul {{.*}} : tensor<3x96x64xf32>, tensor<64x192xf32> -> tensor<3x96x192xf32>
func.func @seq_first_96(%x: tensor<96x3x64xf32>, %w: tensor<64x192xf32>) -> tensor<12x96x16xf32> {
  // expected-remark @+1 {{fused matmul-row-order}}
  %m = neuron.matmul %x, %w : tensor<96x3x64xf32>, tensor<64x192xf32> -> tensor<96x3x192xf32>
  %q = neuron.slice %m offsets = [0, 0, 0] sizes = [96, 3, 64] strides = [1, 1, 1] : tensor<96x3x192xf32> -> tensor<96x3x64xf32>
  %k = neuron.slice %m offsets = [0, 0, 64] sizes = [96, 3, 64] strides = [1, 1, 1] : tensor<96x3x192xf32> -> tensor<96x3x64xf32>
  %v = neuron.slice %m offsets = [0, 0, 128] sizes = [96, 3, 64] strides = [1, 1, 1] : tensor<96x3x192xf32> -> tensor<96x3x64xf32>
  %qr = neuron.reshape %q : tensor<96x3x64xf32> -> tensor<96x12x16xf32>
  %kr = neuron.reshape %k : tensor<96x3x64xf32> -> tensor<96x12x16xf32>
  %vr = neuron.reshape %v : tensor<96x3x64xf32> -> tensor<96x12x16xf32>
  %qt = neuron.transpose %qr perm = [1, 0, 2] : tensor<96x12x16xf32> -> tensor<12x96x16xf32>
  %kt = neuron.transpose %kr perm = [1, 0, 2] : tensor<96x12x16xf32> -> tensor<12x96x16xf32>
  %vt = neuron.transpose %vr perm = [1, 0, 2] : tensor<96x12x16xf32> -> tensor<12x96x16xf32>
  %o = neuron.attention %qt, %kt, %vt scale = 0.25 : (tensor<12x96x16xf32>, tensor<12x96x16xf32>, tensor<12x96x16xf32>) -> tensor<12x96x16xf32>
  return %o : tensor<12x96x16xf32>
}

// -----

// batch_first=True exports a transpose to sequence-first before the
// projection: the new transpose folds with it, and the projection reads
// the input as it is.
// CHECK-LABEL: func.func @batch_first
// CHECK-NOT:  neuron.transpose %arg0
// CHECK:      neuron.matmul %arg0, %arg1 : tensor<2x128x64xf32>, tensor<64x128xf32> -> tensor<2x128x128xf32>
func.func @batch_first(%x: tensor<2x128x64xf32>, %w: tensor<64x128xf32>) -> tensor<8x128x16xf32> {
  %xt = neuron.transpose %x perm = [1, 0, 2] : tensor<2x128x64xf32> -> tensor<128x2x64xf32>
  // expected-remark @+1 {{fused matmul-row-order}}
  %m = neuron.matmul %xt, %w : tensor<128x2x64xf32>, tensor<64x128xf32> -> tensor<128x2x128xf32>
  %k = neuron.slice %m offsets = [0, 0, 0] sizes = [128, 2, 64] strides = [1, 1, 1] : tensor<128x2x128xf32> -> tensor<128x2x64xf32>
  %v = neuron.slice %m offsets = [0, 0, 64] sizes = [128, 2, 64] strides = [1, 1, 1] : tensor<128x2x128xf32> -> tensor<128x2x64xf32>
  %kr = neuron.reshape %k : tensor<128x2x64xf32> -> tensor<128x8x16xf32>
  %vr = neuron.reshape %v : tensor<128x2x64xf32> -> tensor<128x8x16xf32>
  %kt = neuron.transpose %kr perm = [1, 0, 2] : tensor<128x8x16xf32> -> tensor<8x128x16xf32>
  %vt = neuron.transpose %vr perm = [1, 0, 2] : tensor<128x8x16xf32> -> tensor<8x128x16xf32>
  %o = neuron.attention %kt, %kt, %vt scale = 0.25 : (tensor<8x128x16xf32>, tensor<8x128x16xf32>, tensor<8x128x16xf32>) -> tensor<8x128x16xf32>
  return %o : tensor<8x128x16xf32>
}

// -----

// Left alone: rows already batch-major (nothing recorded), and a result
// that is also returned (its reader is not an attention: the reason).
// CHECK-LABEL: func.func @left_alone
// CHECK: neuron.matmul %arg0, %arg1 : tensor<2x128x64xf32>, tensor<64x64xf32> -> tensor<2x128x64xf32>
// CHECK: neuron.matmul %arg2, %arg1 : tensor<128x2x64xf32>, tensor<64x64xf32> -> tensor<128x2x64xf32>
func.func @left_alone(%x: tensor<2x128x64xf32>, %w: tensor<64x64xf32>, %y: tensor<128x2x64xf32>) -> (tensor<8x128x16xf32>, tensor<128x2x64xf32>) {
  %m = neuron.matmul %x, %w : tensor<2x128x64xf32>, tensor<64x64xf32> -> tensor<2x128x64xf32>
  %r = neuron.reshape %m : tensor<2x128x64xf32> -> tensor<2x128x4x16xf32>
  %t = neuron.transpose %r perm = [0, 2, 1, 3] : tensor<2x128x4x16xf32> -> tensor<2x4x128x16xf32>
  %h = neuron.reshape %t : tensor<2x4x128x16xf32> -> tensor<8x128x16xf32>
  // expected-remark @+1 {{not fused matmul-row-order: the reader (func.return}}
  %n = neuron.matmul %y, %w : tensor<128x2x64xf32>, tensor<64x64xf32> -> tensor<128x2x64xf32>
  %nr = neuron.reshape %n : tensor<128x2x64xf32> -> tensor<128x8x16xf32>
  %nt = neuron.transpose %nr perm = [1, 0, 2] : tensor<128x8x16xf32> -> tensor<8x128x16xf32>
  %o = neuron.attention %h, %nt, %nt scale = 0.25 : (tensor<8x128x16xf32>, tensor<8x128x16xf32>, tensor<8x128x16xf32>) -> tensor<8x128x16xf32>
  return %o, %n : tensor<8x128x16xf32>, tensor<128x2x64xf32>
}
