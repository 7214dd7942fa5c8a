// RUN: neuron-opt %s --split-input-file --neuron-fuse-elementwise --neuron-fusion-remarks --verify-diagnostics | FileCheck %s
// RUN: neuron-opt %s --split-input-file --neuron-fuse-elementwise=sbuf-bytes=4096 --neuron-fusion-remarks 2>&1 | FileCheck %s --check-prefix=BUDGET

// A chain of elementwise ops becomes one kernel; the splat constant is
// copied into the body instead of being passed in.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[K:.*]] = neuron.kernel "elementwise"(%arg0, %arg1) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<128xf32>):
// CHECK-NEXT:   %[[C:.*]] = neuron.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:   %[[A:.*]] = neuron.add %[[X]], %[[B]]
// CHECK-NEXT:   %[[T:.*]] = neuron.tanh %[[A]]
// CHECK-NEXT:   %[[M:.*]] = neuron.mul %[[T]], %[[C]]
// CHECK-NEXT:   neuron.yield %[[M]] : tensor<64x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @chain(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %half = neuron.constant dense<0.5> : tensor<f32>
  %0 = neuron.add %x, %b : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
  %1 = neuron.tanh %0 : tensor<64x128xf32>
  // expected-remark @+1 {{fused kernel (elementwise) (absorbed 3 ops, saves 131076 bytes)}}
  %2 = neuron.mul %1, %half : tensor<64x128xf32>, tensor<f32> -> tensor<64x128xf32>
  return %2 : tensor<64x128xf32>
}
// BUDGET: remark: not fused kernel: adding the producer (neuron.tanh at {{.*}}) makes the working set 96.0 KiB per 128-row tile, over the SBUF budget of 4.0 KiB

// -----

// Matmul epilogue: bias and activation fuse into the matmul's kernel.
// CHECK-LABEL: func.func @epilogue
// CHECK: neuron.kernel "matmul-epilogue"(%arg0, %arg1, %arg2)
// CHECK: neuron.matmul
// CHECK: neuron.add
// CHECK: neuron.relu
// CHECK: neuron.yield
func.func @epilogue(%a: tensor<16x32xf32>, %w: tensor<32x64xf32>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %0 = neuron.matmul %a, %w : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = neuron.add %0, %bias : tensor<16x64xf32>, tensor<64xf32> -> tensor<16x64xf32>
  // expected-remark @+1 {{fused kernel (matmul-epilogue) (absorbed 3 ops}}
  %2 = neuron.relu %1 : tensor<16x64xf32>
  return %2 : tensor<16x64xf32>
}

// -----

// A producer used outside, before the kernel, stays outside, with the reason.
// CHECK-LABEL: func.func @shared_producer
// CHECK: %[[E:.*]] = neuron.exp %arg0
// CHECK: neuron.transpose %[[E]]
// CHECK: neuron.kernel "elementwise"(%[[E]])
func.func @shared_producer(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  // expected-remark-re @+1 {{not fused kernel: the producer (neuron.exp at {{.*}}) has 1 user(s) outside the kernel, one of them before the kernel}}
  %e = neuron.exp %x : tensor<8x8xf32>
  %u = neuron.transpose %e perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %t = neuron.tanh %e : tensor<8x8xf32>
  // expected-remark @+1 {{fused kernel (elementwise) (absorbed 2 ops}}
  %s = neuron.sigmoid %t : tensor<8x8xf32>
  return %s, %u : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Used only after the kernel, the producer joins as an extra result: the
// kernel writes it once instead of it being written and read back.
// CHECK-LABEL: func.func @extra_result
// CHECK: %[[K:.*]]:2 = neuron.kernel "elementwise"(%arg0)
// CHECK: neuron.yield %{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @extra_result(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = neuron.exp %x : tensor<8x8xf32>
  %t = neuron.tanh %e : tensor<8x8xf32>
  // expected-remark @+1 {{fused kernel (elementwise) (absorbed 3 ops, saves 768 bytes)}}
  %s = neuron.sigmoid %t : tensor<8x8xf32>
  return %s, %e : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Input fusion: the elementwise producer of a reduction joins its kernel.
// CHECK-LABEL: func.func @reduction
// CHECK: neuron.kernel "reduction"(%arg0)
// CHECK: neuron.exp
// CHECK: neuron.reduce_sum
func.func @reduction(%x: tensor<8x64xf32>) -> tensor<8x1xf32> {
  %e = neuron.exp %x : tensor<8x64xf32>
  // expected-remark @+1 {{fused kernel (reduction) (absorbed 2 ops}}
  %s = neuron.reduce_sum %e axes = [1] keepdims : tensor<8x64xf32> -> tensor<8x1xf32>
  return %s : tensor<8x1xf32>
}

// -----

// A reduction that keeps the innermost dim (the mean over heads of
// nn.MultiheadAttention's weights) stays a kernel of its own: across
// partitions it reads whole rows, in a row kernel one element per DMA run.
// Its consumer and its producer each run as their own kernel.
// CHECK-LABEL: func.func @reduce_over_rows
// CHECK-NOT: neuron.kernel
// CHECK: neuron.reduce_sum
// CHECK-NOT: neuron.kernel
func.func @reduce_over_rows(%x: tensor<2x8x64x64xf32>) -> tensor<2x64x64xf32> {
  %e = neuron.exp %x : tensor<2x8x64x64xf32>
  // expected-remark @+1 {{not fused kernel: the reduction (neuron.reduce_sum at}}
  %s = neuron.reduce_sum %e axes = [1] : tensor<2x8x64x64xf32> -> tensor<2x64x64xf32>
  %c = neuron.constant dense<8.0> : tensor<f32>
  %d = neuron.div %s, %c : tensor<2x64x64xf32>, tensor<f32> -> tensor<2x64x64xf32>
  return %d : tensor<2x64x64xf32>
}

// -----

// Reshapes move nothing: a kernel of them would save nothing.
// CHECK-LABEL: func.func @nothing_saved
// CHECK-NOT: neuron.kernel
func.func @nothing_saved(%x: tensor<8x8xf32>) -> tensor<1x8x8xf32> {
  %0 = neuron.reshape %x : tensor<8x8xf32> -> tensor<8x1x8xf32>
  // expected-remark @+1 {{not fused kernel: fusing 2 ops saves no HBM traffic (-512 bytes)}}
  %1 = neuron.reshape %0 : tensor<8x1x8xf32> -> tensor<1x8x8xf32>
  return %1 : tensor<1x8x8xf32>
}

// -----

// A reshape that merges or splits dims (attention's head split) is a view
// outside any kernel, never a member (a row kernel cannot run it): the
// projection's kernel takes the cast, the reshape views its result.
// CHECK-LABEL: func.func @regrouping_reshape
// CHECK: %[[K:.*]] = neuron.kernel "matmul-epilogue"
// CHECK: neuron.cast
// CHECK: neuron.yield
// CHECK: neuron.reshape %[[K]] : tensor<16x64xbf16> -> tensor<16x2x32xbf16>
func.func @regrouping_reshape(%x: tensor<16x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<16x2x32xbf16> {
  %m = neuron.matmul %x, %w : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
  %c = neuron.cast %m : tensor<16x64xf32> -> tensor<16x64xbf16>
  %r = neuron.reshape %c : tensor<16x64xbf16> -> tensor<16x2x32xbf16>
  // expected-remark @-2 {{fused kernel (matmul-epilogue)}}
  return %r : tensor<16x2x32xbf16>
}

// -----

// The residual add and the rmsnorm after it: one kernel with both results,
// since the sum feeds the next residual too; the cast --auto-cast puts
// before the next matmul joins it, so the norm is stored once, in bf16.
// CHECK-LABEL: func.func @residual_rmsnorm
// CHECK: %[[K:.*]]:2 = neuron.kernel "residual-rmsnorm"(%arg0, %arg1, %arg2) : {{.*}} -> (tensor<128x64xf32>, tensor<128x64xbf16>)
// CHECK: %[[H:.*]] = neuron.add
// CHECK: %[[N:.*]] = neuron.rmsnorm %[[H]]
// CHECK: %[[C:.*]] = neuron.cast %[[N]]
// CHECK: neuron.yield %[[H]], %[[C]]
// CHECK: neuron.kernel "matmul-epilogue"(%[[K]]#1, %arg3, %[[K]]#0)
func.func @residual_rmsnorm(%x: tensor<128x64xf32>, %r: tensor<128x64xf32>, %w: tensor<64xf32>, %wm: tensor<64x64xbf16>) -> tensor<128x64xf32> {
  %h = neuron.add %x, %r : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x64xf32>
  %n = neuron.rmsnorm %h weight %w axes = [1] epsilon = 1.0e-06 : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  // expected-remark @+1 {{fused kernel (residual-rmsnorm) (absorbed 3 ops, saves 98304 bytes)}}
  %c = neuron.cast %n : tensor<128x64xf32> -> tensor<128x64xbf16>
  %m = neuron.matmul %c, %wm : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  // expected-remark @+1 {{fused kernel (matmul-epilogue)}}
  %o = neuron.add %h, %m : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}

// -----

// One row (a decode step): the cast stays out, for the matmuls to convert
// while they load (K over the partitions) instead of one partition
// converting all 4096 columns.
// CHECK-LABEL: func.func @residual_rmsnorm_one_row
// CHECK: %[[K:.*]]:2 = neuron.kernel "residual-rmsnorm"(%arg0, %arg1, %arg2) : {{.*}} -> (tensor<1x4096xf32>, tensor<1x4096xf32>)
// CHECK: %[[C:.*]] = neuron.cast %[[K]]#1 : tensor<1x4096xf32> -> tensor<1x4096xbf16>
// CHECK: neuron.matmul %[[C]], %arg3
// CHECK: neuron.matmul %[[C]], %arg4
func.func @residual_rmsnorm_one_row(%x: tensor<1x4096xf32>, %r: tensor<1x4096xf32>, %w: tensor<4096xf32>, %wq: tensor<4096x1024xbf16>, %wk: tensor<4096x1024xbf16>) -> (tensor<1x4096xf32>, tensor<1x1024xf32>, tensor<1x1024xf32>) {
  %h = neuron.add %x, %r : tensor<1x4096xf32>, tensor<1x4096xf32> -> tensor<1x4096xf32>
  // expected-remark @+1 {{fused kernel (residual-rmsnorm) (absorbed 2 ops}}
  %n = neuron.rmsnorm %h weight %w axes = [1] epsilon = 1.0e-06 : (tensor<1x4096xf32>, tensor<4096xf32>) -> tensor<1x4096xf32>
  // expected-remark-re @+1 {{not fused kernel: the cast (neuron.cast at {{.*}}) stays out of the norm's kernel: converting its few rows there costs more than the bytes it saves{{.*}}}}
  %c = neuron.cast %n : tensor<1x4096xf32> -> tensor<1x4096xbf16>
  %q = neuron.matmul %c, %wq : tensor<1x4096xbf16>, tensor<4096x1024xbf16> -> tensor<1x1024xf32>
  %k = neuron.matmul %c, %wk : tensor<1x4096xbf16>, tensor<4096x1024xbf16> -> tensor<1x1024xf32>
  return %h, %q, %k : tensor<1x4096xf32>, tensor<1x1024xf32>, tensor<1x1024xf32>
}

// -----

// An elementwise chain after the norm joins its kernel; the chain stops
// where the sum has a user before the chain's end (the kernel is placed at
// the chain's last op).
// CHECK-LABEL: func.func @residual_rmsnorm_chain
// CHECK: %[[K:.*]] = neuron.kernel "residual-rmsnorm"(%arg0, %arg1, %arg2) : {{.*}} -> tensor<4x64xf32>
// CHECK: %[[H:.*]] = neuron.add
// CHECK: %[[N:.*]] = neuron.rmsnorm %[[H]]
// CHECK: %[[O:.*]] = neuron.add %[[H]], %[[N]]
// CHECK: neuron.yield %[[O]]
// CHECK-LABEL: func.func @residual_rmsnorm_used_between
// CHECK: %[[K:.*]]:2 = neuron.kernel "residual-rmsnorm"
// CHECK: neuron.yield
// CHECK: %[[E:.*]] = neuron.exp %[[K]]#0
func.func @residual_rmsnorm_chain(%x: tensor<4x64xf32>, %r: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  %h = neuron.add %x, %r : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  %n = neuron.rmsnorm %h weight %w axes = [1] epsilon = 1.0e-06 : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  // expected-remark @+1 {{fused kernel (residual-rmsnorm) (absorbed 3 ops, saves 5120 bytes)}}
  %o = neuron.add %h, %n : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  return %o : tensor<4x64xf32>
}
func.func @residual_rmsnorm_used_between(%x: tensor<4x64xf32>, %r: tensor<4x64xf32>, %w: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %h = neuron.add %x, %r : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  // expected-remark @+1 {{fused kernel (residual-rmsnorm)}}
  %n = neuron.rmsnorm %h weight %w axes = [1] epsilon = 1.0e-06 : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %e = neuron.exp %h : tensor<4x64xf32>
  %s = neuron.sqrt %n : tensor<4x64xf32>
  return %e, %s : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// SwiGLU: silu(x @ Wg) * (x @ Wu). One matmul becomes the kernel's hero (the
// up projection, the first operand reached); the other would be a second
// hero and stays outside, with the reason.
// CHECK-LABEL: func.func @swiglu
// CHECK: %[[GATE:.*]] = neuron.matmul %arg0, %arg1
// CHECK: neuron.kernel "matmul-swiglu"(%[[GATE]], %arg0, %arg2)
// CHECK: neuron.silu
// CHECK: neuron.matmul
// CHECK: neuron.mul
func.func @swiglu(%x: tensor<4x64xf32>, %wg: tensor<64x128xf32>, %wu: tensor<64x128xf32>) -> tensor<4x128xf32> {
  // expected-remark-re @+1 {{not fused kernel: the producer (neuron.matmul at {{.*}}) would be a second hero next to neuron.matmul}}
  %g = neuron.matmul %x, %wg : tensor<4x64xf32>, tensor<64x128xf32> -> tensor<4x128xf32>
  %s = neuron.silu %g : tensor<4x128xf32>
  %u = neuron.matmul %x, %wu : tensor<4x64xf32>, tensor<64x128xf32> -> tensor<4x128xf32>
  // expected-remark @+1 {{fused kernel (matmul-swiglu) (absorbed 3 ops}}
  %y = neuron.mul %s, %u : tensor<4x128xf32>, tensor<4x128xf32> -> tensor<4x128xf32>
  return %y : tensor<4x128xf32>
}

// -----

// An FFN's up projection with its SwiGLU product and the bf16 cast of the
// down projection's input: the matmul's operands are tiled by its own
// lowering and its epilogue runs on one PSUM bank of columns at a time, so
// the working set is 512 columns of the four [128, 14336] values (1 MiB),
// not whole rows (28 MiB, over the 24 MiB budget: this used to stay three
// kernels) and not the weight's rows.
// CHECK-LABEL: func.func @swiglu_wide
// CHECK: neuron.kernel "matmul-swiglu"
// CHECK-NOT: neuron.kernel
// BUDGET-LABEL: @swiglu_wide
func.func @swiglu_wide(%x: tensor<128x4096xbf16>, %w: tensor<4096x14336xbf16>, %g: tensor<128x14336xf32>) -> tensor<128x14336xbf16> {
  %u = neuron.matmul %x, %w : tensor<128x4096xbf16>, tensor<4096x14336xbf16> -> tensor<128x14336xf32>
  %s = neuron.silu %g : tensor<128x14336xf32>
  %m = neuron.mul %s, %u : tensor<128x14336xf32>, tensor<128x14336xf32> -> tensor<128x14336xf32>
  // expected-remark @+1 {{fused kernel (matmul-swiglu)}}
  %c = neuron.cast %m : tensor<128x14336xf32> -> tensor<128x14336xbf16>
  return %c : tensor<128x14336xbf16>
}

// -----

// An LSTM step's h: the output keeps it in f32 and the next step's matmul
// reads it cast to bf16. The cast stays out of h's kernel (as an extra
// result it would be one more store on the recurrence's critical path): the
// matmul converts it on chip.
// CHECK-LABEL: func.func @cast_left_to_matmul
// CHECK: %[[H:.*]] = neuron.kernel "elementwise"
// CHECK-NOT: neuron.cast
// CHECK: neuron.yield
// CHECK: %[[C:.*]] = neuron.cast %[[H]]
// CHECK: neuron.matmul %[[C]], %arg2
func.func @cast_left_to_matmul(%o: tensor<1x32xf32>, %c: tensor<1x32xf32>, %r: tensor<32x128xbf16>) -> (tensor<1x32xf32>, tensor<1x128xf32>) {
  %t = neuron.tanh %c : tensor<1x32xf32>
  // expected-remark @+1 {{fused kernel (elementwise) (absorbed 2 ops, saves 256 bytes)}}
  %h = neuron.mul %o, %t : tensor<1x32xf32>, tensor<1x32xf32> -> tensor<1x32xf32>
  // expected-remark-re @+1 {{not fused kernel: the cast (neuron.cast at {{.*}}) is converted on chip by the matmuls or convolutions reading it; in its producer's kernel it would be one more result to store}}
  %hc = neuron.cast %h : tensor<1x32xf32> -> tensor<1x32xbf16>
  %g = neuron.matmul %hc, %r : tensor<1x32xbf16>, tensor<32x128xbf16> -> tensor<1x128xf32>
  return %h, %g : tensor<1x32xf32>, tensor<1x128xf32>
}
