"""compare.py GOT.npy WANT.npy RTOL: prints "ok" or what differs (exit 1)."""
import sys

import numpy as np

got, want, rtol = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
if got.shape != want.shape:
    sys.exit("shape %s, expected %s" % (got.shape, want.shape))
err = np.abs(got.astype(np.float64) - want).max() / max(1e-30, np.abs(want).max())
if not err <= rtol:
    sys.exit("max relative error %.3g > %g" % (err, rtol))
print("ok")
