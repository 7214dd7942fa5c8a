#!/usr/bin/env bash
# The verdict table of docs/diagnosis.md: every program of ../shared/models
# (or $NEURONC_MODELS, the iree-e2e ones included) that compiles for trn1
# (-O2; printed tensors become results, as the corpus runs them) is
# simulated with a profile; for each kernel that takes 5 % of the device
# time or more it prints the static verdict (neuron-inspect's replay of the
# program alone), the measured one (the profile's), whether they agree, and
# the profile's note when they do not.
# Usage: scripts/diagnose-models.sh [build-dir]
set -uo pipefail
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
MODELS=${NEURONC_MODELS:-$SRC/../shared/models}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$BUILD/bin" "$MODELS" "$work" <<'PY'
import glob, json, os, subprocess, sys
bindir, models, work = sys.argv[1:4]
files = sorted(glob.glob(os.path.join(models, "*.mlir")) +
               glob.glob(os.path.join(models, "buddy-next-more", "*.mlir")) +
               glob.glob(os.path.join(models, "iree-e2e", "*.adapted.mlir")))
print("| program | kernel | share | static (neuron-inspect) | measured (profile) | agree |")
print("|---|---|---|---|---|---|")
total = agree = 0
for f in files:
    name = os.path.relpath(f, models)
    neff = os.path.join(work, "m.neff")
    c = subprocess.run([os.path.join(bindir, "neuronc"), "--no-cache", "--return-printed", f,
                        "-o", neff], capture_output=True, text=True)
    if c.returncode != 0:
        continue
    prof = os.path.join(work, "p")
    r = subprocess.run([os.path.join(bindir, "neuron-run"), neff, "--no-data", "--profile", prof],
                       capture_output=True, text=True)
    i = subprocess.run([os.path.join(bindir, "neuron-inspect"), neff, "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0 or i.returncode != 0:
        continue
    summary = json.load(open(os.path.join(prof, "summary.json")))
    static = {}
    for p in json.loads(i.stdout)["programs"]:
        for k in p["kernels"]:
            if "prediction" in k:
                static[(p["name"], k["name"])] = k["prediction"]["verdict"]
    for k in summary["kernels"]:
        if k["device_time_percent"] < 5:
            continue
        s = static.get((k["program"], k["name"]), "(none)")
        same = s == k["verdict"]
        total += 1
        agree += same or bool(k["prediction_note"])
        print("| %s | %s/%s %s | %.0f %% | %s | %s | %s |" % (
            name, k["program"], k["name"], k["kind"], k["device_time_percent"], s, k["verdict"],
            "yes" if same else "explained: " + k["prediction_note"] if k["prediction_note"]
            else "NO"))
print()
print("%d kernel(s) at 5 %% of device time or more; %d agree or are explained" % (total, agree))
PY
