"""Writes inputs for docs/examples/decoder/decoder.mlir at seq N into DIR.

usage: decoder_inputs.py DIR N
"""
import os
import sys

import numpy as np

out, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)
shapes = [(n, 256), (256,), (256, 256), (256, 256), (256, 256), (256, 256), (256,),
          (256, 512), (256, 512), (512, 256)]
for i, s in enumerate(shapes):
    scale = 1.0 if len(s) < 2 or i == 0 else 1 / np.sqrt(s[0])
    np.save(os.path.join(out, "in%d.npy" % i), (rng.standard_normal(s) * scale).astype(np.float32))
