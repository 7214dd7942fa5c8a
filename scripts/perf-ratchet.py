#!/usr/bin/python3
"""perf-ratchet.py: the simulated device time of every pinned program, against the
tracked file that pins it.

  scripts/perf-ratchet.py [--check | --update] [--file test/perf/ratchet.tsv]
                          [--bin build/bin] [--zoo-out DIR] [--tolerance 0.02]
                          [--only NAME[,NAME]] [--workdir DIR]

Simulated device times are deterministic: the same compiler and program give the
same nanoseconds. test/perf/ratchet.tsv lists, one program per line (tab
separated): a name, where the program comes from, the neuronc flags, and its
device time in microseconds. Sources:

  file:PATH           a program in this checkout (.mlir or .onnx)
  gen:SCRIPT ARGS     a generator in this checkout, its stdout the program
                      (test/bench/Inputs/gen_llama_layer.py --seq 128 ...), or
                      DIR/m.mlir when an argument is {dir} (gen_attention.py)
  shared:NAME         ../shared/models/NAME (skipped, and said so, when the
                      shared folder is not beside the checkout)
  zoo:MODEL           the model zoo's ONNX export of MODEL (test/zoo/models.py,
                      exported by scripts/zoo.py --export-only into --zoo-out)

Each program is compiled with `neuronc SOURCE --no-cache FLAGS` and timed with
`neuron-run PROGRAM.neff --no-data`.

--check (the default) fails (exit 1) when a program is more than --tolerance
(2 %) slower than the file says, or no longer compiles; a program more than
--tolerance faster is reported as `faster: tighten` (not a failure: run
--update and commit the new figure). --update rewrites the times in the file;
a commit that makes any of them slower must say why (docs/testing.md#the-performance-ratchet).
Prints one line per program (name, pinned, now, now/pinned, verdict) and
`perf-ratchet: N programs, M slower, K faster`.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "models")
TIME = re.compile(r"device time ([0-9.]+) us")


def fail(msg):
    print("perf-ratchet: error: " + msg, file=sys.stderr)
    sys.exit(2)


def read_entries(path):
    entries = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                entries.append(("comment", line))
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 4:
                fail("%s:%d: expected 4 tab-separated columns (name, source, flags, "
                     "device_us), got %d" % (path, n, len(cols)))
            name, source, flags, us = cols
            try:
                pinned = float(us) if us != "-" else None
            except ValueError:
                fail("%s:%d: device time '%s' is not a number" % (path, n, us))
            entries.append(("entry", (name, source, flags, pinned)))
    return entries


def materialize(source, workdir, name, a):
    """The program file for `source`, or (None, why) when it cannot be had here."""
    kind, _, rest = source.partition(":")
    if kind == "file":
        return os.path.join(ROOT, rest), None
    if kind == "shared":
        path = os.path.join(a.shared, rest)
        return (path, None) if os.path.exists(path) else (None, "no %s" % path)
    if kind == "gen":
        args = shlex.split(rest)
        out = os.path.join(workdir, name + ".mlir")
        if "{dir}" in args:
            # A generator that writes DIR/m.mlir (gen_attention.py).
            d = os.path.join(workdir, name)
            os.makedirs(d, exist_ok=True)
            args = [d if x == "{dir}" else x for x in args]
            out = os.path.join(d, "m.mlir")
            p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, args[0])] + args[1:],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode or not os.path.exists(out):
                return None, "generator failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
            return out, None
        with open(out, "w") as f:
            p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, args[0])] + args[1:],
                               stdout=f, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            return None, "generator failed: " + p.stderr.strip().splitlines()[-1:][0]
        return out, None
    if kind == "zoo":
        onnx = os.path.join(a.zoo_out, rest, "model.onnx")
        if not os.path.exists(onnx):
            p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "zoo.py"),
                                "--models", rest, "--export-only", "--out", a.zoo_out,
                                "--bin", a.bin], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if not os.path.exists(onnx):
                return None, "zoo export failed: " + (p.stdout.strip().splitlines() or ["?"])[-1]
        return onnx, None
    fail("unknown source '%s' (file:, gen:, shared:, zoo:)" % source)


def measure(program, flags, workdir, name, a):
    neff = os.path.join(workdir, name + ".neff")
    cmd = [os.path.join(a.bin, "neuronc"), program, "--no-cache", "-o", neff] + shlex.split(flags)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        return None, "compile failed: " + (p.stdout.strip().splitlines() or ["?"])[0][:300]
    p = subprocess.run([os.path.join(a.bin, "neuron-run"), neff, "--no-data"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = TIME.search(p.stdout)
    if p.returncode or not m:
        return None, "run failed: " + (p.stdout.strip().splitlines() or ["?"])[-1][:300]
    return float(m.group(1)), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    ap.add_argument("--file", default=os.path.join(ROOT, "test", "perf", "ratchet.tsv"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--zoo-out", default=os.path.join(ROOT, "build", "zoo"))
    ap.add_argument("--shared", default=SHARED)
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--only", default="")
    ap.add_argument("--workdir", default="")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.bin, "neuronc")):
        fail("no neuronc in %s (build first, or pass --bin)" % a.bin)
    if a.workdir:
        os.makedirs(a.workdir, exist_ok=True)
        return run(a, a.workdir)
    # Each program's executable and profile land here (~1 GB in all); a run
    # without --workdir keeps nothing.
    with tempfile.TemporaryDirectory(prefix="perf-ratchet-") as workdir:
        return run(a, workdir)


def run(a, workdir):
    """Measure every ratchet entry with artifacts under `workdir`; returns the exit code."""
    only = set(filter(None, a.only.split(",")))
    entries = read_entries(a.file)
    slower = faster = skipped = broken = count = 0
    out_lines = []
    for kind, e in entries:
        if kind == "comment":
            out_lines.append(e)
            continue
        name, source, flags, pinned = e
        if only and name not in only:
            out_lines.append("\t".join([name, source, flags, "-" if pinned is None else
                                        "%.3f" % pinned]) + "\n")
            continue
        count += 1
        program, why = materialize(source, workdir, name, a)
        now = None
        if program:
            now, why = measure(program, flags, workdir, name, a)
        if now is None:
            if why.startswith("no "):
                skipped += 1
                print("%-34s %10s %10s %7s  skipped: %s" % (name, pinned, "-", "-", why))
            else:
                broken += 1
                print("%-34s %10s %10s %7s  BROKEN: %s" % (name, pinned, "-", "-", why))
            out_lines.append("\t".join([name, source, flags, "-" if pinned is None else
                                        "%.3f" % pinned]) + "\n")
            continue
        ratio = now / pinned if pinned else float("nan")
        if pinned is None:
            verdict = "new"
        elif now > pinned * (1 + a.tolerance):
            verdict = "SLOWER"
            slower += 1
        elif now < pinned * (1 - a.tolerance):
            verdict = "faster: tighten"
            faster += 1
        else:
            verdict = "ok"
        print("%-34s %10s %10.3f %7.3f  %s" % (name, "-" if pinned is None else "%.3f" % pinned,
                                               now, ratio, verdict), flush=True)
        out_lines.append("\t".join([name, source, flags, "%.3f" % now]) + "\n")
    if a.update:
        with open(a.file, "w") as f:
            f.writelines(out_lines)
        print("perf-ratchet: %s rewritten" % os.path.relpath(a.file, ROOT))
    print("perf-ratchet: %d programs, %d slower, %d faster, %d broken, %d skipped" %
          (count, slower, faster, broken, skipped))
    return 1 if (slower or broken) and not a.update else 0


if __name__ == "__main__":
    sys.exit(main())
