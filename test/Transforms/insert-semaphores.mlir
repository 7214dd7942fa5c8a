// Semaphores for exactly the cross-stream dependencies, none implied by
// another.
// RUN: neuron-opt %s --nisa-insert-semaphores | FileCheck %s
// RUN: neuron-opt %s --nisa-insert-semaphores --nisa-check-races | FileCheck %s

// CHECK-LABEL: nisa.program @chain
nisa.program @chain target "trn1" {
  nisa.hbm @x input 0 : tensor<128x64xf32>
  nisa.hbm @y output 0 : tensor<128x64xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 128x64xf32 offset = 0
    nisa.alloc @b sbuf 128x64xf32 offset = 256
    nisa.alloc @c sbuf 128x64xf32 offset = 512
    // The load is waited for, so it signals.
    // CHECK: nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] signal
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    // CHECK-NEXT: nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]] wait(q0 >= 1) signal
    nisa.activation exp @b[0:128, 0, [1,64]] = @a[0:128, 0, [1,64]]
    // Reads a (from q0) and b (from ScalarE): ScalarE already waited for q0,
    // so waiting for ScalarE is enough.
    // CHECK-NEXT: nisa.tensor_tensor vector add @c[0:128, 0, [1,64]] = @b[0:128, 0, [1,64]], @a[0:128, 0, [1,64]] wait(scalar >= 1) signal
    nisa.tensor_tensor vector add @c[0:128, 0, [1,64]] = @b[0:128, 0, [1,64]], @a[0:128, 0, [1,64]]
    // CHECK-NEXT: nisa.dma_copy q1 @y[0, [64,128], [1,64]] = @c[0:128, 0, [1,64]] wait(vector >= 1) signal
    nisa.dma_copy q1 @y[0, [64,128], [1,64]] = @c[0:128, 0, [1,64]]
    // Overwriting a must wait until both its readers are done; VectorE read
    // it last and knew ScalarE's read had finished: one wait. Same-stream
    // order covers the earlier write on q0.
    // CHECK-NEXT: nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]] wait(vector >= 1){{$}}
    nisa.dma_copy q0 @a[0:128, 0, [1,64]] = @x[0, [64,128], [1,64]]
    // Overwriting half of c waits for the store reading it, which itself
    // waited for VectorE's write of c.
    // CHECK-NEXT: nisa.memset gpsimd @c[0:128, 32, [1,32]] = 0.000000e+00 wait(q1 >= 1){{$}}
    nisa.memset gpsimd @c[0:128, 32, [1,32]] = 0.0
    // Overwriting b: its writer (ScalarE) and reader (VectorE) are known
    // finished through that same wait.
    // CHECK-NEXT: nisa.memset gpsimd @b[0:128, 0, [1,16]] = 1.000000e+00{{$}}
    nisa.memset gpsimd @b[0:128, 0, [1,16]] = 1.0
  }
}

// Writes to different bytes of one HBM tensor from two queues do not
// depend on each other; exact runs, not bounding ranges, decide.
// CHECK-LABEL: nisa.program @columns
nisa.program @columns target "trn1" {
  nisa.hbm @y output 0 : tensor<4x8xf32>
  nisa.kernel @k0 "demo" from "test" {
    nisa.alloc @a sbuf 4x4xf32 offset = 0
    // CHECK: nisa.memset vector @a[0:4, 0, [1,4]] = 2.000000e+00 signal
    nisa.memset vector @a[0:4, 0, [1,4]] = 2.0
    // CHECK-NEXT: nisa.dma_copy q0 @y[0, [8,4], [1,4]] = @a[0:4, 0, [1,4]] wait(vector >= 1){{$}}
    nisa.dma_copy q0 @y[0, [8,4], [1,4]] = @a[0:4, 0, [1,4]]
    // CHECK-NEXT: nisa.dma_copy q1 @y[4, [8,4], [1,4]] = @a[0:4, 0, [1,4]] wait(vector >= 1){{$}}
    nisa.dma_copy q1 @y[4, [8,4], [1,4]] = @a[0:4, 0, [1,4]]
  }
}
