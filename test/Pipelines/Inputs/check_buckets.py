"""Bucketed programs equal the unbucketed ones at every size.

For each program and every size up to its largest bucket (every grid point
for the 2-D one): the unbucketed program run by the interpreter at exactly
that size is the reference; the bucketed program on the interpreter must be
bit-identical to it, the bucketed executable on the simulator must agree
within the simulator's tolerance, and an independent numpy implementation
must agree with the reference. One exception to bit-identity: a mean over
the padded dim becomes sum / true count in f32, where the interpreter's
mean divides in double; those outputs must agree within 2 ulp instead.

usage: check_buckets.py BINDIR INPUTDIR WORKDIR
"""
import itertools
import os
import subprocess
import sys

import numpy as np

BIN, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(7)


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('FAILED: %s\n%s%s' % (' '.join(args), r.stdout, r.stderr))
    return r.stdout


def silu(x):
    return x / (1 + np.exp(-x))


def np_rmsnorm(x, w):
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + 1e-6) * w


def np_softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def np_attention(x, wq, wk, wv, wo):
    q, k, v = x @ wq, x @ wk, x @ wv
    p = np_softmax((q @ k.T) * 0.17677669)
    return (p @ v) @ wo + x


def np_pool(x):
    y = silu(x)
    return y.mean(axis=1), y.max(axis=1)


def weights(*shapes):
    return [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]


# Outputs that are a mean over a padded dim (per program).
MEANS = {'grid': {0}}

PROGRAMS = [
    # name, bucket spec, sizes to try, inputs for a size, numpy reference
    ('rmsnorm', 'seq:4,8,16', [(n,) for n in range(1, 17)],
     lambda n, w=weights((64,)): [rng.standard_normal((n[0], 64)).astype(np.float32)] + w,
     lambda x, w: [np_rmsnorm(x, w)]),
    ('softmax', 'keys:4,8,16', [(n,) for n in range(1, 17)],
     lambda n: [(rng.standard_normal((8, n[0])) * 3).astype(np.float32)],
     lambda s: [np_softmax(s)]),
    ('attention', 'seq:4,8,16', [(n,) for n in range(1, 17)],
     lambda n, w=weights(*[(32, 32)] * 4): [rng.standard_normal((n[0], 32)).astype(np.float32)] + w,
     lambda *a: [np_attention(*a)]),
    # Large buckets: the edges of each bucket and a random sample.
    ('rmsnorm', 'seq:auto:128:1024',
     [(n,) for n in sorted({1, 127, 128, 129, 255, 256, 257, 1023, 1024} |
                           set(int(v) for v in rng.integers(1, 1025, 6)))],
     lambda n, w=weights((64,)): [rng.standard_normal((n[0], 64)).astype(np.float32)] + w,
     lambda x, w: [np_rmsnorm(x, w)]),
    ('grid', 'batch:1,2,4;seq:4,8', list(itertools.product(range(1, 5), range(1, 9))),
     lambda n: [rng.standard_normal((n[0], n[1], 16)).astype(np.float32)],
     lambda x: list(np_pool(x))),
]

checked = 0
for name, spec, sizes, make, reference in PROGRAMS:
    src = os.path.join(SRC, name + '.mlir')
    neff = os.path.join(WORK, name + spec.replace(':', '_').replace(';', '_') + '.neff')
    run(os.path.join(BIN, 'neuronc'), src, '--buckets=' + spec, '-o', neff)
    worst_sim = worst_np = 0.0
    for n in sizes:
        tag = '%s_%s' % (name, 'x'.join(map(str, n)))
        ins = make(n)
        paths = []
        for i, a in enumerate(ins):
            p = os.path.join(WORK, '%s_in%d.npy' % (tag, i))
            np.save(p, a)
            paths.append(p)
        inputs = [arg for p in paths for arg in ('--input', p)]
        outs = {}
        for mode, extra in (('ref', [src]), ('bucketed', [src, '--buckets=' + spec]),
                            ('sim', [neff])):
            files = [os.path.join(WORK, '%s_%s%d.npy' % (tag, mode, k))
                     for k in range(len(reference(*ins)))]
            run(os.path.join(BIN, 'neuron-run'), *extra, *inputs,
                *[arg for f in files for arg in ('--output', f)])
            outs[mode] = [np.load(f) for f in files]
        for k, (ref, bk, sim, npy) in enumerate(
                zip(outs['ref'], outs['bucketed'], outs['sim'], reference(*ins))):
            if ref.shape != npy.shape or bk.shape != ref.shape or sim.shape != ref.shape:
                sys.exit('%s output %d: shapes ref %s bucketed %s sim %s numpy %s' %
                         (tag, k, ref.shape, bk.shape, sim.shape, npy.shape))
            if k in MEANS.get(name, ()):
                ulps = np.abs(ref.view(np.int32).astype(np.int64) -
                              bk.view(np.int32).astype(np.int64)).max()
                if ulps > 2:
                    sys.exit('%s output %d: the bucketed mean differs from the static one by '
                             '%d ulp' % (tag, k, ulps))
            elif not np.array_equal(ref, bk):
                sys.exit('%s output %d: the bucketed program differs from the static one by '
                         'up to %g' % (tag, k, np.abs(ref - bk).max()))
            scale = max(1.0, float(np.abs(ref).max()))
            err_sim = float(np.abs(ref - sim).max()) / scale
            err_np = float(np.abs(ref - npy).max()) / scale
            if err_sim > 1e-4:
                sys.exit('%s output %d: simulator differs by %g (relative)' % (tag, k, err_sim))
            if err_np > 1e-4:
                sys.exit('%s output %d: numpy differs by %g (relative)' % (tag, k, err_np))
            worst_sim, worst_np = max(worst_sim, err_sim), max(worst_np, err_np)
        checked += 1
    print('%s: %d sizes, bucketed == static bit for bit%s, simulator within %.1e, numpy '
          'within %.1e' % (name, len(sizes), ' (means within 2 ulp)' if name in MEANS else '',
                           worst_sim, worst_np))
print('checked %d sizes' % checked)
