// neuron-run executes executables on the simulator; their outputs match the
// reference interpreter on the same inputs (numpy compares the .npy files).
// REQUIRES: numpy
// RUN: split-file %s %t
// RUN: neuronc %t/prog.mlir -o %t/prog.neff
// RUN: neuron-run %t/prog.mlir --entry softmax --random-inputs --seed 5 --output %t/ref.npy
// RUN: neuron-run %t/prog.neff --entry softmax --random-inputs --seed 5 --output %t/sim.npy | FileCheck %s --check-prefix=SIM
// RUN: %python %S/Inputs/allclose.py %t/ref.npy %t/sim.npy 1e-6 | FileCheck %s --check-prefix=CLOSE
// --sim compiles the .mlir in-process and gives the same numbers.
// RUN: neuron-run %t/prog.mlir --entry softmax --random-inputs --seed 5 --sim --output %t/sim2.npy
// RUN: cmp %t/sim.npy %t/sim2.npy
// The executable replays on the other profile, and timing-only mode leaves
// the arithmetic out.
// RUN: neuron-run %t/prog.neff --entry softmax --random-inputs --target=trn2 | FileCheck %s --check-prefix=TRN2
// RUN: neuron-run %t/prog.neff --entry softmax --random-inputs --no-data | FileCheck %s --check-prefix=NODATA
// Integer and boolean data round-trip too.
// RUN: neuron-run %t/prog.mlir --entry mask --random-inputs --seed 2 --output %t/mref.npy
// RUN: neuron-run %t/prog.neff --entry mask --random-inputs --seed 2 --output %t/msim.npy
// RUN: cmp %t/mref.npy %t/msim.npy
// Mistakes: a wrong entry, a shape that does not match, an out-of-range index.
// RUN: not neuron-run %t/prog.neff --entry nope --random-inputs 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: %python -c "import numpy as np; np.save('%t/bad.npy', np.zeros((3, 3), np.float32))"
// RUN: not neuron-run %t/prog.neff --entry softmax --input %t/bad.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: %python -c "import numpy as np; np.save('%t/t.npy', np.ones((4, 2), np.float32)); np.save('%t/i.npy', np.array([0, 9], np.int32))"
// RUN: not neuron-run %t/prog.neff --entry lookup --input %t/t.npy --input %t/i.npy 2>&1 | FileCheck %s --check-prefix=INDEX

// SIM: @softmax: 1 output(s), device time {{[0-9.]+}} us on trn1 ({{[0-9]+}} instructions)
// SIM-NEXT: output #0: tensor<200x50xf32>
// CLOSE: max abs difference {{.*}}: ok
// TRN2: device time {{[0-9.]+}} us on trn2
// NODATA: @softmax: timing only, device time {{[0-9.]+}} us on trn1 ({{[0-9]+}} instructions)
// NODATA-NOT: output #0
// ENTRY: neuron-run: error: the executable has no entry point 'nope' (it has: softmax, mask, lookup)
// SHAPE: neuron-run: error: input #0 ('in0') must be tensor<200x50xf32>, got tensor<3x3xf32>
// INDEX: neuron-run: error: instruction 0 of stream q{{[0-9]+}} (dma_copy, kernel k{{[0-9]+}} from neuron.gather at {{.*}}prog.mlir:12:8): gather index 9 (row 1) is outside [0, 4)

//--- prog.mlir
func.func @softmax(%x: tensor<200x50xf32>) -> tensor<200x50xf32> {
  %0 = neuron.softmax %x axis = 1 : tensor<200x50xf32>
  return %0 : tensor<200x50xf32>
}
func.func @mask(%x: tensor<30x7xf32>, %n: tensor<30x7xi32>) -> (tensor<30x7xi1>, tensor<30x7xi32>) {
  %z = neuron.constant dense<0.0> : tensor<f32>
  %0 = neuron.compare gt, %x, %z : tensor<30x7xf32>, tensor<f32> -> tensor<30x7xi1>
  %1 = neuron.add %n, %n : tensor<30x7xi32>, tensor<30x7xi32> -> tensor<30x7xi32>
  return %0, %1 : tensor<30x7xi1>, tensor<30x7xi32>
}
func.func @lookup(%t: tensor<4x2xf32>, %i: tensor<2xi32>) -> tensor<2x2xf32> {
  %0 = neuron.gather %t[%i] axis = 0 : tensor<4x2xf32>, tensor<2xi32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
