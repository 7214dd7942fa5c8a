// The signature checks of a bucketed entry (BucketSignature::verify), as the
// neuron.dispatch verifier reports them; the executable reader runs the same
// checks on an entry point's signature.
// RUN: neuron-opt %s --split-input-file --verify-diagnostics

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op input #0 names symbol 1 of 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -2, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op output #0 names symbol 1 of 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -2, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op mask names symbol 3 of 1}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64: 3>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op work term has 2 exponents for 1 symbols}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1, 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op work term exponent 17 is out of range (at most 16)}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 17>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op work term coefficient is not a finite non-negative number}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4>], work_coefficients = array<f64: -1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket #0 has 2 sizes for 1 symbols}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 4, 4>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op bucket #0 has size 0 (sizes are at least 1)}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [@f.seq_4], bucket_sizes = [array<i64: 0>], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'neuron.dispatch' op a signature with dynamic dims has no buckets}}
  %y = neuron.dispatch(%x) {symbols = ["seq"], input_dims = [array<i64: -1, 4>], output_dims = [array<i64: -1, 4>], masks = array<i64>, callees = [], bucket_sizes = [], work_coefficients = array<f64: 1.0>, work_exponents = [array<i64: 1>]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func private @f.seq_4(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}
