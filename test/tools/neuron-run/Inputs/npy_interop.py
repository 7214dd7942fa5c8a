"""Checks that .npy files written by numpy load in neuron-run with identical
values, and that files neuron-run writes load in numpy with identical values
and the expected dtypes. Usage: npy_interop.py NEURON_RUN WORKDIR"""

import os
import subprocess
import sys

import numpy as np

neuron_run, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(0)

inputs = [
    ("f32", rng.standard_normal((2, 3)).astype(np.float32), "tensor<2x3xf32>", np.float32),
    ("f16", rng.standard_normal(4).astype(np.float16), "tensor<4xf16>", np.float16),
    ("f64", rng.standard_normal(3), "tensor<3xf32>", np.float32),
    ("i64", np.array([-5, 2**31 - 1], dtype=np.int64), "tensor<2xi32>", np.int32),
    ("i32", np.array([[1, -2], [3, -4]], dtype=np.int32), "tensor<2x2xi32>", np.int32),
    ("bool", np.array([True, False, True, True, False]), "tensor<5xi1>", np.bool_),
    ("scalar", np.array(2.5, dtype=np.float32), "tensor<f32>", np.float32),
    ("f32_v2", rng.standard_normal((3, 1)).astype(np.float32), "tensor<3x1xf32>", np.float32),
]

args = ", ".join(f"%a{i}: {t}" for i, (_, _, t, _) in enumerate(inputs))
types = ", ".join(t for _, _, t, _ in inputs)
rets = ", ".join(f"%a{i}" for i in range(len(inputs)))
with open(os.path.join(work, "id.mlir"), "w") as f:
    f.write(f"func.func @id({args}) -> ({types}) {{\n  return {rets} : {types}\n}}\n")

cmd = [neuron_run, os.path.join(work, "id.mlir")]
for name, arr, _, _ in inputs:
    path = os.path.join(work, f"in_{name}.npy")
    if name == "f32_v2":
        np.lib.format.write_array(open(path, "wb"), arr, version=(2, 0))
    else:
        np.save(path, arr)
    cmd += ["--input", path]
for name, _, _, _ in inputs:
    cmd += ["--output", os.path.join(work, f"out_{name}.npy")]

proc = subprocess.run(cmd, capture_output=True, text=True)
if proc.returncode != 0:
    print("FAIL: neuron-run exited", proc.returncode, proc.stderr)
    sys.exit(1)
print(proc.stderr.strip())

failures = 0
for name, arr, _, want_dtype in inputs:
    out = np.load(os.path.join(work, f"out_{name}.npy"))
    expected = arr.astype(want_dtype)
    same = out.dtype == want_dtype and out.shape == expected.shape and np.array_equal(out, expected)
    print(("ok" if same else "MISMATCH"), name, out.dtype, out.shape)
    failures += not same

# Files numpy cannot give us in C order or little-endian are refused clearly.
for name, arr in [("fortran", np.asfortranarray(np.ones((2, 3), np.float32))),
                  ("bigendian", np.ones((2, 3), dtype=">f4"))]:
    path = os.path.join(work, f"bad_{name}.npy")
    np.save(path, arr)
    with open(os.path.join(work, "one.mlir"), "w") as f:
        f.write("func.func @one(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
                "  return %a : tensor<2x3xf32>\n}\n")
    proc = subprocess.run([neuron_run, os.path.join(work, "one.mlir"), "--input", path],
                          capture_output=True, text=True)
    print("rejected" if proc.returncode == 1 else "ACCEPTED", name + ":", proc.stderr.strip())
    failures += proc.returncode != 1

print(f"npy-interop: {failures} failed")
sys.exit(1 if failures else 0)
