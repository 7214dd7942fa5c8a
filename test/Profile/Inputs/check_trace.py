#!/usr/bin/env python3
"""Checks a neuron-run profile directory independently of neuronc's code.

Reads trace.json with Python's json module and checks it against the Trace
Event Format (the JSON object form Perfetto and chrome://tracing load):

  * every event has a known phase and the fields that phase needs, with
    numeric, non-negative timestamps and durations;
  * every (pid, tid) that carries events is named by metadata, and the
    device tracks are the ones a NeuronCore timeline has (TensorE split into
    LoadStationary and MultiplyMoving rows, VectorE, ScalarE, GpSimdE, one
    row per DMA queue);
  * no two complete events of one thread overlap (each row is one
    sequencer);
  * the host and the devices are on separate clocks: the host process is
    labelled "wall clock", every NeuronCore process "device clock", and
    otherData.clocks describes both and lists every run's host dispatch and
    device start; device timestamps start at 0 (the first profiled run);
    the host clock is drawn after the device clock, so no device event lies
    inside a host slice; each run's device events lie within the device
    span otherData gives it, and all end within the runs' summed device
    time (the device clock has no host time in it); no flow joins the two
    clocks (a flow, if any, pairs with its finish, later, on one clock);
  * kernel slices match summary.json: one per call, their durations summed
    per kernel equal its span_ns;
  * semaphore counters only grow, but for the reset to 0 at a run's start;
  * the host phases (copy-in, dispatch, execute, copy-out) carry the
    correlation ids of the device events.

Then it recomputes, from the trace alone, the device time of each run, the
HBM bytes, MBU, and the busy time per source op (name and location), and compares them with
summary.json (which neuronc computed from its own data structures).

Usage: check_trace.py PROFILE_DIR [PROFILE_DIR ...]
Prints one line per directory; exits non-zero on the first violation.
"""
import collections
import json
import os
import sys

PHASES = {"X", "M", "i", "s", "f", "C"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(directory):
    with open(os.path.join(directory, "trace.json")) as f:
        doc = json.load(f)
    with open(os.path.join(directory, "summary.json")) as f:
        summary = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("trace.json is not a Trace Event object with a traceEvents array")
    events = doc["traceEvents"]
    names = {}
    used = set()
    for e in events:
        ph = e.get("ph")
        if ph not in PHASES:
            fail("unknown phase %r in %r" % (ph, e))
        if not isinstance(e.get("pid"), int):
            fail("event without an integer pid: %r" % e)
        if ph == "M":
            if e.get("name") not in ("process_name", "thread_name", "process_sort_index",
                                     "thread_sort_index"):
                fail("unknown metadata %r" % e)
            if e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
            if e["name"] == "process_name":
                names[(e["pid"], None)] = e["args"]["name"]
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            fail("bad timestamp in %r" % e)
        if ph == "X":
            d = e.get("dur")
            if not isinstance(d, (int, float)) or d < 0:
                fail("bad duration in %r" % e)
            if not isinstance(e.get("name"), str) or not e["name"]:
                fail("unnamed event %r" % e)
        if ph in ("X", "i", "s", "f"):
            if not isinstance(e.get("tid"), int):
                fail("event without a tid: %r" % e)
            used.add((e["pid"], e["tid"]))
    for pid, tid in used:
        if (pid, tid) not in names:
            fail("thread %d/%d carries events but has no thread_name" % (pid, tid))
        if (pid, None) not in names:
            fail("process %d has no process_name" % pid)

    device_pids = {pid for (pid, tid), n in names.items() if tid is None and "NeuronCore" in n}
    if not device_pids:
        fail("no NeuronCore process")
    for pid in device_pids:
        rows = {n for (p, t), n in names.items() if p == pid and t is not None}
        for want in ("TensorE (LoadStationary)", "TensorE (MultiplyMoving)", "VectorE",
                     "ScalarE", "GpSimdE", "DMA q0"):
            if want not in rows:
                fail("NeuronCore process %d has no %r track" % (pid, want))

    # One sequencer per thread: complete events never overlap.
    by_thread = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_thread[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    for key, xs in by_thread.items():
        xs.sort()
        for (s0, e0, n0), (s1, e1, n1) in zip(xs, xs[1:]):
            if s1 < e0 - 1e-6:
                fail("overlap on %s: %s [%f, %f] and %s [%f, %f]" %
                     (names[key], n0, s0, e0, n1, s1, e1))

    # Two clocks: the host's wall clock and the simulated device clock.
    host_pids = {pid for (pid, tid), n in names.items() if tid is None} - device_pids
    for pid in host_pids:
        if "wall clock" not in names[(pid, None)]:
            fail("host process %d is not labelled with its wall clock: %r" %
                 (pid, names[(pid, None)]))
    for pid in device_pids:
        if "device clock" not in names[(pid, None)]:
            fail("NeuronCore process %d is not labelled with the device clock: %r" %
                 (pid, names[(pid, None)]))
    clocks = doc.get("otherData", {}).get("clocks", {})
    if not (isinstance(clocks.get("host"), str) and isinstance(clocks.get("device"), str)
            and clocks["host"] != clocks["device"]):
        fail("otherData.clocks does not describe two distinct clocks: %r" % clocks)
    run_clocks = {r["correlation_id"]: r for r in clocks.get("runs", [])}
    # Flows, if any, pair up and stay on one clock.
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    if set(starts) != set(finishes):
        fail("flow starts %s and finishes %s do not pair" % (sorted(starts), sorted(finishes)))
    for i, s in starts.items():
        f = finishes[i]
        if (s["pid"] in device_pids) != (f["pid"] in device_pids):
            fail("flow %d joins the host clock and the device clock" % i)
        if f["ts"] < s["ts"] - 1e-6:
            fail("flow %d finishes before it starts" % i)

    # Semaphore counters only grow within a run (each run starts them at 0).
    last = {}
    for e in sorted((e for e in events if e["ph"] == "C"),
                    key=lambda e: (e["ts"], e["args"]["value"])):
        key = (e["pid"], e["name"])
        v = e["args"]["value"]
        if key in last and v != 0 and v <= last[key]:
            fail("counter %s went from %s to %s" % (e["name"], last[key], v))
        last[key] = v

    # Host phases carry the runs' correlation ids.
    device = [e for e in events if e["ph"] == "X" and e["pid"] in device_pids
              and e.get("cat") != "kernel"]
    runs = {e["args"]["correlation_id"] for e in device}
    host = [e for e in events if e["pid"] not in device_pids and e["ph"] in ("X", "i")]
    for phase in ("copy-in", "dispatch", "copy-out"):
        ids = {e["args"].get("correlation_id") for e in host if e["name"] == phase}
        if not runs <= ids:
            fail("host phase %s lacks correlation ids %s" % (phase, sorted(runs - ids)))
    if not any(e["name"] == "execute" for e in host):
        fail("no execute phase on the host")

    # The device clock starts at 0; the host clock is drawn after it, so no
    # device event lies inside a host slice (where a trace placing runs at
    # their dispatch draws them); otherData.clocks.runs gives each run's
    # dispatch on the host axis and its span on the device axis.
    on_device = [e for e in events if e["pid"] in device_pids and e["ph"] in ("X", "C")]
    if on_device and abs(min(e["ts"] for e in on_device)) > 1e-6:
        fail("device timestamps start at %f us, not 0" % min(e["ts"] for e in on_device))
    for h in host:
        if h["ph"] != "X":
            continue
        inside = [e for e in on_device if h["ts"] <= e["ts"] <= h["ts"] + h["dur"]]
        if inside:
            fail("%d device events lie inside the host slice %s [%f, %f] us, e.g. %r" %
                 (len(inside), h["name"], h["ts"], h["ts"] + h["dur"], inside[0]))
    dispatch = {e["args"]["correlation_id"]: e for e in host if e["name"] == "dispatch"}
    by_run = collections.defaultdict(list)
    for e in device:
        by_run[e["args"]["correlation_id"]].append(e)
    for rid, evs in by_run.items():
        r = run_clocks.get(rid)
        if r is None:
            fail("otherData.clocks.runs lacks run %d" % rid)
        if abs(r["host_dispatch_us"] - dispatch[rid]["ts"]) > 1e-6:
            fail("run %d: host_dispatch_us %f is not its dispatch's %f" %
                 (rid, r["host_dispatch_us"], dispatch[rid]["ts"]))
        lo, hi = min(e["ts"] for e in evs), max(e["ts"] + e["dur"] for e in evs)
        if lo < r["device_start_us"] - 1e-6 or hi > r["device_end_us"] + 1e-6:
            fail("run %d's device events [%f, %f] us lie outside its device span [%f, %f]" %
                 (rid, lo, hi, r["device_start_us"], r["device_end_us"]))

    # The runs follow each other on the chip's clock (cores side by side), so
    # the device events end within the summed device time of the runs.
    extent = max([e["ts"] + e["dur"] for e in device] + [0.0])
    runs_us = summary["summary"]["total_time"] * 1e6
    if extent > runs_us * (1 + 1e-6) + 1e-6:
        fail("device events end at %f us, past the runs' %f us of device time" % (extent, runs_us))

    # Kernel slices are the profile's kernel spans, one per call.
    spans = collections.defaultdict(lambda: [0, 0.0])
    for e in events:
        if e["ph"] == "X" and e.get("cat") == "kernel":
            k = spans[e["args"]["kernel"]]
            k[0] += 1
            k[1] += e["dur"] * 1e3
    for k in summary["kernels"]:
        name = k["program"] + "/" + k["name"]
        calls, span = spans.pop(name, (0, 0.0))
        if calls != k["calls"] or abs(span - k["span_ns"]) > 1e-6 * max(1.0, k["span_ns"]) + 1e-3:
            fail("kernel %s: %d slices spanning %.3f ns in the trace, %d calls spanning %.3f ns "
                 "in summary.json" % (name, calls, span, k["calls"], k["span_ns"]))
    if spans:
        fail("kernel slices of kernels summary.json does not list: %s" % sorted(spans))

    # Recompute from the trace and compare with summary.json.
    per_run = collections.defaultdict(lambda: [float("inf"), 0.0])
    hbm = dma = 0
    op_busy = collections.Counter()
    for e in device:
        r = per_run[e["args"]["correlation_id"]]
        r[0] = min(r[0], e["ts"] - (1.3 if e["name"] == "dma_copy" else 0))
        r[1] = max(r[1], e["ts"] + e["dur"])
        a = e["args"]
        if e["name"] == "dma_copy":
            hbm += a["bytes"] * ((a["from"] == "hbm") + (a["to"] == "hbm"))
            dma += a["bytes"]
        op_busy[(a.get("op", "(unknown)"), a.get("location", ""))] += e["dur"] * 1e3
    total_ns = summary["summary"]["total_time"] * 1e9
    if abs(hbm - (summary["summary"]["hbm_read_bytes"] + summary["summary"]["hbm_write_bytes"])) > 0:
        fail("HBM bytes from the trace %d differ from the summary's" % hbm)
    sm = summary["summary"]
    # A run of no instructions takes no time and moves nothing.
    hbm_mbu = 100 * hbm / total_ns / (sm["hbm_bandwidth_bytes_per_s"] / 1e9) if total_ns else 0
    dma_mbu = 100 * dma / total_ns / (sm["dma_bandwidth_bytes_per_s"] / 1e9) if total_ns else 0
    for metric, mbu in (("hbm_mbu_estimated_percent", hbm_mbu),
                        ("dma_mbu_estimated_percent", dma_mbu),
                        ("mbu_estimated_percent", max(hbm_mbu, dma_mbu))):
        if abs(mbu - sm[metric]) > 0.01:
            fail("%s from the trace %.3f differs from the summary's %.3f" % (metric, mbu, sm[metric]))
    # The HBM bandwidth is the chip's divided among the profiled cores; the
    # binding bandwidth is the smaller of it and the DMA peak.
    chip = {"trn1": (820e9, 2), "trn2": (2900e9, 8)}[summary["target"]]
    if not any(abs(sm["hbm_bandwidth_bytes_per_s"] * n - chip[0]) < 1 for n in range(1, chip[1] + 1)):
        fail("hbm_bandwidth_bytes_per_s is not the chip's divided among the profiled cores")
    if sm["memory_bandwidth_bytes_per_s"] != min(sm["hbm_bandwidth_bytes_per_s"],
                                                 sm["dma_bandwidth_bytes_per_s"]):
        fail("memory_bandwidth_bytes_per_s is not the smaller of the HBM and DMA bandwidths")
    for o in summary["ops"]:
        key = (o["name"], o["location"])
        if abs(op_busy[key] - o["busy_ns"]) > 1e-3 * max(1.0, o["busy_ns"]):
            fail("busy time of %s at %s: trace %.1f ns, summary %.1f ns" %
                 (o["name"], o["location"], op_busy[key], o["busy_ns"]))
    # The device time of a run lies within what its events span (the summary
    # also counts the last results becoming visible).
    summed = 0.0
    for rid, (lo, hi) in per_run.items():
        summed += (hi - lo) * 1e3
    if not (0.98 * summed <= total_ns <= 1.02 * summed + 2000 * len(per_run)):
        fail("device time %.1f ns is not what the trace spans (%.1f ns)" % (total_ns, summed))
    parts = sum(o["device_time_ns"] for o in summary["ops"])
    idle = summary["summary"]["idle_time_percent"] / 100 * total_ns
    if abs(parts + idle - total_ns) > 1e-6 * total_ns + 1:
        fail("op device times (%.1f) plus idle (%.1f) do not add up to %.1f" %
             (parts, idle, total_ns))
    print("OK %s: %d events, %d runs, %d device tracks, device time %.3f us, top op %s" %
          (os.path.basename(directory.rstrip("/")), len(events), len(per_run),
           len({k for k in by_thread if k[0] in device_pids}), total_ns / 1e3,
           summary["ops"][0]["name"] if summary["ops"] else "(none)"))
    return total_ns


if __name__ == "__main__":
    times = [check(d) for d in sys.argv[1:]]
    if len(times) == 2:
        print("ratio %.2f" % (times[0] / times[1]))
