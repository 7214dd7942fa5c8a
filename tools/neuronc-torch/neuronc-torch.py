#!/usr/bin/python3
"""neuronc-torch: a PyTorch module to "where does device time go" in one command.

  neuronc-torch MODULE --shape 1x128 [--shape 1x128:int64:32000 ...] [-o DIR]
                [--bf16] [--opset 17] [--seed 0] [--rtol R] [-- NEURONC FLAGS]

MODULE is `path/to/file.py:Name` (a torch.nn.Module class or a factory
function, called with no arguments) or `torchvision:NAME` (a torchvision
model built with random weights: no download). Each --shape is one input:
DIMSxDIMS[:DTYPE[:HIGH]] (float32 by default; an integer input is drawn from
[0, HIGH), e.g. token ids below the vocabulary size).

The tool seeds torch, builds the module in eval mode, runs it eagerly on
random inputs, exports it with torch.onnx.export (opset 17, constants
folded), compiles the ONNX model with neuronc (the tools next to this one),
runs it on the simulator with the same inputs and profiles it, and compares
the outputs with PyTorch's: within --rtol (1e-4 for f32; 2e-2 with --bf16,
which compiles with --auto-cast=matmult) of the largest magnitude. DIR
(default ./neuronc-torch-out) gets model.onnx, model.neff, the inputs and
outputs as .npy and the profile (profile/key_averages.txt, summary.json,
trace.json, report.html): the key-averages table names the ONNX nodes, which
torch.onnx.export names after the module path (/layers.0/mlp/MatMul).
Exits 1 when the outputs differ, 2 on a usage or tool error.
"""
import argparse
import importlib.util
import os
import subprocess
import sys

import numpy as np


def fail(msg, code=2):
    print("neuronc-torch: error: " + msg, file=sys.stderr)
    sys.exit(code)


def load_module(spec):
    import torch
    if spec.startswith("torchvision:"):
        import torchvision
        name = spec.split(":", 1)[1]
        if not hasattr(torchvision.models, name):
            fail("torchvision has no model '%s'" % name)
        return getattr(torchvision.models, name)(weights=None)
    if ":" not in spec:
        fail("MODULE must be path/to/file.py:Name or torchvision:NAME, got '%s'" % spec)
    path, name = spec.rsplit(":", 1)
    if not os.path.exists(path):
        fail("no file %s" % path)
    mspec = importlib.util.spec_from_file_location("neuronc_torch_user", path)
    mod = importlib.util.module_from_spec(mspec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    mspec.loader.exec_module(mod)
    if not hasattr(mod, name):
        fail("%s defines no '%s'" % (path, name))
    obj = getattr(mod, name)()
    if not isinstance(obj, torch.nn.Module):
        fail("%s:%s() is not a torch.nn.Module" % (path, name))
    return obj


def parse_shape(text):
    parts = text.split(":")
    try:
        dims = [int(d) for d in parts[0].split("x")]
    except ValueError:
        fail("--shape %s: dims must be integers joined by 'x'" % text)
    dtype = parts[1] if len(parts) > 1 else "float32"
    high = int(parts[2]) if len(parts) > 2 else 16
    if dtype not in ("float32", "int64", "int32"):
        fail("--shape %s: dtype must be float32, int64 or int32" % text)
    return dims, dtype, high


def main():
    ap = argparse.ArgumentParser(prog="neuronc-torch", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("module")
    ap.add_argument("--shape", action="append", required=True)
    ap.add_argument("-o", "--out", default="neuronc-torch-out")
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rtol", type=float)
    ap.add_argument("--bin", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("neuronc_flags", nargs="*")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        fail("python3-torch is not installed (scripts/install-deps.sh installs it)")
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    model = load_module(a.module).eval()
    inputs = []
    for s in a.shape:
        dims, dtype, high = parse_shape(s)
        if dtype == "float32":
            inputs.append(rng.standard_normal(dims).astype(np.float32))
        else:
            inputs.append(rng.integers(0, high, dims).astype(dtype))
    os.makedirs(a.out, exist_ok=True)
    tensors = [torch.from_numpy(x) for x in inputs]
    with torch.no_grad():
        eager = model(*tensors)
    eager = list(eager) if isinstance(eager, (tuple, list)) else [eager]
    eager = [e.detach().numpy() for e in eager]
    onnx_path = os.path.join(a.out, "model.onnx")
    names = ["input%d" % i for i in range(len(inputs))]
    torch.onnx.export(model, tuple(tensors), onnx_path, opset_version=a.opset,
                      input_names=names, output_names=["output%d" % i for i in range(len(eager))],
                      do_constant_folding=True)
    neff = os.path.join(a.out, "model.neff")
    flags = ["--auto-cast=matmult"] if a.bf16 else []
    r = subprocess.run([os.path.join(a.bin, "neuronc"), onnx_path, "-o", neff] + flags +
                       a.neuronc_flags)
    if r.returncode != 0:
        fail("neuronc could not compile %s" % onnx_path)
    run = [os.path.join(a.bin, "neuron-run"), neff, "--profile", os.path.join(a.out, "profile")]
    for i, x in enumerate(inputs):
        p = os.path.join(a.out, "input%d.npy" % i)
        np.save(p, x)
        run += ["--input", p]
    outs = [os.path.join(a.out, "output%d.npy" % i) for i in range(len(eager))]
    for p in outs:
        run += ["--output", p]
    r = subprocess.run(run)
    if r.returncode != 0:
        fail("neuron-run failed on %s" % neff)
    rtol = a.rtol if a.rtol is not None else (2e-2 if a.bf16 else 1e-4)
    worst = 0.0
    for i, (p, want) in enumerate(zip(outs, eager)):
        got = np.load(p)
        if got.shape != want.shape:
            print("output %d: shape %s, PyTorch %s" % (i, got.shape, want.shape))
            sys.exit(1)
        err = np.abs(got.astype(np.float64) - want).max() / max(1e-30, np.abs(want).max())
        worst = max(worst, err)
        print("output %d %s: max difference %.3g of the largest magnitude (PyTorch eager)" %
              (i, "x".join(map(str, want.shape)), err))
    ok = worst <= rtol
    print("neuronc-torch: %s within %g of PyTorch; profile in %s" %
          ("matches" if ok else "DIFFERS, not", rtol, os.path.join(a.out, "profile")))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
