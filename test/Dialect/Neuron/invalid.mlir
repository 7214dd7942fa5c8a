// RUN: neuron-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the neuron dialect.

func.func @binary_shapes(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error @+1 {{'neuron.add' op operand shapes 4x8 and 3x8 are not broadcast-compatible}}
  %0 = neuron.add %a, %b : tensor<4x8xf32>, tensor<3x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @binary_result_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'neuron.mul' op result shape 8 does not match the expected shape 4x8}}
  %0 = neuron.mul %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'neuron.sub' op operand element types differ: 'f32' vs 'bf16'}}
  %0 = neuron.sub %a, %b : tensor<4xf32>, tensor<4xbf16> -> tensor<4xf32>
  return
}

// -----

func.func @binary_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'neuron.add' op result element type 'f16' differs from the operand element type 'f32'}}
  %0 = neuron.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

func.func @pow_on_integers(%a: tensor<4xi32>) {
  // expected-error @+1 {{'neuron.pow' op is defined on floating-point tensors only, got 'i32'}}
  %0 = neuron.pow %a, %a : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @exp_on_integers(%a: tensor<4xi32>) {
  // expected-error @+1 {{'neuron.exp' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float or 64-bit float values}}
  %0 = neuron.exp %a : tensor<4xi32>
  return
}

// -----

func.func @unsupported_element_type(%a: tensor<4xi8>) {
  // expected-error @+1 {{'neuron.neg' op operand #0 must be ranked tensor of}}
  %0 = neuron.neg %a : tensor<4xi8>
  return
}

// -----

func.func @compare_shapes(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'neuron.compare' op operand shapes 4 and 5 are not broadcast-compatible}}
  %0 = neuron.compare eq, %a, %b : tensor<4xf32>, tensor<5xf32> -> tensor<4xi1>
  return
}

// -----

func.func @select_branches(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'neuron.select' op branch element types differ: 'f32' vs 'i32'}}
  %0 = neuron.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @select_shapes(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'neuron.select' op condition and branch shapes are not broadcast-compatible}}
  %0 = neuron.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axis_range(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'neuron.reduce_sum' op axis 2 is out of range for rank 2}}
  %0 = neuron.reduce_sum %a axes = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axis_twice(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'neuron.reduce_max' op axis 1 is listed twice}}
  %0 = neuron.reduce_max %a axes = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_no_axes(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'neuron.reduce_min' op needs at least one axis}}
  %0 = neuron.reduce_min %a axes = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_keepdims_shape(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'neuron.reduce_sum' op result shape 4 does not match the expected shape 4x1}}
  %0 = neuron.reduce_sum %a axes = [1] keepdims : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_mean_int(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{'neuron.reduce_mean' op is defined on floating-point tensors only, got 'i32'}}
  %0 = neuron.reduce_mean %a axes = [1] : tensor<4x8xi32> -> tensor<4xi32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) {
  // expected-error @+1 {{'neuron.matmul' op contraction sizes differ: lhs has K=8 but rhs has K=7}}
  %0 = neuron.matmul %a, %b : tensor<4x8xf32>, tensor<7x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_transposed_contraction(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'neuron.matmul' op contraction sizes differ: lhs has K=8 but rhs has K=16}}
  %0 = neuron.matmul %a, %b transpose_rhs : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'neuron.matmul' op matmul operands must have rank >= 2, got 8 and 8x16}}
  %0 = neuron.matmul %a, %b : tensor<8xf32>, tensor<8x16xf32> -> tensor<16xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+1 {{'neuron.matmul' op batch dimensions 2 and 3 do not broadcast}}
  %0 = neuron.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'neuron.matmul' op result shape 4x8 does not match the expected shape 4x16}}
  %0 = neuron.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'neuron.transpose' op permutation has 3 entries but the input has rank 2}}
  %0 = neuron.transpose %a perm = [0, 1, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_not_permutation(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'neuron.transpose' op permutation is invalid: axis 0 is listed twice}}
  %0 = neuron.transpose %a perm = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'neuron.transpose' op result shape 2x3 does not match the expected shape 3x2}}
  %0 = neuron.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'neuron.reshape' op cannot reshape 6 elements (2x3) into 8 elements (2x4)}}
  %0 = neuron.reshape %a : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to(%a: tensor<3xf32>) {
  // expected-error @+1 {{'neuron.broadcast_to' op input shape 3 does not broadcast to 2x4}}
  %0 = neuron.broadcast_to %a : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<10xf32>) {
  // expected-error @+1 {{'neuron.slice' op dim 0: slice reads index 10 of a dim of size 10}}
  %0 = neuron.slice %a offsets = [4] sizes = [4] strides = [2] : tensor<10xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_rank(%a: tensor<10xf32>) {
  // expected-error @+1 {{'neuron.slice' op offsets, sizes and strides need one entry per input dim (1)}}
  %0 = neuron.slice %a offsets = [0, 0] sizes = [4] strides = [1] : tensor<10xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_stride(%a: tensor<10xf32>) {
  // expected-error @+1 {{'neuron.slice' op dim 0: offset and size must be >= 0 and stride >= 1}}
  %0 = neuron.slice %a offsets = [0] sizes = [4] strides = [0] : tensor<10xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'neuron.concat' op input 1 has size 3 in dim 0, expected 2}}
  %0 = neuron.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'neuron.concat' op axis 2 is out of range for rank 2}}
  %0 = neuron.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'neuron.concat' op result shape 2x5 does not match the expected shape 2x6}}
  %0 = neuron.concat %a, %a axis = 1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @gather_result(%t: tensor<100x16xf32>, %i: tensor<7xi32>) {
  // expected-error @+1 {{'neuron.gather' op result shape 7x100 does not match the expected shape 7x16}}
  %0 = neuron.gather %t[%i] axis = 0 : tensor<100x16xf32>, tensor<7xi32> -> tensor<7x100xf32>
  return
}

// -----

func.func @gather_float_indices(%t: tensor<100x16xf32>, %i: tensor<7xf32>) {
  // expected-error @+1 {{'neuron.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = neuron.gather %t[%i] axis = 0 : tensor<100x16xf32>, tensor<7xf32> -> tensor<7x16xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'neuron.cast' op changes the shape from 4 to 2x2; cast only converts elements}}
  %0 = neuron.cast %a : tensor<4xf32> -> tensor<2x2xi32>
  return
}

// -----

func.func @rmsnorm_weight(%x: tensor<4x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{'neuron.rmsnorm' op weight shape 32 does not broadcast to the input shape 4x64}}
  %0 = neuron.rmsnorm %x weight %w axes = [1] epsilon = 1.0e-06 : (tensor<4x64xf32>, tensor<32xf32>) -> tensor<4x64xf32>
  return
}

// -----

func.func @rmsnorm_axes(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{'neuron.rmsnorm' op axis 2 is out of range for rank 2}}
  %0 = neuron.rmsnorm %x axes = [2] epsilon = 1.0e-06 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return
}

// -----

func.func @rmsnorm_result(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{'neuron.rmsnorm' op result type must equal the input type}}
  %0 = neuron.rmsnorm %x axes = [1] epsilon = 1.0e-06 : (tensor<4x64xf32>) -> tensor<4x64xbf16>
  return
}

// -----

func.func @layernorm_bias(%x: tensor<4x64xf32>, %b: tensor<64xbf16>) {
  // expected-error @+1 {{'neuron.layernorm' op bias and input element types differ: 'f32' vs 'bf16'}}
  %0 = neuron.layernorm %x bias %b axes = [1] epsilon = 1.0e-05 : (tensor<4x64xf32>, tensor<64xbf16>) -> tensor<4x64xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{'neuron.softmax' op axis -1 is out of range for rank 2}}
  %0 = neuron.softmax %x axis = -1 : tensor<4x64xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'neuron.constant' op result #0 must be ranked tensor of}}
  %0 = neuron.constant dense<1> : tensor<4xi8>
  return
}

// -----

func.func @kernel_args(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'neuron.kernel' op body arguments must match the kernel inputs one to one}}
  %r = neuron.kernel "elementwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<8xf32>):
    neuron.yield %x : tensor<8xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @kernel_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'neuron.kernel' op yielded types must match the kernel results}}
  %r = neuron.kernel "elementwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %0 = neuron.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
    neuron.yield %0 : tensor<f32>
  }
  return %r : tensor<4xf32>
}
