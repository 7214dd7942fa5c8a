// An elementwise generic over arguments of dynamic shape (tensor.dim sizes its
// init) imports to neuron ops of that shape; the dims reach shape bucketing
// and each bucket runs on the simulator.
// RUN: neuron-opt %s --neuron-convert-linalg | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: neuronc %s --buckets="arg0.0:4,8;arg0.1:16" -o %t/d.neff
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.arange(48, dtype=np.float32).reshape(3, 16)); np.save('%t/b.npy', np.full((3, 16), 0.5, np.float32))"
// RUN: neuron-run %t/d.neff --input %t/a.npy --input %t/b.npy --output %t/o.npy | FileCheck %s --check-prefix=OUT
// RUN: %python -c "import numpy as np; o = np.load('%t/o.npy'); print(o.shape, float(np.abs(o - np.exp(-(np.arange(48, dtype=np.float32).reshape(3, 16) * 0.5 / 48))).max()) < 1e-6)" | FileCheck %s --check-prefix=VALUES

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[M:.*]] = neuron.mul %arg0, %arg1 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: neuron.div %[[M]], %{{.*}} : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
// CHECK-NOT: tensor.dim
// CHECK-NOT: tensor.empty
// OUT: @dynamic: 1 output(s)
// VALUES: (3, 16) True
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %n = arith.constant 48.0 : f32
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %q = arith.divf %m, %n : f32
    %ng = arith.negf %q : f32
    %r = math.exp %ng : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
