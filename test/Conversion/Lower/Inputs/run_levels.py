"""Compiles one program at -O0..-O3 for trn1 and trn2, runs each executable on
the simulator and compares every output with numpy's reference.

usage: run_levels.py PROGRAM --inputs a.npy,b.npy --expected y.npy --workdir DIR
                     [--rtol R] [--atol A] [--levels 0,2] [--targets trn1]
                     [--flags="--entry f --prepack-weights"]
Prints one line per level and target, `OK -O2 trn1 max_abs=...` or
`WRONG -O2 trn1 max_abs=... rows=[...]` (the first rows that differ), and
exits 1 when any differs.
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("program")
    p.add_argument("--inputs", required=True)
    p.add_argument("--expected", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--levels", default="0,1,2,3")
    p.add_argument("--targets", default="trn1,trn2")
    p.add_argument("--flags", default="", help="more neuronc flags, space-separated")
    a = p.parse_args()
    want = np.load(a.expected)
    bad = 0
    for target in a.targets.split(","):
        for level in a.levels.split(","):
            neff = os.path.join(a.workdir, "O%s-%s.neff" % (level, target))
            out = os.path.join(a.workdir, "O%s-%s.npy" % (level, target))
            subprocess.run(["neuronc", a.program, "-O" + level, "--target=" + target,
                            "--no-cache", "-o", neff] + a.flags.split(), check=True)
            cmd = ["neuron-run", neff, "--output", out]
            for i in a.inputs.split(","):
                cmd += ["--input", i]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            got = np.load(out)
            diff = np.abs(got.astype(np.float64) - want)
            ok = got.shape == want.shape and bool(
                np.all(diff <= a.atol + a.rtol * np.abs(want)))
            line = "%s -O%s %s max_abs=%.3g" % ("OK" if ok else "WRONG", level, target,
                                                 float(diff.max()))
            if not ok:
                bad += 1
                rows = np.nonzero((diff > a.atol + a.rtol * np.abs(want)).reshape(
                    want.shape[0], -1).any(axis=1))[0]
                line += " rows=%s (%d of %d)" % (rows[:8].tolist(), len(rows), want.shape[0])
            print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
