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

func.func @unsupported_element_type(%a: tensor<4xi128>) {
  // expected-error @+1 {{'neuron.neg' op operand #0 must be ranked tensor of}}
  %0 = neuron.neg %a : tensor<4xi128>
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
  // expected-error @+1 {{'neuron.gather' op operand #1 must be ranked tensor of 2-bit signless integer or 4-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
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
  %0 = neuron.constant dense<1> : tensor<4xi128>
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

// -----

func.func @matmul_result_type(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'neuron.matmul' op result element type 'bf16' must equal the operand element type 'f32' (or be f32 for bf16/f16 operands)}}
  %0 = neuron.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xbf16>
  return
}

// -----

// The custom syntax needs an input; the generic form does not.
func.func @concat_no_inputs() {
  // expected-error @+1 {{'neuron.concat' op needs at least one input}}
  %0 = "neuron.concat"() {axis = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'neuron.concat' op input 1 has rank 1, expected 2}}
  %0 = neuron.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<6xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<100x16xf32>, %i: tensor<7xi32>) {
  // expected-error @+1 {{'neuron.gather' op axis 2 is out of range for a table of rank 2}}
  %0 = neuron.gather %t[%i] axis = 2 : tensor<100x16xf32>, tensor<7xi32> -> tensor<7x16xf32>
  return
}

// -----

func.func @layernorm_result(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{'neuron.layernorm' op result type must equal the input type}}
  %0 = neuron.layernorm %x axes = [1] epsilon = 1.0e-05 : (tensor<4x64xf32>) -> tensor<4x32xf32>
  return
}

// -----

func.func @kernel_terminator(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'neuron.kernel' op body must end with neuron.yield}}
  %r = neuron.kernel "elementwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    func.return %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// neuron.dispatch: the op, then its signature, then the callees.
func.func @dispatch_work(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op has 2 work coefficients but 1 exponent lists}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_work.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0, 2.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_work.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_callees(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op has 2 callees for 1 buckets}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_callees.seq_4, @dispatch_callees.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_callees.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_dims_count(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op input_dims/output_dims must give one entry per input and result}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>, array<i64: 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_dims_count.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_dims_count.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_input_symbol(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op input #0 names symbol 1 of 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -2, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_input_symbol.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_input_symbol.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_output_symbol(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op output #0 names symbol 1 of 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -2, 4>], masks = array<i64>, callees = [@dispatch_output_symbol.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_output_symbol.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_mask_symbol(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op mask names symbol 1 of 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64: 1>, callees = [@dispatch_mask_symbol.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_mask_symbol.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_work_exponents(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op work term has 2 exponents for 1 symbols}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_work_exponents.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1, 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_work_exponents.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_work_exponent(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op work term exponent 17 is out of range (at most 16)}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_work_exponent.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 17>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_work_exponent.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_work_coefficient(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op work term coefficient is not a finite non-negative number}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_work_coefficient.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: -1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_work_coefficient.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_bucket_sizes(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket #0 has 2 sizes for 1 symbols}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_bucket_sizes.seq_4], bucket_sizes = [array<i64: 4, 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_bucket_sizes.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_bucket_size(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket #0 has size 0 (sizes are at least 1)}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_bucket_size.seq_4], bucket_sizes = [array<i64: 0>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_bucket_size.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_no_buckets(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op a signature with dynamic dims has no buckets}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [], bucket_sizes = [], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_no_buckets.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_rank(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op input #0 has rank 2 but its dims list has 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_rank.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_rank.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_dims(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op input #0 type 'tensor<?x4xf32>' does not match its dims [seq, 8]}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 8>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_dims.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_dims.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_result_dims(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op result #0 type 'tensor<?x4xf32>' does not match its dims [seq, 8]}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 8>], masks = array<i64>, callees = [@dispatch_result_dims.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_result_dims.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_callee_missing(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket callee @nope is not defined in this module}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@nope], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_callee_missing.seq_4(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_callee_arity(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket callee @dispatch_callee_arity.seq_4 takes 2 argument(s) and returns 1; expected 1 and 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_callee_arity.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_callee_arity.seq_4(%c: tensor<4x4xf32>, %e: tensor<4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

func.func @dispatch_callee_type(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket callee @dispatch_callee_type.seq_4 has type 'tensor<8x4xf32>' where bucket seq=4 needs 'tensor<4x4xf32>'}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@dispatch_callee_type.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_callee_type.seq_4(%c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  return %c : tensor<8x4xf32>
}

// -----

func.func @dispatch_mask_type(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket callee @dispatch_mask_type.seq_4 mask argument #1 must be 'tensor<4xi1>'}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64: 0>, callees = [@dispatch_mask_type.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dispatch_mask_type.seq_4(%c: tensor<4x4xf32>, %m: tensor<4xf32>) -> tensor<4x4xf32> {
  return %c : tensor<4x4xf32>
}

// -----

// An empty body has no terminator yet: the kernel says so instead of crashing.
func.func @kernel_empty(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'neuron.kernel' op body must end with neuron.yield}}
  %r = neuron.kernel "elementwise" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
  }
  return %r : tensor<4xf32>
}

// -----

func.func @attention_heads_not_multiple(%q: tensor<1x3x4x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>) -> tensor<1x3x4x8xf32> {
  // expected-error @+1 {{query heads (3) must be a multiple of key/value heads (2)}}
  %o = neuron.attention %q, %k, %v scale = 1.0 : (tensor<1x3x4x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x3x4x8xf32>
  return %o : tensor<1x3x4x8xf32>
}

// -----

func.func @attention_head_dims_differ(%q: tensor<2x4x8xf32>, %k: tensor<2x5x6xf32>, %v: tensor<2x5x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{query and key head dims differ: 8 vs 6}}
  %o = neuron.attention %q, %k, %v scale = 1.0 : (tensor<2x4x8xf32>, tensor<2x5x6xf32>, tensor<2x5x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @attention_mask_shape(%q: tensor<2x4x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>, %m: tensor<4x4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{mask shape 4x4 does not broadcast to the scores' shape 2x4x5}}
  %o = neuron.attention %q, %k, %v mask %m scale = 1.0 : (tensor<2x4x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @attention_result_shape(%q: tensor<2x4x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x3xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{result shape 2x4x8 does not match the expected shape 2x4x3}}
  %o = neuron.attention %q, %k, %v scale = 1.0 : (tensor<2x4x8xf32>, tensor<2x5x8xf32>, tensor<2x5x3xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @all_reduce_group(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{group must be at least 2 cores, got 1}}
  %0 = neuron.all_reduce %a group = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @reduce_scatter_divides(%a: tensor<6x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{cannot scatter dim 0 of 'tensor<6x8xf32>' over 4 cores}}
  %0 = neuron.reduce_scatter %a dim = 0 group = 4 : tensor<6x8xf32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

func.func @reduce_scatter_result(%a: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{scatters 'tensor<8x8xf32>' over 4 cores along dim 0 into 'tensor<4x8xf32>'; expected 'tensor<2x8xf32>'}}
  %0 = neuron.reduce_scatter %a dim = 0 group = 4 : tensor<8x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @all_gather_dim(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim 2 is not a dim of 'tensor<4x8xf32>'}}
  %0 = neuron.all_gather %a dim = 2 group = 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @all_gather_result(%a: tensor<4x8xf32>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{gathers 'tensor<4x8xf32>' from 2 cores along dim 1 into 'tensor<4x16xbf16>'; expected 'tensor<4x16xf32>'}}
  %0 = neuron.all_gather %a dim = 1 group = 2 : tensor<4x8xf32> -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

func.func @all_to_all_split(%a: tensor<6x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{cannot split dim 0 of 'tensor<6x8xf32>' over 4 cores}}
  %0 = neuron.all_to_all %a split = 0 concat = 1 group = 4 : tensor<6x8xf32> -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

func.func @all_to_all_result(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{exchanges 'tensor<8x8xf32>' over 4 cores into 'tensor<8x8xf32>'; expected 'tensor<2x32xf32>'}}
  %0 = neuron.all_to_all %a split = 0 concat = 1 group = 4 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @all_to_all_dim(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{concat dim 2 is not a dim of 'tensor<8x8xf32>'}}
  %0 = neuron.all_to_all %a split = 0 concat = 2 group = 4 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @send_recv_shift(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shift 4 is not in -3..3 without 0}}
  %0 = neuron.send_recv %a shift = 4 group = 4 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sin_on_integers(%a: tensor<4xi32>) {
  // expected-error @+1 {{'neuron.sin' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float or 64-bit float values}}
  %0 = neuron.sin %a : tensor<4xi32>
  return
}
