"""Compares transpose-sbuf.test's outputs with numpy (bf16: round to nearest even)."""
import sys

import numpy as np

d = sys.argv[1]


def bf16(x):
    u = x.view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


# (input, permutation, bf16 input) in the order of the function's results.
cases = [("x", (0, 2, 1), False), ("y", (1, 0), True), ("k", (1, 2, 0), False),
         ("h", (0, 2, 3, 1), True), ("w", (3, 1, 0, 2), False)]
for t in ("1", "2"):
    exact = []
    for i, (name, perm, narrow) in enumerate(cases):
        x = np.load("%s/%s.npy" % (d, name))
        want = (bf16(x) if narrow else x).transpose(perm)
        got = np.load("%s/r%s_%d.npy" % (d, t, i)).astype(np.float32)
        exact.append("%s %s" % (name, np.array_equal(got, want)))
    print("trn%s exact: %s" % (t, ", ".join(exact)))
