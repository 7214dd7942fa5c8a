// RUN: neuron-opt %s --split-input-file --verify-diagnostics --neuron-bucket-shapes="buckets=seq:4,8"
// RUN: not neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq:4,x" 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq:auto:8:4" 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: not neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq:4;seq:8" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq:4;len:8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not neuron-opt %s --split-input-file --neuron-bucket-shapes="buckets=seq:auto:1:4096 max-buckets=8" 2>&1 | FileCheck %s --check-prefix=GRID

// SYNTAX: error: bucket spec 'seq' is not NAME:SIZES (e.g. seq:128,256 or seq:auto:128:4096)
// SIZE: error: bucket spec 'seq:4,x': 'x' is not a size (a positive integer)
// AUTO: error: bucket spec 'seq:auto:8:4': automatic buckets are NAME:auto:MIN:MAX with 1 <= MIN <= MAX
// TWICE: error: bucket spec names 'seq' twice
// UNKNOWN: error: bucket spec names 'len', which is no dynamic dim of the dynamically shaped functions
// GRID: error: the bucket grid has 13 buckets (seq: 13), more than the limit of 8; give fewer sizes or raise max-buckets

// A norm over the padded dim would average the padding.
func.func @norm_over_seq(%x: tensor<4x?xf32> {neuron.dim_names = ["", "seq"]}) -> tensor<4x?xf32> {
  // expected-error @+1 {{normalizes over dim 1, the bucketed dim 'seq': the padding would change its mean; bucket another dim, or write the norm as separate ops so that the mean can be masked}}
  %y = neuron.rmsnorm %x axes = [1] epsilon = 1.0e-06 : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// -----

// A reshape that merges the dynamic dim with a static one.
func.func @flatten(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<?xf32> {
  // expected-error @+1 {{reshape from 'tensor<?x4xf32>' to 'tensor<?xf32>' merges or splits a dynamic dim with other dims; shape bucketing can only follow a dynamic dim that stays a dim of its own}}
  %y = neuron.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// A static slice of the dynamic dim.
func.func @slice(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<2x4xf32> {
  // expected-error @+1 {{slices dim 0 of 'tensor<?x4xf32>', a dynamic dim, with a static size; shape bucketing cannot tell whether the slice stays inside the true size}}
  %y = neuron.slice %x offsets = [0, 0] sizes = [2, 4] strides = [1, 1] : tensor<?x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Concatenation along the dynamic dim.
func.func @concat(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{concatenates along dim 0, which is dynamic in 'tensor<?x4xf32>'; the padding of each input would land in the middle of the result}}
  %z = neuron.concat %x, %y axis = 0 : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

// -----

// A dynamic dim without buckets: the spec names only 'seq'.
// expected-error @+1 {{dynamic dim 'arg0.1' (argument #0 dim 1) has no buckets; give them with --buckets=arg0.1:128,256,... or --buckets=arg0.1:auto:MIN:MAX}}
func.func @unbucketed(%x: tensor<?x?xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<?x?xf32> {
  %y = neuron.exp %x : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Dim names are identifiers.
// expected-error @+1 {{argument #0 dim 0 is named 'my seq'; a dim name is an identifier (letters, digits, '_')}}
func.func @bad_name(%x: tensor<?x4xf32> {neuron.dim_names = ["my seq", ""]}) -> tensor<?x4xf32> {
  %b = neuron.exp %x : tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// Already bucketed: new buckets for a dispatcher are refused.
func.func @twice(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{is already bucketed: its buckets are fixed (compile it without --buckets, or bucket the unbucketed program)}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@twice.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @twice.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// Only single-block functions are bucketed.
// expected-error @+1 {{shape bucketing needs a function with a single block}}
func.func @multi_block(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<?x4xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<?x4xf32>
}

// -----

// Bucketing runs before fusion.
func.func @fused(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<?x4xf32> {
  // expected-error @+1 {{is a fused kernel; shape bucketing runs before fusion (bucket the unfused program)}}
  %r = neuron.kernel "elementwise" (%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%a: tensor<?x4xf32>):
    %0 = neuron.tanh %a : tensor<?x4xf32>
    neuron.yield %0 : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// A layernorm over the padded dim, as the rmsnorm above.
func.func @layernorm_over_seq(%x: tensor<4x?xf32> {neuron.dim_names = ["", "seq"]}) -> tensor<4x?xf32> {
  // expected-error @+1 {{normalizes over dim 1, the bucketed dim 'seq': the padding would change its mean; bucket another dim, or write the norm as separate ops so that the mean can be masked}}
  %y = neuron.layernorm %x axes = [1] epsilon = 1.0e-05 : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// -----

// An op the shape analysis does not know, on a dynamic tensor.
func.func @unknown_op(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}) -> tensor<?x4xf32> {
  // expected-error @+1 {{shape bucketing does not know how 'math.atan' relates the dynamic dims of its operands and results}}
  %y = math.atan %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// One dim name per dim.
// expected-error @+1 {{argument #0 has 1 neuron.dim_names for rank 2 (give one name per dim, "" for none)}}
func.func @dim_names_rank(%x: tensor<?x4xf32> {neuron.dim_names = ["seq"]}) -> tensor<?x4xf32> {
  %y = neuron.exp %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A dynamic dim that no argument gives.
func.func @free_dim(%x: tensor<?x4xf32> {neuron.dim_names = ["seq", ""]}, %c: tensor<1x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{result dim 0 of type 'tensor<?x4xf32>' is dynamic but follows from no argument's dim; shape bucketing needs every dynamic dim to be an input's (give it a static size)}}
  %b = neuron.broadcast_to %c : tensor<1x4xf32> -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}
