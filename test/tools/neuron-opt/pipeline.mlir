// The usual mlir-opt flags work: --pass-pipeline and --mlir-print-ir-after-all.
// RUN: neuron-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s
// RUN: neuron-opt %s --canonicalize --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=DUMP

// CHECK-LABEL: func.func @f
// CHECK-NEXT: return %arg0
// DUMP: // -----// IR Dump After Canonicalizer (canonicalize)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %0 = neuron.mul %x, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
