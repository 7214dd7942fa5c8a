#!/usr/bin/python3
"""cnn-models.py: whole torchvision CNNs through neuronc, checked against PyTorch.

  scripts/cnn-models.py [--models resnet18,resnet50,mobilenet_v2] [--batch 1]
                        [--size 224] [-O 2] [--target trn1] [--random-bn]
                        [--out DIR] [--bin DIR] [--top 10] [--group-depth 2]
                        [--no-fallback] [--markdown] [--rtol 1e-4]

For each model: build the torchvision model with random weights
(torch.manual_seed(0), eval mode; no download), run it eagerly on a seeded
standard-normal input of BATCHx3xSIZExSIZE, export it with torch.onnx.export
(opset 17, constants folded: torch folds each BatchNormalization into its
convolution), compile it with `neuronc model.onnx -o model.neff -O LEVEL
--target TARGET`, run the executable on the simulator with `neuron-run
model.neff --input x.npy --output y.npy --profile DIR`, and compare the output
with PyTorch's: the max relative error is max|y - ref| / max|ref|, which must
be within --rtol (1e-4, f32).

Printed per model: the error, the simulated device time, the compile flags,
the top --top rows of the key-averages table (neuron-run's
profile/key_averages.txt: one row per ONNX node, and torch.onnx.export names
the nodes after the module path, /layer1/layer1.0/conv1/Conv), and the device
time summed by torch module (summary.json's ops, each node name turned back
into the module's dotted name, layer1.0.conv1, and cut to --group-depth
components: layer1.0, features.3). A fused kernel's time is its hero's
(a convolution's epilogue counts as the convolution's module).

When neuronc cannot compile a model, the error is printed and the model is
compiled again with --disable-fusion=elementwise (no general fusion, so no
convolution epilogues), which is reported in the flags column; --no-fallback
makes that a failure instead. --random-bn draws random BatchNorm statistics
and affine parameters before export (torchvision's initialization leaves
them at mean 0, variance 1, weight 1, bias 0, so the folded biases are 0).

DIR (default ./cnn-models-out) gets per model MODEL/model.onnx, model.neff,
x.npy, ref.npy, y.npy, profile/ and neuronc.log. --bin is the directory of
neuronc and neuron-run (default: build/bin of this checkout). --markdown also
prints the summary as a Markdown table. Exits 0 when every model compiled,
ran and matched, 1 when an output differs, 2 on a tool or usage error.

Example (docs/cnn.md's numbers):

  scripts/cnn-models.py --models resnet18,resnet50,mobilenet_v2 --batch 1 --size 224
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    print("cnn-models: error: " + msg, file=sys.stderr)
    sys.exit(2)


def build_model(name, seed, random_bn):
    import torch
    import torchvision
    torch.manual_seed(seed)
    if not hasattr(torchvision.models, name):
        fail("torchvision has no model '%s'" % name)
    model = getattr(torchvision.models, name)(weights=None)
    if random_bn:
        g = torch.Generator().manual_seed(seed + 1)
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                c = m.num_features
                with torch.no_grad():
                    m.running_mean.copy_(0.1 * torch.randn(c, generator=g))
                    m.running_var.copy_(0.5 + torch.rand(c, generator=g))
                    m.weight.copy_(0.5 + torch.rand(c, generator=g))
                    m.bias.copy_(0.1 * torch.randn(c, generator=g))
    return model.eval()


def export_onnx(model, x, path, opset):
    import torch
    kwargs = dict(opset_version=opset, input_names=["x"], output_names=["y"],
                  do_constant_folding=True)
    try:
        torch.onnx.export(model, (x,), path, dynamo=False, **kwargs)
    except TypeError:  # torch < 2.5 has no dynamo argument (and exports with TorchScript)
        torch.onnx.export(model, (x,), path, **kwargs)


def module_name(node, modules):
    """'/layer1/layer1.0/conv1/Conv' -> 'layer1.0.conv1'; '/features/features.2/conv/conv.0/
    conv.0.0/Conv' -> 'features.2.conv.0.0'. torch.onnx.export names a node by its scopes, each
    child of a container prefixed with the container's name; a module called twice gets _1, _2
    (relu_1), which is dropped when the name without it is a module. '' when not a module path."""
    comps = [c for c in node.split("/") if c][:-1]  # the last one is the op type
    parts, prev = [], None
    for c in comps:
        if prev is not None and c.startswith(prev + "."):
            parts.append(c[len(prev) + 1:])
        else:
            parts.append(c)
        prev = c
    name = ".".join(parts)
    if name not in modules:
        stripped = re.sub(r"_\d+$", "", name)
        if stripped in modules:
            name = stripped
    return name


def run(cmd, log=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log:
        with open(log, "a") as f:
            f.write("$ " + " ".join(cmd) + "\n" + r.stdout)
    return r


def one_model(name, a):
    import torch
    out = os.path.join(a.out, name)
    os.makedirs(out, exist_ok=True)
    model = build_model(name, a.seed, a.random_bn)
    modules = dict(model.named_modules())
    rng = np.random.default_rng(a.seed)
    x = rng.standard_normal((a.batch, 3, a.size, a.size)).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    onnx_path = os.path.join(out, "model.onnx")
    export_onnx(model, torch.from_numpy(x), onnx_path, a.opset)
    xp, refp, yp = (os.path.join(out, f) for f in ("x.npy", "ref.npy", "y.npy"))
    np.save(xp, x)
    np.save(refp, ref)
    neff = os.path.join(out, "model.neff")
    log = os.path.join(out, "neuronc.log")
    if os.path.exists(log):
        os.remove(log)
    base = [os.path.join(a.bin, "neuronc"), onnx_path, "-o", neff, "-O%d" % a.O,
            "--target=" + a.target] + a.neuronc_flag
    flags = ["-O%d" % a.O, "--target=" + a.target] + a.neuronc_flag
    t0 = time.time()
    r = run(base, log)
    compile_error = None
    if r.returncode != 0:
        compile_error = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "failed"
        print("%s: neuronc %s failed: %s" % (name, " ".join(flags), compile_error))
        if a.no_fallback or a.O == 0:
            return dict(name=name, status="compile error", error=compile_error, flags=flags)
        flags.append("--disable-fusion=elementwise")
        print("%s: compiling again with --disable-fusion=elementwise" % name)
        r = run(base + ["--disable-fusion=elementwise"], log)
        if r.returncode != 0:
            print(r.stdout)
            return dict(name=name, status="compile error", error=r.stdout.strip(), flags=flags)
    compile_s = time.time() - t0
    prof = os.path.join(out, "profile")
    r = run([os.path.join(a.bin, "neuron-run"), neff, "--input", xp, "--output", yp,
             "--profile", prof])
    if r.returncode != 0:
        print(r.stdout)
        return dict(name=name, status="run error", error=r.stdout.strip(), flags=flags)
    y = np.load(yp)
    if y.shape != ref.shape:
        return dict(name=name, status="shape %s, PyTorch %s" % (y.shape, ref.shape), flags=flags)
    scale = float(np.abs(ref).max())
    err = float(np.abs(y.astype(np.float64) - ref).max()) / max(scale, 1e-30)
    with open(os.path.join(prof, "summary.json")) as f:
        summary = json.load(f)
    device_us = summary["runs"]["device_time_ns"][0] / 1e3
    with open(os.path.join(prof, "key_averages.txt")) as f:
        table = f.read().split("\n\n")[0].splitlines()
    # Device time by torch module, cut to --group-depth components.
    by_module = {}
    for op in summary["ops"]:
        mod = module_name(op["name"], modules) or op["name"]
        if a.group_depth > 0:
            mod = ".".join(mod.split(".")[:a.group_depth])
        by_module[mod] = by_module.get(mod, 0.0) + op["device_time_ns"] / 1e3
    ok = err <= a.rtol
    return dict(name=name, status="ok" if ok else "DIFFERS", error=err, scale=scale,
                device_us=device_us, flags=flags, compile_error=compile_error,
                compile_s=compile_s, table=table, by_module=by_module,
                shape="x".join(map(str, x.shape)), profile=prof)


def main():
    ap = argparse.ArgumentParser(prog="cnn-models.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet18,resnet50,mobilenet_v2",
                    help="comma-separated torchvision model names")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--size", type=int, default=224, help="input height and width")
    ap.add_argument("-O", type=int, default=2, choices=[0, 1, 2, 3], help="neuronc -O level")
    ap.add_argument("--target", default="trn1", choices=["trn1", "trn2"])
    ap.add_argument("--neuronc-flag", action="append", default=[],
                    help="an extra neuronc flag (repeatable), e.g. --neuronc-flag=--auto-cast=matmult")
    ap.add_argument("--random-bn", action="store_true",
                    help="random BatchNorm statistics and affine parameters")
    ap.add_argument("--no-fallback", action="store_true",
                    help="a compile error fails the model (no retry without general fusion)")
    ap.add_argument("--rtol", type=float, default=1e-4,
                    help="max |y - ref| / max |ref| allowed (default 1e-4)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=10, help="rows of each table to print")
    ap.add_argument("--group-depth", type=int, default=2,
                    help="module name components to group device time by (0: whole names)")
    ap.add_argument("--out", default="cnn-models-out")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--markdown", action="store_true", help="also print a Markdown summary")
    a = ap.parse_args()
    for tool in ("neuronc", "neuron-run"):
        if not os.access(os.path.join(a.bin, tool), os.X_OK):
            fail("no %s in %s (build first, or pass --bin)" % (tool, a.bin))
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError:
        fail("python3-torch and python3-torchvision are needed (scripts/install-deps.sh)")
    results = []
    for name in a.models.split(","):
        res = one_model(name.strip(), a)
        results.append(res)
        if "device_us" not in res:
            print("%s: %s: %s" % (res["name"], res["status"], res.get("error", "")))
            continue
        print("%s %s: max relative error %.3g (max |ref| %.4g), %s within %g; device time "
              "%.3f us on %s; flags %s; compiled in %.1f s" %
              (res["name"], res["shape"], res["error"], res["scale"],
               "matches" if res["status"] == "ok" else "DIFFERS, not", a.rtol, res["device_us"],
               a.target, " ".join(res["flags"]), res["compile_s"]))
        print("key averages (%s/key_averages.txt), top %d:" % (res["profile"], a.top))
        for line in res["table"][:3 + a.top]:
            print("  " + line)
        mods = sorted(res["by_module"].items(), key=lambda kv: -kv[1])
        print("device time by module (depth %d), top %d:" % (a.group_depth, a.top))
        width = max(len(m) for m, _ in mods[:a.top])
        for m, us in mods[:a.top]:
            print("  %-*s  %10.3f us  %6.2f %%" % (width, m, us, 100 * us / res["device_us"]))
        print()
    print("summary:")
    for r in results:
        if "device_us" in r:
            print("  %-14s %s  error %.3g  device %.3f us  %s  [%s]" %
                  (r["name"], r["shape"], r["error"], r["device_us"], r["status"],
                   " ".join(r["flags"])))
        else:
            print("  %-14s %s: %s" % (r["name"], r["status"], r.get("error", "")))
    if a.markdown:
        print()
        print("| model | input | max rel. error | device time | flags | top op |")
        print("|---|---|---|---|---|---|")
        for r in results:
            if "device_us" not in r:
                print("| %s | | | | %s | %s |" % (r["name"], " ".join(r["flags"]), r["status"]))
                continue
            top = r["table"][3].split()[0] if len(r["table"]) > 3 else ""
            print("| %s | %s | %.2g | %.1f us | `%s` | `%s` |" %
                  (r["name"], r["shape"], r["error"], r["device_us"], " ".join(r["flags"]), top))
    if any("device_us" not in r for r in results):
        sys.exit(2)
    sys.exit(0 if all(r["status"] == "ok" for r in results) else 1)


if __name__ == "__main__":
    main()
