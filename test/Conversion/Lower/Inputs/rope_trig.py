#!/usr/bin/env python3
"""Rotary position embedding (RoPE) written as torch-mlir writes it, and its
numpy reference in f32.

  rope_trig.py make DIR      writes DIR/rope.mlir (positions 0..SEQ-1 times
                             the inverse frequencies 10000^(-2i/DIM): angles
                             up to SEQ-1 radians, their cos and sin in
                             linalg.generic bodies, then the rotate-half
                             rotation of q), DIR/q.npy and DIR/want.npy
  rope_trig.py compare GOT WANT
                             prints `ok <max error>` when every element of
                             GOT is within 1e-5 * max(1, max |WANT|) of WANT

The reference computes what the program computes in f32: each angle is the
f32 product of the position and the f32 inverse frequency (so the interpreter
and numpy take cos and sin of the same numbers), cos and sin are the f32
nearest to the exact values, and the rotation is f32 arithmetic in the
program's order.
"""

import math
import sys

import numpy as np

SEQ, DIM = 4096, 64
HALF = DIM // 2


def inverse_frequencies():
    return (10000.0 ** (-np.arange(0, DIM, 2, dtype=np.float64) / DIM)).astype(np.float32)


def program(inv):
    consts = ", ".join("%.9e" % v for v in inv)
    return f"""// RoPE over {SEQ} positions: angles up to {SEQ - 1} radians.
#col = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @rope(%q: tensor<{SEQ}x{DIM}xf32>) -> tensor<{SEQ}x{DIM}xf32> {{
  %inv = arith.constant dense<[{consts}]> : tensor<{HALF}xf32>
  %e = tensor.empty() : tensor<{SEQ}x{HALF}xf32>
  %angles = linalg.generic {{indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}} ins(%inv : tensor<{HALF}xf32>) outs(%e : tensor<{SEQ}x{HALF}xf32>) {{
  ^bb0(%f: f32, %o: f32):
    %p = linalg.index 0 : index
    %pi = arith.index_cast %p : index to i64
    %pf = arith.sitofp %pi : i64 to f32
    %a = arith.mulf %pf, %f : f32
    linalg.yield %a : f32
  }} -> tensor<{SEQ}x{HALF}xf32>
  %cos = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}} ins(%angles : tensor<{SEQ}x{HALF}xf32>) outs(%e : tensor<{SEQ}x{HALF}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %c = math.cos %a : f32
    linalg.yield %c : f32
  }} -> tensor<{SEQ}x{HALF}xf32>
  %sin = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}} ins(%angles : tensor<{SEQ}x{HALF}xf32>) outs(%e : tensor<{SEQ}x{HALF}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  }} -> tensor<{SEQ}x{HALF}xf32>
  %x1 = tensor.extract_slice %q[0, 0] [{SEQ}, {HALF}] [1, 1] : tensor<{SEQ}x{DIM}xf32> to tensor<{SEQ}x{HALF}xf32>
  %x2 = tensor.extract_slice %q[0, {HALF}] [{SEQ}, {HALF}] [1, 1] : tensor<{SEQ}x{DIM}xf32> to tensor<{SEQ}x{HALF}xf32>
  %r:2 = linalg.generic {{indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}} ins(%x1, %x2, %cos, %sin : tensor<{SEQ}x{HALF}xf32>, tensor<{SEQ}x{HALF}xf32>, tensor<{SEQ}x{HALF}xf32>, tensor<{SEQ}x{HALF}xf32>) outs(%e, %e : tensor<{SEQ}x{HALF}xf32>, tensor<{SEQ}x{HALF}xf32>) {{
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o1: f32, %o2: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %y1 = arith.subf %ac, %bs : f32
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %y2 = arith.addf %bc, %as : f32
    linalg.yield %y1, %y2 : f32, f32
  }} -> (tensor<{SEQ}x{HALF}xf32>, tensor<{SEQ}x{HALF}xf32>)
  %out = tensor.concat dim(1) %r#0, %r#1 : (tensor<{SEQ}x{HALF}xf32>, tensor<{SEQ}x{HALF}xf32>) -> tensor<{SEQ}x{DIM}xf32>
  return %out : tensor<{SEQ}x{DIM}xf32>
}}
"""


def reference(q, inv):
    angles = np.arange(SEQ, dtype=np.float32)[:, None] * inv[None, :]  # f32 products
    assert angles.dtype == np.float32 and angles.max() > SEQ - 2
    cos = np.cos(angles.astype(np.float64)).astype(np.float32)
    sin = np.sin(angles.astype(np.float64)).astype(np.float32)
    x1, x2 = q[:, :HALF], q[:, HALF:]
    y1 = x1 * cos - x2 * sin
    y2 = x2 * cos + x1 * sin
    return np.concatenate([y1, y2], axis=1).astype(np.float32)


def make(out):
    inv = inverse_frequencies()
    with open(out + "/rope.mlir", "w") as f:
        f.write(program(inv))
    q = np.random.default_rng(7).uniform(-1.0, 1.0, (SEQ, DIM)).astype(np.float32)
    np.save(out + "/q.npy", q)
    np.save(out + "/want.npy", reference(q, inv))


def compare(got_path, want_path):
    got, want = np.load(got_path), np.load(want_path)
    if got.shape != want.shape or got.dtype != want.dtype:
        print("shape/dtype %s %s, want %s %s" % (got.shape, got.dtype, want.shape, want.dtype))
        return 1
    err = float(np.max(np.abs(got.astype(np.float64) - want)))
    bound = 1e-5 * max(1.0, float(np.max(np.abs(want))))
    print("%s %.3g" % ("ok" if err <= bound else "too far", err))
    return 0 if err <= bound else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
