// An entry that is itself hand-written loops (or branches, or buffer code) is
// not a graph: neuronc says so, with what to do, instead of a generic error.
// RUN: not neuronc %s --emit=neuron --entry loops -o %t.out 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: not neuronc %s --emit=neuron --entry branches -o %t.out 2>&1 | FileCheck %s --check-prefix=BRANCHES
// RUN: not test -e %t.out

func.func @loops(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // LOOPS: check-import-loops-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'scf.for': hand-written loops: not a graph; neuronc compiles whole-tensor programs (tosa, linalg, tensor ops), so write the loop body as tensor ops over the iterated dim; pick the function that holds the graph with --entry NAME
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %x) -> tensor<8xf32> {
    %v = tensor.extract %acc[%i] : tensor<8xf32>
    %w = arith.mulf %v, %v : f32
    %n = tensor.insert %w into %acc[%i] : tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  // LOOPS-NOT: error
  return %r : tensor<8xf32>
}

func.func @branches(%x: tensor<8xf32>, %flag: i1) -> tensor<8xf32> {
  // BRANCHES: check-import-loops-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'scf.if': hand-written control flow: not a graph; neuronc compiles straight-line tensor programs, so compute both sides and choose with a select (arith.select, tosa.select); pick the function that holds the graph with --entry NAME
  %r = scf.if %flag -> tensor<8xf32> {
    %e = math.exp %x : tensor<8xf32>
    scf.yield %e : tensor<8xf32>
  } else {
    scf.yield %x : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// RUN: not neuronc %s --emit=neuron --entry buffers -o %t.out 2>&1 | FileCheck %s --check-prefix=BUFFERS
func.func @buffers(%v: f32) -> tensor<8xf32> {
  // BUFFERS: check-import-loops-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'memref.alloc': it works on buffers (memref), which is host-side (or already bufferized) code; import the tensor program before bufferization; pick the function that holds the graph with --entry NAME
  %m = memref.alloc() : memref<8xf32>
  %p = llvm.mlir.zero : !llvm.ptr
  // BUFFERS: check-import-loops-errors.mlir:[[# @LINE + 1]]:3: error: neuronc cannot import 'llvm.store': LLVM-dialect code is host-side code; import the program before it is lowered to LLVM; pick the function that holds the graph with --entry NAME
  llvm.store %v, %p : f32, !llvm.ptr
  // BUFFERS: check-import-loops-errors.mlir:[[# @LINE + 1]]:8: error: neuronc cannot import 'bufferization.to_tensor': it works on buffers (memref)
  %t = bufferization.to_tensor %m restrict writable : memref<8xf32> to tensor<8xf32>
  return %t : tensor<8xf32>
}
