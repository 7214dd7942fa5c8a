#!/usr/bin/env python3
"""The NKI matrix-multiplication tutorial's kernels as hand-written nisa.

aws-neuron-sdk `nki/examples/matrix_multiplication/matrix_multiplication_nki_kernels.py`
gives four kernels for result[M,N] = lhsT[K,M]^T @ rhs[K,N] in bf16, and the
tutorial (`nki/tutorials/matrix_multiplication`, "Testing Correctness and
Benchmarking") their latencies on Trn1 at M=4096, K=8192, N=8192. This script
writes each kernel's loops out as engine instructions, one instruction per
NKI ISA call, compiles them with neuronc (which inserts the semaphores and
places the tiles), simulates them and prints simulated beside published.

Translation rules, the same for every kernel (the tutorial does not say how
its compiler buffers loop-local tiles; these are this script's choices):
  - a tile allocated inside a loop rotates among BUFFERS copies (--buffers);
    tiles the source keeps in lists (hoisted loads) rotate among 2 copies of
    the list where two fit SBUF, else 1;
  - DMAs go round robin over the 16 queues;
  - PSUM accumulators, also allocated inside loops, rotate among
    min(BUFFERS, 8) banks.
The kernels' outer M loop (N for the fully optimized one) repeats identical
work, so --scale S simulates 1/S of it and multiplies the time by S.

    test/calibration/nki_matmul.py [BUILD_BIN] [--buffers B] [--scale S] [--check]

--check exits 1 unless the simulated latencies keep the published order
(the one claim of the tutorial the model reproduces today; see
docs/simulator.md#simulated-vs-published).
"""
import os
import subprocess
import sys
import tempfile

TM, TK, TN = 128, 128, 512
PSUM_BANKS = 8  # a [128, 512] f32 accumulator fills one 2 KiB bank of PSUM
PUBLISHED = {  # ms, hardware FLOPs utilization %
    "tiled": (51.80, 10.98),
    "hoist_load": (42.96, 13.24),
    "block_free_dimension": (22.07, 26.51),
    "fully_optimized": (6.97, 85.24),
}


class Writer:
    def __init__(self, name, M, K, N):
        self.lines = ['nisa.program @%s target "trn1" {' % name,
                      "  nisa.hbm @lhsT input 0 : tensor<%dx%dxbf16>" % (K, M),
                      "  nisa.hbm @rhs input 1 : tensor<%dx%dxbf16>" % (K, N),
                      "  nisa.hbm @res output 0 : tensor<%dx%dxbf16>" % (M, N),
                      '  nisa.kernel @k0 "matmul" from "nki_matmul_%s_" {' % name]
        self.body = []
        self.q = 0
        self.M, self.K, self.N = M, K, N

    def alloc(self, name, space, p, f, t="bf16"):
        self.lines.append("    nisa.alloc @%s %s %dx%dx%s" % (name, space, p, f, t))

    def results(self, B, name="s", nf=TN):
        """PSUM accumulators (min(B, 8) banks) and B result staging tiles
        `name`0.. of nf columns, each rotating as a loop-local tile does.
        Returns the number of accumulators."""
        P = min(B, PSUM_BANKS)
        for b in range(P):
            self.alloc("p%d" % b, "psum", 128, TN, "f32")
        for b in range(B):
            self.alloc("%s%d" % (name, b), "sbuf", 128, nf)
        return P

    def load(self, tile, f0, nf, src, base, stride):
        """tile[:, f0:f0+nf] = src[base + p*stride + (0..nf)] over 128 partitions."""
        self.body.append("    nisa.dma_copy q%d @%s[0:128, %d, [1,%d]] = @%s[%d, [%d,128], [1,%d]]"
                         % (self.q % 16, tile, f0, nf, src, base, stride, nf))
        self.q += 1

    def store(self, tile, nf, base):
        self.body.append("    nisa.dma_copy q%d @res[%d, [%d,128], [1,%d]] = @%s[0:128, 0, [1,%d]]"
                         % (self.q % 16, base, self.N, nf, tile, nf))
        self.q += 1

    def matmul(self, psum, stat, s0, mov, m0, start):
        self.body.append("    nisa.load_stationary @%s[0:128, %d, [1,128]]" % (stat, s0))
        self.body.append("    nisa.multiply_moving @%s[0:128, 0, [1,512]] = @%s[0:128, %d, [1,512]]%s"
                         % (psum, mov, m0, " start" if start else ""))

    def copy(self, dst, d0, src, n, engine="vector"):
        self.body.append("    nisa.tensor_copy %s @%s[0:128, %d, [1,%d]] = @%s[0:128, 0, [1,%d]]"
                         % (engine, dst, d0, n, src, n))

    def text(self):
        return "\n".join(self.lines + self.body + ["  }", "}"]) + "\n"


def tiled(M, K, N, B):
    w = Writer("tiled", M, K, N)
    for b in range(B):
        w.alloc("l%d" % b, "sbuf", 128, TM)
        w.alloc("r%d" % b, "sbuf", 128, TN)
    P = w.results(B)
    it = out = 0
    for m in range(M // TM):
        for n in range(N // TN):
            p = out % P
            o = out % B
            out += 1
            for k in range(K // TK):
                b = it % B
                it += 1
                w.load("l%d" % b, 0, TM, "lhsT", k * TK * M + m * TM, M)
                w.load("r%d" % b, 0, TN, "rhs", k * TK * N + n * TN, N)
                w.matmul("p%d" % p, "l%d" % b, 0, "r%d" % b, 0, k == 0)
            w.copy("s%d" % o, 0, "p%d" % p, TN)
            w.store("s%d" % o, TN, m * TM * N + n * TN)
    return w.text()


def hoist_load(M, K, N, B, block_m=1, block_n=1, name="hoist_load", sets=2):
    """hoist_load is block_free_dimension with blocks of one tile. The
    hoisted lists rotate among `sets` copies (2 when they fit SBUF twice)."""
    KT = K // TK
    w = Writer(name, M, K, N)
    for s in range(sets):
        for bm in range(block_m):
            w.alloc("l%d_%d" % (s, bm), "sbuf", 128, KT * TM)
        for bn in range(block_n):
            w.alloc("r%d_%d" % (s, bn), "sbuf", 128, KT * TN)
    P = w.results(B)
    out = rset = 0
    for m in range(M // (TM * block_m)):
        ls = m % sets
        for bm in range(block_m):
            mt = m * block_m + bm
            for k in range(KT):
                w.load("l%d_%d" % (ls, bm), k * TM, TM, "lhsT", k * TK * M + mt * TM, M)
        for n in range(N // (TN * block_n)):
            rs = rset % sets
            rset += 1
            for bn in range(block_n):
                nt = n * block_n + bn
                for k in range(KT):
                    w.load("r%d_%d" % (rs, bn), k * TN, TN, "rhs", k * TK * N + nt * TN, N)
            for bm in range(block_m):
                for bn in range(block_n):
                    p, o = out % P, out % B
                    out += 1
                    for k in range(KT):
                        w.matmul("p%d" % p, "l%d_%d" % (ls, bm), k * TM, "r%d_%d" % (rs, bn),
                                 k * TN, k == 0)
                    w.copy("s%d" % o, 0, "p%d" % p, TN)
                    w.store("s%d" % o, TN, (m * block_m + bm) * TM * N + (n * block_n + bn) * TN)
    return w.text()


def block_free_dimension(M, K, N, B):
    # Its lists (2 x 64 rhs tiles of [128, 512], 2 x 64 lhsT tiles) fill
    # 160 KiB of a partition's 192: one copy only.
    return hoist_load(M, K, N, B, 2, 2, "block_free_dimension", sets=1)


def fully_optimized(M, K, N, B, TBM=16, TBN=2, TBK=8):
    BM, BN, BK = TM * TBM, TN * TBN, TK * TBK
    w = Writer("fully_optimized", M, K, N)
    NBM = M // BM
    for m in range(NBM):
        for bm in range(TBM):
            w.alloc("acc%d_%d" % (m, bm), "sbuf", 128, BN)  # the bn tiles side by side
    for s in range(2):
        for bk in range(TBK):
            w.alloc("r%d_%d" % (s, bk), "sbuf", 128, BN)
            w.alloc("l%d_%d" % (s, bk), "sbuf", 128, BM)
    P = w.results(B, "packed", BN)
    lset = rset = out = packed = 0
    for n in range(N // BN):
        for m in range(NBM):
            for bm in range(TBM):
                w.body.append("    nisa.memset vector @acc%d_%d[0:128, 0, [1,%d]] = 0.0" % (m, bm, BN))
        for k in range(K // BK):
            rs = rset % 2
            rset += 1
            for bk in range(TBK):
                w.load("r%d_%d" % (rs, bk), 0, BN, "rhs", (TBK * k + bk) * TK * N + BN * n, N)
            for m in range(NBM):
                ls = lset % 2
                lset += 1
                for bk in range(TBK):
                    w.load("l%d_%d" % (ls, bk), 0, BM, "lhsT", (TBK * k + bk) * TK * M + BM * m, M)
                for bn in range(TBN):
                    for bm in range(TBM):
                        p = out % P
                        out += 1
                        for bk in range(TBK):
                            w.matmul("p%d" % p, "l%d_%d" % (ls, bk), bm * TM, "r%d_%d" % (rs, bk),
                                     bn * TN, bk == 0)
                        acc = "@acc%d_%d[0:128, %d, [1,%d]]" % (m, bm, bn * TN, TN)
                        w.body.append("    nisa.tensor_tensor vector add %s = %s, @p%d[0:128, 0, [1,%d]]"
                                      % (acc, acc, p, TN))
        for m in range(NBM):
            for bm in range(TBM):
                o = packed % B
                packed += 1
                w.copy("packed%d" % o, 0, "acc%d_%d" % (m, bm), BN)
                w.store("packed%d" % o, BN, (TBM * m + bm) * TM * N + BN * n)
    return w.text()


KERNELS = [("tiled", tiled, "M"), ("hoist_load", hoist_load, "M"),
           ("block_free_dimension", block_free_dimension, "M"),
           ("fully_optimized", fully_optimized, "N")]


def run(bindir, text, tmp):
    src = os.path.join(tmp, "k.mlir")
    with open(src, "w") as f:
        f.write(text)
    neff = os.path.join(tmp, "k.neff")
    subprocess.run([os.path.join(bindir, "neuronc"), "--no-cache", src, "-o", neff], check=True)
    out = subprocess.run([os.path.join(bindir, "neuron-run"), neff, "--no-data"], check=True,
                         capture_output=True, text=True).stdout
    # "@name: timing only, device time 123.456 us on trn1 (...)"
    return float(out.split("device time ")[1].split(" us")[0])


def main():
    args = sys.argv[1:]
    def opt(name, default):
        return int(args[args.index(name) + 1]) if name in args else default
    B, S = opt("--buffers", 8), opt("--scale", 8)
    pos = [a for i, a in enumerate(args) if not a.startswith("--") and
           (i == 0 or args[i - 1] not in ("--buffers", "--scale"))]
    bindir = pos[0] if pos else os.path.join(os.path.dirname(__file__), "../../build/bin")
    M, K, N = 4096, 8192, 8192
    flops = 2.0 * M * K * N
    print("NKI matmul tutorial, [%d,%d] @ [%d,%d] bf16 on trn1; %d buffers per loop tile, "
          "1/%d simulated and scaled" % (M, K, K, N, B, S))
    print("%-22s %12s %12s %8s %10s %10s" % ("kernel", "simulated", "published", "ratio",
                                             "HFU sim", "HFU pub"))
    simulated = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, gen, outer in KERNELS:
            m, n = (M // S, N) if outer == "M" else (M, N // S)
            us = run(bindir, gen(m, K, n, B), tmp) * S
            ms = us / 1e3
            pub_ms, pub_hfu = PUBLISHED[name]
            hfu = 100 * flops / (ms * 1e-3) / 91.75e12
            print("%-22s %9.2f ms %9.2f ms %7.2fx %9.2f%% %9.2f%%" % (
                name, ms, pub_ms, ms / pub_ms, hfu, pub_hfu))
            simulated.append(ms)
    ordered = all(a > b for a, b in zip(simulated, simulated[1:]))
    print("published order (each kernel faster than the one before): %s" %
          ("kept" if ordered else "NOT kept"))
    if "--check" in args and not ordered:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
