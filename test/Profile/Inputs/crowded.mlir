// Twelve small elementwise ops: at -O0 twelve kernels of about the same
// arithmetic intensity, whose roofline points (and labels) crowd together.
func.func @crowded(%x: tensor<128x512xf32>, %y: tensor<128x512xf32>) -> tensor<128x512xf32> {
  %0 = neuron.add %x, %y : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %1 = neuron.mul %0, %y : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %2 = neuron.add %1, %x : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %3 = neuron.mul %2, %x : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %4 = neuron.add %3, %y : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %5 = neuron.mul %4, %y : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %6 = neuron.add %5, %x : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %7 = neuron.mul %6, %x : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %8 = neuron.gelu %7 approximate = tanh : tensor<128x512xf32>
  %9 = neuron.add %8, %x : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %10 = neuron.mul %9, %y : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  %11 = neuron.add %10, %x : tensor<128x512xf32>, tensor<128x512xf32> -> tensor<128x512xf32>
  return %11 : tensor<128x512xf32>
}
