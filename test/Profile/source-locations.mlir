// Source ops are rows by name and location: the three tosa.add below are
// three rows with their file:line:col (and one line of the per-name totals),
// never one merged `neuron.add`. Fused (-O2, one elementwise kernel), the
// kernel and summary.json list the source ops it absorbed.
// RUN: rm -rf %t && mkdir -p %t
// RUN: neuronc %s -O0 -o %t/naive.neff
// RUN: neuron-run %t/naive.neff --random-inputs --profile %t/naive > /dev/null
// RUN: FileCheck %s --check-prefix=ROWS < %t/naive/key_averages.txt
// RUN: %python -c "import json,os,sys; s=json.load(open(sys.argv[1])); [print('op', o['name'], os.path.basename(o['location']), o['calls']) for o in sorted(s['ops'], key=lambda o: o['location'])]; [print('name', t['name'], t['locations'], t['calls']) for t in s['ops_by_name']]" %t/naive/summary.json | FileCheck %s --check-prefix=JSON
// RUN: neuronc %s -O2 -o %t/fused.neff
// RUN: neuron-run %t/fused.neff --random-inputs --profile %t/fused > /dev/null
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused/key_averages.txt
// RUN: %python -c "import json,os,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print(k['absorbed']); [print(a['op'], os.path.basename(a['location'])) for a in k['absorbed_ops']]" %t/fused/summary.json | FileCheck %s --check-prefix=FUSED-JSON

func.func @adds(%x: tensor<256x512xf32>, %y: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %a = tosa.add %x, %y : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xf32> // ROWS-DAG: neuron.add{{ +}}source-locations.mlir:[[# @LINE]]:8{{ +}}{{[0-9.]+}} %
  %b = tosa.add %a, %y : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xf32> // ROWS-DAG: neuron.add{{ +}}source-locations.mlir:[[# @LINE]]:8{{ +}}{{[0-9.]+}} %
  %c = tosa.exp %b : (tensor<256x512xf32>) -> tensor<256x512xf32> // ROWS-DAG: neuron.exp{{ +}}source-locations.mlir:[[# @LINE]]:8{{ +}}{{[0-9.]+}} %
  %d = tosa.add %c, %x : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xf32> // ROWS-DAG: neuron.add{{ +}}source-locations.mlir:[[# @LINE]]:8{{ +}}{{[0-9.]+}} %
  return %d : tensor<256x512xf32>
}

// ROWS: Self device time total:
// ROWS: By op name (the rows above summed over their locations):
// ROWS-NEXT: ---
// ROWS-NEXT: Name{{ +}}Self Device %{{ +}}Self Device{{ +}}# of Calls{{ +}}Instrs{{ +}}Locations
// ROWS-NEXT: ---
// ROWS-NEXT: neuron.add{{ +}}{{[0-9.]+}} %{{ +}}{{[0-9.]+ [mun]?s}}{{ +}}3{{ +}}{{[0-9]+}}{{ +}}3{{$}}
// ROWS-NEXT: neuron.exp{{ +}}{{[0-9.]+}} %{{ +}}{{[0-9.]+ [mun]?s}}{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{$}}
// ROWS: Kernel{{ +}}Kind{{ +}}Source{{ +}}Location{{ +}}Self Device %
// ROWS-NOT: Absorbed
// ROWS: adds/k{{[0-9]}}{{ +}}add{{ +}}neuron.add{{ +}}source-locations.mlir:{{[0-9]+}}:8{{ +}}

// JSON: op neuron.add source-locations.mlir:16:8 1
// JSON-NEXT: op neuron.add source-locations.mlir:17:8 1
// JSON-NEXT: op neuron.exp source-locations.mlir:18:8 1
// JSON-NEXT: op neuron.add source-locations.mlir:19:8 1
// JSON-NEXT: name neuron.add 3 3
// JSON-NEXT: name neuron.exp 1 1

// FUSED: Name{{ +}}Location{{ +}}Self Device %
// FUSED: Kernel{{ +}}Kind{{ +}}Source{{ +}}Location{{ +}}Self Device %{{.*}}Measured{{ +}}Absorbed
// FUSED-NEXT: ---
// FUSED-NEXT: adds/k0{{ +}}elementwise{{ +}}neuron.kernel{{ +}}source-locations.mlir:16-19{{ +}}100.00 %{{.*}}  neuron.add x3, neuron.exp (source-locations.mlir:16-19)

// FUSED-JSON: neuron.add x3, neuron.exp (source-locations.mlir:16-19)
// FUSED-JSON-NEXT: neuron.add source-locations.mlir:16:8
// FUSED-JSON-NEXT: neuron.add source-locations.mlir:17:8
// FUSED-JSON-NEXT: neuron.exp source-locations.mlir:18:8
// FUSED-JSON-NEXT: neuron.add source-locations.mlir:19:8
