// nn.Linear and attention scores as torch-mlir exports them: the weight
// [out, in] and K [.., seq, d] are transposed before their matmuls. Sizes
// straddle the lowering's tiles: 300 rows (2 tiles + 44), K = 1536 (12 K
// tiles), N = 640 (one 512 tile + 128), scores over 130 keys.
func.func @linear(%x: tensor<1x300x1536xf32>, %w: tensor<640x1536xf32>) -> tensor<1x300x640xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<640x1536xf32>) -> tensor<1536x640xf32>
  %s = tosa.const_shape {values = dense<[1, 1536, 640]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %wt, %s : (tensor<1536x640xf32>, !tosa.shape<3>) -> tensor<1x1536x640xf32>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x300x1536xf32>, tensor<1x1536x640xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x300x640xf32>
  return %y : tensor<1x300x640xf32>
}

func.func @scores(%q: tensor<1x4x130x128xf32>, %k: tensor<1x4x130x128xf32>) -> tensor<4x130x130xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x4x130x128xf32>) -> tensor<1x4x128x130xf32>
  %s3 = tosa.const_shape {values = dense<[4, 130, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3t = tosa.const_shape {values = dense<[4, 128, 130]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s3 : (tensor<1x4x130x128xf32>, !tosa.shape<3>) -> tensor<4x130x128xf32>
  %k3 = tosa.reshape %kt, %s3t : (tensor<1x4x128x130xf32>, !tosa.shape<3>) -> tensor<4x128x130xf32>
  %y = tosa.matmul %q3, %k3, %zp, %zp : (tensor<4x130x128xf32>, tensor<4x128x130xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x130x130xf32>
  return %y : tensor<4x130x130xf32>
}

// K large enough that the weight streams one K group at a time (4 f32 K
// tiles per load), with K = 4100 leaving a last group of one partial tile
// and N = 600 a partial column tile.
func.func @streamed(%x: tensor<1x130x4100xf32>, %w: tensor<600x4100xf32>) -> tensor<1x130x600xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<600x4100xf32>) -> tensor<4100x600xf32>
  %s = tosa.const_shape {values = dense<[1, 4100, 600]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %wt, %s : (tensor<4100x600xf32>, !tosa.shape<3>) -> tensor<1x4100x600xf32>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x130x4100xf32>, tensor<1x4100x600xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x130x600xf32>
  return %y : tensor<1x130x600xf32>
}

// The same in bf16 (8 K tiles per load).
func.func @streamed_bf16(%x: tensor<1x130x8300xbf16>, %w: tensor<600x8300xbf16>) -> tensor<1x130x600xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %wt = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<600x8300xbf16>) -> tensor<8300x600xbf16>
  %s = tosa.const_shape {values = dense<[1, 8300, 600]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %wt, %s : (tensor<8300x600xbf16>, !tosa.shape<3>) -> tensor<1x8300x600xbf16>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x130x8300xbf16>, tensor<1x8300x600xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x130x600xf32>
  return %y : tensor<1x130x600xf32>
}
