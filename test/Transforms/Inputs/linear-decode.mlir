// nn.Linear in decode and prefill shapes, the weight [out, in] transposed
// before the matmul as exporters write it (and one weight already [in, out]),
// at sizes around the matmul lowering's thresholds: one row tile (<= 128
// rows, column tiles of several PSUM banks), 2048 / 512 columns, 128-row K
// tiles. Used by prepack-weights-e2e.test.


func.func @decode(%x: tensor<1x1x4096xbf16>, %w: tensor<2049x4096xbf16>) -> tensor<1x1x2049xf32> {
  %t = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<2049x4096xbf16>) -> tensor<4096x2049xbf16>
  %s = tosa.const_shape {values = dense<[1, 4096, 2049]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %t, %s : (tensor<4096x2049xbf16>, !tosa.shape<3>) -> tensor<1x4096x2049xbf16>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
  %y = tosa.matmul %x, %r, %z, %z : (tensor<1x1x4096xbf16>, tensor<1x4096x2049xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x1x2049xf32>
  return %y : tensor<1x1x2049xf32>
}

func.func @rows5_f32(%x: tensor<1x5x129xf32>, %w: tensor<513x129xf32>) -> tensor<1x5x513xf32> {
  %t = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<513x129xf32>) -> tensor<129x513xf32>
  %s = tosa.const_shape {values = dense<[1, 129, 513]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %t, %s : (tensor<129x513xf32>, !tosa.shape<3>) -> tensor<1x129x513xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.matmul %x, %r, %z, %z : (tensor<1x5x129xf32>, tensor<1x129x513xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x513xf32>
  return %y : tensor<1x5x513xf32>
}

func.func @rows128(%x: tensor<1x128x4100xbf16>, %w: tensor<2047x4100xbf16>) -> tensor<1x128x2047xf32> {
  %t = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<2047x4100xbf16>) -> tensor<4100x2047xbf16>
  %s = tosa.const_shape {values = dense<[1, 4100, 2047]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %t, %s : (tensor<4100x2047xbf16>, !tosa.shape<3>) -> tensor<1x4100x2047xbf16>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
  %y = tosa.matmul %x, %r, %z, %z : (tensor<1x128x4100xbf16>, tensor<1x4100x2047xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x128x2047xf32>
  return %y : tensor<1x128x2047xf32>
}

func.func @rows129(%x: tensor<1x129x200xf32>, %w: tensor<1500x200xf32>) -> tensor<1x129x1500xf32> {
  %t = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<1500x200xf32>) -> tensor<200x1500xf32>
  %s = tosa.const_shape {values = dense<[1, 200, 1500]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %t, %s : (tensor<200x1500xf32>, !tosa.shape<3>) -> tensor<1x200x1500xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.matmul %x, %r, %z, %z : (tensor<1x129x200xf32>, tensor<1x200x1500xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x129x1500xf32>
  return %y : tensor<1x129x1500xf32>
}

func.func @plain_wide(%x: tensor<1x3x127xbf16>, %w: tensor<127x2049xbf16>) -> tensor<1x3x2049xf32> {
  %s = tosa.const_shape {values = dense<[1, 127, 2049]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %w, %s : (tensor<127x2049xbf16>, !tosa.shape<3>) -> tensor<1x127x2049xbf16>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xbf16>} : () -> tensor<1xbf16>
  %y = tosa.matmul %x, %r, %z, %z : (tensor<1x3x127xbf16>, tensor<1x127x2049xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x3x2049xf32>
  return %y : tensor<1x3x2049xf32>
}
