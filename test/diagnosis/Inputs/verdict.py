"""Prints the verdict of a program's dominant kernel, static or measured.

  verdict.py static INSPECT_JSON    (neuron-inspect --json)
  verdict.py measured SUMMARY_JSON  (summary.json of neuron-run --profile)

The dominant kernel is the one with the largest predicted time (static) or
device time (measured). Prints "<program>/<kernel> <kind>: <verdict>", then
the evidence and, for a measured profile, the prediction note when there is
one; the diagnosis tests check that both name the same cause.
"""
import json
import sys

mode, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
if mode == "static":
    best = None
    for p in doc["programs"]:
        for k in p["kernels"]:
            pred = k.get("prediction")
            if pred is None:
                sys.exit("FAIL: no prediction for %s/%s: %s" %
                         (p["name"], k["name"], p.get("prediction_error", "")))
            if best is None or pred["predicted_ns"] > best[2]["predicted_ns"]:
                best = (p["name"], k, pred)
    name, k, pred = best
    print("static %s/%s %s: %s" % (name, k["name"], k["kind"], pred["verdict"]))
    print("evidence:", pred["evidence"])
else:
    k = max(doc["kernels"], key=lambda k: k["device_time_ns"])
    print("measured %s/%s %s: %s" % (k["program"], k["name"], k["kind"], k["verdict"]))
    print("evidence:", k["evidence"])
    if k.get("prediction_note"):
        print("note:", k["prediction_note"])
