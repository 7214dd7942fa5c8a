#!/usr/bin/env python3
"""allclose.py A.npy B.npy TOL: max |A - B| relative to max(1, max |A|)."""
import sys
import numpy as np

a = np.load(sys.argv[1]).astype(np.float64)
b = np.load(sys.argv[2]).astype(np.float64)
tol = float(sys.argv[3])
assert a.shape == b.shape, (a.shape, b.shape)
err = float(np.abs(a - b).max()) if a.size else 0.0
scale = max(1.0, float(np.abs(a).max()) if a.size else 0.0)
print('max abs difference %.3g over %d values: %s' % (err, a.size, 'ok' if err <= tol * scale else 'TOO LARGE'))
sys.exit(0 if err <= tol * scale else 1)
