"""Compares transpose-sbuf.test's outputs with numpy (bf16: round to nearest even)."""
import sys

import numpy as np

d = sys.argv[1]
x, y = np.load(d + "/x.npy"), np.load(d + "/y.npy")
u = y.view(np.uint32)
yb = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
for t in ("1", "2"):
    a, b = np.load(d + "/a%s.npy" % t), np.load(d + "/b%s.npy" % t)
    print("trn%s f32 exact %s bf16 exact %s" % (
        t, np.array_equal(a, x.transpose(0, 2, 1)), np.array_equal(b.astype(np.float32), yb.T)))
