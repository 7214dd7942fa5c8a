#!/usr/bin/env python3
"""Compiles every shared model (each function) for trn1 and trn2, fused and
-O0, reads each executable back with neuron-inspect --json and prints one line
per compile: the program's kernel count, its instruction count and the verdict
of its static roofline. Compiling runs the race checker on every program.

Usage: compile_models.py NEURONC NEURON_INSPECT MODELS_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

neuronc, inspect, models, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
failures = 0
lines = []
for dirpath, _, files in sorted(os.walk(models)):
    for name in sorted(files):
        if not name.endswith('.mlir'):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, models)
        for target in ('trn1', 'trn2'):
            for opt in ('-O2', '-O0'):
                out = os.path.join(work, rel.replace('/', '_') + '.' + target + opt + '.neff')
                r = subprocess.run([neuronc, path, '--return-printed', '--target=' + target, opt,
                                    '-o', out], capture_output=True, text=True)
                if r.returncode:
                    failures += 1
                    errors = [l for l in r.stderr.splitlines() if 'error' in l]
                    lines.append('FAIL %s %s %s: %s' % (rel, target, opt, errors[:3]))
                    continue
                d = json.loads(subprocess.run([inspect, out, '--json'], check=True,
                                              capture_output=True, text=True).stdout)
                assert d['target'] == target, d['target']
                for p in d['programs']:
                    n = sum(s['instructions'] for s in p['streams'])
                    lines.append('OK %s %s %s @%s kernels=%d instructions=%d %s' % (
                        rel, target, opt, p['name'], len(p['kernels']), n,
                        p['roofline']['verdict']))
                os.remove(out)
print('\n'.join(lines))
print('compiled: %d failed' % failures)
sys.exit(1 if failures else 0)
