// Host code around the kernel must not block it: the driver, a printer on
// memrefs with a loop, LLVM-dialect name strings and the timing calls that use
// them. Functions other than the entry (and its callees) are dropped before
// anything is checked, with the globals only they used; with --drop-host-calls
// the LLVM globals and calls the entry uses go with a warning each. Without
// --entry the printer is a candidate too, and its loop says to pick one.
// RUN: neuronc %s --emit=neuron --drop-host-calls --entry kernel -o - 2>&1 | FileCheck %s --check-prefix=DROP
// RUN: not neuronc %s --emit=neuron -o %t.out 2>&1 | FileCheck %s --check-prefix=NOENTRY
// RUN: not neuronc %s --emit=neuron --entry kernel -o %t.out 2>&1 | FileCheck %s --check-prefix=REJECT
// RUN: not test -e %t.out
// RUN: neuron-run %s --entry kernel --drop-host-calls --random-inputs --check 2>&1 | FileCheck %s --check-prefix=SIM

module {
  llvm.mlir.global internal constant @str_time("kernel time: \00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @str_unused("done\0A\00") {addr_space = 0 : i32}
  llvm.func @printf(!llvm.ptr, ...) -> i32
  memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<1.0>
  func.func private @rtclock() -> f64
  func.func private @printString(!llvm.ptr)
  func.func private @printF64(f64)
  func.func private @printMemrefF32(memref<*xf32>)

  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t0 = call @rtclock() : () -> f64
    %y = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    %t1 = call @rtclock() : () -> f64
    %dt = arith.subf %t1, %t0 : f64
    %p = llvm.mlir.addressof @str_time : !llvm.ptr
    // REJECT: import-host-code.mlir:[[# @LINE + 2]]:5: error: neuronc cannot import the call to host function @printString: device code cannot call the host; remove it or pass --drop-host-calls
    // DROP: import-host-code.mlir:[[# @LINE + 1]]:5: warning: dropped host call to @printString (--drop-host-calls)
    call @printString(%p) : (!llvm.ptr) -> ()
    %g = llvm.getelementptr %p[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<15 x i8>
    // REJECT: import-host-code.mlir:[[# @LINE + 2]]:10: error: neuronc cannot import the call to host function @printf: device code cannot call the host
    // DROP: import-host-code.mlir:[[# @LINE + 1]]:10: warning: dropped host call to @printf (--drop-host-calls)
    %n = llvm.call @printf(%g, %dt) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32
    call @printF64(%dt) : (f64) -> ()
    return %y : tensor<4xf32>
  }
  // The globals and declarations only the dropped calls used go last.
  // DROP: import-host-code.mlir:14:3: warning: dropped host-side 'llvm.mlir.global' @str_time (--drop-host-calls)
  // DROP: import-host-code.mlir:16:3: warning: dropped host-side 'llvm.func' @printf (--drop-host-calls)
  // REJECT-NOT: llvm.mlir.addressof
  // REJECT-NOT: llvm.getelementptr
  // REJECT-NOT: scf.for

  // A host-side printer: it works on memrefs and loops, and is never imported.
  func.func @print_result(%m: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // NOENTRY: import-host-code.mlir:[[# @LINE + 1]]:5: error: neuronc cannot import 'scf.for': hand-written loops: not a graph; {{.*}}; pick the function that holds the graph with --entry NAME
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %m[%i] : memref<4xf32>
      vector.print %v : f32
    }
    return
  }

  func.func @main() {
    %c = memref.get_global @__constant_4xf32 : memref<4xf32>
    %t = bufferization.to_tensor %c restrict : memref<4xf32> to tensor<4xf32>
    %r = call @kernel(%t) : (tensor<4xf32>) -> tensor<4xf32>
    %m = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
    call @print_result(%m) : (memref<4xf32>) -> ()
    %p = llvm.mlir.addressof @str_unused : !llvm.ptr
    call @printString(%p) : (!llvm.ptr) -> ()
    return
  }
}

// DROP-NOT: warning: {{.*}}@str_unused
// DROP-LABEL: func.func @kernel(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// DROP-NEXT: %[[E:.*]] = neuron.exp %arg0 : tensor<4xf32>
// DROP-NEXT: return %[[E]]
// DROP-NEXT: }
// DROP-NOT: llvm.
// DROP-NOT: memref.
// DROP-NOT: func.func

// SIM: output #0 tensor<4xf32>: max abs error {{.*}}: ok
// SIM: check: ok
