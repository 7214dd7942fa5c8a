// Host code around a kernel (the timers and prints exporters add):
// rejected by default with a hint, removed with a warning per call when asked.
// RUN: not neuronc %s 2>&1 | FileCheck %s --check-prefix=REJECT
// RUN: neuronc %s --drop-host-calls 2>&1 | FileCheck %s --check-prefix=DROP
// RUN: neuron-opt %s --neuron-drop-host-calls 2>&1 | FileCheck %s --check-prefix=PASS

func.func private @rtclock() -> f64
func.func private @printMemrefF32(tensor<*xf32>)

func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  // REJECT: drop-host-calls.mlir:[[# @LINE + 2]]:9: error: neuronc cannot import the call to host function @rtclock: device code cannot call the host; remove it or pass --drop-host-calls (or --return-printed, which keeps the printed values' work as outputs)
  // DROP: drop-host-calls.mlir:[[# @LINE + 1]]:9: warning: dropped host call to @rtclock (--drop-host-calls)
  %t0 = call @rtclock() : () -> f64
  %y = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  // REJECT: drop-host-calls.mlir:[[# @LINE + 1]]:9: error: neuronc cannot import the call to host function @rtclock
  %t1 = call @rtclock() : () -> f64
  // The difference of two host values is host code too: not reported again.
  // REJECT-NOT: arith.subf
  %dt = arith.subf %t1, %t0 : f64
  // REJECT: drop-host-calls.mlir:[[# @LINE + 2]]:3: error: neuronc cannot import 'vector.print': printing is host-side code; remove it or pass --drop-host-calls (or --return-printed, which keeps the printed values' work as outputs)
  // DROP: drop-host-calls.mlir:[[# @LINE + 1]]:3: warning: dropped host-side 'vector.print' (--drop-host-calls)
  vector.print %dt : f64
  %u = tensor.cast %y : tensor<4xf32> to tensor<*xf32>
  // DROP: drop-host-calls.mlir:[[# @LINE + 1]]:3: warning: dropped host call to @printMemrefF32 (--drop-host-calls)
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return %y : tensor<4xf32>
}

// DROP: func.func @kernel(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// DROP-NEXT: %[[E:.*]] = neuron.exp %arg0 : tensor<4xf32>
// DROP-NEXT: return %[[E]]

// The pass alone leaves the device code as it was.
// PASS: func.func @kernel
// PASS-NOT: call @rtclock
// PASS-NOT: vector.print
// PASS: tosa.exp

// RUN: not neuronc %S/Inputs/models/iree-golden/iree_tosa_ops_exp.mlir 2>&1 | FileCheck %s --check-prefix=CHECKOP
// RUN: neuronc %S/Inputs/models/iree-golden/iree_tosa_ops_exp.mlir --drop-host-calls 2>&1 | FileCheck %s --check-prefix=CHECKOP-DROP
// CHECKOP: error: neuronc cannot import 'check.expect_almost_eq_const': it is a test assertion that runs on the host; remove it or pass --drop-host-calls (or --return-printed, which keeps the printed values' work as outputs)
// CHECKOP-DROP: warning: dropped host-side 'check.expect_almost_eq_const' (--drop-host-calls)
