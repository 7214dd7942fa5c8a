#!/usr/bin/env python3
"""DMA throughput against run length and stride, through the whole path.

For each contiguous run length it writes a hand-written nisa program that
loads [128 partitions x F] f32 tiles from HBM on all 16 DMA queues (8
transfers per queue, so start latencies overlap), compiles it with neuronc,
simulates it with neuron-run and prints the bandwidth the core reached beside
the model's curve (docs/hardware-model.md#dma-efficiency) and the regime the
NKI DMA bandwidth guide names for that run length. A second table does the
same for an element-strided (transposing) load.

    test/calibration/dma_curve.py [BUILD_BIN] [--target trn1|trn2] [--check]

--check exits 1 when a measured point leaves its regime's band.
"""
import json
import os
import subprocess
import sys
import tempfile

QUEUES, PER_QUEUE, P = 16, 8, 128
RUN_OVERHEAD = 256  # dmaRunOverheadBytes (lib/ISA/HardwareModel.cpp)
PEAK = {"trn1": 16 * 17.0, "trn2": 16 * 23.0}  # DMA engines x B/ns per engine


def regime(run_bytes):
    """The DMA bandwidth guide's regime and the band of the peak this script
    reads it as (the guide gives words, not numbers): severely overhead-bound
    is under half, improving is 30-90 %, approaching peak 75 % or more,
    saturated 85 % or more (trn2's 600 ns per-DMA descriptor generation costs
    a few per cent even on 512 KiB transfers)."""
    if run_bytes < 256:
        return "severely overhead-bound", 0.0, 0.5
    if run_bytes < 2048:
        return "improving, below peak", 0.3, 0.9
    if run_bytes < 4096:
        return "approaches peak", 0.75, 1.0
    return "saturates", 0.85, 1.0


def program(target, free, transpose):
    """Loads of [128, free] f32 tiles; `transpose` reads the HBM side with an
    element stride (every element its own run)."""
    lines = ['nisa.program @main target "%s" {' % target]
    total = QUEUES * PER_QUEUE
    lines.append("  nisa.hbm @x input 0 : tensor<%dx%dxf32>" % (total * P, free))
    lines.append("  nisa.hbm @y output 0 : tensor<%dx1xf32>" % P)
    lines.append('  nisa.kernel @k0 "dma" from "calibration" {')
    for q in range(QUEUES):
        # Loads nobody reads: the tiles only absorb the traffic.
        lines.append("    nisa.alloc @t%d sbuf %dx%dxf32 discard" % (q, P, free))
    lines.append("    nisa.alloc @o sbuf %dx1xf32" % P)
    for i in range(PER_QUEUE):
        for q in range(QUEUES):
            base = (i * QUEUES + q) * P * free
            if transpose:
                # Element (p, f) from x[base + f * 128 + p]: runs of one element.
                src = "@x[%d, [1,%d], [%d,%d]]" % (base, P, P, free)
            else:
                src = "@x[%d, [%d,%d], [1,%d]]" % (base, free, P, free)
            lines.append("    nisa.dma_copy q%d @t%d[0:%d, 0, [1,%d]] = %s" % (q, q, P, free, src))
    # The program's one small output, so that the run has a result.
    lines.append("    nisa.dma_copy q0 @o[0:%d, 0, [1,1]] = @x[0, [%d,%d], [1,1]]" % (P, free, P))
    lines.append("    nisa.dma_copy q0 @y[0, [1,%d], [1,1]] = @o[0:%d, 0, [1,1]]" % (P, P))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def measure(bindir, target, free, transpose, tmp):
    src = os.path.join(tmp, "k.mlir")
    with open(src, "w") as f:
        f.write(program(target, free, transpose))
    neff = os.path.join(tmp, "k.neff")
    subprocess.run([os.path.join(bindir, "neuronc"), "--no-cache", src, "-o", neff], check=True)
    prof = os.path.join(tmp, "prof")
    subprocess.run([os.path.join(bindir, "neuron-run"), neff, "--random-inputs", "--no-data",
                    "--profile=" + prof], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(prof, "summary.json")) as f:
        s = json.load(f)["summary"]
    loaded = QUEUES * PER_QUEUE * P * free * 4
    return loaded / (s["total_time"] * 1e9)  # bytes per ns = GB/s


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    bindir = args[0] if args else os.path.join(os.path.dirname(__file__), "../../build/bin")
    target = "trn2" if "--target" in sys.argv and "trn2" in sys.argv else "trn1"
    check = "--check" in sys.argv
    peak = PEAK[target]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        print("DMA loads on %s, %d queues x %d transfers of [128 x F] f32, peak %.0f GB/s per core"
              % (target, QUEUES, PER_QUEUE, peak))
        print("%10s %10s %12s %9s %9s  %s" % ("run bytes", "KiB/DMA", "GB/s", "of peak",
                                              "curve", "guide's regime"))
        for free in (1, 4, 16, 64, 128, 256, 512, 1024, 2048):
            run = 4 * free
            gbps = measure(bindir, target, free, False, tmp)
            frac = gbps / peak
            name, lo, hi = regime(run)
            curve = run / (run + RUN_OVERHEAD)
            flag = "" if lo <= frac <= hi else "  <-- outside the band [%.0f %%, %.0f %%]" % (
                100 * lo, 100 * hi)
            bad += bool(flag)
            print("%10d %10.1f %12.1f %8.1f%% %8.1f%%  %s%s" % (
                run, P * run / 1024, gbps, 100 * frac, 100 * curve, name, flag))
        print()
        print("Element-strided (transposing) loads, 4-byte runs")
        print("%10s %12s %9s" % ("F", "GB/s", "of peak"))
        for free in (64, 512):
            gbps = measure(bindir, target, free, True, tmp)
            print("%10d %12.2f %8.2f%%" % (free, gbps, 100 * gbps / peak))
    if check and bad:
        print("%d point(s) outside their regime's band" % bad)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
