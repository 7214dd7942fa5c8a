// --auto-cast casts a matmul's [K, N] rhs to bf16: a weight argument (x @ W
// as TOSA and linalg write nn.Linear), or attention's V that a fused QKV
// projection's slice computes. The cast is not a kernel: each K tile of the
// rhs loads in f32 into a staging tile and is converted into the moving
// tile (GPT-2's V was cast by a kernel of its own per layer).
// - @weight: a 300 x 700 weight, 130 rows (K resident: every K tile of a
//   column tile converted once); @decode: one row, K streamed.
// - @reshaped: the cast reaches the matmul through a reshape.
// Each checked on the simulator against the interpreter, both targets.
//
// RUN: neuronc --no-cache %s --entry=weight --emit=nisa --lowering-remarks -o - 2>&1 | FileCheck %s --check-prefix=WEIGHT
// WEIGHT-NOT: cast kernel
// WEIGHT: nisa.kernel @k0 "matmul"
// WEIGHT-DAG: nisa.alloc @mov{{[0-9]+}} sbuf {{.*}}xbf16
// WEIGHT-DAG: nisa.alloc @stB{{[0-9]+}} sbuf {{.*}}xf32
// WEIGHT: nisa.tensor_copy {{.*}} @mov{{[0-9]+}}[{{.*}}] = @stB{{[0-9]+}}[
// RUN: neuronc --no-cache %s --entry=reshaped --emit=nisa --lowering-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=RESHAPED
// RESHAPED-NOT: cast kernel
// RESHAPED: lowered as one matmul kernel
// RUN: neuron-run %s --entry=weight --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=weight --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=decode --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=decode --check --fuse --random-inputs --target=trn2 | FileCheck %s --check-prefix=SIM
// RUN: neuron-run %s --entry=reshaped --check --fuse --random-inputs | FileCheck %s --check-prefix=SIM
// SIM-NOT: WRONG
// SIM: check: ok
func.func @weight(%x: tensor<130x300xbf16>, %w: tensor<300x700xf32>) -> tensor<130x700xf32> {
  %c = neuron.cast %w : tensor<300x700xf32> -> tensor<300x700xbf16>
  %y = neuron.matmul %x, %c : tensor<130x300xbf16>, tensor<300x700xbf16> -> tensor<130x700xf32>
  return %y : tensor<130x700xf32>
}
func.func @decode(%x: tensor<1x1536xbf16>, %w: tensor<1536x1000xf32>) -> tensor<1x1000xf32> {
  %c = neuron.cast %w : tensor<1536x1000xf32> -> tensor<1536x1000xbf16>
  %y = neuron.matmul %x, %c : tensor<1x1536xbf16>, tensor<1536x1000xbf16> -> tensor<1x1000xf32>
  return %y : tensor<1x1000xf32>
}
func.func @reshaped(%p: tensor<4x32x32xbf16>, %v: tensor<1x4x32x16xf32>) -> tensor<4x32x16xf32> {
  %c = neuron.cast %v : tensor<1x4x32x16xf32> -> tensor<1x4x32x16xbf16>
  %r = neuron.reshape %c : tensor<1x4x32x16xbf16> -> tensor<4x32x16xbf16>
  %y = neuron.matmul %p, %r : tensor<4x32x32xbf16>, tensor<4x32x16xbf16> -> tensor<4x32x16xf32>
  return %y : tensor<4x32x16xf32>
}
